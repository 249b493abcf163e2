/**
 * Processing of one batch: the user's handler under p-retry (exponential backoff, a maximum
 * number of tries, a predicate for which errors are retried), then the poison policy for what
 * still fails: `fail` (throw {@link PoisonMessageError}), `skip`, or `dead-letter` (produce to a
 * topic with headers naming the source, then go on). A record handler is retried and policed per
 * record and stops between records when asked to; a batch handler per batch.
 *
 * Dead letters are produced and acknowledged (acks = all) *before* the strategy commits the
 * batch, so a crash in between re-delivers the batch (the dead letter may then be produced twice)
 * but never commits past a record that reached neither the handler's output nor the DLQ.
 */
import { pRetry } from '../util/vendored';
import type { Producer } from 'kafkajs';
import type { OutputRecord, OutputSource, SinkRecord } from '../records';
import { kafkaEosErrorOf } from '../errors';
import { isRetriable } from '../protocol/kafka-errors';
import { PoisonMessageError } from './errors';
import type { BatchHandler, PoisonPolicy, RecordContext, RecordHandler, RetryOptions } from './options';
import type { ProcessResult, StrategyBatch } from './strategies/types';

/** Header names of a dead letter. Values are UTF-8 strings. */
export const DEAD_LETTER_HEADERS = {
  topic: 'kafka-eos.dlq.source.topic',
  partition: 'kafka-eos.dlq.source.partition',
  offset: 'kafka-eos.dlq.source.offset',
  error: 'kafka-eos.dlq.error',
} as const;

/** What {@link processBatch} runs and how it retries and polices failures; the `on*` callbacks feed events and metrics. */
export interface ProcessorOptions {
  handler?: BatchHandler;
  recordHandler?: RecordHandler;
  retry?: RetryOptions;
  /**
   * Dead letters are records of the sink's transaction (a sink with `transactionalOutput`, KafkaSink): they go
   * into the result's `produced`, in order, instead of through `producer`.
   */
  deadLetterInTransaction?: boolean;
  /**
   * The sink's check of one input record's output records (KafkaSink's `checkOutputs`). A KAFKA_OUTPUT_INVALID it
   * throws is that record's failure (retried as the handler's own, then the poison policy); anything else it throws
   * is not the record's fault and fails the batch.
   */
  checkOutputs?: (outputs: readonly OutputRecord[], source: OutputSource) => Promise<void>;
  poisonPolicy?: PoisonPolicy;
  deadLetterTopic?: string | ((sourceTopic: string) => string);
  /** Lazily connected producer for dead letters. */
  producer?: () => Promise<Producer>;
  onDeadLetter?: (info: { topic: string; partition: number; offset: bigint; deadLetterTopic: string; error: unknown;
    tombstone?: boolean }) => void;
  onRetry?: (info: { topic: string; partition: number; offset: bigint; attempt: number; error: unknown }) => void;
  /** Called for each record (or the batch's first record, batch handler) the `skip` policy steps over. */
  onSkip?: (info: { topic: string; partition: number; offset: bigint; records: number; error: unknown; tombstones?: number }) => void;
}

/**
 * What a handler returned as output records: an array (KafkaSink's transform), else none. Anything else a handler
 * returns (a count, a boolean: handlers written before outputs existed) is ignored; KafkaSink checks each record.
 */
function outputsOf(returned: unknown): OutputRecord[] {
  return Array.isArray(returned) ? (returned as OutputRecord[]) : [];
}

/**
 * Runs the sink's output check (see {@link ProcessorOptions.checkOutputs}) over what a handler returned. Throws the
 * KAFKA_OUTPUT_INVALID error (the record's fault); any other error is kept in `fault.error` and thrown too, for the
 * caller to rethrow instead of policing it.
 */
