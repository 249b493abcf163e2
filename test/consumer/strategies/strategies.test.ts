/**
 * The three commit strategies step by step, with a fake context and a fake sink that record every
 * call in one ordered log: which comes first, the commit or the processing, and what is committed
 * after a partial batch, a revocation, a loss, a fenced write or an unavailable sink.
 */
import { atMostOnce } from '../../../src/consumer/strategies/at-most-once';
import { atLeastOnce } from '../../../src/consumer/strategies/at-least-once';
import { exactlyOnce } from '../../../src/consumer/strategies/exactly-once';
import type { ProcessResult, StrategyBatch, StrategyContext } from '../../../src/consumer/strategies/types';
import { KafkaEosError } from '../../../src/errors';
import { CommitDeferredError } from '../../../src/consumer/errors';
import { until } from '../../helpers/until';
import type { ExactlyOnceSink, WriteResult } from '../../../src/sink-contract';
import type { SinkBatch, SinkRecord, TopicPartition } from '../../../src/records';

const TP = { topic: 't', partition: 0 };

function record(offset: bigint): SinkRecord {
  return { ...TP, offset, key: null, value: Buffer.from(String(offset)), timestamp: 0n, headers: {} };
}

/** A batch of `n` records from `from` (contiguous offsets). */
function batch(from: bigint, n: number): StrategyBatch {
  const records = Array.from({ length: n }, (_, i) => record(from + BigInt(i)));
  return { ...TP, fetchOffset: from, records, nextOffset: from + BigInt(n) };
}

/** A fake context: commits are logged (`commit t:0@5`); `failCommit` makes the next commit throw. */
function fakeContext(log: string[], range = { earliest: 0n, latest: 100n }) {
  const state: { failCommit: unknown } = { failCommit: null };
  const ctx: StrategyContext = {
    groupId: 'g', startFrom: 'earliest',
    commitToKafka: async (offsets) => {
      if (state.failCommit) {
        const e = state.failCommit;
        state.failCommit = null;
        log.push('commit failed');
        throw e;
      }
      for (const o of offsets) log.push(`commit ${o.topic}:${o.partition}@${o.offset}`);
    },
    earliestOffset: async () => range.earliest,
    offsetRange: async () => range,
  };
  return { ctx, state };
}

/** A processing step that logs and finishes every record (or stops before `stopAt`). */
function processing(log: string[], b: StrategyBatch, stopAt?: bigint): () => Promise<ProcessResult> {
  return async () => {
    const done = stopAt === undefined ? b.records : b.records.filter((r) => r.offset < stopAt);
    log.push(`process ${b.fetchOffset}..${done.length > 0 ? done[done.length - 1].offset : '-'}`);
    return stopAt === undefined
      ? { processedUpTo: b.nextOffset, complete: true, output: b.records }
      : { processedUpTo: stopAt, complete: false, output: done };
  };
}

describe('at-most-once', () => {
  test('commits the batch end before processing; a partial batch is given up, not repeated', async () => {
    const log: string[] = [];
    const s = atMostOnce();
    const { ctx } = fakeContext(log);
    const b = batch(10n, 5);
    expect(await s.handleBatch(ctx, b, processing(log, b, 12n))).toEqual({ kind: 'done' });
    expect(log).toEqual(['commit t:0@15', 'process 10..11']);
  });

  test('a failed commit means nothing is processed', async () => {
    const log: string[] = [];
    const s = atMostOnce();
    const { ctx, state } = fakeContext(log);
    state.failCommit = new Error('coordinator gone');
    const b = batch(0n, 3);
    await expect(s.handleBatch(ctx, b, processing(log, b))).rejects.toThrow('coordinator gone');
    expect(log).toEqual(['commit failed']);
  });
});

