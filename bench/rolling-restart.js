#!/usr/bin/env node
/**
 * A rolling restart of a 3-member exactly-once SQL group under a steady input below capacity, under each group
 * protocol: eager (range), cooperative (KIP-429, cooperative-sticky) and consumer (KIP-848). The mock cluster (its own
 * process) appends `--rate` records/s of 100 bytes over 6 partitions; three member processes sink them (PostgreSQL
 * with KAFKA_EOS_PG_URL or --pg, else SQLite). Once every partition flows, each member in turn is stopped (it leaves
 * the group) and a new process takes its place; the next goes once the newcomer handles records.
 *
 * Figures over the restart window (the first stop to 3 s after the last newcomer's first batch), per run:
 * - idle partition-seconds: the sum, over partitions, of the gaps longer than 1 s between two batches of a partition;
 * - backlog peak: the most records produced and not yet sunk at any moment (sampled every 100 ms);
 * - the longest gap of a retained partition (two batches of one partition by the same member, the rebalance between);
 * - the time from a newcomer's start() to its first batch;
 * - partitions revoked (the sum over `revoked` events of every member, the leavers' own included) and sink opens
 *   (partitions whose stored positions the sink read: assignments, and reopens of partitions a member kept).
 * Variants interleaved round by round; ratios eager / incremental (goals: idle ≤ 1/3 of eager, backlog ≤ 1/2).
 *
 * Heartbeats every `--heartbeat` ms (default 3000, Kafka's heartbeat.interval.ms: classic members' interval, and the
 * cluster's KIP-848 one; sessions ten times that). `--baseline <commit>` adds eager members of the package as it was at
 * that commit (built into ~/.cache/kafka-eos-bench; e.g. the consumer before issue 21, on KafkaJS's own runner).
 *
 *   npm run build && node bench/rolling-restart.js [--rate 30000] [--rounds 2] [--heartbeat 3000] [--baseline <commit>]
 *     [--protocols eager,cooperative,consumer]
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { fork } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { arg, median, figure, table, fmt, helpAndExit } = require('./lib/figures.js');
const { startOursChild, sleep } = require('./lib/harness.js');
const { buildAt } = require('./lib/baseline-build.js');

const PARTITIONS = 6;

async function until(cond, what, ms = 60000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** One rolling restart under `protocol`; returns its figures. */
async function runOnce({ protocol, rate, db, run, heartbeatMs, baselineDist, log }) {
  const topic = `rr-${protocol.replace(/\W/g, "-")}-${run}`;
  // `eager@<commit>`: eager members of another build (--baseline), e.g. the consumer on KafkaJS's own runner.
  const dist = protocol.startsWith('eager@') ? baselineDist : undefined;
  const cluster = await startOursChild([[topic, PARTITIONS]], {
    group: { initialRebalanceDelayMs: 0, consumerHeartbeatIntervalMs: heartbeatMs, consumerSessionTimeoutMs: heartbeatMs * 10 },
  });
  const batches = []; // { member, p, next, at }
  const sunk = new Array(PARTITIONS).fill(0);
  const members = [];
  const firsts = [];
  const errors = [];
  const moves = []; // { kind: 'revoked' | 'opened', n, at }
  const spawn = (replacing) => {
    const config = {
      bootstrap: cluster.bootstrap, topic, groupId: `${topic}-g`, protocol: dist ? 'eager' : protocol, db, dist,
      table: `rr_${protocol.replace(/\W/g, '_')}_${run}_${process.pid}`, heartbeatMs, sessionMs: heartbeatMs * 10,
    };
    const child = fork(path.join(__dirname, 'lib', 'eos-member.js'), [JSON.stringify(config)],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const m = { child, owned: [], first: null, replacing };
    child.on('message', (msg) => {
      if (msg.type === 'batch') {
        batches.push({ member: child.pid, p: msg.p, at: msg.at });
        sunk[msg.p] = Math.max(sunk[msg.p], msg.next);
      } else if (msg.type === 'owned') m.owned = msg.partitions;
      else if (msg.type === 'first') { m.first = msg.ms; if (replacing) firsts.push(msg.ms); }
      else if (msg.type === 'error') errors.push(msg.message);
      else if (msg.type === 'revoked' || msg.type === 'opened') moves.push({ kind: msg.type, n: msg.n, at: msg.at });
    });
    members.push(m);
    return m;
  };
  const hw = () => new Promise((r) => { cluster.child.once('message', (msg) => r(msg.hw)); cluster.child.send('hw'); });
  const samples = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const h = await hw();
      const produced = h.filter((x) => x.topic === topic).reduce((a, x) => a + x.highWatermark, 0);
      samples.push({ at: Date.now(), backlog: produced - sunk.reduce((a, b) => a + b, 0) });
      await sleep(100);
    }
  })();
  const live = () => members.filter((m) => m.child.exitCode === null && !m.stopping);
  const allOwned = () => new Set(live().flatMap((m) => m.owned)).size === PARTITIONS;
  try {
    for (let i = 0; i < 3; i++) spawn(false);
    cluster.child.send({ type: 'produce', topic, rate, partitions: PARTITIONS });
    await until(() => live().length === 3 && live().every((m) => m.first !== null) && allOwned(), 'the group to settle and flow')
      .catch((e) => {
        throw new Error(`${e.message}: owned ${live().map((m) => `[${m.owned}]`).join(' ')}; errors: ${errors.slice(0, 3).join('; ')}`);
      });
    await sleep(5000); // steady state
    const windowStart = Date.now();
    for (const old of [...live()]) {
      old.stopping = true;
      const exited = new Promise((r) => old.child.once('exit', r));
      old.child.send('stop');
      await exited;
      const fresh = spawn(true);
      await until(() => fresh.first !== null && allOwned(), 'the newcomer to handle records', 90000);
      await sleep(1000);
    }
    await sleep(3000);
    const windowEnd = Date.now();
    sampling = false;
    await sampler;
    // Idle partition-seconds: gaps over 1 s between batches of a partition inside the window (edges included).
    let idle = 0;
    let retainedMax = 0;
    let steadyMax = 0;
    for (let p = 0; p < PARTITIONS; p++) {
      const evs = batches.filter((b) => b.p === p && b.at >= windowStart - 5000 && b.at <= windowEnd).sort((a, b) => a.at - b.at);
      const times = [windowStart, ...evs.filter((b) => b.at >= windowStart).map((b) => b.at), windowEnd];
      for (let i = 1; i < times.length; i++) if (times[i] - times[i - 1] > 1000) idle += (times[i] - times[i - 1]) / 1000;
      for (let i = 1; i < evs.length; i++) {
        if (evs[i].member === evs[i - 1].member && evs[i].at >= windowStart) retainedMax = Math.max(retainedMax, evs[i].at - evs[i - 1].at);
        if (evs[i].at < windowStart) steadyMax = Math.max(steadyMax, evs[i].at - evs[i - 1].at);
      }
    }
    const peak = Math.max(...samples.filter((s) => s.at >= windowStart && s.at <= windowEnd).map((s) => s.backlog));
    const steady = median(samples.filter((s) => s.at < windowStart && s.at >= windowStart - 2000).map((s) => s.backlog));
    const count = (kind) => moves.filter((m) => m.kind === kind && m.at >= windowStart && m.at <= windowEnd).reduce((a, m) => a + m.n, 0);
    const result = {
      idle, peak, steady, retainedMax, steadyMax, join: median(firsts), errors: errors.length,
      revoked: count('revoked'), opened: count('opened'),
    };
    log(`  ${protocol}: idle ${idle.toFixed(1)} partition-s, backlog peak ${fmt(peak)} (steady ${fmt(steady)}), longest retained gap `
      + `${retainedMax} ms (steady: ${steadyMax} ms), newcomer's first batch ${Math.round(result.join)} ms, `
      + `partitions revoked ${result.revoked}, sink opens ${result.opened}`
      + `${errors.length ? `, errors: ${errors.slice(0, 2).join('; ')}` : ''}`);
    return result;
  } finally {
    sampling = false;
    for (const m of members) if (m.child.exitCode === null) m.child.kill('SIGKILL');
    await cluster.stop();
  }
}

