#!/usr/bin/env node
/**
 * Throughput of the mock cluster against librdkafka 2.0.2's mock, same KafkaJS client, same run:
 * produce msg/s (batches of 2000, acks=-1, 6 partitions, 100-byte values, one send at a time) and
 * consume msg/s with one group member (first to last message, eachBatch). Ours is measured in this
 * process (as a jest suite runs it) and alone in a child process (like librdkafka's mock).
 *
 *   npm run build && node bench/mock-throughput.js [--messages 200000] [--rounds 2]
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { Kafka, logLevel } = require('kafkajs');
const { arg, startRdkafkaMock, startOursInProcess, startOursChild, fmt } = require('./lib/harness');

const N = Number(arg('--messages', 200000));
const ROUNDS = Number(arg('--rounds', 2));
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

async function main() {
  const starters = [
    () => startRdkafkaMock([['bench', PARTITIONS]]),
    () => startOursInProcess([['bench', PARTITIONS]]),
    () => startOursChild([['bench', PARTITIONS]]),
  ];
  const results = new Map();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const start of starters) {
      const target = await start();
      try {
        const r = await measure(target, 'bench');
        const list = results.get(target.name) ?? [];
        list.push(r);
        results.set(target.name, list);
        console.log(`round ${round}  ${target.name.padEnd(32)} produce ${fmt(r.produce).padStart(9)} msg/s   consume ${fmt(r.consume).padStart(9)} msg/s`);
      } finally {
        await target.stop();
      }
    }
  }
  const best = (name, k) => Math.max(...results.get(name).map((r) => r[k]));
  const base = [...results.keys()].find((n) => n.startsWith('librdkafka'));
  console.log(`\n${N} messages of ${VALUE.length} bytes, ${PARTITIONS} partitions, batches of ${BATCH}; best of ${ROUNDS} rounds`);
  for (const name of results.keys()) {
    console.log(`${name.padEnd(32)} produce ${fmt(best(name, 'produce')).padStart(9)} msg/s (${(best(name, 'produce') / best(base, 'produce')).toFixed(2)}×)   consume ${fmt(best(name, 'consume')).padStart(9)} msg/s (${(best(name, 'consume') / best(base, 'consume')).toFixed(2)}×)`);
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
