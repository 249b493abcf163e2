/**
 * The commit strategy contract. A strategy decides when offsets are committed and where
 * they live, around the user's processing of one fetched batch of one partition.
 * Users can write their own; the three built in are at-most-once, at-least-once and
 * exactly-once.
 */
import type { SinkRecord, TopicPartition } from '../../sinks/sink';

/** One fetched batch of one partition, as a strategy sees it. Offsets are bigint. */
export interface StrategyBatch extends TopicPartition {
  /** The offset the fetch was made from (the consumer's position before this batch). */
  fetchOffset: bigint;
  /** Records, in offset order (control records and aborted data already removed). */
  records: SinkRecord[];
  /** Last offset covered by the fetch + 1, control records included. Never derived from a count. */
  nextOffset: bigint;
}

/** What the strategy asks of the consumer after a batch. */
export type BatchOutcome =
  /** Done: the consumer's position moves to `batch.nextOffset`. */
  | { kind: 'done' }
  /** Do not move; fetch again from `offset` (e.g. after fencing or a stale fetch position). */
  | { kind: 'seek'; offset: bigint };

export interface StrategyContext {
  readonly groupId: string;
  /** Commits offsets to the Kafka group (next offset to consume), as KafkaJS does. Throws Kafka errors. */
  commitToKafka(offsets: { topic: string; partition: number; offset: bigint }[]): Promise<void>;
  /** The earliest available offset of a partition (the log start offset). */
  earliestOffset(tp: TopicPartition): Promise<bigint>;
}

export interface CommitStrategy {
  readonly name: string;
  /**
   * Called on every assignment, before any batch of the new assignment is handled. Returns the
   * position to resume each partition from, or `null` to resume from Kafka's committed offsets.
   */
  onAssigned(ctx: StrategyContext, partitions: TopicPartition[]): Promise<Map<string, bigint> | null>;
  /** Handles one batch; `process` runs the user's handler (it may throw). */
  handleBatch(ctx: StrategyContext, batch: StrategyBatch, process: () => Promise<void>): Promise<BatchOutcome>;
}
