#!/usr/bin/env node
/**
 * Sums the self time of every .cpuprofile in a folder (V8's `--cpu-prof` output) per function and source file, and
 * prints the top frames with their share of the total sampled time, ms per profile (the mean over the profiles).
 * A `clock-<pid>.json` beside a profile (`{ t0 }`, µs of the monotonic clock, as bench/lib/hdfs-e2e-child.js writes)
 * drops that process's samples before t0 (module loading, outside the benchmark's clock).
 *
 *   node bench/lib/cpuprofile-top.js <dir> [--top 40] [--by function|url]
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const fs = require('node:fs');
const path = require('node:path');
const { arg } = require('./figures.js');

const dir = process.argv[2];
const top = Number(arg('--top', 40));
const byUrl = arg('--by', 'function') === 'url';
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
const self = new Map();
let total = 0;
for (const f of files) {
  const p = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const pid = /\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(f)?.[1];
  const clock = path.join(dir, `clock-${pid}.json`);
  const t0 = fs.existsSync(clock) ? JSON.parse(fs.readFileSync(clock, 'utf8')).t0 : -Infinity;
  // timeDeltas[i] is the time before sample i: charged to that sample's node.
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i]);
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (t < t0) continue;
    const cf = n.callFrame;
    const url = cf.url.replace(/^file:\/\//, '').replace(/^.*\/(dist|node_modules|bench)\//, '$1/');
    const key = byUrl ? url || '(native)' : `${cf.functionName || '(anonymous)'} ${url}${url ? `:${cf.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`${files.length} profiles, ${(total / 1000 / files.length).toFixed(1)} ms sampled per profile`);
for (const [k, us] of rows) {
  console.log(`${(us / 1000 / files.length).toFixed(1).padStart(8)} ms ${(100 * us / total).toFixed(1).padStart(5)}%  ${k}`);
}
