#!/usr/bin/env node
/**
 * Exactly-once SQL sink throughput against a raw knex batched insert of the same rows (no
 * offsets, no Kafka), measured in the same run, alternating rounds to spread machine noise.
 *
 *   npm run build && node bench/sql-sink.js [--rows 200000] [--batch 2000] [--pg postgresql://...]
 *
 * Prints rows/s for both and the ratio sink/raw (goal ≥ 0.9×). PostgreSQL runs when --pg or
 * KAFKA_EOS_PG_URL is given.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const knexFactory = require('knex');
const { SqlSink, createKnex } = require('../dist');
const { loadFlights } = require('../dist/cli/demo/dataset');
const { FLIGHT_MAPPING } = require('../dist/cli/demo/db');

const arg = (name, def) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : def; };
const ROWS = Number(arg('--rows', 200000));
const BATCH = Number(arg('--batch', 2000));
const ROUNDS = Number(arg('--rounds', 3));
const PG = arg('--pg', process.env.KAFKA_EOS_PG_URL);

const flights = loadFlights(Math.min(ROWS, 200000));
const records = flights.map((f, i) => ({ topic: 'flights', partition: i % 6, offset: BigInt(Math.floor(i / 6)), key: Buffer.from(String(f.distance)), value: Buffer.from(JSON.stringify(f)), timestamp: 0n, headers: {} }));
const rows = flights.map((f, i) => ({ seq: f.seq, delay: f.delay, distance: f.distance, time: f.time, kafka_topic: 'flights', kafka_partition: i % 6, kafka_offset: Math.floor(i / 6) }));

async function createRawTable(knex, table) {
  await knex.schema.dropTableIfExists(table);
  await knex.schema.createTable(table, (t) => {
    t.integer('seq').notNullable(); t.integer('delay').notNullable(); t.integer('distance').notNullable(); t.float('time').notNullable();
    t.string('kafka_topic').notNullable(); t.integer('kafka_partition').notNullable(); t.bigInteger('kafka_offset').notNullable();
  });
}

/** Raw baseline: the same rows, one transaction per batch, chunked like the sink. */
async function rawRun(knex, table, chunk) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < rows.length; i += BATCH) {
    const slice = rows.slice(i, i + BATCH);
    await knex.transaction(async (trx) => {
      for (let j = 0; j < slice.length; j += chunk) await trx(table).insert(slice.slice(j, j + chunk));
    });
  }
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** Sink: batches per partition, each with its CAS offset update in the same transaction. */
async function sinkRun(knex, table, group) {
  const sink = new SqlSink({ knex, table, mode: 'insert', mapping: FLIGHT_MAPPING, autoCreate: true, offsetsTable: `${table}_offsets` });
  await sink.open(group, [0, 1, 2, 3, 4, 5].map((p) => ({ topic: 'flights', partition: p })));
  const next = new Map([0, 1, 2, 3, 4, 5].map((p) => [p, -1n]));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < records.length; i += BATCH) {
    const slice = records.slice(i, i + BATCH);
    const byPartition = new Map();
    for (const r of slice) { if (!byPartition.has(r.partition)) byPartition.set(r.partition, []); byPartition.get(r.partition).push(r); }
    const batches = [...byPartition].map(([partition, recs]) => {
      const expected = next.get(partition);
      const nextOffset = recs[recs.length - 1].offset + 1n;
      next.set(partition, nextOffset);
      return { topic: 'flights', partition, expectedOffset: expected, nextOffset, records: recs };
    });
    const res = await sink.write(group, batches);
    if (res.status !== 'committed') throw new Error(`unexpected ${JSON.stringify(res)}`);
  }
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

async function bench(name, makeKnex, chunk) {
  const rawTimes = [];
  const sinkTimes = [];
  for (let round = 0; round < ROUNDS; round++) {
    const knex = makeKnex();
    try {
      const rawTable = `bench_raw_${process.pid}`;
      await createRawTable(knex, rawTable);
      rawTimes.push(await rawRun(knex, rawTable, chunk));
      await knex.schema.dropTableIfExists(rawTable);
      const sinkTable = `bench_sink_${process.pid}`;
      await knex.schema.dropTableIfExists(sinkTable);
      await knex.schema.dropTableIfExists(`${sinkTable}_offsets`);
      sinkTimes.push(await sinkRun(knex, sinkTable, `bench-${round}`));
      await knex.schema.dropTableIfExists(sinkTable);
      await knex.schema.dropTableIfExists(`${sinkTable}_offsets`);
    } finally {
      await knex.destroy();
    }
  }
  const best = (a) => Math.min(...a);
  const rawRate = rows.length / best(rawTimes);
  const sinkRate = rows.length / best(sinkTimes);
  console.log(`${name.padEnd(10)} raw knex ${Math.round(rawRate).toString().padStart(7)} rows/s | exactly-once sink ${Math.round(sinkRate).toString().padStart(7)} rows/s | ratio ${(sinkRate / rawRate).toFixed(2)}x  (best of ${ROUNDS}, ${rows.length} rows, batches of ${BATCH})`);
}

(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-bench-'));
  try {
    const file = path.join(dir, 'bench.sqlite');
    await bench('SQLite', () => createKnex({ client: 'sqlite3', connection: { filename: file }, useNullAsDefault: true }), 500);
    if (PG) await bench('PostgreSQL', () => knexFactory({ client: 'pg', connection: PG }), 1000);
    else console.log('PostgreSQL skipped: pass --pg URL or set KAFKA_EOS_PG_URL');
    console.log(`peak RSS ${Math.round(process.memoryUsage().rss / 1048576)} MiB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });
