#!/usr/bin/env node
/**
 * The exactly-once HDFS sink against raw WebHDFS writes of the same bytes to the same server, in the same
 * run, interleaved (order rotated each round), medians of per-round ratios; then rows/s per format and the
 * peak heap as the input grows.
 *
 *   npm run build && node bench/hdfs-sink.js [--rows 60000] [--batch 2000] [--flush 10000] [--rounds 5]
 *     [--server both|in-process|child] [--hdfs http://nn:9870]
 *
 * Workload: `rows` flight records over 6 partitions, written in writes of `batch` records of one partition,
 * committed every `flush` records per partition (JSON lines with Kafka coordinates, default partitioner).
 * Ours: HdfsSink.write + flush (JSON syntax check of each value, row building, encoding, the commit protocol: MKDIRS of the
 * attempt made ahead, CREATE of data and manifest, claim RENAME, publish RENAME). Baseline: the same file bytes, encoded
 * before the clock starts, each written by one two-step CREATE (NameNode 307 → DataNode 201) with fetch:
 * the least a client must do to put those bytes into HDFS. A third variant isolates the per-row cost: raw
 * CREATEs of files the sink's own encoder (syntax check + line building, Format) builds inside the clock,
 * without the commit protocol. Server: the embedded WebHDFS server in this process, and alone in a child
 * process (as a NameNode and DataNode run apart from their clients); or --hdfs.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { HdfsSink } = require('../dist/sinks/hdfs/hdfs-sink');
const { WebHdfsServer } = require('../dist/webhdfs-server');
const { flightsDataset, flightWrites } = require('./lib/workload.js');
const path = require('node:path');
const { interleave, figure, table, arg, median, fmt, helpAndExit } = require('./lib/figures.js');

helpAndExit(__filename);
const { startWebHdfsChild } = require('./lib/harness.js');

const PARTITIONS = 6;
const ROWS = Number(arg('--rows', 60000));
const BATCH = Number(arg('--batch', 2000));
const FLUSH = Number(arg('--flush', 10000));
const ROUNDS = Number(arg('--rounds', 5));

/** The writes of the workload, made one at a time (record timestamps: 1700000000000 ms + seq). */
const writesOf = (rows) => flightWrites({ rows, batch: BATCH, partitions: PARTITIONS, timestamp: (j) => 1700000000000n + BigInt(j) });
const workload = (rows) => [...writesOf(rows)];

const elapsed = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;
let run = 0;

async function ours(url, writes, format = { type: 'jsonl' }) {
  const sink = new HdfsSink({ url, topicsDir: `/bench/ours-${run++}`, flushSize: FLUSH, includeKafkaCoordinates: true, format });
  const tps = [...Array(PARTITIONS).keys()].map((partition) => ({ topic: 'flights', partition }));
  await sink.open('g', tps);
  const t0 = process.hrtime.bigint();
  for (const w of writes) await sink.write('g', [w]);
  await sink.flush('g', tps);
  const s = elapsed(t0);
  await sink.close();
  return s;
}

/** The files ours would write (same rotation points, same bytes). */
function files(writes) {
  const { Format } = require('../dist/sinks/hdfs/format');
  const f = new Format({ type: 'jsonl' }, true);
  const open = new Map();
  const out = [];
  for (const w of writes) {
    for (const r of w.records) {
      const rows = open.get(w.partition) ?? [];
      open.set(w.partition, rows);
      rows.push(f.toRow(r, () => JSON.parse(r.value.toString())));
      if (rows.length >= FLUSH) { out.push({ partition: w.partition, bytes: f.encode(rows) }); open.set(w.partition, []); }
    }
  }
  for (const [partition, rows] of open) if (rows.length) out.push({ partition, bytes: f.encode(rows) });
  return out;
}

/** One raw two-step CREATE with fetch (NameNode 307 → DataNode 201): the least a client does to write a file. */
async function rawCreate(url, file, bytes) {
  const nn = await fetch(`${url}/webhdfs/v1${file}?op=CREATE&overwrite=false`, { method: 'PUT', redirect: 'manual' });
  await nn.arrayBuffer();
  const dn = await fetch(nn.headers.get('location'), { method: 'PUT', body: bytes });
  await dn.arrayBuffer();
  if (dn.status !== 201) throw new Error(`raw CREATE answered ${dn.status}`);
}

