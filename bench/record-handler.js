#!/usr/bin/env node
/**
 * The cost of one record: kafka-eos's `recordHandler` against its batch `handler` on the same topic (at-least-once,
 * the same trivial work per record), with KafkaJS's own eachMessage and eachBatch as references. One member per run,
 * each in a fresh child process; the mock cluster in another child (as a real broker would be). Each variant's clock
 * runs from its first record to its last (group join and start-up excluded), wall and CPU time of the consumer process.
 * Variants interleaved, order rotated each round; ratios are medians of per-round ratios; the load average is
 * printed with every round.
 *
 *   npm run build && node bench/record-handler.js [--rows 300000] [--rounds 5] [--compression none|lz4] [--profile dir]
 *     [--before path/to/other/dist]
 *
 * --before: also runs the record handler of another build (e.g. the code before a change), interleaved.
 * --profile dir: the kafka-eos variants run under `node --cpu-prof --cpu-prof-dir dir` (V8 profiles, one per run).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { fork } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const { Kafka, logLevel } = require('kafkajs');
const { startOursChild } = require('./lib/harness.js');
const { flightsDataset } = require('./lib/workload.js');
const { interleave, figure, table, arg, helpAndExit } = require('./lib/figures.js');

const PARTITIONS = 6;

function runChild(mode, bootstrap, topic, n, profileDir, beforeDist) {
  const execArgv = profileDir && !mode.startsWith('kafkajs') ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const env = mode === 'record-before' ? { ...process.env, KAFKA_EOS_BENCH_DIST: beforeDist } : process.env;
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'lib', 'handler-child.js'), [mode, bootstrap.join(','), topic, String(n)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv, env });
    let result;
    child.on('message', (m) => { result = m; });
    child.on('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`${mode} child exited ${code}`))));
  });
}

/** `n` flight records (JSON, ~150 bytes each) over the topic's partitions, in sends of 5000. */
async function produce(bootstrap, topic, n, compression) {
  const kafka = new Kafka({ brokers: bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const flights = flightsDataset();
  let bytes = 0;
  for (let i = 0; i < n; i += 5000) {
    const messages = [];
    for (let j = i; j < Math.min(n, i + 5000); j++) {
      const value = JSON.stringify({ ...flights[j % flights.length], seq: j });
      bytes += value.length;
      messages.push({ key: String(j % 997), value });
    }
    await producer.send({ topic, messages, compression });
  }
  await producer.disconnect();
  return bytes / n;
}

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

/** Record handler vs batch handler (and KafkaJS's eachMessage / eachBatch). @returns the figures. */
async function runRecordHandler({ rows = 300000, rounds = 5, compression = 'none', profileDir, beforeDist, log = () => undefined } = {}) {
  // The mock-broker entry point registers the lz4, snappy and zstd codecs with KafkaJS (and the child's consumer does too).
  const { CompressionTypes } = require('kafkajs');
  require('../dist/mock-broker');
  const codec = compression === 'lz4' ? CompressionTypes.LZ4 : CompressionTypes.None;
  const topic = 'records';
  const mock = await startOursChild([[topic, PARTITIONS]], { group: { initialRebalanceDelayMs: 0 } });
  try {
    const size = await produce(mock.bootstrap, topic, rows, codec);
    log(`  ${rows} records of ~${Math.round(size)} B over ${PARTITIONS} partitions (${compression}); load ${load()}`);
    const cpu = {};
    const variant = (mode) => async () => {
      const res = await runChild(mode, mock.bootstrap, topic, rows, profileDir, beforeDist);
      (cpu[mode] ??= []).push(res.cpu);
      log(`    ${mode}: ${res.s.toFixed(3)} s, cpu ${res.cpu.toFixed(3)} s, load ${load()}`);
      return res.s;
    };
    const modes = ['record', 'batch', 'kafkajs-message', 'kafkajs-batch', ...(beforeDist ? ['record-before'] : [])];
    const times = await interleave(Object.fromEntries(modes.map((m) => [m, variant(m)])), rounds, log);
    const what = `${rows} records, ${PARTITIONS} partitions, ${compression}, one member`;
    const f = (name, unit, a, b, ta, tb, goal) => figure(`${name} (${what})`, unit, rows, a, b, ta, tb, goal);
    const perCpu = (m) => cpu[m];
    return [
      f('recordHandler vs batch handler', 'records/s', 'recordHandler', 'handler (batch)', times.record, times.batch, 0.8),
      f('recordHandler vs batch handler, per CPU-second', 'records/CPU-s', 'recordHandler', 'handler (batch)', perCpu('record'), perCpu('batch')),
      f('recordHandler vs KafkaJS eachMessage', 'records/s', 'recordHandler', 'KafkaJS eachMessage', times.record, times['kafkajs-message']),
      f('batch handler vs KafkaJS eachBatch', 'records/s', 'handler (batch)', 'KafkaJS eachBatch', times.batch, times['kafkajs-batch']),
      ...(beforeDist ? [
        f('recordHandler now vs before (--before dist)', 'records/s', 'recordHandler', 'recordHandler before', times.record, times['record-before']),
        f('recordHandler now vs before, per CPU-second', 'records/CPU-s', 'recordHandler', 'recordHandler before', perCpu('record'), perCpu('record-before')),
        f('recordHandler before vs batch handler', 'records/s', 'recordHandler before', 'handler (batch)', times['record-before'], times.batch),
      ] : []),
    ];
  } finally {
    await mock.stop();
  }
}

module.exports = { runRecordHandler };

if (require.main === module) {
  helpAndExit(__filename);
  runRecordHandler({
    rows: Number(arg('--rows', 300000)), rounds: Number(arg('--rounds', 5)), compression: arg('--compression', 'none'),
    profileDir: arg('--profile', undefined), beforeDist: arg('--before', undefined) && path.resolve(arg('--before')), log: (l) => console.error(l),
  }).then((f) => { console.log(table(f)); console.log(`load average at the end: ${load()}`); process.exit(0); }, (e) => { console.error(e); process.exit(1); });
}
