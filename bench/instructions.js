#!/usr/bin/env node
/**
 * Instructions per row, counted by valgrind's callgrind: a second, load-independent measurement beside the
 * interleaved wall/CPU ratios of bench/sql-sink.js and bench/hdfs-end-to-end.js (on a shared machine those move
 * by 2-5x between rounds; an instruction count repeats to within a fraction of a percent whatever the load).
 *
 *   npm run build && node bench/instructions.js [--only sqlite,pg,hdfs-e2e] [--rows 20000] [--before other/dist]
 *
 * Each variant runs in a fresh `valgrind --tool=callgrind node ...` process twice, each building the same workload of
 * 2 x rows records, running an unmeasured warm-up pass over its first 4,000 rows (JIT), then one pass over the first
 * `rows` records, or over all 2 x `rows` (each pass on fresh tables, as one bench round). (I(2 x rows) - I(rows)) / rows
 * is the instructions per row of a warmed-up pass: start-up, module loading, building the workload, the warm-up and
 * each pass's fixed cost (connecting, creating and dropping tables) cancel out.
 * Counted: every instruction of the Node process, all threads (sqlite3 works on
 * libuv's threads); not the PostgreSQL server (another process), so the PostgreSQL figure is "Node CPU per row".
 * HDFS end to end: the consumer child of bench/hdfs-end-to-end.js under callgrind, with `rows` and 2 x `rows`
 * records to consume (mock cluster and WebHDFS server in their own processes, not counted).
 * Record path (`--only record-path`, not in the default set): bench/lib/record-path-child.js, the record handler and
 * the batch handler between a decoded batch and the at-least-once bookkeeping, no fetch and no decoding (the whole
 * consumer's count moves with how long it runs: idle fetches, heartbeats). With --before, that build's record handler.
 * --before: the dist/ folder of a build of the code before a change (bench/lib/baseline-build.js), run as the `*-before`
 * variants.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { execFile } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const { arg, helpAndExit } = require('./lib/figures.js');

helpAndExit(__filename);

const VALGRIND = ['--tool=callgrind', '--callgrind-out-file=/dev/null'];
/**
 * V8 without its background threads (garbage collection and compilation on the main thread), a fixed GC schedule
 * (--predictable-gc-schedule) and gc() before each pass: the same work, done in an order that repeats from run to run,
 * so a count moves by 1-3%, not by a concurrent marking's worth. Every collection inside a pass is counted (garbage is
 * part of a row's cost; an old generation too large to collect hides it).
 */
const NODE_FLAGS = ['--single-threaded', '--predictable-gc-schedule', '--expose-gc'];

/** Runs `node args` under callgrind; @returns the instructions collected (the "Collected :" line). */
function callgrind(args, env = process.env) {
  return new Promise((resolve, reject) => {
    execFile('valgrind', [...VALGRIND, process.execPath, ...NODE_FLAGS, ...args], { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const m = /Collected : (\d+)/.exec(stderr);
      if (err || !m) reject(new Error(`callgrind of ${args.join(' ')} failed: ${err?.message ?? ''}\n${stderr.slice(-2000)}`));
      else resolve(Number(m[1]));
    });
  });
}

/** One SQL variant in this process: a warm-up pass, then one over `rows` rows of the workload of `total` (mode `--pass`). */
async function passMain() {
  const variant = arg('--pass');
  const rows = Number(arg('--rows', 20000));
  const total = Number(arg('--total', rows));
  const dist = arg('--dist');
  const bench = require('./sql-sink.js');
  const Sink = dist ? require(dist).SqlSink : undefined;
  const all = bench.workload(total, 2000);
  const passes = [all.slice(0, 2), all.slice(0, rows / 2000)];
  const pgUrl = process.env.KAFKA_EOS_PG_URL;
  const knex = variant.startsWith('pg-') ? require('knex')({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 4 } }) : undefined;
  const dir = require('node:fs').mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-icount-'));
  try {
    for (const writes of passes) {
      global.gc?.();
      switch (variant) {
        case 'sqlite-sink': case 'sqlite-sink-before': await bench.sqliteSinkRun(dir, writes, 'insert', Sink); break;
        case 'sqlite-prepared': await bench.sqlitePreparedRun(dir, writes); break;
        case 'pg-sink': case 'pg-sink-before': await bench.sinkRun(knex, writes, 'insert', Sink); break;
        case 'pg-copycas': await bench.pgCopyCasRun(knex, pgUrl, writes, 'insert'); break;
        default: throw new Error(`unknown variant ${variant}`);
      }
    }
  } finally {
    await knex?.destroy();
    require('node:fs').rmSync(dir, { recursive: true, force: true });
  }
}

