/**
 * Where converters plug into the record path: a commit strategy wrapped so that each fetched batch is
 * converted before the strategy sees it, i.e. before at-most-once commits, before a handler runs and
 * before a sink maps rows. One batch at a time:
 *
 * 1. the schema ids the batch names are loaded (each once, in parallel);
 * 2. the registry unreachable or answering 5xx (SCHEMA_REGISTRY_UNAVAILABLE) is systemic: nothing of the
 *    batch is handled or committed, `onUnavailable` is told, and after `retryDelayMs` the batch is fetched
 *    again from its first offset, for as long as the outage lasts (no record is lost or skipped);
 * 3. a record whose key or value does not convert (a wrong magic byte, an id the registry does not know, bytes
 *    that do not decode, a schema that cannot be read: codes RECORD_CONVERSION_FAILED, SCHEMA_NOT_FOUND,
 *    SCHEMA_INVALID) is a poison record for itself alone: {@link RecordConversionError} names topic,
 *    partition, offset, key or value and schema id; `skip` and `dead-letter` drop it from the batch (its
 *    offset stays covered by the batch's commit; a dead letter carries its original bytes), `fail` stops
 *    the consumer with PoisonMessageError before anything of the batch is handled;
 *    any other failure (the registry refusing the consumer: 401, 403, a 404 that is not the registry's own;
 *    SCHEMA_INCOMPATIBLE; an error without a code) is not the record's fault: the consumer fails with it (a
 *    RecordConversionError carrying its code) and nothing of the batch is handled, skipped or committed;
 * 4. the converted records (`convertedKey` / `convertedValue` set) replace `batch.records`, in place, and the
 *    wrapped strategy handles the batch.
 */
import { KafkaEosError } from '../../errors';
import type { SinkRecord } from '../../records';
import { isRetriable } from '../../protocol/kafka-errors';
import { PoisonMessageError } from '../errors';
import type { PoisonPolicy } from '../options';
import { isDropped, type BatchOutcome, type CommitStrategy, type StrategyBatch } from '../strategies/types';
import { createConverter, type ConverterConfig, type RecordConverter } from './converter';
import { SchemaRegistryClient, type SchemaRegistryClientOptions } from './registry-client';

/** A key or value that did not convert: a poison record (see the module comment). Not retriable. */
export class RecordConversionError extends KafkaEosError {
  constructor(
    readonly topic: string, readonly partition: number, readonly offset: bigint, readonly part: 'key' | 'value',
    readonly schemaId: number | undefined, cause: KafkaEosError,
  ) {
    super(cause.code, `${topic}:${partition}@${offset} ${part}${schemaId === undefined ? '' : ` (schema id ${schemaId})`}: `
      + cause.message, { cause });
  }
}

/** What {@link convertingStrategy} needs from the consumer. */
export interface ConvertingOptions {
  key?: RecordConverter;
  value?: RecordConverter;
  /** The consumer's poison policy (default 'fail'). */
  poisonPolicy?: PoisonPolicy;
  /** Applies `skip` or `dead-letter` to one record (the consumer's policeRejectedRecord); resolves when done. */
  police(batch: StrategyBatch, record: SinkRecord, error: unknown): Promise<void>;
  /** The registry is unavailable: the batch waits (see the module comment). */
  onUnavailable?(info: { topic: string; partition: number; error: Error }): void;
  /** Wait before fetching the batch again after an outage, ms (default 1000). */
  retryDelayMs?: number;
}

/** The schema id of framed bytes, when they are framed (for error messages). */
function idOf(bytes: Buffer | null): number | undefined {
  return bytes !== null && bytes.length >= 5 && bytes[0] === 0 ? bytes.readInt32BE(1) : undefined;
}

/** The codes of failures that are the record's own (see the module comment): its bytes, or the schema its bytes name. */
const RECORD_FAULTS = new Set<string>(['RECORD_CONVERSION_FAILED', 'SCHEMA_NOT_FOUND', 'SCHEMA_INVALID']);

/** What one failure means for the batch: the record's fault, an outage to wait out, or the consumer's end. */
function classify(e: unknown): 'record' | 'outage' | 'systemic' {
  if (isRetriable(e)) return 'outage';
  return e instanceof KafkaEosError && RECORD_FAULTS.has(e.code) ? 'record' : 'systemic';
}

function asKafkaEosError(e: unknown): KafkaEosError {
  return e instanceof KafkaEosError ? e
    : new KafkaEosError('ILLEGAL_STATE', `converting a record failed: ${(e as Error)?.message ?? String(e)}`,
    { cause: e });
}

/**
 * Converts `batch.records` in place (see the module comment).
 * @returns null when the registry is unavailable (the batch must be fetched again); throws PoisonMessageError (policy fail)
 */
