#!/usr/bin/env node
/**
 * What the chain check costs the HDFS sink's recovery (run on every assignment of every partition).
 *
 *   npm run build && node bench/hdfs-recovery.js [--claims 200] [--recoveries 20] [--rounds 5]
 *
 * Workload: one partition holding `claims` claims of 10 records each, in three topicsDirs of the same embedded
 * WebHDFS server (in this process): (1) never rewound; (2) rewound to offset 10 by `offsets reset --hdfs`, then
 * replayed to the same end: every claim but the first is at a hazard (a name the reset freed); (3) rewound to
 * the last two claims and replayed. Variants for (2) and (3): the first recovery after the replay (it checks each
 * claim at a hazard and settles it; the hazards are recorded again before each call, outside the clock), and
 * the recoveries after it (settled). Each run is `recoveries` calls of recover() (idempotent) on one partition.
 * Baseline: the recovery before the chain check (newest claim only, the code removed from commit.ts,
 * copied here unchanged and built from the same exported calls) on the never-rewound partition, interleaved in
 * the same rounds, order rotated. Also printed: HTTP requests per recovery, counted by the server (exact).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const path = require('node:path');
const { HdfsSink } = require('../dist/sinks/hdfs/hdfs-sink');
const { HdfsLayout, publish, readManifest } = require('../dist/sinks/hdfs/commit');
const { recover } = require('../dist/sinks/hdfs/recovery');
const { HdfsPositionStore } = require('../dist/offsets/hdfs-positions');
const { WebHdfsServer } = require('../dist/webhdfs-server');
const { interleave, figure, table, arg, median, helpAndExit } = require('./lib/figures.js');

helpAndExit(__filename);

const CLAIMS = Number(arg('--claims', 200));
const RECOVERIES = Number(arg('--recoveries', 20));
const ROUNDS = Number(arg('--rounds', 5));
const END = BigInt(CLAIMS * 10);

const records = (from, to) => {
  const out = [];
  for (let o = from; o < to; o++) {
    const value = Buffer.from(`{"n":${o}}`);
    out.push({ topic: 't', partition: 0, offset: o, key: null, value, timestamp: 1700000000000n + o, headers: {} });
  }
  return out;
};
const batch = (expected, from, to) => ({ topic: 't', partition: 0, expectedOffset: expected, nextOffset: to, records: records(from, to) });

async function write(url, dir, expected, from, to) {
  const sink = new HdfsSink({ url, topicsDir: dir, flushSize: 10 });
  await sink.open('g', [{ topic: 't', partition: 0 }]);
  const r = await sink.write('g', [batch(expected, from, to)]);
  if (r.status !== 'committed') throw new Error(`${dir}: ${JSON.stringify(r)}`);
  await sink.close();
  return sink;
}

/** The recovery before the chain check, as it was in src/sinks/hdfs/commit.ts (newest claim only). */
async function recoverBefore(client, layout, topic, partition) {
  const logDir = layout.logDir(topic, partition);
  await client.mkdirs(logDir);
  const claims = (await client.list(logDir)) ?? [];
  const numeric = claims.filter((c) => /^\d+$/.test(c.pathSuffix)).map((c) => c.pathSuffix).sort();
  const last = numeric.at(-1) ?? (claims.some((c) => c.pathSuffix === 'first') ? 'first' : undefined);
  let next = -1n;
  if (last !== undefined) {
    const claim = path.posix.join(logDir, last);
    const m = await readManifest(client, claim);
    await publish(client, claim, m);
    next = BigInt(m.end) + 1n;
  }
  await client.delete(layout.tmpDir(topic, partition), true);
  return next;
}

(async () => {
  const hdfs = await WebHdfsServer.start();
  try {
    console.error(`setting up ${CLAIMS} claims in three topicsDirs...`);
    const dirs = { never: '/rb/never', cutStart: '/rb/cut-start', cutEnd: '/rb/cut-end' };
    for (const dir of Object.values(dirs)) await write(hdfs.url, dir, -1n, 0n, END);
    for (const [dir, to] of [[dirs.cutStart, 10n], [dirs.cutEnd, END - 20n]]) {
      await new HdfsPositionStore({ url: hdfs.url, topicsDir: dir }).overwrite('g', [{ topic: 't', partition: 0, nextOffset: to }]);
      await write(hdfs.url, dir, to, to, END);
    }
    const client = new HdfsSink({ url: hdfs.url, topicsDir: '/rb' }).client;
    const layouts = Object.fromEntries(Object.entries(dirs).map(([k, d]) => [k, new HdfsLayout(d, 'jsonl')]));
    const requests = {};
    // The hazards each rewind recorded (every name it freed, and its old position END), to record again.
    const hazardsOf = {};
    for (const [k, to] of [['cutStart', 10n], ['cutEnd', END - 20n]]) {
      hazardsOf[k] = [];
      for (let o = to; o <= END; o += 10n) hazardsOf[k].push(o.toString().padStart(20, '0'));
    }
    const rehazard = async (k) => {
      const logDir = layouts[k].logDir('t', 0);
      await Promise.all(hazardsOf[k].map((h) => client.mkdirs(path.posix.join(logDir, `+h-${h}`))));
    };
    const runOf = (name, fn, layout, prepare) => async () => {
      let s = 0;
      let sent = 0;
      for (let i = 0; i < RECOVERIES; i++) {
        if (prepare) await prepare();
        const before = hdfs.requests.length;
        const t0 = process.hrtime.bigint();
        if ((await fn(client, layout, 't', 0)) !== END) throw new Error(`${name}: wrong position`);
        s += Number(process.hrtime.bigint() - t0) / 1e9;
        sent += hdfs.requests.length - before;
      }
      requests[name] = sent / RECOVERIES;
      return s;
    };
    const variants = {
      before: runOf('before', recoverBefore, layouts.never),
      never: runOf('never', recover, layouts.never),
      cutEndFirst: runOf('cutEndFirst', recover, layouts.cutEnd, () => rehazard('cutEnd')),
      cutEnd: runOf('cutEnd', recover, layouts.cutEnd),
      cutStartFirst: runOf('cutStartFirst', recover, layouts.cutStart, () => rehazard('cutStart')),
      cutStart: runOf('cutStart', recover, layouts.cutStart),
    };
    const times = await interleave(variants, ROUNDS, console.error, variants);
    const work = RECOVERIES;
    const label = (n) => ({
      never: 'never rewound', cutEndFirst: 'rewound two claims deep, first recovery after the replay',
      cutEnd: 'rewound two claims deep, later recoveries', cutStartFirst: 'rewound to offset 10, first recovery after the replay',
      cutStart: 'rewound to offset 10, later recoveries',
    })[n];
    const shown = ['never', 'cutEndFirst', 'cutEnd', 'cutStartFirst', 'cutStart'];
    const figures = shown.map((n) => figure(`recovery of ${CLAIMS} claims, ${label(n)}`, 'recoveries/s', work,
      'recover() with the chain check', 'recover() before it, never rewound', times[n], times.before));
    console.log(table(figures));
    console.log('');
    console.log('| variant | HTTP requests per recovery | median ms per recovery |');
    console.log('|---|---|---|');
    for (const n of ['before', ...shown]) {
      const name = n === 'before' ? 'before the chain check, never rewound' : label(n);
      console.log(`| ${name} | ${requests[n]} | ${(median(times[n]) / work * 1000).toFixed(1)} |`);
    }
  } finally {
    await hdfs.stop();
  }
})().catch((e) => { console.error(e); process.exit(1); });