describe('at-least-once', () => {
  test('a periodic commit deferred by a rebalance goes out once the rebalance ends, with no further batch '
    + '(a partition that went quiet keeps nothing uncommitted); records finished meanwhile stay due', async () => {
    const log: string[] = [];
    let settle!: () => void;
    let rebalancing = true;
    const settled = new Promise<void>((r) => { settle = () => { rebalancing = false; r(); }; });
    const ctx: StrategyContext = {
      groupId: 'g', startFrom: 'earliest',
      commitToKafka: async (offsets, options) => {
        const call = offsets.map((o) => `${o.topic}:${o.partition}@${o.offset}`).join(',');
        if (options?.wait === false && rebalancing) {
          log.push(`deferred ${call}`);
          throw new CommitDeferredError(`OffsetCommit ${call}: a rebalance is under way`);
        }
        await settled; // the committer waits for the membership to settle
        log.push(`commit ${call}`);
      },
      earliestOffset: async () => 0n,
      offsetRange: async () => ({ earliest: 0n, latest: 100n }),
    };
    const s = atLeastOnce({ commitIntervalMs: 0 });
    const b = batch(0n, 4);
    expect(await s.handleBatch(ctx, b, processing(log, b))).toEqual({ kind: 'done' });
    expect(log).toEqual(['process 0..3', 'deferred t:0@4']);
    settle();
    await until(() => log.includes('commit t:0@4'), 'the deferred commit', 2000);
    // The commit sent 4: what it did not carry is still due and goes with the next batch.
    const b2 = batch(4n, 2);
    await s.handleBatch(ctx, b2, processing(log, b2));
    expect(log.slice(-2)).toEqual(['process 4..5', 'commit t:0@6']);
  });

  test('processes, then commits the offset after the last finished record (interval 0)', async () => {
    const log: string[] = [];
    const s = atLeastOnce({ commitIntervalMs: 0 });
    const { ctx } = fakeContext(log);
    const b = batch(0n, 4);
    expect(await s.handleBatch(ctx, b, processing(log, b))).toEqual({ kind: 'done' });
    expect(log).toEqual(['process 0..3', 'commit t:0@4']);
  });

  test('a partial batch commits up to the first unfinished record and seeks back to it', async () => {
    const log: string[] = [];
    const s = atLeastOnce({ commitIntervalMs: 0 });
    const { ctx } = fakeContext(log);
    const b = batch(0n, 10);
    expect(await s.handleBatch(ctx, b, processing(log, b, 6n))).toEqual({ kind: 'seek', offset: 6n });
    expect(log).toEqual(['process 0..5', 'commit t:0@6']);
  });

  test('commits wait for the interval; a revocation commits what is finished', async () => {
    const log: string[] = [];
    let now = 0;
    const s = atLeastOnce({ commitIntervalMs: 1000, now: () => now });
    const { ctx } = fakeContext(log);
    const b1 = batch(0n, 2);
    await s.handleBatch(ctx, b1, processing(log, b1));
    now = 500;
    const b2 = batch(2n, 2);
    await s.handleBatch(ctx, b2, processing(log, b2));
    expect(log).toEqual(['process 0..1', 'process 2..3']);
    now = 1000;
    const b3 = batch(4n, 1);
    await s.handleBatch(ctx, b3, processing(log, b3));
    expect(log.slice(2)).toEqual(['process 4..4', 'commit t:0@5']);
    const b4 = batch(5n, 3);
    await s.handleBatch(ctx, b4, processing(log, b4));
    await s.onRevoked!(ctx, [TP]);
    expect(log.slice(4)).toEqual(['process 5..7', 'commit t:0@8']);
    await s.onRevoked!(ctx, [TP]);
    expect(log).toHaveLength(6); // nothing new to commit
  });

  test('a revocation whose commit fails forgets the progress: it is never committed when the partition returns', async () => {
    const log: string[] = [];
    const s = atLeastOnce({ commitIntervalMs: 600000 });
    const { ctx, state } = fakeContext(log);
    const b = batch(50n, 5);
    await s.handleBatch(ctx, b, processing(log, b));
    state.failCommit = new KafkaEosError('KAFKA_CALL_FAILED', 'OffsetCommit failed');
    await expect(s.onRevoked!(ctx, [TP])).rejects.toThrow('OffsetCommit failed');
    // The partition moved on (another member committed 100) and comes back: nothing stale is committed.
    await s.onAssigned(ctx, [TP]);
    const later = batch(100n, 2);
    await s.handleBatch(ctx, later, processing(log, later));
    await s.onRevoked!(ctx, [TP]);
    expect(log.filter((l) => l.startsWith('commit'))).toEqual(['commit failed', 'commit t:0@102']);
  });

  test('lost partitions are forgotten: nothing of them is committed afterwards', async () => {
    const log: string[] = [];
    const s = atLeastOnce({ commitIntervalMs: 600000 });
    const { ctx } = fakeContext(log);
    const b = batch(0n, 3);
    await s.handleBatch(ctx, b, processing(log, b));
    s.onLost!([TP]);
    await s.onRevoked!(ctx, [TP]);
    expect(log).toEqual(['process 0..2']);
  });

  test('record by record: onProgress commits each finished record when due; onFailed keeps the work before a poison record', async () => {
    const log: string[] = [];
    const s = atLeastOnce({ commitIntervalMs: 0 });
    const { ctx } = fakeContext(log);
    await s.onProgress!(ctx, TP, 1n);
    await s.onProgress!(ctx, TP, 2n);
    expect(log).toEqual(['commit t:0@1', 'commit t:0@2']);
    const s2 = atLeastOnce({ commitIntervalMs: 600000 });
    s2.onFailed!(batch(10n, 5), 13n);
    await s2.onRevoked!(ctx, [TP]);
    expect(log.slice(2)).toEqual(['commit t:0@13']);
  });

  test('record by record between commits: no promise per record; progress of a revoked or lost partition starts afresh', async () => {
    const log: string[] = [];
    const s = atLeastOnce({ commitIntervalMs: 600000 });
    const { ctx } = fakeContext(log);
    const b = batch(0n, 3); // the same batch object for every record, as the runner passes it
    expect(s.onProgress!(ctx, b, 1n)).toBeUndefined();
    expect(s.onProgress!(ctx, b, 2n)).toBeUndefined();
    await s.onRevoked!(ctx, [TP]);
    expect(log).toEqual(['commit t:0@2']);
    // The partition comes back: the same object's progress must not go to the forgotten entry.
    s.onProgress!(ctx, b, 3n);
    s.onLost!([TP]);
    await s.onRevoked!(ctx, [TP]);
    expect(log).toEqual(['commit t:0@2']);
    s.onProgress!(ctx, b, 3n);
    await s.onRevoked!(ctx, [TP]);
    expect(log).toEqual(['commit t:0@2', 'commit t:0@3']);
  });

  test('a clock set back makes the periodic commit due at the next batch, then the interval runs from there', async () => {
    const log: string[] = [];
    let now = 1_000_000;
    const s = atLeastOnce({ commitIntervalMs: 60000, now: () => now });
    const { ctx } = fakeContext(log);
    const b1 = batch(0n, 1);
    await s.handleBatch(ctx, b1, processing(log, b1));
    now -= 3_600_000; // an hour back: without the guard, no commit for an hour
    const b2 = batch(1n, 1);
    await s.handleBatch(ctx, b2, processing(log, b2));
    expect(log).toEqual(['process 0..0', 'process 1..1', 'commit t:0@2']);
    now += 1000;
    const b3 = batch(2n, 1);
    await s.handleBatch(ctx, b3, processing(log, b3));
    now += 60000;
    const b4 = batch(3n, 1);
    await s.handleBatch(ctx, b4, processing(log, b4));
    expect(log.slice(3)).toEqual(['process 2..2', 'process 3..3', 'commit t:0@4']);
  });

  test('record by record: no clock read between commits; the interval\'s timer commits the work finished by then', async () => {
    jest.useFakeTimers();
    try {
      const log: string[] = [];
      let now = 1_000_000;
      let reads = 0;
      const s = atLeastOnce({ commitIntervalMs: 1000, now: () => { reads += 1; return now; } });
      const { ctx } = fakeContext(log);
      const b = batch(0n, 500);
      expect(s.onProgress!(ctx, b, 1n)).toBeUndefined(); // arms the timer (one read)
      const armed = reads;
      for (let o = 2n; o <= 300n; o++) expect(s.onProgress!(ctx, b, o)).toBeUndefined();
      expect(reads).toBe(armed);
      now += 999;
      jest.advanceTimersByTime(999);
      expect(s.onProgress!(ctx, b, 301n)).toBeUndefined();
      now += 1;
      jest.advanceTimersByTime(1); // the timer commits what is finished, with no record needed to notice it
      expect(log).toEqual(['commit t:0@301']);
      expect(s.onProgress!(ctx, b, 302n)).toBeUndefined();
      expect(log).toEqual(['commit t:0@301']);
      // The next interval: the clock goes back an hour meanwhile; the timer still fires after the interval, and the
      // commit goes out then (a clock set back makes it due), never an hour later.
      expect(s.onProgress!(ctx, b, 303n)).toBeUndefined();
      now -= 3_600_000;
      jest.advanceTimersByTime(1000);
      expect(log).toEqual(['commit t:0@301', 'commit t:0@303']);
      expect(s.onProgress!(ctx, b, 304n)).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });

  test('a partition gone quiet: its last batch is committed at the end of the interval; a failed commit is tried again',
    async () => {
      jest.useFakeTimers();
      try {
        const log: string[] = [];
        let now = 0;
        const s = atLeastOnce({ commitIntervalMs: 1000, now: () => now });
        const { ctx, state } = fakeContext(log);
        const b1 = batch(0n, 5);
        await s.handleBatch(ctx, b1, processing(log, b1)); // the interval started at 0: not due
        now = 10;
        const b2 = batch(5n, 5);
        await s.handleBatch(ctx, b2, processing(log, b2)); // not due either, and no batch follows
        expect(log).toEqual(['process 0..4', 'process 5..9']);
        state.failCommit = new Error('coordinator moved');
        now = 1000;
        await jest.advanceTimersByTimeAsync(1000);
        expect(log.slice(2)).toEqual(['commit failed']);
        now = 2000;
        await jest.advanceTimersByTimeAsync(1000);
        expect(log.slice(2)).toEqual(['commit failed', 'commit t:0@10']);
        now = 5000;
        await jest.advanceTimersByTimeAsync(3000); // nothing left to commit: no timer, no commit
        expect(log.slice(2)).toEqual(['commit failed', 'commit t:0@10']);
      } finally {
        jest.useRealTimers();
      }
    });

  test('a partition gone quiet whose timer fires a moment early by the wall clock: committed once the interval ends',
    async () => {
      // Node's timers run on the monotonic clock, Date.now() on the wall clock: the timer can fire while the wall clock
      // says the interval has 1 ms left. Seen in CI: the quiet partition's work was then never committed.
      jest.useFakeTimers();
      try {
        const log: string[] = [];
        let now = 0;
        const s = atLeastOnce({ commitIntervalMs: 1000, now: () => now });
        const { ctx } = fakeContext(log);
        const b = batch(0n, 5);
        await s.handleBatch(ctx, b, processing(log, b)); // not due: the timer is armed for t = 1000
        now = 999;
        await jest.advanceTimersByTimeAsync(1000); // fires; the wall clock says 1 ms is left
        expect(log).toEqual(['process 0..4']);
        now = 1000;
        await jest.advanceTimersByTimeAsync(1);
        expect(log).toEqual(['process 0..4', 'commit t:0@5']);
        await jest.advanceTimersByTimeAsync(5000); // nothing left: no timer, no commit
        expect(log).toHaveLength(2);
      } finally {
        jest.useRealTimers();
      }
    });

  test('record by record with an interval longer than a timer can wait: no timer overflow, no commit', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const log: string[] = [];
      let reads = 0;
      const s = atLeastOnce({ commitIntervalMs: Number.MAX_SAFE_INTEGER, now: () => { reads += 1; return 0; } });
      const { ctx } = fakeContext(log);
      const b = batch(0n, 3);
      expect(s.onProgress!(ctx, b, 1n)).toBeUndefined();
      const armed = reads;
      await new Promise((r) => setTimeout(r, 20)); // a timer that overflowed (Node: fires after 1 ms) would have fired
      expect(s.onProgress!(ctx, b, 2n)).toBeUndefined();
      expect(reads).toBe(armed); // not ripe: the clock was not read again
      expect(warnings).not.toContain('TimeoutOverflowWarning');
      expect(log).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('record by record: a timer that fired for an interval a batch commit restarted does not commit early', async () => {
    jest.useFakeTimers();
    try {
      const log: string[] = [];
      let now = 0;
      const s = atLeastOnce({ commitIntervalMs: 1000, now: () => now });
      const { ctx } = fakeContext(log);
      const b = batch(0n, 10);
      expect(s.onProgress!(ctx, b, 1n)).toBeUndefined(); // timer for t = 1000
      now = 1000;
      const other = { ...batch(100n, 1), partition: 1 };
      await s.handleBatch(ctx, other, processing(log, other)); // commits, the interval restarts at 1000
      expect(log).toEqual(['process 100..100', 'commit t:0@1', 'commit t:1@101']);
      jest.advanceTimersByTime(1000);
      now = 1500;
      expect(s.onProgress!(ctx, b, 2n)).toBeUndefined(); // the old timer fired, but the interval runs to 2000
      expect(log.length).toBe(3);
      now = 2000;
      jest.advanceTimersByTime(1000); // the interval's end: the work finished by then is committed
      expect(log.slice(3)).toEqual(['commit t:0@2']);
    } finally {
      jest.useRealTimers();
    }
  });
});

/** An exactly-once sink in memory: CAS on the stored position; logs open/write; scripted failures. */
class FakeSink implements ExactlyOnceSink {
  stored = -1n;
  rows: bigint[] = [];
  next: 'unavailable' | 'lost-ack' | 'fence' | null = null;
  constructor(private readonly log: string[]) {}
  async open(_g: string, partitions: TopicPartition[]): Promise<Map<string, bigint>> {
    this.log.push(`open -> ${this.stored}`);
    return new Map(partitions.map((tp) => [`${tp.topic}:${tp.partition}`, this.stored]));
  }
  async write(_g: string, batches: SinkBatch[]): Promise<WriteResult> {
    const b = batches[0];
    const action = this.next;
    this.next = null;
    if (action === 'unavailable') {
      this.log.push('write unavailable');
      throw new KafkaEosError('SINK_RETRIES_EXHAUSTED', 'down', { retriable: true });
    }
    if (action === 'fence') this.stored = 500n; // another writer moved on
    if (b.expectedOffset !== this.stored) {
      this.log.push(`write fenced (expected ${b.expectedOffset}, stored ${this.stored})`);
      return { status: 'fenced', fenced: [{ topic: b.topic, partition: b.partition, storedOffset: this.stored }] };
    }
    this.rows.push(...b.records.map((r) => r.offset));
    this.stored = b.nextOffset;
    this.log.push(`write ${b.expectedOffset}->${b.nextOffset}`);
    if (action === 'lost-ack') throw new KafkaEosError('SINK_RETRIES_EXHAUSTED', 'ack lost', { retriable: true });
    return { status: 'committed' };
  }
  async close(): Promise<void> {}
}

describe('exactly-once', () => {
  function setup(stored = -1n) {
    const log: string[] = [];
    const sink = new FakeSink(log);
    sink.stored = stored;
    const fenced: unknown[] = [];
    const unavailable: unknown[] = [];
    const s = exactlyOnce({ sink, sinkRetryDelayMs: 0, onFenced: (i) => fenced.push(i), onSinkUnavailable: (i) => unavailable.push(i) });
    const { ctx, state } = fakeContext(log, { earliest: 3n, latest: 100n });
    return { log, sink, s, ctx, state, fenced, unavailable };
  }

  test('positions come from the sink (log start when none is stored); the stored ones are committed for monitoring', async () => {
    const a = setup();
    expect(await a.s.onAssigned(a.ctx, [TP])).toEqual(new Map([['t:0', 3n]]));
    expect(a.log).toEqual(['open -> -1']);
    const b = setup(40n);
    expect(await b.s.onAssigned(b.ctx, [TP])).toEqual(new Map([['t:0', 40n]]));
    expect(b.log).toEqual(['open -> 40', 'commit t:0@40']);
  });

  test('process, then one write of records and position (CAS from the stored one), then the monitoring commit', async () => {
    const { log, sink, s, ctx } = setup(10n);
    await s.onAssigned(ctx, [TP]);
    log.length = 0;
    const b = batch(10n, 5);
    expect(await s.handleBatch(ctx, b, processing(log, b))).toEqual({ kind: 'done' });
    expect(log).toEqual(['process 10..14', 'write 10->15', 'commit t:0@15']);
    expect(sink.rows).toEqual([10n, 11n, 12n, 13n, 14n]);
  });

  test('a batch fetched from anywhere but the stored position is not processed: seek there', async () => {
    const { log, s, ctx } = setup(10n);
    await s.onAssigned(ctx, [TP]);
    log.length = 0;
    const stale = batch(4n, 3);
    expect(await s.handleBatch(ctx, stale, processing(log, stale))).toEqual({ kind: 'seek', offset: 10n });
    expect(log).toEqual([]);
  });

  test('a fenced write commits nothing and seeks to the position the other writer stored', async () => {
    const { log, sink, s, ctx, fenced } = setup(10n);
    await s.onAssigned(ctx, [TP]);
    log.length = 0;
    sink.next = 'fence';
    const b = batch(10n, 5);
    expect(await s.handleBatch(ctx, b, processing(log, b))).toEqual({ kind: 'seek', offset: 500n });
    expect(log).toEqual(['process 10..14', 'write fenced (expected 10, stored 500)']);
    expect(fenced).toEqual([{ topic: 't', partition: 0, expected: 10n, stored: 500n }]);
    expect(sink.rows).toEqual([]);
  });

  test('an unavailable sink: seek back, re-read the position before writing again', async () => {
    const { log, sink, s, ctx, unavailable } = setup(10n);
    await s.onAssigned(ctx, [TP]);
    log.length = 0;
    sink.next = 'unavailable';
    const b = batch(10n, 2);
    expect(await s.handleBatch(ctx, b, processing(log, b))).toEqual({ kind: 'seek', offset: 10n });
    expect(unavailable).toHaveLength(1);
    expect(await s.handleBatch(ctx, b, processing(log, b))).toEqual({ kind: 'done' });
    expect(log).toEqual(['process 10..11', 'write unavailable', 'open -> 10', 'process 10..11', 'write 10->12', 'commit t:0@12']);
    expect(sink.rows).toEqual([10n, 11n]);
  });

  test('a lost acknowledgement: the re-read position shows the write committed; it is not written twice', async () => {
    const { log, sink, s, ctx } = setup(10n);
    await s.onAssigned(ctx, [TP]);
    log.length = 0;
    sink.next = 'lost-ack';
    const b = batch(10n, 2);
    expect(await s.handleBatch(ctx, b, processing(log, b))).toEqual({ kind: 'seek', offset: 10n });
    // The consumer fetches from 10 again: the stored position (12) is read back, committed for
    // monitoring, and the stale batch is skipped by a seek.
    expect(await s.handleBatch(ctx, b, processing(log, b))).toEqual({ kind: 'seek', offset: 12n });
    expect(log).toEqual(['process 10..11', 'write 10->12', 'open -> 12', 'commit t:0@12']);
    expect(sink.rows).toEqual([10n, 11n]);
  });

  test('a refused monitoring commit (the generation is gone, say) does not fail the batch and is tried again', async () => {
    const { log, s, ctx, state } = setup(10n);
    await s.onAssigned(ctx, [TP]);
    log.length = 0;
    state.failCommit = Object.assign(new Error('The coordinator is not aware of this member'), { type: 'UNKNOWN_MEMBER_ID', code: 25 });
    const b = batch(10n, 1);
    expect(await s.handleBatch(ctx, b, processing(log, b))).toEqual({ kind: 'done' });
    await s.onRevoked!(ctx, [TP]); // waits for the monitoring commits under way
    expect(log).toEqual(['process 10..10', 'write 10->11', 'commit failed', 'commit t:0@11']);
  });
});