export async function convertBatch(options: ConvertingOptions, batch: StrategyBatch): Promise<SinkRecord[] | null> {
  const parts = ([['key', options.key], ['value', options.value]] as const).filter((p): p is ['key' | 'value', RecordConverter] => !!p[1]);
  const failures = new Map<SinkRecord, RecordConversionError>();
  const named = (r: SinkRecord, part: 'key' | 'value', e: unknown) =>
    new RecordConversionError(r.topic, r.partition, r.offset, part, idOf(r[part]), asKafkaEosError(e));
  // Not the record's fault: the consumer fails before anything of the batch is handled (an outage never reaches here).
  const fail = (r: SinkRecord, part: 'key' | 'value', e: unknown) => {
    if (classify(e) !== 'record') throw named(r, part, e);
    if (!failures.has(r)) failures.set(r, named(r, part, e));
  };
  const loads: { r: SinkRecord; part: 'key' | 'value'; p: Promise<void> }[] = [];
  for (const r of batch.records) {
    for (const [part, c] of parts) {
      const bytes = r[part];
      if (bytes === null) continue;
      let p: Promise<void> | undefined;
      try {
        p = c.prepare(r.topic, bytes, part === 'key');
      } catch (e) {
        fail(r, part, e);
      }
      if (p) loads.push({ r, part, p });
    }
  }
  if (loads.length > 0) {
    const settled = await Promise.allSettled(loads.map((l) => l.p));
    const outage = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected' && classify(s.reason) === 'outage');
    if (outage) {
      options.onUnavailable?.({ topic: batch.topic, partition: batch.partition, error: outage.reason as Error });
      return null;
    }
    settled.forEach((s, i) => { if (s.status === 'rejected') fail(loads[i]!.r, loads[i]!.part, s.reason); });
  }
  for (const r of batch.records) {
    if (failures.has(r)) continue;
    for (const [part, c] of parts) {
      let converted;
      try {
        converted = c.convert(r.topic, r[part], part === 'key');
      } catch (e) {
        fail(r, part, e);
        break;
      }
      if (part === 'key') r.convertedKey = converted; else r.convertedValue = converted;
    }
  }
  // Every record is converted (or known bad) before the policy acts: a systemic failure above polices nothing.
  const out: SinkRecord[] = [];
  for (const r of batch.records) {
    const error = failures.get(r);
    if (!error) { out.push(r); continue; }
    if ((options.poisonPolicy ?? 'fail') === 'fail') {
      // Nothing of the batch was handled: at-least-once must not commit past any of it.
      throw new PoisonMessageError(r.topic, r.partition, r.offset, batch.fetchOffset, error);
    }
    await options.police(batch, r, error);
  }
  return out;
}

/** Wraps `inner` so that every batch is converted first (see the module comment). */
export function convertingStrategy(inner: CommitStrategy, options: ConvertingOptions): CommitStrategy {
  return {
    ...inner,
    name: inner.name,
    onAssigned: inner.onAssigned.bind(inner),
    onRevoked: inner.onRevoked?.bind(inner),
    onProgress: inner.onProgress?.bind(inner),
    onFailed: inner.onFailed?.bind(inner),
    onLost: inner.onLost?.bind(inner),
    seek: inner.seek?.bind(inner),
    async handleBatch(ctx, batch, process): Promise<BatchOutcome> {
      if (isDropped(batch)) return { kind: 'dropped' };
      // While schemas load, the partition may be revoked or lost: the wrapped strategy drops the batch then.
      const records = await convertBatch(options, batch);
      if (records === null) {
        await new Promise((r) => setTimeout(r, options.retryDelayMs ?? 1000));
        return { kind: 'seek', offset: batch.fetchOffset };
      }
      batch.records = records;
      return inner.handleBatch(ctx, batch, process);
    },
  };
}

/**
 * The consumer's strategy with its converters (options `keyConverter`, `valueConverter`, `schemaRegistry`), or
 * `strategy` itself when none is configured. One registry client serves both converters.
 */
export function withConverters(
  strategy: CommitStrategy,
  options: { keyConverter?: ConverterConfig | RecordConverter; valueConverter?: ConverterConfig | RecordConverter;
    schemaRegistry?: SchemaRegistryClientOptions | SchemaRegistryClient; poisonPolicy?: PoisonPolicy },
  hooks: Pick<ConvertingOptions, 'police' | 'onUnavailable' | 'retryDelayMs'>,
): CommitStrategy {
  if (!options.keyConverter && !options.valueConverter) return strategy;
  const r = options.schemaRegistry;
  const registry = r === undefined ? undefined : r instanceof SchemaRegistryClient ? r : new SchemaRegistryClient(r);
  const make = (c: ConverterConfig | RecordConverter | undefined) =>
    (c === undefined ? undefined : 'convert' in c ? c : createConverter(c, registry));
  return convertingStrategy(strategy, {
    key: make(options.keyConverter), value: make(options.valueConverter), poisonPolicy: options.poisonPolicy, ...hooks,
  });
}
