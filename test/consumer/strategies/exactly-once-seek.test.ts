/**
 * GroupConsumer.seek() under exactly-once (issue 24): the strategy moves the position only through the sink (a CAS
 * with no data), then expects batches from there; a fenced seek moves nothing and says so; a lost acknowledgement
 * (the CAS landed) counts as done; a sink without seek() and an offset outside the log are refused by name; a staged
 * tail is made durable before the position moves.
 */
import { exactlyOnce } from '../../../src/consumer/strategies/exactly-once';
import type { StrategyBatch, StrategyContext } from '../../../src/consumer/strategies/types';
import type { ExactlyOnceSink, SeekRequest, WriteResult } from '../../../src/sink-contract';
import type { SinkBatch, SinkRecord } from '../../../src/records';

/** One partition `t:0`; writes commit (or stage, with `staging`) by CAS on `stored`. */
class MemorySink implements ExactlyOnceSink {
  stored = -1n;
  stagedEnd: bigint | null = null;
  rows: bigint[] = [];
  seeks: SeekRequest[] = [];
  /** The next seek finds this position stored by another writer. */
  movedBy: bigint | null = null;
  /** The next seek's CAS lands but its answer is lost (the store reports fenced at the target). */
  lostAck = false;
  constructor(private readonly staging = false) {}
  async open(): Promise<Map<string, bigint>> { this.stagedEnd = null; return new Map([['t:0', this.stored]]); }
  async write(_g: string, batches: SinkBatch[]): Promise<WriteResult> {
    const b = batches[0]!;
    if (b.expectedOffset !== (this.stagedEnd ?? this.stored)) return {
      status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: this.stored }],
    };
    this.rows.push(...b.records.map((r) => r.offset));
    if (this.staging) {
      this.stagedEnd = b.nextOffset;
      return { status: 'staged', durable: [{ topic: 't', partition: 0, storedOffset: this.stored }] };
    }
    this.stored = b.nextOffset;
    return { status: 'committed' };
  }
  async flush(): Promise<WriteResult> {
    if (this.stagedEnd !== null) this.stored = this.stagedEnd;
    this.stagedEnd = null;
    return { status: 'committed' };
  }
  async close(): Promise<void> {}
}
class SeekableSink extends MemorySink {
  async seek(_g: string, r: SeekRequest): Promise<WriteResult> {
    this.seeks.push(r);
    if (this.movedBy !== null) {
      this.stored = this.movedBy;
      this.movedBy = null;
    }
    if (r.expectedOffset !== this.stored) return { status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: this.stored }] };
    this.stored = r.offset;
    if (this.lostAck) return { status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: this.stored }] };
    return { status: 'committed' };
  }
}

