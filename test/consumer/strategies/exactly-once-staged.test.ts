/**
 * The exactly-once strategy with a staging sink (a file sink that commits at rotation): staged
 * writes move the fetch position but not the durable one, the monitoring commit never passes the
 * durable position, a fenced rotation sends the consumer back, revoke flushes, loss discards.
 */
import { exactlyOnce } from '../../../src/consumer/strategies/exactly-once';
import type { StrategyBatch, StrategyContext } from '../../../src/consumer/strategies/types';
import { GroupCommitSink } from '../../../src/consumer/group-commit';
import type { ExactlyOnceSink, WriteResult } from '../../../src/sink-contract';
import type { SinkBatch, SinkRecord, TopicPartition } from '../../../src/records';
import { KafkaEosError } from '../../../src/errors';

/** In-memory staging sink: commits every `rotateEvery` records, CAS on the staged end. */
class StagingSink implements ExactlyOnceSink {
  readonly atomicAcrossPartitions = false;
  durable = -1n;
  stagedEnd: bigint | null = null;
  staged: SinkRecord[] = [];
  committed: SinkRecord[][] = [];
  fenceNextRotation: bigint | null = null;
  flushed: TopicPartition[][] = [];
  discarded: TopicPartition[][] = [];
  constructor(private readonly rotateEvery: number) {}
  async open(): Promise<Map<string, bigint>> { this.staged = []; this.stagedEnd = null; return new Map([['t:0', this.durable]]); }
  async write(_g: string, batches: SinkBatch[]): Promise<WriteResult> {
    const b = batches[0];
    if (b.expectedOffset !== (this.stagedEnd ?? this.durable)) return {
      status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: this.durable }],
    };
    this.staged.push(...b.records);
    this.stagedEnd = b.nextOffset;
    if (this.staged.length >= this.rotateEvery) {
      const r = this.rotate();
      if (r) return r;
    }
    return { status: 'staged', durable: [{ topic: 't', partition: 0, storedOffset: this.durable }] };
  }
  private rotate(): WriteResult | null {
    if (this.fenceNextRotation !== null) {
      this.durable = this.fenceNextRotation; // another writer claimed the start offset
      this.staged = []; this.stagedEnd = null;
      return { status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: this.durable }] };
    }
    this.committed.push(this.staged);
    this.durable = this.stagedEnd!;
    this.staged = []; this.stagedEnd = null;
    return null;
  }
  async flush(_g: string, partitions: TopicPartition[]): Promise<WriteResult> {
    this.flushed.push(partitions);
    return this.rotate() ?? { status: 'committed' };
  }
  async discard(partitions: TopicPartition[]): Promise<void> { this.discarded.push(partitions); this.staged = []; this.stagedEnd = null; }
  async close(): Promise<void> {}
}

function ctx(commits: bigint[]): StrategyContext {
  return {
    groupId: 'g', startFrom: 'earliest',
    commitToKafka: async (o) => { commits.push(...o.map((x) => x.offset)); },
    earliestOffset: async () => 0n,
    offsetRange: async () => ({ earliest: 0n, latest: 1000n }),
  };
}
const rec = (o: bigint): SinkRecord => ({
  topic: 't', partition: 0, offset: o, key: null, value: Buffer.from('x'), timestamp: 0n, headers: {},
});
function batchAt(from: bigint, n: number): StrategyBatch {
  const records = Array.from({ length: n }, (_, i) => rec(from + BigInt(i)));
  return { topic: 't', partition: 0, fetchOffset: from, records, nextOffset: from + BigInt(n) };
}
const run = (b: StrategyBatch) => async () => ({ processedUpTo: b.nextOffset, complete: true, output: b.records });
const tp = [{ topic: 't', partition: 0 }];

test('staged writes move the fetch position, not the durable one, and Kafka never sees more than durable', async () => {
  const sink = new StagingSink(25);
  const commits: bigint[] = [];
  const s = exactlyOnce({ sink });
  const c = ctx(commits);
  expect((await s.onAssigned(c, tp))!.get('t:0')).toBe(0n);
  for (let i = 0; i < 4; i++) {
    const b = batchAt(BigInt(i * 10), 10);
    expect(await s.handleBatch(c, b, run(b))).toEqual({ kind: 'done' });
    // 10, 20 staged; the write of 21..30 rotates at 30 records
    expect(s.positions().get('t:0')).toBe(i < 2 ? -1n : i === 2 ? 30n : 30n);
  }
  expect(commits).toEqual([30n]);
  expect(Math.max(...commits.map(Number))).toBeLessThanOrEqual(Number(sink.durable));
  expect(sink.stagedEnd).toBe(40n);
});

test('a fenced rotation sends the consumer back to the stored position', async () => {
  const sink = new StagingSink(15);
  const commits: bigint[] = [];
  const s = exactlyOnce({ sink });
  const c = ctx(commits);
  await s.onAssigned(c, tp);
  const b1 = batchAt(0n, 10);
  await s.handleBatch(c, b1, run(b1));
  sink.fenceNextRotation = 12n;
  const b2 = batchAt(10n, 10);
  expect(await s.handleBatch(c, b2, run(b2))).toEqual({ kind: 'seek', offset: 12n });
  expect(s.positions().get('t:0')).toBe(12n);
  expect(commits).toEqual([]);
  // The next write continues from the stored position (expected = durable, nothing staged).
  sink.fenceNextRotation = null;
  const b3 = batchAt(12n, 3);
  expect(await s.handleBatch(c, b3, run(b3))).toEqual({ kind: 'done' });
  expect(sink.stagedEnd).toBe(15n);
});

test('revoke flushes what is staged and commits the durable position to Kafka; loss discards', async () => {
  const sink = new StagingSink(1000);
  const commits: bigint[] = [];
  const s = exactlyOnce({ sink });
  const c = ctx(commits);
  await s.onAssigned(c, tp);
  const b = batchAt(0n, 7);
  await s.handleBatch(c, b, run(b));
  expect(commits).toEqual([]);
  await s.onRevoked!(c, tp);
  expect(sink.flushed).toEqual([tp]);
  expect(sink.committed.map((x) => x.length)).toEqual([7]);
  expect(commits).toEqual([7n]);

  await s.onAssigned(c, tp);
  const b2 = batchAt(7n, 3);
  await s.handleBatch(c, b2, run(b2));
  s.onLost!(tp);
  await new Promise((r) => setImmediate(r));
  expect(sink.discarded).toEqual([tp]);
  expect(sink.committed.length).toBe(1);
});

test('a revoke whose flush is fenced reports it and commits nothing to Kafka', async () => {
  const sink = new StagingSink(1000);
  const commits: bigint[] = [];
  const fenced: unknown[] = [];
  const s = exactlyOnce({ sink, onFenced: (f) => fenced.push(f) });
  const c = ctx(commits);
  await s.onAssigned(c, tp);
  const b = batchAt(0n, 5);
  await s.handleBatch(c, b, run(b));
  sink.fenceNextRotation = 3n;
  await s.onRevoked!(c, tp);
  expect(fenced).toEqual([{ topic: 't', partition: 0, expected: 5n, stored: 3n }]);
  expect(commits).toEqual([]);
});

test('group commit refuses a sink that is not atomic across partitions', () => {
  expect(() => new GroupCommitSink(new StagingSink(1))).toThrow(KafkaEosError);
  expect(() => new GroupCommitSink(new StagingSink(1))).toThrow(/atomicAcrossPartitions/);
});
