import { KafkaEosError } from '../../src/errors';
import { PoisonMessageError } from '../../src/consumer/errors';
import { processBatch, ProcessorOptions } from '../../src/consumer/retry';
import type { SinkRecord } from '../../src/records';
import type { StrategyBatch } from '../../src/consumer/strategies/types';

const record = (offset: number): SinkRecord => ({
  topic: 't', partition: 0, offset: BigInt(offset), key: null, value: Buffer.from(`v${offset}`), timestamp: 0n, headers: {},
});
const batchOf = (...offsets: number[]): StrategyBatch => ({
  topic: 't', partition: 0, fetchOffset: BigInt(offsets[0] ?? 0), records: offsets.map(record),
  nextOffset: BigInt((offsets[offsets.length - 1] ?? -1) + 1),
});
const never = () => false;
const fast = { minTimeoutMs: 1, maxTimeoutMs: 1, factor: 1 };

describe('processBatch with a record handler', () => {
  test('records that succeed: one try each, attempt 1, every record done in order, progress awaited when it is a promise', async () => {
    const seen: [bigint, number][] = [];
    const done: bigint[] = [];
    const options: ProcessorOptions = { recordHandler: async (r, ctx) => { seen.push([r.offset, ctx.attempt]); } };
    const signal = new AbortController().signal;
    let pending = 0;
    const res = await processBatch(options, batchOf(5, 6, 7), signal, never, (upTo) => {
      done.push(upTo);
      // Every other call returns a promise: the next record must wait for it.
      if (upTo % 2n === 0n) return undefined;
      pending += 1;
      return new Promise<void>((r) => setImmediate(() => { pending -= 1; r(); }));
    });
    expect(pending).toBe(0);
    expect(seen).toEqual([[5n, 1], [6n, 1], [7n, 1]]);
    expect(done).toEqual([6n, 7n, 8n]);
    expect(res).toEqual({ processedUpTo: 8n, complete: true, output: batchOf(5, 6, 7).records });
  });

  test('a record that fails is retried with attempts 2, 3, ... and a retry event per failed attempt but the last', async () => {
    const attempts: number[] = [];
    const retries: number[] = [];
    const options: ProcessorOptions = {
      retry: { retries: 2, ...fast },
      recordHandler: async (r, ctx) => {
        if (r.offset !== 1n) return;
        attempts.push(ctx.attempt);
        if (ctx.attempt < 3) throw new Error(`try ${ctx.attempt}`);
      },
      onRetry: (i) => retries.push(i.attempt),
    };
    const res = await processBatch(options, batchOf(0, 1, 2), new AbortController().signal, never);
    expect(attempts).toEqual([1, 2, 3]);
    expect(retries).toEqual([1, 2]);
    expect(res.output.map((r) => r.offset)).toEqual([0n, 1n, 2n]);
  });

  test('retries exhausted, policy fail: PoisonMessageError at the record, with the work before it done', async () => {
    const done: bigint[] = [];
    const options: ProcessorOptions = {
      retry: { retries: 1, ...fast },
      recordHandler: async (r) => { if (r.offset === 11n) throw new Error('bad record'); },
    };
    const err = await processBatch(options, batchOf(10, 11, 12), new AbortController().signal, never, (u) => { done.push(u); })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PoisonMessageError);
    expect(err).toMatchObject({ offset: 11n, processedUpTo: 11n, code: 'POISON_MESSAGE' });
    expect((err as Error).message).toContain('bad record');
    expect(done).toEqual([11n]);
  });

  test('a non-retriable error is not retried; a thrown non-Error is policed with its original value', async () => {
    let tries = 0;
    const skipped: unknown[] = [];
    const options: ProcessorOptions = {
      retry: { retries: 5, ...fast, isRetriable: () => false },
      poisonPolicy: 'skip',
      recordHandler: async (r) => { if (r.offset === 0n) { tries += 1; throw 'not an Error'; } },
      onSkip: (i) => skipped.push(i.offset),
    };
    const res = await processBatch(options, batchOf(0, 1), new AbortController().signal, never);
    expect(tries).toBe(1);
    expect(skipped).toEqual([0n]);
    expect(res).toMatchObject({ processedUpTo: 2n, complete: true });
    expect(res.output.map((r) => r.offset)).toEqual([1n]);
  });

  test('a stop between records, or an abort while a record fails, returns the partial result at that record', async () => {
    let stop = false;
    const options: ProcessorOptions = { recordHandler: async (r) => { if (r.offset === 1n) stop = true; } };
    const res = await processBatch(options, batchOf(0, 1, 2), new AbortController().signal, () => stop);
    expect(res).toMatchObject({ processedUpTo: 2n, complete: false });
    expect(res.output.map((r) => r.offset)).toEqual([0n, 1n]);

    const ac = new AbortController();
    const aborting: ProcessorOptions = {
      retry: { retries: 3, ...fast },
      recordHandler: async (r) => { if (r.offset === 1n) { ac.abort(); throw new Error('aborted'); } },
    };
    const partial = await processBatch(aborting, batchOf(0, 1, 2), ac.signal, () => ac.signal.aborted);
    expect(partial).toMatchObject({ processedUpTo: 1n, complete: false });
    expect(partial.output.map((r) => r.offset)).toEqual([0n]);
  });

  test('the first try context is frozen and carries the signal', async () => {
    const contexts: unknown[] = [];
    const signal = new AbortController().signal;
    await processBatch({ recordHandler: async (_r, ctx) => { contexts.push(ctx); } }, batchOf(0, 1), signal, never);
    expect(contexts[0]).toEqual({ signal, attempt: 1 });
    expect(Object.isFrozen(contexts[0])).toBe(true);
  });
});