async function raw(url, fileList) {
  const dir = `/bench/raw-${run++}`;
  const t0 = process.hrtime.bigint();
  let i = 0;
  for (const f of fileList) await rawCreate(url, `${dir}/partition=${f.partition}/f${i++}.jsonl`, f.bytes);
  return elapsed(t0);
}

/**
 * Raw CREATEs of the files the sink's own encoder builds inside the clock (the JSON syntax check of each
 * value, the lines as Buffers: Format.toRow + encode), one CREATE per file: the sink minus its commit protocol.
 */
async function rawSinkEncoder(url, writes) {
  const { Format } = require('../dist/sinks/hdfs/format');
  const f = new Format({ type: 'jsonl' }, true);
  const dir = `/bench/rawsink-${run++}`;
  const t0 = process.hrtime.bigint();
  const open = new Map();
  let i = 0;
  const put = (partition, chunks) => rawCreate(url, `${dir}/partition=${partition}/f${i++}.jsonl`, f.encode([], chunks));
  for (const w of writes) {
    const rows = w.records.map((r) => f.toRow(r, () => JSON.parse(r.value.toString('utf8'))));
    const st = open.get(w.partition) ?? { chunks: [], n: 0 };
    open.set(w.partition, st);
    for (let a = 0; a < rows.length;) {
      const take = Math.min(rows.length - a, FLUSH - st.n);
      st.chunks.push(f.encodeChunk(rows.slice(a, a + take)));
      st.n += take;
      a += take;
      if (st.n >= FLUSH) { await put(w.partition, st.chunks); st.chunks = []; st.n = 0; }
    }
  }
  for (const [partition, st] of open) if (st.n) await put(partition, st.chunks);
  return elapsed(t0);
}


/** Raw CREATEs of the same files, encoding them inside the clock (JSON.parse of each value, one line each): no commit protocol. */
async function rawEncoding(url, writes) {
  const dir = `/bench/rawenc-${run++}`;
  const t0 = process.hrtime.bigint();
  const open = new Map();
  let i = 0;
  const put = (partition, lines) => rawCreate(url, `${dir}/partition=${partition}/f${i++}.jsonl`, Buffer.from(lines.join('')));
  for (const w of writes) {
    for (const r of w.records) {
      const lines = open.get(w.partition) ?? [];
      open.set(w.partition, lines);
      const text = r.value.toString('utf8');
      JSON.parse(text);
      lines.push(`{"_topic":${JSON.stringify(r.topic)},"_partition":${r.partition},"_offset":"${r.offset}","_timestamp":${r.timestamp},"value":${text}}\n`);
      if (lines.length >= FLUSH) { await put(w.partition, lines); open.set(w.partition, []); }
    }
  }
  for (const [partition, lines] of open) if (lines.length) await put(partition, lines);
  return elapsed(t0);
}

/**
 * The sink-vs-raw figures (for bench/run.js): { rows, rounds, log, url?, server? } → figures. `server`: where
 * the embedded WebHDFS server runs: 'in-process', 'child' (its own process) or 'both' (default); `url`: an
 * external server instead.
 */
