/**
 * A batch whose partition is revoked or lost while it waits (a converter loading its schema, the user's handler) is
 * dropped by every strategy: nothing written, committed or counted, and no failure, as Java's consumer drops the
 * fetched records of a revoked partition. The race the crash test met: exactly-once failed with NOT_ASSIGNED ("batch
 * for flights:2, which is not assigned to this member") when the loss deleted the partition's state under the batch.
 */
import { convertingStrategy } from '../../../src/consumer/converters/converting-strategy';
import type { RecordConverter } from '../../../src/consumer/converters/converter';
import { atLeastOnce } from '../../../src/consumer/strategies/at-least-once';
import { atMostOnce } from '../../../src/consumer/strategies/at-most-once';
import { exactlyOnce } from '../../../src/consumer/strategies/exactly-once';
import type { CommitStrategy, ProcessResult, StrategyBatch, StrategyContext } from '../../../src/consumer/strategies/types';
import type { ExactlyOnceSink, WriteResult } from '../../../src/sink-contract';
import type { SinkBatch, SinkRecord } from '../../../src/records';

const TP = [{ topic: 't', partition: 0 }];

/** An in-memory exactly-once sink (CAS on the stored next offset) that records its writes. */
class MemorySink implements ExactlyOnceSink {
  readonly atomicAcrossPartitions = true;
  stored = -1n;
  writes: SinkBatch[] = [];
  async open(): Promise<Map<string, bigint>> { return new Map([['t:0', this.stored]]); }
  async write(_g: string, batches: SinkBatch[]): Promise<WriteResult> {
    const b = batches[0]!;
    if (b.expectedOffset !== this.stored) return { status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: this.stored }] };
    this.writes.push(b);
    this.stored = b.nextOffset;
    return { status: 'committed' };
  }
  async close(): Promise<void> {}
}

function context(commits: bigint[]): StrategyContext {
  return {
    groupId: 'g', startFrom: 'earliest',
    commitToKafka: async (o) => { commits.push(...o.map((x) => x.offset)); },
    earliestOffset: async () => 0n,
    offsetRange: async () => ({ earliest: 0n, latest: 1000n }),
  };
}

/** A value converter whose schema loads only when `release()` is called: the batch waits in between. */
function gatedConverter(): { converter: RecordConverter; release: () => void; waiting: () => boolean } {
  let release!: () => void;
  let waiting = false;
  const gate = new Promise<void>((r) => { release = r; });
  const converter: RecordConverter = {
    type: 'json',
    prepare: () => { waiting = true; return gate; },
    convert: (_t, bytes) => ({ schema: null, value: bytes === null ? null : JSON.parse(bytes.toString()) }),
    serialize: async () => Buffer.alloc(0),
  };
  return { converter, release, waiting: () => waiting };
}

const rec = (o: bigint): SinkRecord => ({
  topic: 't', partition: 0, offset: o, key: null, value: Buffer.from('{"n":1}'), timestamp: 0n, headers: {},
});

/** A batch of `n` records from `from`, fetched under the incarnation `owner` tells about. */
function batchAt(from: bigint, n: number, owner: { current: boolean }): StrategyBatch {
  const records = Array.from({ length: n }, (_, i) => rec(from + BigInt(i)));
  return { topic: 't', partition: 0, fetchOffset: from, records, nextOffset: from + BigInt(n), assigned: () => owner.current };
}

function processed(b: StrategyBatch, calls: StrategyBatch[]): () => Promise<ProcessResult> {
  return async () => { calls.push(b); return { processedUpTo: b.nextOffset, complete: true, output: b.records }; };
}

/** Starts `batch` through `strategy` behind a gated converter; resolves once it waits for its schema. */
async function waitingBatch(strategy: CommitStrategy, ctx: StrategyContext, batch: StrategyBatch, calls: StrategyBatch[]) {
  const gated = gatedConverter();
  const wrapped = convertingStrategy(strategy, { value: gated.converter, police: async () => undefined });
  const outcome = wrapped.handleBatch(ctx, batch, processed(batch, calls));
  expect(gated.waiting()).toBe(true);
  return { outcome, release: gated.release };
}

