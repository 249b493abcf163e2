#!/usr/bin/env node
/**
 * The exactly-once SQL sink against the physical limits of each database, measured in the same run,
 * interleaved (order rotated each round), medians of per-round ratios.
 *
 *   npm run build && node bench/sql-sink.js [--rows 100000] [--batch 2000] [--rounds 5] [--pg postgresql://...]
 *     [--before other/dist]   (also the SqlSink of another build, e.g. the code before a change, interleaved)
 *
 * Workload: `rows` flight records (JSON values, 7 columns with the Kafka coordinates), written in writes of
 * `batch` records of one partition each (6 partitions in turn), each write one transaction with its offset
 * compare-and-set, as the exactly-once consumer writes. Every variant starts its clock after its tables exist
 * and stops it after the last COMMIT; the record → row work (JSON.parse) is inside every Node variant's clock.
 *
 * Baselines (the lean clients: what a careful engineer writes by hand for the same guarantee; everything that can be
 * prepared is prepared before the clock, rows are built once, straight from JSON.parse, into what the driver takes):
 * - PostgreSQL COPY+CAS: raw pg client, per write `BEGIN; UPDATE offsets (CAS, named statement); COPY t FROM STDIN;
 *   COMMIT` with a hand-written line encoder (one string per write): what a careful node-postgres client writes for
 *   the same guarantee (the issue's baseline). Upsert: the same with the COPY into a temporary table, then a prepared
 *   `INSERT ... SELECT ... ON CONFLICT DO UPDATE`.
 * - PostgreSQL one-message write by hand: the sink's own protocol (docs/sql-sink.md, "a write is one message") written
 *   as a minimal pg submittable with the same line encoder: the ceiling of a Node process for this guarantee.
 * - SQLite prepared: raw sqlite3 connection with the sink's settings (WAL, busy timeout), per write `BEGIN; CAS
 *   (prepared); 1000-row INSERT (prepared once, reused; upsert: ON CONFLICT DO UPDATE) x2; COMMIT`, one parameter
 *   array reused.
 * - raw knex: knex transaction, CAS with the query builder, `trx(table).insert(chunk)`.
 * - MariaDB multi-row INSERT+CAS: raw mysql2 connection, per write `BEGIN; UPDATE offsets (CAS); INSERT ... VALUES
 *   (1000 rows) x2; COMMIT`, the rows built from the JSON inside the clock.
 * - psql `\copy` / sqlite3 `.import` / MariaDB `LOAD DATA LOCAL INFILE` of one CSV of all rows: no CAS, one
 *   transaction, no JSON (a ceiling).
 * PostgreSQL runs when --pg or KAFKA_EOS_PG_URL is given, MariaDB when --mariadb or KAFKA_EOS_MARIADB_URL is.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { execFileSync } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const knexFactory = require('knex');
const pg = require('pg');
const sqlite3 = require('sqlite3');
const { from: copyFrom } = require('pg-copy-streams');
const { SqlSink, createKnex } = require('../dist');
const { flightWrites } = require('./lib/workload.js');
const { FLIGHT_MAPPING } = require('../dist/cli/demo/db');
const { interleave, figure, table, arg, helpAndExit } = require('./lib/figures.js');

const TOPIC = 'flights';
const PARTITIONS = 6;
const COLS = ['kafka_topic', 'kafka_partition', 'kafka_offset', 'seq', 'delay', 'distance', 'time'];

/** The writes of the workload: one partition each, contiguous offsets per partition, CAS positions. */
const workload = (rows, batch) => [...flightWrites({ rows, batch, partitions: PARTITIONS, topic: TOPIC })];

/** Starts both clocks: wall time and this process's CPU time (all threads). */
const clock = () => ({ t: process.hrtime.bigint(), c: process.cpuUsage() });
/** Wall seconds since `st`, with the CPU seconds of the same interval. */
const elapsed = (st) => { const c = process.cpuUsage(st.c); return { s: Number(process.hrtime.bigint() - st.t) / 1e9, cpu: (c.user + c.system) / 1e6 }; };
const tp = [...Array(PARTITIONS).keys()].map((partition) => ({ topic: TOPIC, partition }));
let seq = 0;
const names = () => { const t = `bench_${process.pid}_${seq++}`; return { table: t, offsets: `${t}_o`, group: `g_${t}` }; };