function ctx(commits: bigint[]): StrategyContext {
  return {
    groupId: 'g', startFrom: 'earliest',
    commitToKafka: async (o) => { commits.push(...o.map((x) => x.offset)); },
    earliestOffset: async () => 0n,
    offsetRange: async () => ({ earliest: 0n, latest: 100n }),
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
const tp = { topic: 't', partition: 0 };
const settle = () => new Promise((r) => setTimeout(r, 10));

async function consumedTo(s: ReturnType<typeof exactlyOnce>, c: StrategyContext, n: number): Promise<void> {
  await s.onAssigned(c, [tp]);
  const b = batchAt(0n, n);
  expect(await s.handleBatch(c, b, run(b))).toEqual({ kind: 'done' });
}

test('a seek back moves the sink\'s position by CAS (no data), Kafka\'s monitoring offset follows, batches continue from it', async () => {
  const sink = new SeekableSink();
  const commits: bigint[] = [];
  const s = exactlyOnce({ sink });
  const c = ctx(commits);
  await consumedTo(s, c, 30);
  await s.seek!(c, tp, 10n);
  expect(sink.seeks).toEqual([{ topic: 't', partition: 0, expectedOffset: 30n, offset: 10n }]);
  expect(sink.stored).toBe(10n);
  expect(s.positions().get('t:0')).toBe(10n);
  await settle();
  expect(commits.at(-1)).toBe(10n);
  // A batch fetched before the seek (from 30) is not written: the consumer goes to where the sink now stands.
  const stale = batchAt(30n, 5);
  expect(await s.handleBatch(c, stale, run(stale))).toEqual({ kind: 'seek', offset: 10n });
  const again = batchAt(10n, 20);
  expect(await s.handleBatch(c, again, run(again))).toEqual({ kind: 'done' });
  expect(sink.rows).toEqual([...batchAt(0n, 30).records, ...batchAt(10n, 20).records].map((r) => r.offset));
  expect(sink.stored).toBe(30n);
});

test('a seek forward skips records; the sink\'s position is the seek, so a restart resumes there', async () => {
  const sink = new SeekableSink();
  const s = exactlyOnce({ sink });
  const c = ctx([]);
  await consumedTo(s, c, 10);
  await s.seek!(c, tp, 50n);
  const next = batchAt(50n, 5);
  expect(await s.handleBatch(c, next, run(next))).toEqual({ kind: 'done' });
  expect(sink.rows.filter((o) => o >= 10n && o < 50n)).toEqual([]);
  const restarted = exactlyOnce({ sink });
  expect((await restarted.onAssigned(c, [tp]))!.get('t:0')).toBe(55n);
});

test('fenced: another writer moved the position; SEEK_FENCED, nothing moved, the member follows the sink', async () => {
  const sink = new SeekableSink();
  const fenced: unknown[] = [];
  const s = exactlyOnce({ sink, onFenced: (f) => fenced.push(f) });
  const c = ctx([]);
  await consumedTo(s, c, 20);
  sink.movedBy = 40n;
  await expect(s.seek!(c, tp, 5n)).rejects.toMatchObject({ code: 'SEEK_FENCED', message: expect.stringMatching(/position is 40, not 20/) });
  expect(sink.stored).toBe(40n);
  expect(fenced).toEqual([{ topic: 't', partition: 0, expected: 20n, stored: 40n }]);
  const b = batchAt(20n, 5);
  expect(await s.handleBatch(c, b, run(b))).toEqual({ kind: 'seek', offset: 40n });
});

test('a lost acknowledgement (the CAS landed, the answer reads fenced at the target) is a seek done', async () => {
  const sink = new SeekableSink();
  const s = exactlyOnce({ sink });
  const c = ctx([]);
  await consumedTo(s, c, 20);
  sink.lostAck = true;
  await s.seek!(c, tp, 7n);
  expect(s.positions().get('t:0')).toBe(7n);
});

test('refused by name: a sink without seek() (SEEK_UNSUPPORTED), an offset outside the log (INVALID_ARGUMENT); nothing moved', async () => {
  const plain = new MemorySink();
  const s = exactlyOnce({ sink: plain });
  const c = ctx([]);
  await consumedTo(s, c, 20);
  await expect(s.seek!(c, tp, 5n)).rejects.toMatchObject({ code: 'SEEK_UNSUPPORTED' });
  expect(plain.stored).toBe(20n);
  const sink = new SeekableSink();
  const t = exactlyOnce({ sink });
  await consumedTo(t, c, 20);
  await expect(t.seek!(c, tp, 101n)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  expect(sink.seeks).toEqual([]);
  expect(sink.stored).toBe(20n);
});

test('a staging sink: the staged tail is made durable first, then the position moves from there', async () => {
  const sink = new SeekableSink(true);
  const s = exactlyOnce({ sink });
  const c = ctx([]);
  await consumedTo(s, c, 20); // staged, durable -1
  expect(sink.stagedEnd).toBe(20n);
  await s.seek!(c, tp, 3n);
  expect(sink.seeks).toEqual([{ topic: 't', partition: 0, expectedOffset: 20n, offset: 3n }]);
  const b = batchAt(3n, 2);
  expect(await s.handleBatch(c, b, run(b))).toEqual({ kind: 'done' });
});