/** @returns figures: idle partition-seconds, backlog peak and join time, each incremental protocol against eager. */
async function runRollingRestart({
  rate = 30000, rounds = 2, protocols = ['eager', 'cooperative', 'consumer'], heartbeatMs = 3000, baseline, pgUrl, log = () => undefined,
} = {}) {
  const baselineDist = baseline ? buildAt(baseline) : undefined;
  if (baseline) protocols = [`eager@${baseline}`, ...protocols];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-rr-'));
  const db = pgUrl ?? path.join(dir, 'rr.sqlite');
  const results = Object.fromEntries(protocols.map((p) => [p, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      const order = protocols.map((_, i) => protocols[(i + r) % protocols.length]);
      for (const protocol of order) results[protocol].push(await runOnce({ protocol, rate, db, run: r, heartbeatMs, baselineDist, log }));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const out = [];
  const sink = pgUrl ? 'PostgreSQL' : 'SQLite';
  const pick = (rs, k) => rs.map((x) => Math.max(x[k], 0.001));
  const med = (rs, k) => median(rs.map((x) => x[k]));
  const label = (name, rs) => `${name}: idle ${med(rs, 'idle').toFixed(1)} partition-s, backlog peak ${fmt(med(rs, 'peak'))}, `
    + `longest retained gap ${Math.round(med(rs, 'retainedMax'))} ms, newcomer's first batch ${Math.round(med(rs, 'join'))} ms, `
    + `partitions revoked ${med(rs, 'revoked')}, sink opens ${med(rs, 'opened')}`;
  const baselines = protocols.filter((p) => p.startsWith('eager'));
  for (const protocol of protocols.filter((p) => !p.startsWith('eager'))) {
    for (const base of baselines) {
      const mine = results[protocol];
      const eager = results[base];
      const title = `rolling restart, 3 exactly-once members into ${sink}, ${rate} records/s, heartbeat ${heartbeatMs} ms`;
      out.push({ ...figure(`${title}: idle partition-seconds (gaps > 1 s)`, 'partition-s', 1, label(protocol, mine), label(base, eager),
        pick(mine, 'idle'), pick(eager, 'idle'), 3), rateUnit: false });
      const versus = (what, unit, key, goal) => ({
        ...figure(`${title}: ${what}`, unit, 1, protocol, base, pick(mine, key), pick(eager, key), goal), rateUnit: false,
      });
      out.push(versus('backlog peak', 'records', 'peak', 2));
      out.push(versus('longest pause of a partition its member kept', 'ms', 'retainedMax'));
      out.push(versus("a newcomer's start() to its first batch", 'ms', 'join'));
      out.push(versus('partitions revoked', 'partitions', 'revoked'));
      out.push(versus('sink opens (partitions)', 'partitions', 'opened'));
    }
  }
  return { figures: out, results };
}

module.exports = { runRollingRestart };

if (require.main === module) {
  helpAndExit(__filename);
  runRollingRestart({
    rate: Number(arg('--rate', 30000)), rounds: Number(arg('--rounds', 2)),
    protocols: arg('--protocols', 'eager,cooperative,consumer').split(','),
    heartbeatMs: Number(arg('--heartbeat', 3000)), baseline: arg('--baseline', undefined),
    pgUrl: arg('--pg', process.env.KAFKA_EOS_PG_URL), log: (l) => console.error(l),
  }).then(({ figures }) => { console.log(table(figures)); process.exit(0); }, (e) => { console.error(e); process.exit(1); });
}