/** Creates the data and offsets tables (and seeds the positions) as the sink does, outside any clock. */
async function prepareTables(knex, n, mode = 'insert', Sink = SqlSink) {
  const sink = new Sink({ knex, table: n.table, offsetsTable: n.offsets, mode, mapping: FLIGHT_MAPPING, autoCreate: true, upsertKey: mode === 'upsert' ? ['seq'] : undefined });
  await sink.open(n.group, tp);
  return sink;
}

/** The sink's run; `Sink`: the SqlSink class of another build (the code before a change), or this build's. */
async function sinkRun(knex, writes, mode, Sink = SqlSink) {
  const n = names();
  const sink = await prepareTables(knex, n, mode, Sink);
  const t0 = clock();
  for (const w of writes) {
    const res = await sink.write(n.group, [w]);
    if (res.status !== 'committed') throw new Error(`unexpected ${JSON.stringify(res)}`);
  }
  const s = elapsed(t0);
  await sink.close();
  await knex.schema.dropTableIfExists(n.table);
  await knex.schema.dropTableIfExists(n.offsets);
  return s;
}

const casSql = (o) => `UPDATE "${o}" SET next_offset = $1, updated_at = now() WHERE group_id = $2 AND topic = $3 AND partition = $4 AND next_offset = $5`;

const UPDATE_COLS = COLS.filter((c) => c !== 'seq');
const onConflictSeq = `ON CONFLICT (seq) DO UPDATE SET ${UPDATE_COLS.map((c) => `${c} = excluded.${c}`).join(', ')}`;

/**
 * The lean pg client: per write `BEGIN; CAS (named, prepared before the clock); COPY; COMMIT`. With `staged` (the
 * lean upsert), the COPY goes to a temporary table made before the clock (`ON COMMIT DELETE ROWS`), then one prepared
 * `INSERT ... SELECT ... ON CONFLICT (seq) DO UPDATE` moves the rows, as a careful client upserts in bulk.
 */
async function pgCopyCasRun(knex, url, writes, mode, staged = false) {
  const n = names();
  await (await prepareTables(knex, n, mode)).close(); // the same table (and primary key) as the sink's in `mode`
  const client = new pg.Client(url);
  await client.connect();
  const stage = `${n.table}_stage`;
  const copySql = `COPY "${staged ? stage : n.table}" (${COLS.join(', ')}) FROM STDIN`;
  const moveSql = `INSERT INTO "${n.table}" (${COLS.join(', ')}) SELECT ${COLS.join(', ')} FROM "${stage}" ${onConflictSeq}`;
  if (staged) {
    await client.query(`CREATE TEMPORARY TABLE "${stage}" ON COMMIT DELETE ROWS AS SELECT ${COLS.join(', ')} FROM "${n.table}" WITH NO DATA`);
    await client.query({ name: 'move', text: moveSql }); // prepared before the clock (moves nothing)
  }
  // The CAS is a named (prepared) statement: prepare it before the clock with a call that matches no row.
  await client.query({ name: 'cas', text: casSql(n.offsets), values: ['0', n.group, '', -1, '-2'] });
  const t0 = clock();
  for (const w of writes) {
    await client.query('BEGIN');
    const r = await client.query({ name: 'cas', text: casSql(n.offsets), values: [String(w.nextOffset), n.group, w.topic, w.partition, String(w.expectedOffset)] });
    if (r.rowCount !== 1) throw new Error('baseline CAS failed');
    // One COPY text string per write, built straight from JSON.parse (the flights' fields need no escaping).
    let text = '';
    for (const rec of w.records) {
      const f = JSON.parse(rec.value.toString('utf8'));
      text += `${rec.topic}\t${rec.partition}\t${rec.offset}\t${f.seq}\t${f.delay}\t${f.distance}\t${f.time}\n`;
    }
    await new Promise((resolve, reject) => {
      const stream = client.query(copyFrom(copySql));
      stream.on('error', reject);
      stream.on('finish', resolve);
      stream.end(text);
    });
    if (staged) await client.query({ name: 'move', text: moveSql });
    await client.query('COMMIT');
  }
  const s = elapsed(t0);
  await client.end();
  await knex.schema.dropTableIfExists(n.table);
  await knex.schema.dropTableIfExists(n.offsets);
  return s;
}