async function checkReturned(
  options: ProcessorOptions, returned: unknown, source: OutputSource, fault: { error?: unknown },
): Promise<void> {
  const outputs = outputsOf(returned);
  if (!options.checkOutputs || outputs.length === 0) return;
  try {
    await options.checkOutputs(outputs, source);
  } catch (e) {
    if (kafkaEosErrorOf(e)?.code !== 'KAFKA_OUTPUT_INVALID') fault.error = e;
    throw e;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The dead-letter topic for records of `sourceTopic`: the option (a name or a function of the source), else `<source>.dlq`. */
export function deadLetterTopicFor(options: ProcessorOptions, sourceTopic: string): string {
  const t = options.deadLetterTopic;
  return typeof t === 'function' ? t(sourceTopic) : t ?? `${sourceTopic}.dlq`;
}

async function withRetry(
  options: ProcessorOptions, signal: AbortSignal, where: { topic: string; partition: number; offset: bigint },
  fn: (attempt: number) => Promise<void>,
): Promise<void> {
  const r = options.retry ?? {};
  // The user's own errors are retried (they asked for retries) unless they say they are not retriable.
  const retriable = r.isRetriable ?? ((e: unknown) => isRetriable(e, true));
  let attempt = 0;
  let succeeded = false;
  await pRetry(async () => {
    attempt += 1;
    try {
      await fn(attempt);
      succeeded = true;
    } catch (e) {
      // p-retry only accepts Error instances; keep the original as the cause.
      throw e instanceof Error ? e : Object.assign(new Error(String(e)), { original: e });
    }
  }, {
    retries: r.retries ?? 0,
    minTimeout: r.minTimeoutMs ?? 100,
    maxTimeout: r.maxTimeoutMs ?? 5000,
    factor: r.factor ?? 2,
    randomize: false,
    signal,
    shouldRetry: ({ error }) => !signal.aborted && retriable((error as { original?: unknown }).original ?? error),
    onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
      if (retriesLeft > 0) options.onRetry?.({ ...where, attempt: attemptNumber, error });
    },
  }).catch((e: unknown) => {
    // p-retry checks the signal again after a successful attempt and throws if it was aborted
    // meanwhile: a record whose handler returned is done, whatever happened to the signal.
    if (!succeeded) throw e;
  });
}

/** The dead letters of `records`, as records of the sink's transaction. */
function deadLetterRecords(options: ProcessorOptions, records: SinkRecord[], error: unknown): OutputRecord[] {
  if (records.length === 0) return [];
  const topic = deadLetterTopicFor(options, records[0].topic);
  const out = records.map((r): OutputRecord => {
    const headers: Record<string, Buffer | string> = {};
    for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) headers[k] = v;
    return {
      topic, key: r.key, value: r.value, timestamp: r.timestamp,
      headers: {
        ...headers,
        [DEAD_LETTER_HEADERS.topic]: r.topic,
        [DEAD_LETTER_HEADERS.partition]: String(r.partition),
        [DEAD_LETTER_HEADERS.offset]: r.offset.toString(),
        [DEAD_LETTER_HEADERS.error]: errorMessage(error),
      },
    };
  });
  for (const r of records) {
    options.onDeadLetter?.({ topic: r.topic, partition: r.partition, offset: r.offset, deadLetterTopic: topic, error });
  }
  return out;
}

async function deadLetter(options: ProcessorOptions, records: SinkRecord[], error: unknown): Promise<void> {
  if (!options.producer || records.length === 0) return;
  const producer = await options.producer();
  const topic = deadLetterTopicFor(options, records[0].topic);
  await producer.send({
    topic,
    acks: -1,
    messages: records.map((r) => ({
      key: r.key,
      value: r.value,
      timestamp: r.timestamp.toString(),
      headers: {
        ...r.headers,
        [DEAD_LETTER_HEADERS.topic]: r.topic,
        [DEAD_LETTER_HEADERS.partition]: String(r.partition),
        [DEAD_LETTER_HEADERS.offset]: r.offset.toString(),
        [DEAD_LETTER_HEADERS.error]: errorMessage(error),
      },
    })),
  });
  for (const r of records) {
    options.onDeadLetter?.({ topic: r.topic, partition: r.partition, offset: r.offset, deadLetterTopic: topic, error,
      tombstone: r.value === null });
  }
}

