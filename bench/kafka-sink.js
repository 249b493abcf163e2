#!/usr/bin/env node
/**
 * The exactly-once Kafka sink (consume → transform → produce in one transaction with the consumed offsets, KIP-447)
 * against a hand-written KafkaJS transactional loop, and exactly-once against at-least-once produce of the same
 * records, on the same mock cluster (alone in a child process), in the same run, interleaved (order rotated each
 * round), medians of per-round ratios.
 *
 *   npm run build && node bench/kafka-sink.js [--rows 40000] [--batch 2000] [--rounds 5]
 *
 * Workload: `rows` flight records (JSON values, ~100 bytes) as the consumer hands them to a sink: writes of `batch`
 * records of one input partition (6 partitions in turn), contiguous offsets. Each write becomes one output record
 * per input record on an output topic of 6 partitions, keyed "<source partition>:<source offset>" (the demo's
 * key), the value passed through; the transform runs inside every variant's clock. Each variant produces to a fresh
 * output topic (`flights-out-<pid>-<n>`) and commits to a fresh group (offsets of the input topic `flights`, which
 * exists), both made before its clock; its producer is connected (and, when transactional, InitProducerId done) before
 * the clock; the clock stops after the last commit (or acknowledgement). Output partitions: the default partitioner
 * (murmur2 of the key) for every variant.
 *
 * Variants:
 * - `kafkajsTxn` (the baseline): one KafkaJS 2.2.4 transactional producer (idempotent, maxInFlightRequests 1), per
 *   write `transaction()`, `send()` of the outputs (acks -1), `sendOffsets()` of the write's next offset for the group,
 *   `commit()`: what KafkaJS's docs show, with one producer for every partition (no KIP-447 fencing: KafkaJS sends
 *   TxnOffsetCommit without the group's generation).
 * - `kafkaSink` (ours, when the build has src/sinks/kafka): KafkaSink.write of the same writes, one transaction each.
 * - `atLeastOnce`: one KafkaJS idempotent producer, per write `send()` of the same outputs (acks -1), no transaction
 *   and no offsets (a consumer commits them apart, later): the cost exactly-once adds to producing.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { Kafka, logLevel } = require('kafkajs');
const { flightWrites } = require('./lib/workload.js');
const { interleave, figure, table, arg, helpAndExit } = require('./lib/figures.js');
const { startOursChild } = require('./lib/harness.js');

const PARTITIONS = 6;
const INPUT = 'flights';

/** The writes of the workload (records of topic `flights`, one partition per write). */
const workload = (rows, batch) => [...flightWrites({ rows, batch, partitions: PARTITIONS, topic: INPUT })];

const clock = () => ({ t: process.hrtime.bigint(), c: process.cpuUsage() });
const elapsed = (st) => {
  const c = process.cpuUsage(st.c);
  return { s: Number(process.hrtime.bigint() - st.t) / 1e9, cpu: (c.user + c.system) / 1e6 };
};

/** The transform of every variant: one output per input record, keyed by its source coordinates, value passed through. */
const outputs = (w) => w.records.map((r) => ({ key: `${r.partition}:${r.offset}`, value: r.value }));

let seq = 0;
/** A fresh output topic and group for one run, created before its clock. */
async function fresh(admin) {
  const n = seq++;
  const topic = `flights-out-${process.pid}-${n}`;
  await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 3 }], waitForLeaders: true });
  return { topic, group: `bench-kafka-sink-${process.pid}-${n}`, transactionalId: `bench-txn-${process.pid}-${n}` };
}

/**
 * After a run, outside its clock: the run's output topic holds at least `rows` offsets (records, plus markers when
 * transactional) and, when the run committed offsets, the group's committed offsets add up to `rows` (each partition's
 * last next offset). A variant that did less work would not be compared.
 */
async function checkRun(admin, run, rows, committed) {
  const out = (await admin.fetchTopicOffsets(run.topic)).reduce((n, p) => n + Number(p.high), 0);
  if (out < rows) throw new Error(`${run.topic}: ${out} offsets, expected at least ${rows}`);
  if (!committed) return;
  const [t] = await admin.fetchOffsets({ groupId: run.group, topics: [INPUT] });
  const sum = t.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
  if (sum !== rows) throw new Error(`${run.group}: committed offsets add up to ${sum}, expected ${rows}`);
}