/**
 * The one-message write by hand: a minimal pg submittable sending `BEGIN; CAS; COPY ... FROM STDIN; COMMIT` as one
 * simple query with the rows streamed behind it (`per` rows per CopyData message, built from JSON.parse with the same
 * template as pgCopyCasRun), CopyDone once the CAS answered `UPDATE 1`, else CopyFail. What the sink does, without its
 * mapping, validation, retry and fencing machinery: the ceiling for this guarantee in Node.
 */
class LeanPipelinedWrite {
  constructor(text, next, done) { this.text = text; this.next = next; this.callback = done; this.tags = []; }
  submit(connection) { this.conn = connection; connection.query(this.text); this.pump(); }
  pump() {
    let text;
    while (!this.failed && (text = this.next()) !== undefined) {
      const n = Buffer.byteLength(text);
      const m = Buffer.allocUnsafe(5 + n);
      m[0] = 0x64; m.writeUInt32BE(n + 4, 1); m.write(text, 5, n, 'utf8');
      if (!this.conn.stream.write(m)) { this.conn.stream.once('drain', () => this.pump()); return; }
    }
    this.sent = true;
    this.end();
  }
  end() {
    if (this.ended || this.failed || !this.sent || this.cas === undefined) return;
    this.ended = true;
    if (this.cas === 'UPDATE 1') this.conn.endCopyFrom(); else this.conn.sendCopyFail('fenced');
  }
  handleCommandComplete(msg) { this.tags.push(msg.text); if (msg.text.startsWith('UPDATE')) { this.cas = msg.text; this.end(); } }
  handleError(err) { this.failed = true; this.callback(err); }
  handleReadyForQuery() { this.callback(null, this.tags); }
  handleCopyInResponse() {}
  handleRowDescription() {}
  handleDataRow() {}
  handleEmptyQuery() {}
  handlePortalSuspended() {}
  handleCopyData() {}
}

/** The lean client with {@link LeanPipelinedWrite}: one message per write, 250 rows per CopyData message. */
async function pgPipelinedRun(knex, url, writes, per = 250) {
  const n = names();
  await (await prepareTables(knex, n)).close();
  const client = new pg.Client(url);
  await client.connect();
  const copySql = `COPY "${n.table}" (${COLS.join(', ')}) FROM STDIN`;
  const group = client.escapeLiteral(n.group);
  const t0 = clock();
  for (const w of writes) {
    const cas = `UPDATE "${n.offsets}" SET next_offset = ${w.nextOffset}, updated_at = now() WHERE group_id = ${group}`
      + ` AND topic = ${client.escapeLiteral(w.topic)} AND partition = ${w.partition} AND next_offset = ${w.expectedOffset}`;
    let i = 0;
    const recs = w.records;
    const next = () => {
      if (i >= recs.length) return undefined;
      let text = '';
      for (const end = Math.min(recs.length, i + per); i < end; i++) {
        const rec = recs[i];
        const f = JSON.parse(rec.value.toString('utf8'));
        text += `${rec.topic}\t${rec.partition}\t${rec.offset}\t${f.seq}\t${f.delay}\t${f.distance}\t${f.time}\n`;
      }
      return text;
    };
    const tags = await new Promise((resolve, reject) => client.query(new LeanPipelinedWrite(`BEGIN; ${cas}; ${copySql}; COMMIT`, next,
      (err, t) => (err ? reject(err) : resolve(t)))));
    if (tags[1] !== 'UPDATE 1' || tags[3] !== 'COMMIT') throw new Error(`baseline write failed: ${tags.join(', ')}`);
  }
  const s = elapsed(t0);
  await client.end();
  await knex.schema.dropTableIfExists(n.table);
  await knex.schema.dropTableIfExists(n.offsets);
  return s;
}