/**
 * Applies the poison policy to `records` that failed with `error`. Throws PoisonMessageError for `fail`.
 * Returns the dead letters when they belong to the sink's transaction (`deadLetterInTransaction`).
 */
async function poison(
  options: ProcessorOptions, batch: StrategyBatch, records: SinkRecord[], processedUpTo: bigint, error: unknown,
): Promise<OutputRecord[] | void> {
  const policy = options.poisonPolicy ?? 'fail';
  if (policy === 'skip') {
    options.onSkip?.({
      topic: batch.topic, partition: batch.partition, offset: records[0]?.offset ?? batch.fetchOffset,
      records: Math.max(records.length, 1), error, tombstones: records.filter((r) => r.value === null).length,
    });
    return;
  }
  if (policy === 'dead-letter') {
    if (options.deadLetterInTransaction) return deadLetterRecords(options, records, error);
    return deadLetter(options, records, error);
  }
  const offset = records[0]?.offset ?? batch.fetchOffset;
  throw new PoisonMessageError(batch.topic, batch.partition, offset, processedUpTo, (error as { original?: unknown })?.original ?? error);
}

/**
 * Applies the poison policy to one record that the sink rejected (it failed to map, or the
 * database refused its row). `skip` and `dead-letter` resolve, and the caller writes the batch
 * without it; `fail` throws PoisonMessageError. Nothing of the batch has been written.
 */
export async function policeRejectedRecord(
  options: ProcessorOptions, batch: StrategyBatch, record: SinkRecord, error: unknown,
): Promise<void> {
  await poison({ ...options, deadLetterInTransaction: false }, batch, [record], record.offset, error);
}