describe('exactly-once', () => {
  test('lost while it waited for its schema: dropped, nothing written or committed, no NOT_ASSIGNED', async () => {
    const sink = new MemorySink();
    const commits: bigint[] = [];
    const ctx = context(commits);
    const s = exactlyOnce({ sink });
    await s.onAssigned(ctx, TP);
    const owner = { current: true };
    const calls: StrategyBatch[] = [];
    const { outcome, release } = await waitingBatch(s, ctx, batchAt(0n, 5, owner), calls);
    owner.current = false;
    s.onLost!(TP);
    const committedBefore = commits.length;
    release();
    await expect(outcome).resolves.toEqual({ kind: 'dropped' });
    expect(calls).toEqual([]);
    expect(sink.writes).toEqual([]);
    expect(commits.length).toBe(committedBefore);
  });

  test('revoked to the end while it waited: dropped', async () => {
    const sink = new MemorySink();
    const ctx = context([]);
    const s = exactlyOnce({ sink });
    await s.onAssigned(ctx, TP);
    const owner = { current: true };
    const calls: StrategyBatch[] = [];
    const { outcome, release } = await waitingBatch(s, ctx, batchAt(0n, 5, owner), calls);
    await s.onRevoked!(ctx, TP);
    owner.current = false;
    release();
    await expect(outcome).resolves.toEqual({ kind: 'dropped' });
    expect(sink.writes).toEqual([]);
  });

  test('lost and assigned again while it waited: the old batch never reaches the new assignment\'s state', async () => {
    const sink = new MemorySink();
    const ctx = context([]);
    const s = exactlyOnce({ sink });
    await s.onAssigned(ctx, TP);
    const old = { current: true };
    const calls: StrategyBatch[] = [];
    const { outcome, release } = await waitingBatch(s, ctx, batchAt(0n, 5, old), calls);
    old.current = false;
    s.onLost!(TP);
    await s.onAssigned(ctx, TP);
    release();
    await expect(outcome).resolves.toEqual({ kind: 'dropped' });
    expect(calls).toEqual([]);
    expect(sink.writes).toEqual([]);
    // The new incarnation's own batch from the stored position is written as usual.
    const now = { current: true };
    const b = batchAt(0n, 5, now);
    await expect(s.handleBatch(ctx, b, processed(b, calls))).resolves.toEqual({ kind: 'done' });
    expect(sink.writes.map((w) => w.nextOffset)).toEqual([5n]);
  });

  test('lost while the handler ran: the output is not written', async () => {
    const sink = new MemorySink();
    const ctx = context([]);
    const s = exactlyOnce({ sink });
    await s.onAssigned(ctx, TP);
    const owner = { current: true };
    const b = batchAt(0n, 5, owner);
    const outcome = await s.handleBatch(ctx, b, async () => {
      owner.current = false;
      s.onLost!(TP);
      return { processedUpTo: b.nextOffset, complete: true, output: b.records };
    });
    expect(outcome).toEqual({ kind: 'dropped' });
    expect(sink.writes).toEqual([]);
  });

  test('a batch for a partition never assigned (no incarnation to ask) is still a bug: NOT_ASSIGNED', async () => {
    const s = exactlyOnce({ sink: new MemorySink() });
    const b: StrategyBatch = { topic: 't', partition: 0, fetchOffset: 0n, records: [rec(0n)], nextOffset: 1n };
    await expect(s.handleBatch(context([]), b, processed(b, []))).rejects.toMatchObject({ code: 'NOT_ASSIGNED' });
  });
});

test('at-least-once: lost while the handler ran, its progress is never committed', async () => {
  const commits: bigint[] = [];
  const ctx = context(commits);
  const s = atLeastOnce({ commitIntervalMs: 0 });
  await s.onAssigned(ctx, TP);
  const owner = { current: true };
  const b = batchAt(0n, 5, owner);
  const outcome = await s.handleBatch(ctx, b, async () => {
    owner.current = false;
    s.onLost!(TP);
    return { processedUpTo: b.nextOffset, complete: true, output: b.records };
  });
  expect(outcome).toEqual({ kind: 'dropped' });
  await s.onAssigned(ctx, TP);
  await s.onRevoked!(ctx, TP);
  expect(commits).toEqual([]);
});

test('at-most-once: lost while it waited for its schema, nothing is committed or handled', async () => {
  const commits: bigint[] = [];
  const ctx = context(commits);
  const s = atMostOnce();
  const owner = { current: true };
  const calls: StrategyBatch[] = [];
  const { outcome, release } = await waitingBatch(s, ctx, batchAt(0n, 5, owner), calls);
  owner.current = false;
  release();
  await expect(outcome).resolves.toEqual({ kind: 'dropped' });
  expect(calls).toEqual([]);
  expect(commits).toEqual([]);
});