const flightRow = (rec) => {
  const f = JSON.parse(rec.value.toString('utf8'));
  return { kafka_topic: rec.topic, kafka_partition: rec.partition, kafka_offset: Number(rec.offset), seq: f.seq, delay: f.delay, distance: f.distance, time: f.time };
};

/** Raw knex: a transaction, the CAS through the query builder, `insert(chunk)` (or, for upsert, multi-row INSERT ON CONFLICT). */
async function knexRun(knex, writes, chunk, mode = 'insert') {
  const n = names();
  await (await prepareTables(knex, n, mode)).close();
  const t0 = clock();
  for (const w of writes) {
    await knex.transaction(async (trx) => {
      const c = await trx(n.offsets).where({ group_id: n.group, topic: w.topic, partition: w.partition, next_offset: Number(w.expectedOffset) })
        .update({ next_offset: Number(w.nextOffset), updated_at: trx.fn.now() });
      if (Number(c) !== 1) throw new Error('baseline CAS failed');
      const rows = w.records.map(flightRow);
      for (let i = 0; i < rows.length; i += chunk) {
        const q = trx(n.table).insert(rows.slice(i, i + chunk));
        await (mode === 'upsert' ? q.onConflict('seq').merge() : q);
      }
    });
  }
  const s = elapsed(t0);
  await knex.schema.dropTableIfExists(n.table);
  await knex.schema.dropTableIfExists(n.offsets);
  return s;
}

