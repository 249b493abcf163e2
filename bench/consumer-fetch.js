#!/usr/bin/env node
/**
 * Consume throughput of kafka-eos's own fetch loop (GroupConsumer: Fetch encoded and decoded by src/protocol, record
 * batches read by its decoder with CRC-32C checked) against raw KafkaJS eachBatch and @platformatic/kafka, on the same
 * mock cluster and topic: each variant in a child process reads the whole topic from the beginning with a handler
 * that only counts; the clock runs from the first record handled to the last (steady consumption, joins excluded).
 * Rounds interleaved, order rotated, median of per-round ratios with their spread.
 *
 *   npm run build && node bench/consumer-fetch.js [--messages 300000] [--rounds 3]
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { fork } = require('node:child_process');
const path = require('node:path');
const { Kafka, logLevel } = require('kafkajs');
const { figure, table, arg, interleave, helpAndExit } = require('./lib/figures.js');
const { startOursChild } = require('./lib/harness.js');

function runChild(mode, bootstrap, topic, total, groupId) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'lib', 'consume-child.js'), [mode, bootstrap.join(','), topic, String(total), groupId],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result;
    child.on('message', (m) => { result = m; });
    child.on('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`${mode} child exited ${code}`))));
  });
}

async function produce(bootstrap, topic, n) {
  const producer = new Kafka({ brokers: bootstrap, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  const value = 'x'.repeat(100);
  for (let i = 0; i < n; i += 2000) {
    const messages = Array.from({ length: Math.min(2000, n - i) }, (_, j) => ({ key: `k${(i + j) % 1000}`, value }));
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();
}

/** @returns the figures: kafka-eos vs KafkaJS eachBatch (goal 1.5×), and vs @platformatic/kafka when installed. */
async function runConsumerFetch({ messages = 300000, rounds = 3, log = () => undefined } = {}) {
  const topic = 'fetch-bench';
  const cluster = await startOursChild([[topic, 6]], { group: { initialRebalanceDelayMs: 0 } });
  try {
    await produce(cluster.bootstrap, topic, messages);
    const withPlatformatic = Boolean(process.env.KAFKA_EOS_INTEROP_CLIENTS);
    const variants = { 'kafka-eos': null, kafkajs: null, ...(withPlatformatic ? { platformatic: null } : {}) };
    let round = 0;
    for (const name of Object.keys(variants)) {
      variants[name] = async () => {
        const r = await runChild(name, cluster.bootstrap, topic, messages, `bench-${name}-${round++}`);
        return (r.lastMs - r.firstMs) / 1000;
      };
    }
    const times = await interleave(variants, rounds, log);
    const out = [figure(`consume ${messages} msgs of 100 B (6 partitions, first to last record)`, 'msg/s', messages,
      'kafka-eos GroupConsumer (own fetch loop)', 'KafkaJS eachBatch', times['kafka-eos'], times.kafkajs, 1.5)];
    if (withPlatformatic) {
      out.push(figure(`consume ${messages} msgs of 100 B (6 partitions, first to last record)`, 'msg/s', messages,
        'kafka-eos GroupConsumer (own fetch loop)', '@platformatic/kafka stream', times['kafka-eos'], times.platformatic));
    }
    return out;
  } finally {
    await cluster.stop();
  }
}

module.exports = { runConsumerFetch };

if (require.main === module) {
  helpAndExit(__filename);
  runConsumerFetch({ messages: Number(arg('--messages', 300000)), rounds: Number(arg('--rounds', 3)), log: (l) => console.error(l) })
    .then((figs) => { console.log(table(figs)); process.exit(0); }, (e) => { console.error(e); process.exit(1); });
}