/** The hand-written KafkaJS transactional loop. */
async function kafkajsTxn(kafka, admin, writes) {
  const run = await fresh(admin);
  const producer = kafka.producer({ transactionalId: run.transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect(); // InitProducerId happens here, before the clock
  const t0 = clock();
  for (const w of writes) {
    const txn = await producer.transaction();
    try {
      await txn.send({ topic: run.topic, acks: -1, messages: outputs(w) });
      await txn.sendOffsets({
        consumerGroupId: run.group, topics: [{ topic: w.topic, partitions: [{ partition: w.partition, offset: String(w.nextOffset) }] }],
      });
      await txn.commit();
    } catch (e) {
      await txn.abort().catch(() => undefined);
      throw e;
    }
  }
  const s = elapsed(t0);
  await producer.disconnect();
  await checkRun(admin, run, writes.reduce((n, w) => n + w.records.length, 0), true);
  return s;
}

/** At-least-once produce of the same outputs: idempotent producer, acks -1, no transaction, no offsets. */
async function atLeastOnce(kafka, admin, writes) {
  const run = await fresh(admin);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const t0 = clock();
  for (const w of writes) await producer.send({ topic: run.topic, acks: -1, messages: outputs(w) });
  const s = elapsed(t0);
  await producer.disconnect();
  await checkRun(admin, run, writes.reduce((n, w) => n + w.records.length, 0), false);
  return s;
}

/**
 * KafkaSink.write of the same writes (the outputs built in the clock, as a record handler returns them), one
 * transaction each, with generation -1 (no group member: as the baseline's TxnOffsetCommit, which carries none).
 * open() (InitProducerId, OffsetFetch) before the clock.
 */
async function kafkaSink(KafkaSink, kafka, admin, writes) {
  const run = await fresh(admin);
  const sink = new KafkaSink({ kafka, transactionalId: run.transactionalId });
  const tps = [...Array(PARTITIONS).keys()].map((partition) => ({ topic: INPUT, partition }));
  await sink.open(run.group, tps);
  const t0 = clock();
  for (const w of writes) {
    const res = await sink.write(run.group, [{ ...w, outputs: outputs(w).map((o) => ({ topic: run.topic, key: o.key, value: o.value })) }]);
    if (res.status !== 'committed') throw new Error(`KafkaSink answered ${JSON.stringify(res)}`);
  }
  const s = elapsed(t0);
  await sink.close();
  await checkRun(admin, run, writes.reduce((n, w) => n + w.records.length, 0), true);
  return s;
}

/** KafkaSink of this build, or null when the build has none (src/sinks/kafka not merged yet). */
function kafkaSinkModule() {
  try {
    return require('../dist/sinks/kafka');
  } catch {
    return null;
  }
}

/** Runs the figures; returns them (bench/run.js `--only kafka`). */
async function runKafkaSink({ rows = 40000, batch = 2000, rounds = 5, log = () => undefined } = {}) {
  const writes = workload(rows, batch);
  const mock = await startOursChild([[INPUT, PARTITIONS]], { group: { initialRebalanceDelayMs: 0 } });
  const kafka = new Kafka({ clientId: 'bench-kafka-sink', brokers: mock.bootstrap, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const sinkModule = kafkaSinkModule();
    log(`Kafka sink: ${rows} records in writes of ${batch}, ${rounds} rounds, mock in a child process`
      + `${sinkModule ? '' : ' (no KafkaSink in this build: baselines only)'}`);
    const variants = {
      kafkajsTxn: () => kafkajsTxn(kafka, admin, writes),
      atLeastOnce: () => atLeastOnce(kafka, admin, writes),
      ...(sinkModule ? { kafkaSink: () => kafkaSink(sinkModule.KafkaSink, kafka, admin, writes) } : {}),
    };
    const times = await interleave(variants, rounds, log, variants);
    const cpu = (name, ours, base, a, b) => ({ ...figure(name, 'rows/s', rows, ours, base, a, b), rateUnit: false });
    const sinkFigures = !sinkModule ? [] : [
      figure('Kafka sink (exactly-once, one transaction per write) vs a hand-written KafkaJS transactional loop', 'rows/s', rows,
        'KafkaSink', 'KafkaJS txn + sendOffsets', times.kafkaSink, times.kafkajsTxn, 1.0),
      cpu('  the same, CPU seconds of this process', 'KafkaSink', 'KafkaJS txn + sendOffsets', times.cpu.kafkaSink, times.cpu.kafkajsTxn),
      figure('Kafka sink (exactly-once) vs at-least-once produce of the same records', 'rows/s', rows,
        'KafkaSink', 'KafkaJS idempotent send', times.kafkaSink, times.atLeastOnce),
      cpu('  the same, CPU seconds of this process', 'KafkaSink', 'KafkaJS idempotent send', times.cpu.kafkaSink, times.cpu.atLeastOnce),
    ];
    return [
      ...sinkFigures,
      figure('KafkaJS transactional loop (exactly-once produce) vs at-least-once produce of the same records', 'rows/s', rows,
        'KafkaJS txn + sendOffsets', 'KafkaJS idempotent send', times.kafkajsTxn, times.atLeastOnce),
      cpu('  the same, CPU seconds of this process', 'KafkaJS txn + sendOffsets', 'KafkaJS idempotent send',
        times.cpu.kafkajsTxn, times.cpu.atLeastOnce),
    ].map((f) => ({ ...f, batch }));
  } finally {
    await admin.disconnect();
    await mock.stop();
  }
}

module.exports = { runKafkaSink };

if (require.main === module) {
  helpAndExit(__filename);
  runKafkaSink({
    rows: Number(arg('--rows', 40000)), batch: Number(arg('--batch', 2000)), rounds: Number(arg('--rounds', 5)), log: console.log,
  }).then((figs) => console.log(`\n${table(figs)}\n`)).catch((e) => { console.error(e); process.exit(1); });
}