/** Instructions per row of a warmed-up pass of one SQL variant (see the module comment). */
async function sqlPerRow(variant, rows, dist) {
  if (rows % 2000 !== 0) throw new Error('--rows must be a multiple of 2000 (writes of 2000 records)');
  const args = [__filename, '--pass', variant, '--total', String(2 * rows), ...(dist ? ['--dist', dist] : [])];
  const one = await callgrind([...args, '--rows', String(rows)]);
  const two = await callgrind([...args, '--rows', String(2 * rows)]);
  return (two - one) / rows;
}

/** Instructions per record of the HDFS end-to-end consumer child (mode eos or raw), by difference of rows and 2 x rows. */
async function hdfsPerRow(mode, rows, env) {
  const { startOursChild, startWebHdfsChild } = require('./lib/harness.js');
  const { produce } = require('./hdfs-end-to-end.js');
  const topic = 'hdfs-icount';
  const mock = await startOursChild([[topic, 6]], { group: { initialRebalanceDelayMs: 0 } });
  const hdfs = await startWebHdfsChild();
  try {
    await produce(mock.bootstrap, topic, 2 * rows);
    let run = 0;
    const child = (n) => callgrind([path.join(__dirname, 'lib', 'hdfs-e2e-child.js'), mode, mock.bootstrap.join(','), topic, hdfs.url,
      `/bench/icount-${mode}-${process.pid}-${run++}`, String(n), '10000'], env);
    const a = await child(rows);
    const b = await child(2 * rows);
    return (b - a) / rows;
  } finally {
    await hdfs.stop();
    await mock.stop();
  }
}

/** Instructions per record of bench/lib/record-path-child.js in `mode`, by difference of rows and 2 x rows. */
async function recordPathPerRecord(mode, rows, before) {
  if (rows % 500 !== 0) throw new Error('--rows must be a multiple of 500 (batches of 500 records)');
  const env = mode === 'record-before' ? { ...process.env, KAFKA_EOS_BENCH_DIST: before } : process.env;
  const args = [path.join(__dirname, 'lib', 'record-path-child.js'), mode];
  const one = await callgrind([...args, String(rows), String(2 * rows)], env);
  const two = await callgrind([...args, String(2 * rows), String(2 * rows)], env);
  return (two - one) / rows;
}

async function main() {
  const only = new Set(arg('--only', 'sqlite,pg,hdfs-e2e').split(','));
  const rows = Number(arg('--rows', 20000));
  const before = arg('--before') && path.resolve(arg('--before'));
  const lines = ['| figure | ours (instructions/row) | baseline (instructions/row) | ratio baseline/ours |', '|---|---|---|---|'];
  const row = (name, ours, oursName, base, baseName) => {
    lines.push(`| ${name} | ${oursName}: ${Math.round(ours)} | ${baseName}: ${Math.round(base)} | **${(base / ours).toFixed(2)}×** |`);
    console.error(lines[lines.length - 1]);
  };
  if (only.has('sqlite')) {
    const sink = await sqlPerRow('sqlite-sink', rows);
    const prepared = await sqlPerRow('sqlite-prepared', rows);
    row(`SQLite insert (${rows} rows, writes of 2000)`, sink, 'SqlSink', prepared, 'reused prepared statement + CAS');
    if (before) row('SQLite insert, before vs now', sink, 'SqlSink', await sqlPerRow('sqlite-sink-before', rows, before), 'SqlSink before');
  }
  if (only.has('pg') && process.env.KAFKA_EOS_PG_URL) {
    const sink = await sqlPerRow('pg-sink', rows);
    const copycas = await sqlPerRow('pg-copycas', rows);
    row(`PostgreSQL insert, Node process (${rows} rows, writes of 2000)`, sink, 'SqlSink', copycas, 'BEGIN; CAS; COPY; COMMIT (raw pg)');
    if (before) row('PostgreSQL insert, before vs now', sink, 'SqlSink', await sqlPerRow('pg-sink-before', rows, before), 'SqlSink before');
  }
  if (only.has('hdfs-e2e')) {
    const eos = await hdfsPerRow('eos', rows);
    const raw = await hdfsPerRow('raw', rows);
    row(`HDFS end to end, consumer process (${rows} records)`, eos, 'exactly-once + HdfsSink', raw, 'hand-written KafkaJS eachBatch');
    if (before) {
      const env = { ...process.env, KAFKA_EOS_BENCH_DIST: before };
      row('HDFS end to end, before vs now', eos, 'HdfsSink', await hdfsPerRow('eos', rows, env), 'HdfsSink before');
    }
  }
  if (only.has('record-path')) {
    const record = await recordPathPerRecord('record', rows);
    const batch = await recordPathPerRecord('batch', rows);
    row(`record path alone, no fetch or decoding (${rows} records, batches of 500)`, record, 'recordHandler', batch, 'handler (batch)');
    if (before) {
      const was = await recordPathPerRecord('record-before', rows, before);
      row('record path alone, before vs now', record, 'recordHandler', was, 'recordHandler before');
    }
  }
  console.log(lines.join('\n'));
  console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (instruction counts do not depend on it)`);
}

if (arg('--pass')) passMain().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
else main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
