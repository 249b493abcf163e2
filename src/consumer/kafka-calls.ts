/**
 * Retries of the Kafka calls the consumer makes on its own (offset lookups, commits, committed
 * offset reads, the drain's progress checks; dead letters rely on KafkaJS's producer retries):
 * retriable Kafka errors and dropped connections are retried with exponential backoff (p-retry),
 * refreshing metadata first when the error says it is stale (NOT_LEADER_OR_FOLLOWER after a leader
 * move, NOT_COORDINATOR, a dropped connection, KafkaJS's "Broker N not found in the cached metadata"
 * after the coordinator's broker stopped). Retriability is the error table's ({@link isRetriable}).
 * Errors that are not retriable fail at once as {@link KafkaCallError}, naming the call; a
 * KafkaCallError keeps the Kafka error as its cause, so `needsRejoin()` and `kafkaErrorOf()` still see it.
 * Java's consumer does the same inside `KafkaConsumer` (retry.backoff.ms, metadata refresh on
 * `InvalidMetadataException`).
 */
import { pRetry } from '../util/vendored';
import { KafkaEosError } from '../errors';
import { isRetriable, needsMetadataRefresh } from '../protocol/kafka-errors';

/** A Kafka call failed for good (not retriable, or retries spent). `call` names it, e.g. `ListOffsets orders:3`. */
export class KafkaCallError extends KafkaEosError {
  constructor(readonly call: string, readonly attempts: number, cause: unknown) {
    const why = (cause as Error)?.message ?? String(cause);
    super('KAFKA_CALL_FAILED', `${call} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${why}`, { cause });
  }
}

/** Backoff of {@link kafkaCall}: p-retry's exponential backoff with jitter (factor 2). */
export interface KafkaCallOptions {
  /** Retries after the first try (default 8; about 10 s of backoff in all; `Infinity`: bounded by `maxRetryTimeMs` only). */
  retries?: number;
  /** No retry starts later than this many ms after the first try (default: no bound but `retries`). */
  maxRetryTimeMs?: number;
  /** Aborted: no further try (the consumer is stopping or failed); the call fails as KafkaCallError. */
  signal?: AbortSignal;
  /** First backoff, ms (default 100); doubles up to `maxTimeoutMs` (default 2000). */
  minTimeoutMs?: number;
  maxTimeoutMs?: number;
  /** Refreshes metadata (or reconnects) before the next try, when the error says it is stale. */
  refresh?: () => Promise<void>;
  /** Also retries these errors (default: only what the error table calls retriable). */
  alsoRetry?: (error: unknown) => boolean;
}

/** Runs `fn`, retrying retriable Kafka errors. Throws KafkaCallError. */
export async function kafkaCall<T>(call: string, fn: () => Promise<T>, options: KafkaCallOptions = {}): Promise<T> {
  let attempts = 0;
  let last: unknown;
  try {
    return await pRetry(async () => {
      attempts += 1;
      return fn();
    }, {
      retries: options.retries ?? 8,
      minTimeout: options.minTimeoutMs ?? 100,
      maxTimeout: options.maxTimeoutMs ?? 2000,
      factor: 2,
      randomize: true,
      maxRetryTime: options.maxRetryTimeMs,
      signal: options.signal,
      shouldRetry: async ({ error }) => {
        last = error;
        if (!isRetriable(error) && !options.alsoRetry?.(error)) return false;
        if (options.refresh && needsMetadataRefresh(error)) await options.refresh().catch(() => undefined);
        return true;
      },
    });
  } catch (e) {
    if (e instanceof KafkaCallError) throw e;
    // Aborted between tries: report the Kafka error that was being retried, not the abort.
    throw new KafkaCallError(call, attempts, options.signal?.aborted && last !== undefined ? last : e);
  }
}
