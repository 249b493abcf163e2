#!/usr/bin/env node
/**
 * ConsumerProtocol codec: ours (schemas in src/protocol read by the generic codec) against KafkaJS's
 * AssignerProtocol (hand-written, v0 fields only) as the baseline, measured in the same run. One
 * operation = encode + decode of a v0 Subscription (topics + user data) and of an Assignment
 * (`--topics` topics x `--partitions` partitions), the bytes a 100-member group's leader handles.
 * Variants interleaved, `--rounds` rounds, medians. Plain JS over dist/ (run `npm run build` first).
 * Usage: node bench/consumer-protocol-codec.js [--topics 100] [--partitions 100] [--ops 2000] [--rounds 7]
 */
'use strict';
const { AssignerProtocol } = require('kafkajs');
const cp = require('../dist/protocol/consumer-protocol');
const { arg, interleave, median, helpAndExit } = require('./lib/figures.js');

helpAndExit(__filename);

const topics = Number(arg('--topics', 100));
const partitions = Number(arg('--partitions', 100));
const ops = Number(arg('--ops', 2000));
const rounds = Number(arg('--rounds', 7));
const names = Array.from({ length: topics }, (_, t) => `topic-${String(t).padStart(3, '0')}`);
const userData = Buffer.from('user-data');
const assignment = Object.fromEntries(names.map((t) => [t, Array.from({ length: partitions / 10 }, (_, p) => p * 10)]));
const flat = names.flatMap((t) => assignment[t].map((partition) => ({ topic: t, partition })));

function run(once) {
  const t0 = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < ops; i++) sink += once();
  if (sink < 0) throw new Error('unreachable');
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

const variants = {
  'KafkaJS AssignerProtocol (baseline)': async () => run(() => {
    const m = AssignerProtocol.MemberMetadata.decode(AssignerProtocol.MemberMetadata.encode({ version: 0, topics: names, userData }));
    const a = AssignerProtocol.MemberAssignment.decode(AssignerProtocol.MemberAssignment.encode({ version: 0, assignment, userData }));
    return m.topics.length + Object.keys(a.assignment).length;
  }),
  'kafka-eos schemas + generic codec': async () => run(() => {
    const m = cp.decodeSubscription(cp.encodeSubscription({ topics: names, userData }, 0));
    const a = cp.decodeAssignment(cp.encodeAssignment({ assignedPartitions: flat, userData }, 0));
    return m.topics.length + a.assignedPartitions.length;
  }),
};

(async () => {
  const times = await interleave(variants, rounds);
  const [base, ours] = Object.keys(variants);
  console.log(`ConsumerProtocol encode+decode, ${topics} topics, ${flat.length} assigned partitions, ${ops} ops x ${rounds} rounds (node ${process.version})`);
  for (const name of [base, ours]) {
    const s = median(times[name]);
    console.log(`${name.padEnd(40)} ${(s / ops * 1e6).toFixed(1).padStart(8)} µs/op  ratio ${(median(times[base]) / s).toFixed(2)}× baseline speed`);
  }
})();
