#!/usr/bin/env node
/**
 * Settle time: 3 KafkaJS consumers started together on a 6-partition topic, until they hold one
 * generation's assignment covering every partition exactly once, and nothing rebalances for a
 * quiet window (session timeout + 5 s) afterwards. The time reported is from starting the
 * consumers to the last GROUP_JOIN of that final generation. Ours runs with
 * group.initial.rebalance.delay.ms = 0; the baseline is librdkafka 2.0.2's mock, same run.
 *
 *   npm run build && node bench/mock-settle.js [--profiles defaults,fast] [--starts together,staggered]
 *
 * Starts: `together` connects, subscribes and runs the 3 consumers concurrently (Promise.all);
 * `staggered` starts each after the previous one's run() resolved (a for loop with await, as
 * most test code does), so members arrive a few ms apart and rebalances overlap.
 *
 * Profiles (KafkaJS consumer settings, identical on both clusters):
 *   defaults  KafkaJS defaults: sessionTimeout 30 s, heartbeatInterval 3 s, maxWaitTimeInMs 5 s
 *   fast      sessionTimeout 6 s, heartbeatInterval 100 ms, maxWaitTimeInMs 100 ms
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { Kafka, logLevel } = require('kafkajs');
const { arg, startRdkafkaMock, startOursInProcess, sleep } = require('./lib/harness.js');

const PROFILES = {
  defaults: {},
  fast: { sessionTimeout: 6000, heartbeatInterval: 100, maxWaitTimeInMs: 100 },
};
const TOPIC = 'settle';
const PARTITIONS = 6;

async function settle(target, profile, starts) {
  const config = PROFILES[profile];
  const quietMs = (config.sessionTimeout ?? 30000) + 5000;
  const kafka = new Kafka({ clientId: 'settle', brokers: target.bootstrap, logLevel: logLevel.NOTHING });
  const groupId = `settle-${profile}-${Date.now()}`;
  const state = [0, 1, 2].map(() => ({ joinedAt: 0, assignment: null }));
  let lastChange = 0;
  const t0 = Date.now();
  const startOne = async (s) => {
    const c = kafka.consumer({ groupId, ...config });
    c.on(c.events.GROUP_JOIN, (e) => {
      s.joinedAt = Date.now();
      s.assignment = e.payload.memberAssignment;
      lastChange = s.joinedAt;
    });
    c.on(c.events.REBALANCING, () => { lastChange = Date.now(); });
    await c.connect();
    await c.subscribe({ topics: [TOPIC], fromBeginning: true });
    await c.run({ eachMessage: async () => undefined });
    return c;
  };
  const consumers = [];
  if (starts === 'together') consumers.push(...(await Promise.all(state.map(startOne))));
  else for (const s of state) consumers.push(await startOne(s));
  const covered = () => {
    if (state.some((s) => !s.assignment)) return false;
    const all = state.flatMap((s) => s.assignment[TOPIC] ?? []).sort((a, b) => a - b);
    return all.length === PARTITIONS && all.every((p, i) => p === i);
  };
  const deadline = t0 + 300_000;
  while (!(covered() && Date.now() - lastChange >= quietMs)) {
    if (Date.now() > deadline) throw new Error(`${target.name}: no stable assignment within 300 s`);
    await sleep(50);
  }
  const settledMs = Math.max(...state.map((s) => s.joinedAt)) - t0;
  await Promise.all(consumers.map((c) => c.disconnect()));
  return settledMs;
}

async function main() {
  const profiles = arg('--profiles', 'defaults,fast').split(',');
  const startModes = arg('--starts', 'together,staggered').split(',');
  for (const starts of startModes) {
    for (const profile of profiles) {
      const results = [];
      for (const start of [() => startOursInProcess([[TOPIC, PARTITIONS]], { group: { initialRebalanceDelayMs: 0 } }), () => startRdkafkaMock([[TOPIC, PARTITIONS]])]) {
        const target = await start();
        try {
          const ms = await settle(target, profile, starts);
          results.push([target.name, ms]);
          console.log(`${starts.padEnd(9)} ${profile.padEnd(9)} ${target.name.padEnd(30)} settled in ${(ms / 1000).toFixed(2)} s`);
        } finally {
          await target.stop();
        }
      }
      const [[, ours], [, theirs]] = results;
      console.log(`${starts.padEnd(9)} ${profile.padEnd(9)} ours is ${(theirs / Math.max(ours, 1)).toFixed(0)}× faster\n`);
    }
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
