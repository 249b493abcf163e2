/**
 * The commit strategy contract. A strategy decides when offsets are committed and where
 * they live, around the user's processing of one fetched batch of one partition.
 * Users can write their own; the three built in are at-most-once, at-least-once and
 * exactly-once. Offsets are "next offset to consume" (last processed + 1), as Kafka commits them.
 */
import type { OutputRecord, SinkRecord, TopicPartition } from '../../records';
import type { SinkContext } from '../../sink-contract';

/** One fetched batch of one partition, as a strategy sees it. Offsets are bigint. */
export interface StrategyBatch extends TopicPartition {
  /** The offset the fetch was made from (the consumer's position before this batch). */
  fetchOffset: bigint;
  /** Records, in offset order (control records and aborted data already removed). */
  records: SinkRecord[];
  /** Last offset covered by the fetch + 1, control records included. Never derived from a count. */
  nextOffset: bigint;
  /**
   * Whether the partition is still this member's in the assignment the batch was fetched under: false once that was
   * revoked or lost, even if the partition was assigned again since. A batch can wait between its fetch and its
   * write (a converter loading a schema, the user's handler), and the partition may move meanwhile. Strategies drop
   * such a batch ({@link isDropped}): nothing written, committed or counted, and no failure, as Java's consumer drops
   * the fetched records of a revoked partition. Set by the consumer; a batch built without it counts as assigned.
   */
  readonly assigned?: () => boolean;
}

/** Whether `batch` must be dropped: its partition was revoked or lost since it was fetched (see StrategyBatch.assigned). */
export function isDropped(batch: StrategyBatch): boolean {
  return batch.assigned?.() === false;
}

/** What processing a batch achieved. */
export interface ProcessResult {
  /**
   * The offset after the last record that is done with (processed, skipped or dead-lettered):
   * `batch.nextOffset` when `complete`, else the offset of the first record not done.
   */
  processedUpTo: bigint;
  /** Every record is done with. False when processing stopped early (rebalance pending, stop). */
  complete: boolean;
  /** The records that were processed (not skipped, not dead-lettered): what a sink should write. */
  output: SinkRecord[];
  /**
   * The records the handler returned for the processed records (record handler: 0..n each; batch handler: its
   * array), in order, and the dead letters when the sink writes them in its transaction. Absent: none returned.
   */
  produced?: OutputRecord[];
}

/** What the strategy asks of the consumer after a batch. */
export type BatchOutcome =
  /** Done: the consumer's position moves to `batch.nextOffset`. */
  | { kind: 'done' }
  /** Do not move; fetch again from `offset` (e.g. after fencing, a stale fetch position, or partial processing). */
  | { kind: 'seek'; offset: bigint }
  /** Nothing done: the partition was revoked or lost while the batch waited ({@link isDropped}). */
  | { kind: 'dropped' };

export interface StrategyContext {
  readonly groupId: string;
  /**
   * Commits offsets to the Kafka group (next offset to consume), for the partitions this member owns now. During a
   * rebalance (a cooperative member between JoinGroup and SyncGroup, a KIP-848 member between epochs) it waits for
   * the new generation, unless `options.wait` is false: then it throws CommitDeferredError (COMMIT_DEFERRED,
   * retriable) at once. Throws KafkaCallError, and the Kafka error of a lost generation (after the membership lost
   * the partitions).
   */
  commitToKafka(offsets: { topic: string; partition: number; offset: bigint }[], options?: { wait?: boolean }): Promise<void>;
  /** The earliest available offset of a partition (the log start offset). */
  earliestOffset(tp: TopicPartition): Promise<bigint>;
  /** The log start offset and the high watermark of a partition, read now. */
  offsetRange(tp: TopicPartition): Promise<{ earliest: bigint; latest: bigint }>;
  /** Where a partition with no stored position starts: 'earliest' (fromBeginning, the default) or 'latest'. */
  readonly startFrom: 'earliest' | 'latest';
  /** What a sink is told about the consumer (its KafkaJS client, its group metadata); absent in a context built by hand. */
  readonly sinkContext?: SinkContext;
}

export interface CommitStrategy {
  readonly name: string;
  /**
   * Called with the partitions newly assigned, before any batch of them is handled: under the eager protocol every
   * partition of each assignment (all were revoked before), under the incremental ones (cooperative, KIP-848) only
   * those added (the others stay as they were). Returns the position to resume each from, or `null` (or a map
   * without a partition) to resume from Kafka's committed offsets.
   */
  onAssigned(ctx: StrategyContext, partitions: TopicPartition[]): Promise<Map<string, bigint> | null>;
  /**
   * Handles one batch; `process` runs the user's handler (with retries and the poison policy) and
   * may throw (e.g. PoisonMessageError with policy `fail`).
   */
  handleBatch(ctx: StrategyContext, batch: StrategyBatch, process: () => Promise<ProcessResult>): Promise<BatchOutcome>;
  /**
   * Called before the partitions are given up (rebalance, stop), with no batch of them in flight,
   * while the member still owns them: commit the finished work here.
   */
  onRevoked?(ctx: StrategyContext, partitions: TopicPartition[]): Promise<void>;
  /**
   * A record handler finished (or skipped, or dead-lettered) records up to `processedUpTo`
   * (exclusive) within the batch being handled. Optional: lets at-least-once commit finished work
   * record by record. Not called for batch handlers. Called once per record: return a promise only when there is
   * asynchronous work to wait for (a commit); `undefined` lets the next record start without a promise hop.
   */
  onProgress?(ctx: StrategyContext, tp: TopicPartition, processedUpTo: bigint): Promise<void> | void;
  /** Processing of a batch failed with `processedUpTo` records done (policy `fail`): remember them for onRevoked. */
  onFailed?(batch: StrategyBatch, processedUpTo: bigint): void;
  /** The partitions were lost without a chance to commit (fenced, session lost): forget them, commit nothing. */
  onLost?(partitions: TopicPartition[]): void;
}
