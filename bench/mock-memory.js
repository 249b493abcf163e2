#!/usr/bin/env node
/**
 * Memory: our mock alone in a child process holding 1M messages of 100 bytes (produced by KafkaJS
 * over the wire, batches of 2000, 6 partitions). Reports the child's peak RSS against 2× the
 * payload bytes (the goal), then the same load with retention by size and by time, which keeps a
 * long run bounded.
 *
 *   npm run build && node bench/mock-memory.js [--messages 1000000]
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { Kafka, logLevel } = require('kafkajs');
const { arg, startOursChild, fmt, mb } = require('./lib/harness.js');

const N = Number(arg('--messages', 1000000));
const BATCH = 2000;
const PARTITIONS = 6;
const VALUE_BYTES = 100;

async function run(label, options) {
  const target = await startOursChild([['mem', PARTITIONS]], options);
  const idle = await target.stats();
  const kafka = new Kafka({ clientId: 'mem', brokers: target.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const messages = Array.from({ length: BATCH }, (_, i) => ({ partition: i % PARTITIONS, value: Buffer.alloc(VALUE_BYTES, i % 256) }));
  const t0 = Date.now();
  for (let sent = 0; sent < N; sent += BATCH) await producer.send({ topic: 'mem', messages });
  const seconds = (Date.now() - t0) / 1000;
  await producer.disconnect();
  const s = await target.stats();
  await target.stop();
  const held = s.partitions.reduce((a, p) => a + p.sizeBytes, 0);
  const kept = s.partitions.reduce((a, p) => a + p.highWatermark - p.logStartOffset, 0);
  const payload = N * VALUE_BYTES;
  console.log(`${label.padEnd(26)} peak RSS ${mb(s.maxRssBytes).padStart(9)} (${(s.maxRssBytes / payload).toFixed(2)}× payload; idle ${mb(idle.rssBytes)})  ` +
    `RSS now ${mb(s.rssBytes).padStart(9)} (heap ${mb(s.heapUsedBytes)}, buffers ${mb(s.externalBytes)})  log ${mb(held).padStart(9)} holding ${fmt(kept)} msgs  (${fmt(N / seconds)} msg/s)`);
  return s;
}

async function main() {
  console.log(`${fmt(N)} messages of ${VALUE_BYTES} bytes = ${mb(N * VALUE_BYTES)} payload; goal: peak RSS ≤ 2× payload = ${mb(2 * N * VALUE_BYTES)}\n`);
  await run('unbounded', {});
  await run('retention.bytes 4 MB/part', { retentionBytes: 4 * 1048576 });
  await run('retention.ms 2000', { retentionMs: 2000 });
}
main().catch((e) => { console.error(e); process.exit(1); });