describe('processBatch with a record handler that returns its result (no promise)', () => {
  test('a sync handler that throws goes through the retries, their events and the poison policy like an async one', async () => {
    const attempts: [bigint, number][] = [];
    const retries: number[] = [];
    const skipped: bigint[] = [];
    const options: ProcessorOptions = {
      retry: { retries: 2, ...fast },
      poisonPolicy: 'skip',
      recordHandler: (r, ctx) => {
        attempts.push([r.offset, ctx.attempt]);
        if (r.offset === 1n && ctx.attempt < 3) throw new Error(`try ${ctx.attempt}`);
        if (r.offset === 2n) throw new Error('always');
      },
      onRetry: (i) => retries.push(i.attempt),
      onSkip: (i) => skipped.push(i.offset),
    };
    const b = batchOf(0, 1, 2, 3);
    const res = await processBatch(options, b, new AbortController().signal, never);
    expect(attempts).toEqual([[0n, 1], [1n, 1], [1n, 2], [1n, 3], [2n, 1], [2n, 2], [2n, 3], [3n, 1]]);
    expect(retries).toEqual([1, 2, 1, 2]);
    expect(skipped).toEqual([2n]);
    expect(res).toMatchObject({ processedUpTo: 4n, complete: true });
    expect(res.output.map((r) => r.offset)).toEqual([0n, 1n, 3n]);
    expect(b.records.map((r) => r.offset)).toEqual([0n, 1n, 2n, 3n]); // the batch's own array is left alone
  });

  test('a sync handler\'s output records are produced in order; policy fail stops at the record, its work before done', async () => {
    const options: ProcessorOptions = {
      recordHandler: (r) => (r.offset === 2n ? [] : [{ topic: 'o', value: String(r.offset) }]),
    };
    const res = await processBatch(options, batchOf(0, 1, 2, 3), new AbortController().signal, never);
    expect(res.produced).toEqual(['0', '1', '3'].map((value) => ({ topic: 'o', value })));
    const seen: bigint[] = [];
    const failing: ProcessorOptions = { recordHandler: (r) => { seen.push(r.offset); if (r.offset === 1n) throw new Error('bad'); } };
    const err = await processBatch(failing, batchOf(0, 1, 2), new AbortController().signal, never).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'POISON_MESSAGE', offset: 1n, processedUpTo: 1n });
    expect(seen).toEqual([0n, 1n]);
  });

  test('a stop asked by a sync handler takes effect before the next record', async () => {
    let stop = false;
    const seen: bigint[] = [];
    const options: ProcessorOptions = { recordHandler: (r) => { seen.push(r.offset); if (r.offset === 1n) stop = true; } };
    const res = await processBatch(options, batchOf(0, 1, 2, 3), new AbortController().signal, () => stop);
    expect(seen).toEqual([0n, 1n]);
    expect(res).toMatchObject({ processedUpTo: 2n, complete: false });
    expect(res.output.map((r) => r.offset)).toEqual([0n, 1n]);
  });

  test('progress after each record is the next record\'s offset (gaps included), the batch end after the last', async () => {
    // Offsets 3 and 6 are gone (compaction, a transaction marker); the batch ends at 9 (a marker at 8).
    const b: StrategyBatch = { ...batchOf(1, 2, 4, 5, 7), nextOffset: 9n };
    const done: bigint[] = [];
    const skipped: bigint[] = [];
    const options: ProcessorOptions = {
      poisonPolicy: 'skip', onSkip: (i) => skipped.push(i.offset),
      recordHandler: async (r) => { if (r.offset === 4n) throw new Error('bad'); },
    };
    const res = await processBatch(options, b, new AbortController().signal, never, (u) => { done.push(u); });
    expect(done).toEqual([2n, 4n, 5n, 7n, 9n]);
    expect(skipped).toEqual([4n]);
    expect(res).toMatchObject({ processedUpTo: 9n, complete: true });
    expect(res.output.map((r) => r.offset)).toEqual([1n, 2n, 5n, 7n]);
  });

  test('a handler returning a thenable that is not a Promise is waited for', async () => {
    const order: string[] = [];
    const options: ProcessorOptions = {
      recordHandler: ((r: { offset: bigint }) => ({
        then(resolve: (v: unknown) => void) { setImmediate(() => { order.push(`done ${r.offset}`); resolve(undefined); }); },
      })) as unknown as ProcessorOptions['recordHandler'],
    };
    await processBatch(options, batchOf(0, 1), new AbortController().signal, () => { order.push('next'); return false; });
    expect(order).toEqual(['next', 'done 0', 'next', 'done 1']);
  });
});