async function runHdfsSink({ rows = ROWS, rounds = ROUNDS, log = () => undefined, url: external, server: where = 'both' } = {}) {
  const placements = external ? [['external', null]] : (where === 'both' ? ['in-process', 'child'] : [where]).map((w) => [w, w]);
  const writes = workload(rows);
  const fileList = files(writes);
  const bytes = fileList.reduce((n, f) => n + f.bytes.length, 0);
  const out = [];
  for (const [label, kind] of placements) {
    const server = kind === 'child' ? await startWebHdfsChild() : kind === 'in-process' ? await WebHdfsServer.start() : null;
    const url = external ?? server.url;
    try {
      log(`HDFS sink: ${rows} rows, ${fileList.length} files, ${(bytes / 1e6).toFixed(1)} MB, ${rounds} rounds, server ${label} ${url}`);
      const variants = {
        ours: () => ours(url, writes),
        raw: () => raw(url, fileList),
        rawSinkEncoder: () => rawSinkEncoder(url, writes),
        rawEncoding: () => rawEncoding(url, writes),
      };
      const times = await interleave(variants, rounds, log, variants);
      const at = `server ${label}`;
      const fig = (name, ours, base, a, b, goal) => figure(`${name} (${at})`, 'rows/s', rows, ours, base, a, b, goal);
      out.push(
        fig('HDFS sink (JSONL, exactly-once commit) vs raw WebHDFS CREATE of the same bytes',
          'HdfsSink', 'raw fetch CREATE', times.ours, times.raw, 0.8),
        fig('  the per-row floor: raw CREATE of files the sink\'s encoder builds in the clock (check + lines, no commit protocol)',
          'raw CREATE + sink encoder', 'raw fetch CREATE', times.rawSinkEncoder, times.raw),
        fig('  the commit protocol: HdfsSink vs raw CREATE + the sink\'s encoder',
          'HdfsSink', 'raw CREATE + sink encoder', times.ours, times.rawSinkEncoder),
        fig('HDFS sink vs raw CREATE that also encodes the lines (JSON.parse of each value)',
          'HdfsSink', 'raw CREATE + encoding', times.ours, times.rawEncoding),
      );
    } finally {
      await server?.stop();
    }
  }
  return out;
}

async function main() {
  const external = arg('--hdfs');
  const server = external ? null : await WebHdfsServer.start();
  const url = external ?? server.url;
  try {
    const writes = workload(ROWS);
    const figs = await runHdfsSink({ rows: ROWS, rounds: ROUNDS, log: console.log, url: external, server: arg('--server', 'both') });
    console.log(`\n${table(figs)}\n`);

    console.log('rows/s per format (HdfsSink, median of rounds):');
    for (const format of [{ type: 'jsonl' }, { type: 'csv', columns: [{ name: 'seq', type: 'int64' }, { name: 'delay', type: 'int64' }, { name: 'distance', type: 'int64' }, { name: 'time', type: 'double' }] },
      { type: 'parquet', columns: [{ name: 'seq', type: 'int64' }, { name: 'delay', type: 'int64' }, { name: 'distance', type: 'int64' }, { name: 'time', type: 'double' }] }]) {
      const ts = [];
      for (let r = 0; r < ROUNDS; r++) ts.push(await ours(url, writes, format));
      console.log(`  ${format.type.padEnd(8)} ${fmt(ROWS / median(ts))} rows/s`);
    }

    console.log('\nlive memory while sinking (heap + Buffers, after a full GC every 5 writes; flushSize bounds what is staged):');
    if (!global.gc) console.log('  (run with node --expose-gc for this figure)');
    for (const n of global.gc ? [ROWS, ROWS * 4] : []) {
      flightsDataset();
      global.gc();
      const live = () => { const m = process.memoryUsage(); return m.heapUsed + m.external; };
      await new Promise((r) => setTimeout(r, 50));
      global.gc();
      const base = live();
      let peak = 0;
      const sink = new HdfsSink({ url, topicsDir: `/bench/mem-${run++}`, flushSize: FLUSH, includeKafkaCoordinates: true });
      const tps = [...Array(PARTITIONS).keys()].map((partition) => ({ topic: 'flights', partition }));
      await sink.open('g', tps);
      let i = 0;
      for (const w of writesOf(n)) {
        await sink.write('g', [w]);
        if (++i % 5 === 0) { global.gc(); peak = Math.max(peak, live() - base); }
      }
      await sink.flush('g', tps);
      await sink.close();
      console.log(`  ${fmt(n)} rows: live heap + Buffers above the start, at most ${(peak / 1e6).toFixed(1)} MB`);
    }
  } finally {
    await server?.stop();
  }
}

module.exports = { runHdfsSink };

if (require.main === module) main().catch((e) => { console.error(e); process.exit(1); });
