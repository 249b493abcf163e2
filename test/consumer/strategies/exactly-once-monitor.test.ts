/**
 * The exactly-once strategy's monitoring commit to Kafka is off the write path: a batch never
 * waits for it, at most one is in flight, positions arriving meanwhile coalesce into the next
 * (the latest per partition), and a revoke waits for what is under way.
 */
import { exactlyOnce } from '../../../src/consumer/strategies/exactly-once';
import type { StrategyBatch, StrategyContext } from '../../../src/consumer/strategies/types';
import type { ExactlyOnceSink, WriteResult } from '../../../src/sink-contract';
import type { SinkBatch, SinkRecord } from '../../../src/records';
import { until } from '../../helpers/until';

/** Commits every write at once, CAS on its stored position per partition. */
class MemorySink implements ExactlyOnceSink {
  readonly stored = new Map<string, bigint>();
  async open(): Promise<Map<string, bigint>> { return new Map(this.stored); }
  async write(_g: string, batches: SinkBatch[]): Promise<WriteResult> {
    for (const b of batches) {
      const key = `${b.topic}:${b.partition}`;
      if ((this.stored.get(key) ?? -1n) !== b.expectedOffset) return {
        status: 'fenced', fenced: [{ topic: b.topic, partition: b.partition, storedOffset: this.stored.get(key) ?? -1n }],
      };
      this.stored.set(key, b.nextOffset);
    }
    return { status: 'committed' };
  }
  async close(): Promise<void> {}
}

const rec = (p: number, o: bigint): SinkRecord => ({
  topic: 't', partition: p, offset: o, key: null, value: Buffer.from('x'), timestamp: 0n, headers: {},
});
function batchAt(p: number, from: bigint, n: number): StrategyBatch {
  return {
    topic: 't', partition: p, fetchOffset: from, records: Array.from({ length: n }, (_, i) => rec(p, from + BigInt(i))),
    nextOffset: from + BigInt(n),
  };
}
const run = (b: StrategyBatch) => async () => ({ processedUpTo: b.nextOffset, complete: true, output: b.records });

test('a slow monitoring commit never holds up a batch; positions coalesce into one commit in flight', async () => {
  const calls: { partition: number; offset: bigint }[][] = [];
  const releases: (() => void)[] = [];
  const c: StrategyContext = {
    groupId: 'g', startFrom: 'earliest',
    commitToKafka: (o) => {
      calls.push(o.map((x) => ({ partition: x.partition, offset: x.offset })));
      return new Promise<void>((r) => releases.push(r));
    },
    earliestOffset: async () => 0n,
    offsetRange: async () => ({ earliest: 0n, latest: 1000n }),
  };
  const s = exactlyOnce({ sink: new MemorySink() });
  const tps = [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }];
  await s.onAssigned(c, tps);
  // The first commit never completes until released: every batch still finishes.
  for (let i = 0; i < 3; i++) {
    for (const p of [0, 1]) {
      const b = batchAt(p, BigInt(i * 10), 10);
      expect(await s.handleBatch(c, b, run(b))).toEqual({ kind: 'done' });
    }
  }
  expect(calls).toEqual([[{ partition: 0, offset: 10n }]]);
  releases[0]!();
  await new Promise((r) => setImmediate(r));
  // Everything that arrived meanwhile goes in one commit, the latest position per partition.
  expect([...calls[1]!].sort((a, b) => a.partition - b.partition)).toEqual([{ partition: 0, offset: 30n }, { partition: 1, offset: 30n }]);
  // A revoke waits for the commit under way.
  let revoked = false;
  const revoke = Promise.resolve(s.onRevoked!(c, tps)).then(() => { revoked = true; });
  await new Promise((r) => setImmediate(r));
  expect(revoked).toBe(false);
  releases[1]!();
  await revoke;
  expect(revoked).toBe(true);
  expect(calls).toHaveLength(2);
});

test('a failed monitoring commit is ignored and the next one carries the latest position', async () => {
  const calls: bigint[] = [];
  let fail = true;
  const c: StrategyContext = {
    groupId: 'g', startFrom: 'earliest',
    commitToKafka: async (o) => { calls.push(...o.map((x) => x.offset)); if (fail) throw new Error('coordinator moved'); },
    earliestOffset: async () => 0n,
    offsetRange: async () => ({ earliest: 0n, latest: 1000n }),
  };
  const s = exactlyOnce({ sink: new MemorySink() });
  await s.onAssigned(c, [{ topic: 't', partition: 0 }]);
  const b1 = batchAt(0, 0n, 5);
  expect(await s.handleBatch(c, b1, run(b1))).toEqual({ kind: 'done' });
  await new Promise((r) => setImmediate(r));
  fail = false;
  const b2 = batchAt(0, 5n, 5);
  expect(await s.handleBatch(c, b2, run(b2))).toEqual({ kind: 'done' });
  // The failed commit is tried again shortly, with the latest position coalesced into it.
  await until(() => calls.length >= 2, 'the failed commit to be tried again', 2000);
  expect(calls).toEqual([5n, 10n]);
});
