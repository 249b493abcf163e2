#!/usr/bin/env node
/**
 * Throughput of the mock cluster against librdkafka 2.0.2's mock, same KafkaJS client, same run:
 * produce msg/s (batches of 2000, acks=-1, 6 partitions, 100-byte values, one send at a time) and
 * consume msg/s with one group member (first to last message, eachBatch). Ours is measured in this
 * process (as a jest suite runs it) and alone in a child process (like librdkafka's mock).
 *
 *   npm run build && node bench/mock-throughput.js [--messages 200000] [--rounds 2]
 *
 * Targets run in an order rotated each round; the ratios are medians of per-round ratios.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { Kafka, logLevel } = require('kafkajs');
const { arg, startRdkafkaMock, startOursInProcess, startOursChild, fmt } = require('./lib/harness.js');
const { median, table, helpAndExit } = require('./lib/figures.js');

let N = 200000;
const BATCH = 2000;
const PARTITIONS = 6;
const VALUE = Buffer.alloc(100, 'x');

async function measure(target, topic) {
  const kafka = new Kafka({ clientId: 'bench', brokers: target.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const messages = Array.from({ length: BATCH }, (_, i) => ({ partition: i % PARTITIONS, value: VALUE }));
  await producer.send({ topic, messages: messages.slice(0, PARTITIONS) }); // warm-up: metadata, connections
  const t0 = process.hrtime.bigint();
  for (let sent = 0; sent < N; sent += BATCH) await producer.send({ topic, acks: -1, messages });
  const produceS = Number(process.hrtime.bigint() - t0) / 1e9;
  await producer.disconnect();

  const total = N + PARTITIONS;
  const consumer = kafka.consumer({ groupId: `bench-${Date.now()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let got = 0;
  let first = 0n;
  const consumeS = await new Promise((resolve) => {
    consumer.run({
      eachBatch: async ({ batch }) => {
        if (got === 0) first = process.hrtime.bigint();
        got += batch.messages.length;
        if (got >= total) resolve(Number(process.hrtime.bigint() - first) / 1e9);
      },
    });
  });
  await consumer.disconnect();
  return { produce: N / produceS, consume: total / consumeS };
}

/** Produce and consume throughput of our mock against librdkafka's. @returns figures (lib/figures.js). */
async function runMockThroughput({ messages = 200000, rounds = 2, log = () => undefined } = {}) {
  N = messages;
  const starters = [
    () => startRdkafkaMock([['bench', PARTITIONS]]),
    () => startOursInProcess([['bench', PARTITIONS]]),
    () => startOursChild([['bench', PARTITIONS]]),
  ];
  const results = new Map();
  for (let round = 1; round <= rounds; round++) {
    for (let i = 0; i < starters.length; i++) {
      const target = await starters[(i + round - 1) % starters.length]();
      try {
        const r = await measure(target, 'bench');
        const list = results.get(target.name) ?? [];
        list.push(r);
        results.set(target.name, list);
        log(`round ${round}  ${target.name.padEnd(32)} produce ${fmt(r.produce).padStart(9)} msg/s   consume ${fmt(r.consume).padStart(9)} msg/s`);
      } finally {
        await target.stop();
      }
    }
  }
  const base = [...results.keys()].find((n) => n.startsWith('librdkafka'));
  const out = [];
  for (const name of results.keys()) {
    if (name === base) continue;
    for (const k of ['produce', 'consume']) {
      const ours = results.get(name).map((r) => r[k]);
      const theirs = results.get(base).map((r) => r[k]);
      out.push({
        figure: `mock broker ${k} (${N} msgs of ${VALUE.length} B, ${PARTITIONS} partitions, KafkaJS client)`, unit: 'msg/s',
        ours: name, baseline: base, runs: ours.length, oursRate: median(ours), baselineRate: median(theirs),
        ratio: median(ours.map((v, i) => v / theirs[i])), oursRates: ours, baselineRates: theirs,
      });
    }
  }
  return out;
}

module.exports = { runMockThroughput };

if (require.main === module) {
  helpAndExit(__filename);
  runMockThroughput({ messages: Number(arg('--messages', 200000)), rounds: Number(arg('--rounds', 2)), log: (l) => console.error(l) })
    .then((f) => console.log(table(f)), (e) => { console.error(e); process.exit(1); });
}
