// Child process for bench/consumer-fetch.js: one consumer reads `total` messages of a topic from the beginning and
// reports { firstMs, lastMs, total } (ms since the consumer was created): kafka-eos's GroupConsumer (its own fetch
// loop), raw KafkaJS eachBatch, or @platformatic/kafka (with KAFKA_EOS_INTEROP_CLIENTS). Each handler only counts.
/* eslint-disable @typescript-eslint/no-require-imports */
const path = require('node:path');

const [mode, bootstrap, topic, totalArg, groupId] = process.argv.slice(2);
const total = Number(totalArg);
const brokers = bootstrap.split(',');

async function kafkaEos() {
  const { createGroupConsumer } = require('../../dist');
  const t0 = performance.now();
  let seen = 0;
  let first = 0;
  let done;
  const finished = new Promise((r) => { done = r; });
  const consumer = createGroupConsumer({
    brokers, groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 5000, maxWaitTimeMs: 100,
    handler: async (b) => {
      if (seen === 0) first = performance.now() - t0;
      seen += b.records.length;
      if (seen >= total) done(performance.now() - t0);
    },
  });
  await consumer.start();
  const last = await finished;
  await consumer.stop();
  return { firstMs: first, lastMs: last };
}

async function kafkaJs() {
  const { Kafka, logLevel } = require('kafkajs');
  const t0 = performance.now();
  let seen = 0;
  let first = 0;
  let done;
  const finished = new Promise((r) => { done = r; });
  const consumer = new Kafka({ brokers, logLevel: logLevel.NOTHING }).consumer({ groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      if (seen === 0) first = performance.now() - t0;
      seen += batch.messages.length;
      if (seen >= total) done(performance.now() - t0);
    },
  });
  const last = await finished;
  await consumer.disconnect();
  return { firstMs: first, lastMs: last };
}

async function platformatic() {
  require('../../test/fixtures/platformatic-node20-polyfill.js');
  const { createRequire } = require('node:module');
  const clientRequire = createRequire(path.join(process.env.KAFKA_EOS_INTEROP_CLIENTS, 'package.json'));
  const { Consumer } = clientRequire('@platformatic/kafka');
  const t0 = performance.now();
  let seen = 0;
  let first = 0;
  const consumer = new Consumer({ clientId: 'bench', bootstrapBrokers: brokers, groupId, autocommit: 5000, maxWaitTime: 100 });
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
  const last = await new Promise((resolve, reject) => {
    stream.on('data', () => {
      if (seen === 0) first = performance.now() - t0;
      seen += 1;
      if (seen === total) resolve(performance.now() - t0);
    });
    stream.on('error', reject);
  });
  await stream.close();
  await consumer.close();
  return { firstMs: first, lastMs: last };
}

({ 'kafka-eos': kafkaEos, kafkajs: kafkaJs, platformatic }[mode])().then((r) => {
  process.send({ ...r, total, cpu: process.cpuUsage() });
  process.exit(0);
}, (e) => { console.error(e); process.exit(1); });