/**
 * Whether a handler returned a promise (or another thenable) to wait for, not its result itself. A function with a
 * `then` method is a thenable too (Promises/A+; `await` waits for it, as the handler's caller did before issue 25).
 */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' ? value !== null : typeof value === 'function')
    && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * The record handler over the batch (see {@link processBatch}). A record whose first try succeeds costs the handler's
 * call, one await when it returned a promise (none when it returned its result), and the progress report; nothing is
 * allocated for it:
 * - its first try runs outside p-retry with one frozen context (`attempt: 1`) shared by the batch. Only a record whose
 *   first try failed (threw, or returned a promise that rejected) goes through {@link withRetry}, which replays that
 *   failure as attempt 1, so the retry predicate, the backoff, the `retry` events and the signal behave exactly as if
 *   p-retry had made the first try itself;
 * - the output check (KafkaSink) runs only for a record whose handler returned output records;
 * - `output` is the batch's own array until a record is skipped or dead-lettered (then a copy of the records before
 *   it, and every later processed record);
 * - the progress after record i is the offset of record i + 1 (the batch's `nextOffset` after the last): the offsets
 *   between them belong to no record this member will see (compaction, transaction markers, aborted data), so it is
 *   the same position as `offset + 1`, read from a bigint that exists instead of one computed per record.
 */
async function processRecords(
  options: ProcessorOptions, batch: StrategyBatch, signal: AbortSignal, shouldStop: () => boolean,
  onRecordDone: ((processedUpTo: bigint) => Promise<void> | void) | undefined,
): Promise<ProcessResult> {
  const { records } = batch;
  const handler = options.recordHandler!;
  const checking = options.checkOutputs !== undefined;
  let output: SinkRecord[] | undefined;
  // Only built when the handler returns records (KafkaSink's transform) or dead letters join the transaction.
  let produced: OutputRecord[] | undefined;
  const firstTry: RecordContext = Object.freeze({ signal, attempt: 1 });
  /** An error of the output check that is not the record's fault (it fails the batch, never policed). */
  const fault: { error?: unknown } = {};
  const last = records.length - 1;
  for (let i = 0; i <= last; i++) {
    const record = records[i];
    if (shouldStop()) return { processedUpTo: record.offset, complete: false, output: output ?? records.slice(0, i), produced };
    let returned: unknown;
    let failed = false;
    let failure: unknown;
    try {
      returned = handler(record, firstTry);
      if (isThenable(returned)) returned = await returned;
      if (checking && Array.isArray(returned) && returned.length > 0) await checkReturned(options, returned, record, fault);
    } catch (error) {
      if (fault.error !== undefined) throw fault.error;
      failed = true;
      failure = error;
    }
    // False for a record the poison policy stepped over (skipped, dead-lettered).
    let processed = true;
    if (failed) {
      try {
        await withRetry(options, signal, record, async (attempt) => {
          if (attempt === 1) throw failure;
          returned = await handler(record, { signal, attempt });
          await checkReturned(options, returned, record, fault);
        });
      } catch (e) {
        if (fault.error !== undefined) throw fault.error;
        if (shouldStop()) return { processedUpTo: record.offset, complete: false, output: output ?? records.slice(0, i), produced };
        output ??= records.slice(0, i);
        const letters = await poison(options, batch, [record], record.offset, e);
        if (letters && letters.length > 0) (produced ??= []).push(...letters);
        processed = false;
      }
    }
    if (processed) {
      if (output !== undefined) output.push(record);
      if (Array.isArray(returned) && returned.length > 0) (produced ??= []).push(...(returned as OutputRecord[]));
    }
    if (onRecordDone !== undefined) {
      const progress = onRecordDone(i < last ? records[i + 1].offset : batch.nextOffset);
      if (progress !== undefined) await progress;
    }
  }
  return { processedUpTo: batch.nextOffset, complete: true, output: output ?? records, produced };
}

/**
 * Runs the handler over the batch. `shouldStop` is checked before each record (record handler):
 * when it says so, the result is partial (`complete: false`). `onRecordDone` is called after each
 * record is done with (record handler) and awaited when it returns a promise. Throws
 * PoisonMessageError (policy fail). A record handler may return its result or a promise of it; see
 * {@link processRecords} for what a record costs.
 */
export async function processBatch(
  options: ProcessorOptions,
  batch: StrategyBatch,
  signal: AbortSignal,
  shouldStop: () => boolean,
  onRecordDone?: (processedUpTo: bigint) => Promise<void> | void,
): Promise<ProcessResult> {
  if (options.recordHandler) return processRecords(options, batch, signal, shouldStop, onRecordDone);
  const { records } = batch;
  // A chunk of only control records or aborted data: nothing for a handler, but the position moves over it.
  if (options.handler && records.length > 0) {
    const handler = options.handler;
    const first = records[0]?.offset ?? batch.fetchOffset;
    let returned: OutputRecord[] | void = undefined;
    const fault: { error?: unknown } = {};
    try {
      await withRetry(options, signal, { topic: batch.topic, partition: batch.partition, offset: first }, async () => {
        returned = await handler({ topic: batch.topic, partition: batch.partition, records, nextOffset: batch.nextOffset, signal });
        await checkReturned(options, returned, { topic: batch.topic, partition: batch.partition }, fault);
      });
    } catch (e) {
      if (fault.error !== undefined) throw fault.error;
      if (shouldStop()) return { processedUpTo: batch.fetchOffset, complete: false, output: [] };
      const letters = await poison(options, batch, records, batch.fetchOffset, e);
      return { processedUpTo: batch.nextOffset, complete: true, output: [], produced: letters || undefined };
    }
    const produced = outputsOf(returned);
    return { processedUpTo: batch.nextOffset, complete: true, output: records, produced: produced.length > 0 ? produced : undefined };
  }
  return { processedUpTo: batch.nextOffset, complete: true, output: records };
}
