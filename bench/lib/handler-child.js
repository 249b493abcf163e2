// Child process for bench/record-handler.js: one member consumes a topic from the beginning until `total`
// records went through its handler, then reports the wall and CPU time from the first record to the last.
// Modes: `record` (kafka-eos recordHandler, at-least-once), `batch` (kafka-eos handler, at-least-once),
// `kafkajs-message` / `kafkajs-batch` (KafkaJS's own eachMessage / eachBatch with autoCommit: the reference).
// Every handler does the same work per record: it reads the value's length and its first byte.
// With KAFKA_EOS_BENCH_PROFILE=<dir>, the child runs with --cpu-prof (the parent passes the flag).
/* eslint-disable @typescript-eslint/no-require-imports */
const { Kafka, logLevel } = require('kafkajs');
// KAFKA_EOS_BENCH_DIST: another build's dist/ (e.g. the code before a change, measured in the same run).
const { createGroupConsumer } = require(process.env.KAFKA_EOS_BENCH_DIST ?? '../../dist');

const [mode, bootstrap, topic, total] = process.argv.slice(2);
const N = Number(total);
const brokers = bootstrap.split(',');
const groupId = `bench-${mode}-${process.pid}`;

let seen = 0;
let sink = 0;
let t0;
let c0;
let resolveDone;
const done = new Promise((r) => { resolveDone = r; });
/** The per-record work of every variant. */
function work(value) {
  if (seen === 0) { t0 = process.hrtime.bigint(); c0 = process.cpuUsage(); }
  sink += value.length + value[0];
  seen += 1;
  if (seen === N) {
    const c = process.cpuUsage(c0);
    resolveDone({ s: Number(process.hrtime.bigint() - t0) / 1e9, cpu: (c.user + c.system) / 1e6 });
  }
}

async function ours(record) {
  const consumer = createGroupConsumer({
    brokers, groupId, topics: [topic], delivery: 'at-least-once', maxWaitTimeMs: 100,
    ...(record
      ? { recordHandler: async (r) => work(r.value) }
      : { handler: async (b) => { for (const r of b.records) work(r.value); } }),
  });
  await consumer.start();
  const res = await done;
  await consumer.stop();
  return res;
}

async function kafkajs(eachMessage) {
  const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run(eachMessage
    ? { eachMessage: async ({ message }) => work(message.value) }
    : { eachBatch: async ({ batch }) => { for (const m of batch.messages) work(m.value); } });
  const res = await done;
  await consumer.disconnect();
  return res;
}

const run = { record: () => ours(true), 'record-before': () => ours(true), batch: () => ours(false), 'kafkajs-message': () => kafkajs(true), 'kafkajs-batch': () => kafkajs(false) }[mode];
run().then((res) => {
  process.send({ ...res, check: sink });
  process.exit(0);
}, (e) => { console.error(e); process.exit(1); });