/** Raw mysql2: per write BEGIN; CAS; multi-row INSERTs of 1000 rows; COMMIT (the least a Node process does on MariaDB). */
async function mysqlInsertCasRun(knex, url, writes) {
  const n = names();
  await (await prepareTables(knex, n)).close();
  const mysql = require('mysql2/promise');
  const conn = await mysql.createConnection({ uri: url, timezone: 'Z', supportBigNumbers: true, bigNumberStrings: true, charset: 'utf8mb4' });
  const cas = `UPDATE \`${n.offsets}\` SET next_offset = ?, updated_at = CURRENT_TIMESTAMP WHERE group_id = ? AND topic = ? AND \`partition\` = ? `
    + 'AND next_offset = ?';
  const ins = `INSERT INTO \`${n.table}\` (${COLS.map((c) => `\`${c}\``).join(', ')}) VALUES ?`;
  const t0 = clock();
  for (const w of writes) {
    await conn.query('BEGIN');
    const [r] = await conn.execute(cas, [String(w.nextOffset), n.group, w.topic, w.partition, String(w.expectedOffset)]);
    if (r.affectedRows !== 1) throw new Error('baseline CAS failed');
    for (let i = 0; i < w.records.length; i += 1000) {
      await conn.query(ins, [w.records.slice(i, i + 1000).map((rec) => { const row = flightRow(rec); return COLS.map((c) => row[c]); })]);
    }
    await conn.query('COMMIT');
  }
  const s = elapsed(t0);
  await conn.end();
  await knex.schema.dropTableIfExists(n.table);
  await knex.schema.dropTableIfExists(n.offsets);
  return s;
}

/** MariaDB's own bulk load: the `mariadb` client's LOAD DATA LOCAL INFILE of one CSV (no CAS, no JSON). */
async function mysqlLoadDataRun(knex, url, csv) {
  const n = names();
  await (await prepareTables(knex, n)).close();
  const u = new URL(url);
  const t0 = clock();
  execFileSync('mariadb', ['-h', u.hostname, '-P', u.port || '3306', '-u', decodeURIComponent(u.username), `-p${decodeURIComponent(u.password)}`,
    '--local-infile=1', u.pathname.slice(1), '-e',
    `LOAD DATA LOCAL INFILE '${csv}' INTO TABLE \`${n.table}\` FIELDS TERMINATED BY ',' (${COLS.map((c) => `\`${c}\``).join(', ')})`],
  { stdio: ['ignore', 'ignore', 'inherit'] });
  const s = elapsed(t0);
  await knex.schema.dropTableIfExists(n.table);
  await knex.schema.dropTableIfExists(n.offsets);
  return s;
}

/** One CSV of every row, for the command-line loaders. */
function writeCsv(file, writes) {
  const lines = [];
  for (const w of writes) for (const rec of w.records) { const r = flightRow(rec); lines.push(COLS.map((c) => r[c]).join(',')); }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

async function psqlCopyRun(knex, url, csv) {
  const n = names();
  await (await prepareTables(knex, n)).close();
  const t0 = clock();
  execFileSync('psql', [url, '-q', '-v', 'ON_ERROR_STOP=1', '-c', `\\copy "${n.table}" (${COLS.join(', ')}) from '${csv}' csv`], { stdio: ['ignore', 'ignore', 'inherit'] });
  const s = elapsed(t0);
  await knex.schema.dropTableIfExists(n.table);
  await knex.schema.dropTableIfExists(n.offsets);
  return s;
}

const sqliteKnex = (file) => createKnex({ client: 'sqlite3', connection: { filename: file }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
const run = (db, sql, params = []) => new Promise((res, rej) => db.run(sql, params, function (err) { if (err) rej(err); else res(this.changes); }));
const stmtRun = (st, params) => new Promise((res, rej) => st.run(params, function (err) { if (err) rej(err); else res(this.changes); }));

async function withSqliteFile(dir, fn) {
  const file = path.join(dir, `v${seq++}.sqlite`);
  try { return await fn(file); } finally { for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true }); }
}

async function sqliteSinkRun(dir, writes, mode = 'insert', Sink = SqlSink) {
  return withSqliteFile(dir, async (file) => {
    const knex = sqliteKnex(file);
    try { return await sinkRun(knex, writes, mode, Sink); } finally { await knex.destroy(); }
  });
}

/**
 * The lean SQLite client: one raw sqlite3 connection with the sink's settings (WAL, busy timeout), the CAS and a
 * 1000-row INSERT (upsert: with ON CONFLICT (seq) DO UPDATE) prepared once before the clock, one parameter array reused for every statement and filled straight
 * from JSON.parse (no row objects), per write `BEGIN; CAS; INSERT x n; COMMIT`.
 */
async function sqlitePreparedRun(dir, writes, mode = 'insert') {
  return withSqliteFile(dir, async (file) => {
    const n = names();
    const knex = sqliteKnex(file);
    await (await prepareTables(knex, n, mode)).close();
    await knex.destroy();
    const db = new sqlite3.Database(file);
    db.configure('busyTimeout', 5000);
    await run(db, 'PRAGMA journal_mode=WAL');
    const prepare = (sql) => new Promise((res, rej) => { const st = db.prepare(sql, (e) => (e ? rej(e) : res(st))); });
    const PER = 1000;
    const cas = await prepare(`UPDATE "${n.offsets}" SET next_offset = ?, updated_at = CURRENT_TIMESTAMP WHERE group_id = ? AND topic = ? AND partition = ? AND next_offset = ?`);
    const ins = await prepare(`INSERT INTO "${n.table}" (${COLS.join(', ')}) VALUES ${new Array(PER).fill(`(${COLS.map(() => '?').join(', ')})`).join(', ')}`
      + (mode === 'upsert' ? ` ${onConflictSeq}` : ''));
    const params = new Array(PER * COLS.length);
    const t0 = clock();
    for (const w of writes) {
      await run(db, 'BEGIN');
      if ((await stmtRun(cas, [Number(w.nextOffset), n.group, w.topic, w.partition, Number(w.expectedOffset)])) !== 1) throw new Error('baseline CAS failed');
      if (w.records.length % PER !== 0) throw new Error(`--batch must be a multiple of ${PER} for the prepared baseline`);
      for (let i = 0; i < w.records.length; i += PER) {
        let p = 0;
        for (let j = i; j < i + PER; j++) {
          const rec = w.records[j];
          const f = JSON.parse(rec.value.toString('utf8'));
          params[p++] = rec.topic; params[p++] = rec.partition; params[p++] = Number(rec.offset);
          params[p++] = f.seq; params[p++] = f.delay; params[p++] = f.distance; params[p++] = f.time;
        }
        await stmtRun(ins, params);
      }
      await run(db, 'COMMIT');
    }
    const s = elapsed(t0);
    await new Promise((r) => cas.finalize(r));
    await new Promise((r) => ins.finalize(r));
    await new Promise((r) => db.close(r));
    return s;
  });
}

async function sqliteKnexRun(dir, writes) {
  return withSqliteFile(dir, async (file) => {
    const knex = sqliteKnex(file);
    try { return await knexRun(knex, writes, 500); } finally { await knex.destroy(); }
  });
}

async function sqliteImportRun(dir, csv) {
  return withSqliteFile(dir, async (file) => {
    const n = names();
    const knex = sqliteKnex(file);
    await (await prepareTables(knex, n)).close();
    await knex.destroy();
    const t0 = clock();
    execFileSync('sqlite3', [file, '.mode csv', `.import '${csv}' "${n.table}"`], { stdio: ['ignore', 'ignore', 'inherit'] });
    return elapsed(t0);
  });
}

/** Runs the SQL sink benchmarks. @returns figures (see lib/figures.js). */
async function runSqlSink({ rows = 100000, batch = 2000, rounds = 5, pgUrl, mariadbUrl, only, beforeDist, log = () => undefined } = {}) {
  // --before: the SqlSink of another build (the code before a change), run as one more interleaved variant.
  const Before = beforeDist ? require(beforeDist).SqlSink : undefined;
  const before = (v) => (Before ? v : {});
  const writes = workload(rows, batch);
  const warm = writes.slice(0, Math.min(writes.length, 12));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-bench-'));
  const csv = path.join(dir, 'rows.csv');
  writeCsv(csv, writes);
  const out = [];
  const suffix = `${rows} rows, writes of ${batch}`;
  try {
    if (only === undefined || only === 'sqlite') {
    log(`SQLite (${suffix})`);
    const sv = (w) => ({
      sink: () => sqliteSinkRun(dir, w),
      prepared: () => sqlitePreparedRun(dir, w),
      'sink-upsert': () => sqliteSinkRun(dir, w, 'upsert'),
      'prepared-upsert': () => sqlitePreparedRun(dir, w, 'upsert'),
      knex: () => sqliteKnexRun(dir, w),
      cli: () => sqliteImportRun(dir, csv),
      ...before({ 'sink-before': () => sqliteSinkRun(dir, w, 'insert', Before) }),
    });
    const s = await interleave(sv(writes), rounds, log, sv(warm));
    out.push(figure(`SQLite sink, insert (${suffix})`, 'rows/s', rows, 'SqlSink', 'reused 1000-row prepared statement + CAS', s.sink, s.prepared, 0.9));
    // In-process CPU time (both run in this process; sqlite3's work is on libuv's threads, counted too):
    // the machine's load moves wall times a lot, CPU time much less.
    out.push(figure('SQLite sink, insert: CPU time of this process (less sensitive to machine load)', 'rows/CPU-s', rows, 'SqlSink', 'reused prepared statement + CAS', s.cpu.sink, s.cpu.prepared, 0.9));
    if (Before) {
      out.push(figure('SQLite sink, insert: now vs before (--before dist)', 'rows/s', rows, 'SqlSink', 'SqlSink before', s.sink, s['sink-before']));
      out.push(figure('SQLite sink, insert: now vs before, CPU time', 'rows/CPU-s', rows, 'SqlSink', 'SqlSink before', s.cpu.sink, s.cpu['sink-before']));
      out.push(figure('SQLite sink before vs reused prepared statement + CAS', 'rows/s', rows, 'SqlSink before', 'reused 1000-row prepared statement + CAS', s['sink-before'], s.prepared));
      out.push(figure('SQLite sink before vs prepared, CPU time', 'rows/CPU-s', rows, 'SqlSink before', 'reused prepared statement + CAS', s.cpu['sink-before'], s.cpu.prepared));
    }
    out.push(figure('SQLite sink, upsert (primary key seq, both sides)', 'rows/s', rows, 'SqlSink', 'reused 1000-row prepared INSERT ON CONFLICT DO UPDATE + CAS', s['sink-upsert'], s['prepared-upsert']));
    out.push(figure('SQLite sink, upsert: CPU time of this process', 'rows/CPU-s', rows, 'SqlSink', 'reused prepared upsert + CAS', s.cpu['sink-upsert'], s.cpu['prepared-upsert']));
    out.push(figure('SQLite sink vs raw knex', 'rows/s', rows, 'SqlSink', 'knex trx + CAS + insert(500)', s.sink, s.knex));
    out.push(figure('SQLite sink vs sqlite3 CLI `.import` (no CAS, no JSON)', 'rows/s', rows, 'SqlSink', 'sqlite3 .import of one CSV', s.sink, s.cli));
    }
    if (only !== undefined && only !== 'pg') {
      // PostgreSQL not asked for
    } else if (pgUrl) {
      log(`PostgreSQL (${suffix})`);
      const knex = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 4 } });
      try {
        const pv = (w) => ({
          insert: () => sinkRun(knex, w, 'insert'),
          'kafka-key': () => sinkRun(knex, w, 'kafka-key'),
          upsert: () => sinkRun(knex, w, 'upsert'),
          'copycas-insert': () => pgCopyCasRun(knex, pgUrl, w, 'insert'),
          'pipelined-insert': () => pgPipelinedRun(knex, pgUrl, w),
          'copycas-kafka-key': () => pgCopyCasRun(knex, pgUrl, w, 'kafka-key'),
          'copycas-upsert': () => pgCopyCasRun(knex, pgUrl, w, 'upsert'),
          'staged-upsert': () => pgCopyCasRun(knex, pgUrl, w, 'upsert', true),
          knex: () => knexRun(knex, w, 1000),
          'knex-upsert': () => knexRun(knex, w, 1000, 'upsert'),
          psql: () => psqlCopyRun(knex, pgUrl, csv),
          ...before({ 'insert-before': () => sinkRun(knex, w, 'insert', Before) }),
        });
        const p = await interleave(pv(writes), rounds, log, pv(warm));
        const base = 'BEGIN; CAS; COPY; COMMIT (raw pg)';
        out.push(figure(`PostgreSQL sink, insert (${suffix})`, 'rows/s', rows, 'SqlSink', base, p.insert, p['copycas-insert'], 1.0));
        // Node CPU per row (this process, all threads): goal ours ≤ 1.2× the lean client's, i.e. this ratio ≥ 1 / 1.2.
        out.push(figure('PostgreSQL sink, insert: Node CPU (ratio ≥ 0.83 = at most 1.2× the CPU per row)', 'rows/CPU-s', rows, 'SqlSink', base, p.cpu.insert, p.cpu['copycas-insert'], 0.83));
        if (Before) {
          out.push(figure('PostgreSQL sink, insert: now vs before (--before dist)', 'rows/s', rows, 'SqlSink', 'SqlSink before', p.insert, p['insert-before']));
          out.push(figure('PostgreSQL sink, insert: now vs before, Node CPU', 'rows/CPU-s', rows, 'SqlSink', 'SqlSink before', p.cpu.insert, p.cpu['insert-before']));
          out.push(figure('PostgreSQL sink before vs BEGIN; CAS; COPY; COMMIT', 'rows/s', rows, 'SqlSink before', base, p['insert-before'], p['copycas-insert']));
          out.push(figure('PostgreSQL sink before, Node CPU', 'rows/CPU-s', rows, 'SqlSink before', base, p.cpu['insert-before'], p.cpu['copycas-insert']));
        }
        const oneMessage = 'the same one-message write by hand (BEGIN; CAS; COPY; COMMIT in one query, rows streamed behind it)';
        out.push(figure('PostgreSQL sink, insert vs the one-message write by hand (the Node ceiling for this guarantee)', 'rows/s', rows,
          'SqlSink', oneMessage, p.insert, p['pipelined-insert']));
        out.push(figure('PostgreSQL sink, insert vs the one-message write by hand: Node CPU', 'rows/CPU-s', rows, 'SqlSink', oneMessage,
          p.cpu.insert, p.cpu['pipelined-insert']));
        out.push(figure('PostgreSQL sink, kafka-key (primary key on the coordinates, both sides)', 'rows/s', rows, 'SqlSink', base, p['kafka-key'], p['copycas-kafka-key'], 0.8));
        const stagedBase = 'BEGIN; CAS; COPY to a temp table; INSERT ... SELECT ON CONFLICT; COMMIT (raw pg)';
        out.push(figure('PostgreSQL sink, upsert vs its lean baseline (primary key seq, both sides)', 'rows/s', rows, 'SqlSink', stagedBase, p.upsert, p['staged-upsert'], 1.0));
        out.push(figure('PostgreSQL sink, upsert: Node CPU', 'rows/CPU-s', rows, 'SqlSink', stagedBase, p.cpu.upsert, p.cpu['staged-upsert']));
        out.push(figure('PostgreSQL sink, upsert vs plain COPY (no conflict handling: the cost of upserting)', 'rows/s', rows, 'SqlSink', `${base}, no conflict handling`, p.upsert, p['copycas-upsert']));
        out.push(figure('PostgreSQL sink, upsert vs multi-row INSERT ON CONFLICT', 'rows/s', rows, 'SqlSink (staged COPY)', 'knex trx + CAS + insert(1000).onConflict().merge()', p.upsert, p['knex-upsert']));
        out.push(figure('PostgreSQL sink vs raw knex', 'rows/s', rows, 'SqlSink', 'knex trx + CAS + insert(1000)', p.insert, p.knex));
        out.push(figure('PostgreSQL sink vs psql `\\copy` (no CAS, no JSON)', 'rows/s', rows, 'SqlSink', 'psql \\copy of one CSV', p.insert, p.psql));
      } finally {
        await knex.destroy();
      }
    } else {
      log('PostgreSQL skipped: pass --pg URL or set KAFKA_EOS_PG_URL');
    }
    if (mariadbUrl && (only === undefined || only === 'mariadb')) {
      log(`MariaDB (${suffix})`);
      const knex = createKnex({ client: 'mysql2', connection: mariadbUrl, pool: { min: 0, max: 4 } });
      try {
        const mv = (w) => ({
          insert: () => sinkRun(knex, w, 'insert'),
          raw: () => mysqlInsertCasRun(knex, mariadbUrl, w),
          load: () => mysqlLoadDataRun(knex, mariadbUrl, csv),
        });
        const m = await interleave(mv(writes), rounds, log, mv(warm));
        out.push(figure(`MariaDB sink, insert (${suffix})`, 'rows/s', rows, 'SqlSink', 'BEGIN; CAS; INSERT x1000 rows; COMMIT (raw mysql2)',
          m.insert, m.raw, 0.8));
        out.push(figure('MariaDB sink vs LOAD DATA LOCAL INFILE (no CAS, no JSON)', 'rows/s', rows, 'SqlSink', 'mariadb LOAD DATA of one CSV',
          m.insert, m.load));
      } finally {
        await knex.destroy();
      }
    } else if (only === undefined || only === 'mariadb') {
      log('MariaDB skipped: pass --mariadb URL or set KAFKA_EOS_MARIADB_URL');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

module.exports = { runSqlSink, workload, sqliteSinkRun, sqlitePreparedRun, sinkRun, pgCopyCasRun, pgPipelinedRun };

if (require.main === module) {
  helpAndExit(__filename);
  runSqlSink({
    rows: Number(arg('--rows', 100000)), batch: Number(arg('--batch', 2000)), rounds: Number(arg('--rounds', 5)),
    pgUrl: arg('--pg', process.env.KAFKA_EOS_PG_URL), mariadbUrl: arg('--mariadb', process.env.KAFKA_EOS_MARIADB_URL), only: arg('--only'),
    beforeDist: arg('--before') && path.resolve(arg('--before')), log: (l) => console.error(l),
  }).then((figs) => console.log(table(figs)), (e) => { console.error(e); process.exit(1); });
}