describe('processBatch with the sink\'s output check (KafkaSink checkOutputs)', () => {
  const invalid = new KafkaEosError('KAFKA_OUTPUT_INVALID', 'output record #0 of input record t:0@6: header bad');
  test('KAFKA_OUTPUT_INVALID is that record\'s failure: the poison policy applies to it alone', async () => {
    const skipped: bigint[] = [];
    const checked: bigint[] = [];
    const options: ProcessorOptions = {
      recordHandler: async (r) => [{ topic: 'o', value: String(r.offset) }],
      checkOutputs: async (_outputs, source) => {
        checked.push(source.offset!);
        if (source.offset === 6n) throw invalid;
      },
      poisonPolicy: 'skip', onSkip: (info) => skipped.push(info.offset),
    };
    const res = await processBatch(options, batchOf(5, 6, 7), new AbortController().signal, never);
    expect(checked).toEqual([5n, 6n, 7n]);
    expect(skipped).toEqual([6n]);
    expect(res.produced).toEqual([{ topic: 'o', value: '5' }, { topic: 'o', value: '7' }]);
  });

  test('any other error of the check is not the record\'s fault: it fails the batch, never skipped', async () => {
    const unknown = new KafkaEosError('UNKNOWN_TOPIC', 'output topic missing');
    const skipped: bigint[] = [];
    const options: ProcessorOptions = {
      recordHandler: async () => [{ topic: 'o', value: 'v' }],
      checkOutputs: async () => { throw unknown; },
      poisonPolicy: 'skip', onSkip: (info) => skipped.push(info.offset),
    };
    await expect(processBatch(options, batchOf(5, 6), new AbortController().signal, never)).rejects.toBe(unknown);
    expect(skipped).toEqual([]);
  });

  test('a record whose handler returns nothing is not checked', async () => {
    let calls = 0;
    const options: ProcessorOptions = { recordHandler: async () => undefined, checkOutputs: async () => { calls += 1; } };
    await processBatch(options, batchOf(5, 6), new AbortController().signal, never);
    expect(calls).toBe(0);
  });
});

