#!/usr/bin/env node
/**
 * Settle time of a 3-member group under KIP-848 (group.protocol=consumer) against the classic protocol, with the
 * same client, on the same in-process mock, rounds interleaved (bench/lib/figures.js). Each run: a fresh
 * 6-partition topic and group, 3 worker processes started together (test/fixtures/<client>-group-worker.js, the ones
 * the interop tests use, given the group protocol), until every partition is reported by exactly one member and the
 * mock's group is Stable with 3 members. Two times per run: from the group's first event in the mock's log (the first member's join) to
 * settled, the protocol's own cost; and from spawning the processes, which adds each one's start-up (Node and
 * the client loading: ~3 s for @platformatic/kafka on Node 20 under load), the same for both protocols.
 * The baseline is the classic protocol; the ratio is classic time / KIP-848 time (above 1: KIP-848 settles faster).
 *
 *   npm run build && KAFKA_EOS_INTEROP_CLIENTS=<interop clients' node_modules> \
 *     node bench/group-protocols-settle.js [--rounds 5] [--clients confluent-kafkajs,confluent-native,platformatic]
 *
 * Mock settings: consumer heartbeat interval 500 ms (Kafka 5 s), classic initial rebalance delay 0 (Kafka 3 s);
 * the classic workers ask for heartbeat.interval.ms 500, session 6 s.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');
const { startOursInProcess, sleep } = require('./lib/harness.js');
const { arg, interleave, median, helpAndExit } = require('./lib/figures.js');

helpAndExit(__filename);

const WORKERS = {
  'confluent-kafkajs': 'confluent-kafkajs-group-worker.js',
  'confluent-native': 'confluent-native-group-worker.js',
  platformatic: 'platformatic-group-worker.js',
};
const PARTITIONS = 6;
let run = 0;
/** Seconds from the group's first event to settled, per run, in run order (read back by main). */
let fromJoin = [];

/** Starts one member (the interop tests' worker: config as one JSON argument, JSON lines on stdout). */
function startWorker(file, config) {
  const child = spawn(
    process.execPath, [path.join(__dirname, '..', 'test', 'fixtures', file), JSON.stringify(config)],
    { stdio: ['pipe', 'pipe', 'pipe'], env: process.env },
  );
  const w = { child, assigned: [], exited: new Promise((r) => child.once('exit', r)) };
  child.stderr.resume();
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.e === 'assigned') w.assigned = m.partitions;
  });
  return w;
}

async function settle(target, client, protocol) {
  const id = `${client}-${protocol}-${++run}`;
  target.cluster.createTopic(`settle-${id}`, PARTITIONS);
  const config = {
    bootstrap: target.bootstrap, topic: `settle-${id}`, groupId: `settle-${id}`, groupProtocol: protocol,
    sessionTimeoutMs: 6000, heartbeatMs: 500, clientsDir: process.env.KAFKA_EOS_INTEROP_CLIENTS,
  };
  const t0 = process.hrtime.bigint();
  const workers = [0, 1, 2].map((i) => startWorker(WORKERS[client], { ...config, clientId: `${id}-${i}` }));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const all = workers.flatMap((w) => w.assigned);
    const g = target.cluster.inspect.group(`settle-${id}`);
    if (all.length === PARTITIONS && new Set(all).size === PARTITIONS && g && g.state === 'Stable' && g.members.length === 3) break;
    if (Date.now() > deadline) throw new Error(`${id}: not settled within 120 s`);
    await sleep(10);
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const first = target.cluster.inspect.events({ groupId: `settle-${id}` })[0];
  fromJoin.push((Date.now() - first.ts) / 1000);
  for (const w of workers) w.child.stdin.end(); // the worker closes its consumer and exits
  await Promise.all(workers.map((w) => Promise.race([w.exited, sleep(20_000).then(() => w.child.kill('SIGKILL'))])));
  return s;
}

async function main() {
  if (!process.env.KAFKA_EOS_INTEROP_CLIENTS) {
    throw new Error('set KAFKA_EOS_INTEROP_CLIENTS to the interop clients\' node_modules (scripts/install-interop-clients.sh)');
  }
  const rounds = Number(arg('--rounds', '5'));
  const clients = arg('--clients', Object.keys(WORKERS).join(',')).split(',');
  const target = await startOursInProcess(
    [],
    { group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000, consumerHeartbeatIntervalMs: 500, consumerSessionTimeoutMs: 6000 } },
  );
  const lines = [
    '| client | measured from | classic (median) | KIP-848 (median) | ratio classic/KIP-848 | rounds |', '|---|---|---|---|---|---|',
  ];
  try {
    for (const client of clients) {
      const joined = { classic: [], consumer: [] };
      const variant = (protocol) => async () => {
        fromJoin = [];
        const total = await settle(target, client, protocol);
        joined[protocol].push(fromJoin[0]);
        return total;
      };
      const times = await interleave({ classic: variant('classic'), consumer: variant('consumer') }, rounds, (l) => console.log(`${client}${l}`));
      for (const [from, t] of [['first join', joined], ['process spawn', times]]) {
        const ratios = t.classic.map((c, i) => c / t.consumer[i]);
        const [classic, kip848] = [median(t.classic), median(t.consumer)];
        lines.push(`| ${client} | ${from} | ${classic.toFixed(2)} s | ${kip848.toFixed(2)} s | **${median(ratios).toFixed(2)}×** | ${rounds} |`);
      }
    }
  } finally {
    await target.stop();
  }
  console.log(lines.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
