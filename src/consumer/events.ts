/**
 * The events of a {@link GroupConsumer}, by name, with their payloads. `consumer.on(name, listener)`
 * accepts only these names, and the listener gets the payload's type. Each listener receives one
 * argument. Offsets are bigint; times are ms.
 */
import type { TopicPartition } from '../records';
import type { ConsumerState } from './lifecycle';
import type { MembershipTransition } from './membership/types';
import type { RebalanceRecord } from './metrics';
import type { SinkBlockedInfo } from './sink-blocked';

/** Payloads of the consumer's events, by event name. */
export interface GroupConsumerEvents {
  /**
   * A new assignment is positioned and `onPartitionsAssigned` has run. `positions` maps
   * `topic:partition` to the next offset the strategy seeked to (null: KafkaJS's committed or reset position).
   */
  assigned: { partitions: TopicPartition[]; positions: Map<string, bigint> | null };
  /** Partitions were given up in a rebalance (or on stop), after their in-flight batches finished and were committed. */
  revoked: { partitions: TopicPartition[] };
  /**
   * Partitions were lost without a commit: the member was fenced, exceeded maxProcessingTimeMs, or its
   * session expired (UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION: the consumer then rejoins and carries on).
   */
  lost: { partitions: TopicPartition[]; error: Error };
  /** A rebalance finished (after `assigned`): when it began, how long it took (ms), what moved. */
  rebalance: RebalanceRecord;
  /** A batch of one partition was handled and its strategy finished with it. `records` is a count; `lag` = high watermark - nextOffset. */
  batch: { topic: string; partition: number; records: number; nextOffset: bigint; lag: bigint };
  /** Exactly-once: the sink refused a write because another writer moved the stored offset (compare-and-set failed). */
  fenced: { topic: string; partition: number; expected: bigint; stored: bigint };
  /** A record (record handler) or batch was produced to the dead-letter topic after its retries. */
  'dead-letter': { topic: string; partition: number; offset: bigint; deadLetterTopic: string; error: unknown };
  /** Exactly-once: the sink stayed unavailable past its own retries; the consumer keeps its partitions, waits and tries again. */
  'sink-unavailable': { topic: string; partition: number; error: Error };
  /**
   * Exactly-once: the sink refused a write as a whole (SINK_WRITE_REFUSED: a missing table or column, a privilege,
   * read-only). Emitted on each refusal while the block lasts (`refusals` 1: it began); once it has lasted
   * `sinkBlockedTimeoutMs` the consumer fails with SINK_BLOCKED (consumer/sink-blocked.ts).
   */
  'sink-blocked': SinkBlockedInfo;
  /** Exactly-once: a write committed after the sink had been blocked; how long the block lasted, ms. */
  'sink-unblocked': { blockedForMs: number; refusals: number };
  /**
   * The Schema Registry a converter needs is unreachable or answers 5xx (SCHEMA_REGISTRY_UNAVAILABLE): nothing of
   * the batch was handled or committed; the consumer keeps its partitions, waits, and fetches the batch again.
   */
  'schema-registry-unavailable': { topic: string; partition: number; error: Error };
  /** Offsets were committed to Kafka (OffsetCommit), by the strategy or on revoke/stop; `offset` is the next offset to consume. */
  commit: { offsets: { topic: string; partition: number; offset: bigint }[] };
  /** The `skip` poison policy stepped over `records` records from `offset` (one record, or a batch handler's batch). */
  skipped: { topic: string; partition: number; offset: bigint; records: number; error: unknown };
  /** The handler failed and will be tried again (`attempt` is the try that failed: 1 = first try). */
  retry: { topic: string; partition: number; offset: bigint; attempt: number; error: unknown };
  /**
   * Something failed: a crash KafkaJS restarts from, a failed commit on revoke, a listener that threw
   * (a thrown non-Error arrives wrapped, as the `cause` of an Error), or the failure that stopped the consumer.
   */
  error: Error;
  /** The consumer's lifecycle state changed. */
  state: { from: ConsumerState; to: ConsumerState };
  /** The group membership state machine moved (membership.ts), with the reason and the new epoch. */
  membership: MembershipTransition;
}

/** The events as Node's `EventEmitter<T>` map: each event has one argument, its payload. */
export type GroupConsumerEventMap = { [E in keyof GroupConsumerEvents]: [GroupConsumerEvents[E]] };

/** `e` itself when it is an Error, else an Error whose `cause` is `e` (for the `error` event's payload). */
export function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(`non-Error thrown: ${String(e)}`, { cause: e });
}

/** A listener of event `E` (one argument: its payload). */
export type GroupConsumerListener<E extends keyof GroupConsumerEvents> = (payload: GroupConsumerEvents[E]) => void;

/**
 * Something whose events can be listened to by name, typed by {@link GroupConsumerEvents} (the consumer, as the
 * logging and metrics code sees it): an unknown name fails to compile, "not assignable to ... keyof GroupConsumerEvents".
 */
export interface GroupConsumerEventSource {
  on<E extends keyof GroupConsumerEvents>(event: E, listener: GroupConsumerListener<E>): unknown;
}
