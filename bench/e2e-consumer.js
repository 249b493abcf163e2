// Child process for bench/end-to-end.js: consumes the topic into SQLite, one member, either
// with kafka-eos's exactly-once GroupConsumer or with raw KafkaJS eachBatch + a raw knex
// insert, and reports elapsed time and peak RSS once every record is in the table.
/* eslint-disable @typescript-eslint/no-require-imports */
const { Kafka, logLevel } = require('kafkajs');
const { createGroupConsumer, SqlSink, createKnex } = require('../dist');
const { FLIGHT_MAPPING } = require('../dist/cli/demo/db');

const [mode, bootstrap, topic, dbFile, total] = process.argv.slice(2);
const N = Number(total);
const brokers = bootstrap.split(',');
const groupId = `bench-${mode}-${process.pid}`;
const table = `t_${mode.replace(/-/g, '_')}_${process.pid}`;

async function raw() {
  // The clock starts where ours does (before anything connects or creates a table).
  const t0 = Date.now();
  const knex = createKnex({ client: 'sqlite3', connection: { filename: dbFile }, useNullAsDefault: true });
  await knex.schema.createTable(table, (t) => {
    t.integer('seq'); t.integer('delay'); t.integer('distance'); t.float('time');
    t.string('kafka_topic'); t.integer('kafka_partition'); t.bigInteger('kafka_offset');
  });
  const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let done = 0;
  const finished = new Promise((resolve) => {
    consumer.run({
      eachBatch: async ({ batch }) => {
        const rows = batch.messages.map((m) => {
          const f = JSON.parse(m.value.toString());
          return { seq: f.seq, delay: f.delay, distance: f.distance, time: f.time, kafka_topic: batch.topic, kafka_partition: batch.partition, kafka_offset: Number(m.offset) };
        });
        await knex.transaction(async (trx) => {
          for (let i = 0; i < rows.length; i += 500) await trx(table).insert(rows.slice(i, i + 500));
        });
        done += rows.length;
        if (done >= N) resolve();
      },
    });
  });
  await finished;
  const elapsed = Date.now() - t0;
  await consumer.disconnect();
  await knex.destroy();
  return elapsed;
}

async function eos() {
  const t0 = Date.now();
  const sink = new SqlSink({ knex: { client: 'sqlite3', connection: { filename: dbFile }, useNullAsDefault: true }, table, mode: 'insert', mapping: FLIGHT_MAPPING, autoCreate: true, offsetsTable: `${table}_offsets` });
  const consumer = createGroupConsumer({ brokers, groupId, topics: [topic], delivery: 'exactly-once', sink, maxWaitTimeMs: 100, commitToKafkaForMonitoring: false });
  let done = 0;
  const finished = new Promise((resolve) => consumer.on('batch', (b) => { done += b.records; if (done >= N) resolve(); }));
  await consumer.start();
  await finished;
  const elapsed = Date.now() - t0;
  await consumer.stop();
  await sink.close();
  return elapsed;
}

(mode === 'raw' ? raw() : eos()).then((ms) => {
  if (global.gc) global.gc();
  process.send({ ms, maxRssKiB: process.resourceUsage().maxRSS, heapAfterGcMiB: process.memoryUsage().heapUsed / 1048576 });
  process.exit(0);
}, (e) => { console.error(e); process.exit(1); });