describe('processBatch: what a record handler returns (issue 25 breaker)', () => {
  test('a callable thenable (a function with a then method, as await treats it) is waited for; its rejection is the failure', async () => {
    const order: string[] = [];
    const skipped: bigint[] = [];
    const thenableFn = (offset: bigint) => Object.assign(() => undefined, {
      then(resolve: (v: unknown) => void, reject: (e: unknown) => void) {
        setImmediate(() => {
          order.push(`done ${offset}`);
          if (offset === 1n) reject(new Error('bad')); else resolve(undefined);
        });
      },
    });
    const options: ProcessorOptions = {
      poisonPolicy: 'skip', onSkip: (i) => skipped.push(i.offset),
      recordHandler: ((r: { offset: bigint }) => { order.push(`start ${r.offset}`); return thenableFn(r.offset); }) as unknown as
        ProcessorOptions['recordHandler'],
    };
    const res = await processBatch(options, batchOf(0, 1, 2), new AbortController().signal, never);
    expect(order).toEqual(['start 0', 'done 0', 'start 1', 'done 1', 'start 2', 'done 2']);
    expect(skipped).toEqual([1n]);
    expect(res.output.map((r) => r.offset)).toEqual([0n, 2n]);
  });

  test('a sync handler returning an invalid output (KafkaSink check) is policed as before; a valid one after it is produced', async () => {
    const invalid = new KafkaEosError('KAFKA_OUTPUT_INVALID', 'output record #0 of input record t:0@1: bad');
    const skipped: bigint[] = [];
    const options: ProcessorOptions = {
      recordHandler: (r) => [{ topic: 'o', value: String(r.offset) }],
      checkOutputs: async (_o, source) => { if (source.offset === 1n) throw invalid; },
      retry: { retries: 1, ...fast },
      poisonPolicy: 'skip', onSkip: (i) => skipped.push(i.offset),
    };
    const b = batchOf(0, 1, 2);
    const res = await processBatch(options, b, new AbortController().signal, never);
    expect(skipped).toEqual([1n]);
    expect(res.produced).toEqual([{ topic: 'o', value: '0' }, { topic: 'o', value: '2' }]);
    expect(res.output.map((r) => r.offset)).toEqual([0n, 2n]);
    expect(b.records.map((r) => r.offset)).toEqual([0n, 1n, 2n]);
  });

  test('a rejected promise created synchronously, a thenable throwing in then, one settling twice: each is one failure', async () => {
    const failures: bigint[] = [];
    const attempts: bigint[] = [];
    const options: ProcessorOptions = {
      poisonPolicy: 'skip', onSkip: (i) => failures.push(i.offset),
      recordHandler: ((r: { offset: bigint }) => {
        attempts.push(r.offset);
        if (r.offset === 0n) return Promise.reject(new Error('sync-made rejection'));
        if (r.offset === 1n) return { then() { throw new Error('then threw'); } };
        if (r.offset === 2n) return { then(ok: (v: unknown) => void, no: (e: unknown) => void) { no(new Error('x')); ok(undefined); } };
        return { then(ok: (v: unknown) => void, no: (e: unknown) => void) { ok(undefined); no(new Error('late')); } };
      }) as unknown as ProcessorOptions['recordHandler'],
    };
    const res = await processBatch(options, batchOf(0, 1, 2, 3), new AbortController().signal, never);
    expect(attempts).toEqual([0n, 1n, 2n, 3n]);
    expect(failures).toEqual([0n, 1n, 2n]);
    expect(res.output.map((r) => r.offset)).toEqual([3n]);
    expect(res.processedUpTo).toBe(4n);
  });
});
