/**
 * Typed errors of the group consumer. Each is a {@link KafkaEosError} with a stable `code`;
 * none is retriable: the consumer has stopped, or the batch could not be handled.
 */
import { inspect } from 'node:util';
import { KafkaEosError } from '../errors';

/**
 * KIP-345: another process joined with this consumer's `group.instance.id`, so the coordinator
 * fenced this one (Kafka's `FencedInstanceIdException`). The consumer stops and sends no more
 * commits, heartbeats or joins.
 */
export class FencedInstanceIdError extends KafkaEosError {
  constructor(readonly groupId: string, readonly groupInstanceId: string | null, options: { cause?: unknown } = {}) {
    super('FENCED_INSTANCE_ID', `group ${groupId}: instance id ${groupInstanceId} was taken over by another member`, options);
  }
}

/**
 * A handler ran longer than `maxProcessingTimeMs` (Kafka's `max.poll.interval.ms`): the member
 * left the group and the consumer stopped. Nothing of the batch was committed.
 */
export class MaxProcessingTimeExceededError extends KafkaEosError {
  constructor(readonly topic: string, readonly partition: number, readonly maxProcessingTimeMs: number) {
    super(
      'MAX_PROCESSING_TIME_EXCEEDED',
      `handler for ${topic}:${partition} ran over maxProcessingTimeMs (${maxProcessingTimeMs} ms); left the group`,
    );
  }
}

/**
 * Processing failed after all retries and the poison policy is `fail`. `offset` is the first
 * record that failed (a batch handler: the batch's first record); `processedUpTo` is the offset
 * after the last record that finished before it (at-least-once commits up to there).
 */
export class PoisonMessageError extends KafkaEosError {
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly offset: bigint,
    readonly processedUpTo: bigint,
    cause: unknown,
  ) {
    super(
      'POISON_MESSAGE',
      `${topic}:${partition}@${offset}: processing failed (retries, if any, exhausted): ${describeCause(cause)}`,
      { cause },
    );
  }
}

/** A readable description of anything thrown: Error messages as they are, other values inspected (never `[object Object]`). */
function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  if (typeof cause === 'string') return cause;
  return inspect(cause, { depth: 3, breakLength: Infinity });
}

/** The installed kafkajs is not the version the rebalance and static-membership adapter is written for. */
export class UnsupportedKafkaJsError extends KafkaEosError {
  constructor(message: string) {
    super('UNSUPPORTED_KAFKAJS', message);
  }
}

/** Topics named in the options that the cluster does not have (the consumer does not create topics). */
export class UnknownTopicError extends KafkaEosError {
  constructor(readonly topics: string[]) {
    super(
      'UNKNOWN_TOPIC',
      `topic${topics.length > 1 ? 's' : ''} ${topics.map((t) => `"${t}"`).join(', ')} ${topics.length > 1 ? 'do' : 'does'} not exist`,
    );
  }
}

/** Where a batch that could not be read was fetched: topic, partition and the fetch offset (the batch holds it or starts after it). */
export interface BatchLocation {
  readonly topic: string;
  readonly partition: number;
  readonly fetchOffset: string;
}

const at = (where: BatchLocation | undefined): string =>
  (where ? ` (${where.topic}:${where.partition}, fetched at offset ${where.fetchOffset})` : '');

/**
 * A record batch is compressed with a codec the consumer cannot use: an id Kafka does not define
 * (5-7), or zstd compression on a Node.js without it. Not retriable: fetching the batch again gives
 * the same bytes. `codec` is the codec's name or id; `location`, when the consumer could tell,
 * the partition and fetch offset of the batch.
 */
export class UnsupportedCompressionError extends KafkaEosError {
  constructor(readonly codec: string | number, readonly detail: string, readonly location?: BatchLocation) {
    super('UNSUPPORTED_COMPRESSION', `cannot read a batch compressed with ${codec}${at(location)}: ${detail}`);
  }

  /** The same error, naming where the batch was fetched. */
  at(location: BatchLocation): UnsupportedCompressionError {
    return new UnsupportedCompressionError(this.codec, this.detail, location);
  }
}

/**
 * A record batch cannot be read: its CRC-32C does not match (Java's `check.crcs`), it does not decompress
 * (corrupt data, or it declares more than `MAX_DECOMPRESSED_BATCH_BYTES`), or its records do not parse. Not retriable,
 * and not a poison record: the whole batch is
 * unreadable, as Java's consumer reports a `CorruptRecordException` and stops at it. `detail` is the
 * decompressor's own message. (No `cause`: KafkaJS's retrier keeps only an error's cause when it
 * wraps it, and this error must reach the consumer's `error` listeners.)
 */
export class CorruptRecordBatchError extends KafkaEosError {
  /**
   * @param verb what failed: `decompress` (the codec refused the data) or `read` (the CRC-32C does not match, as Java's
   *   `check.crcs` reports it, or the records do not parse).
   */
  constructor(
    readonly codec: string, readonly detail: string, readonly location?: BatchLocation, readonly verb: 'decompress' | 'read' = 'decompress',
  ) {
    super('RECORD_BATCH_CORRUPT', `cannot ${verb} a ${codec} record batch${at(location)}: ${detail}`);
  }

  /** The same error, naming where the batch was fetched. */
  at(location: BatchLocation): CorruptRecordBatchError {
    return new CorruptRecordBatchError(this.codec, this.detail, location, this.verb);
  }
}

/**
 * An offset commit that would have to wait for a rebalance under way (a cooperative member between JoinGroup and
 * SyncGroup, a KIP-848 member between epochs): the caller asked not to wait. Retriable: commit later (at-least-once
 * keeps the progress and commits it with the next batch, or on revoke).
 */
export class CommitDeferredError extends KafkaEosError {
  constructor(message: string) {
    super('COMMIT_DEFERRED', message, { retriable: true });
  }
}
