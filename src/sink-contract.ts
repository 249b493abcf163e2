/**
 * The exactly-once sink contract, between the consumer (which drives it: consumer/strategies/exactly-once.ts)
 * and the sinks (which implement it: sinks/sql, sinks/hdfs). A sink stores, per (group, topic, partition), the
 * next offset to consume, and writes a batch's output together with that offset in one atomic unit guarded by
 * a compare-and-set. See docs/architecture.md ("the exactly-once invariant").
 */

import type { DurablePosition, OutputRecord, OutputSource, SinkBatch, SinkRecord, TopicPartition } from './records';

/**
 * Outcome of {@link ExactlyOnceSink.write} and {@link ExactlyOnceSink.flush}.
 * - `committed`: every batch is durable together with its next offset.
 * - `staged`: the records were accepted but are not durable yet (e.g. a file open until rotation). The
 *   consumer's fetch position may move on; the durable position, and anything committed to Kafka for
 *   monitoring, stays at `durable` (listed for every partition of the write whose durable position is
 *   known; a rotation during the write may have moved it on).
 * - `fenced`: lists the partitions whose CAS failed, with the stored offset re-read (-1n = none stored).
 *   Nothing of those partitions was written, and anything staged for them was discarded.
 */
export type WriteResult =
  | { status: 'committed' }
  | { status: 'staged'; durable: DurablePosition[] }
  | { status: 'fenced'; fenced: DurablePosition[] };

/**
 * A member's group metadata, as Java's `consumer.groupMetadata()` hands it to `sendOffsetsToTransaction`
 * (KIP-447): what a TxnOffsetCommit v3+ carries so that the group coordinator fences a zombie member.
 * Classic groups: the generation id; KIP-848 groups: the member epoch.
 */
export interface GroupMetadata {
  readonly groupId: string;
  /** Classic: the generation id; KIP-848: the member epoch; -1: none (manual assignment). */
  readonly generationId: number;
  /** The member id ('' without group management). */
  readonly memberId: string;
  /** group.instance.id (static membership, KIP-345), or null. */
  readonly groupInstanceId: string | null;
}

/**
 * What the consumer tells a sink about itself on each open() and write(). A sink that stores nothing in
 * Kafka ignores it; KafkaSink uses it for its transactional producer and the group metadata of its offsets.
 */
export interface SinkContext {
  /** The consumer's KafkaJS client (a sink that writes to Kafka may use it; typed `unknown` to keep this layer free of KafkaJS). */
  readonly kafka?: unknown;
  /** The group.instance.id the consumer was given (static membership), known before it joins; null when none. */
  readonly groupInstanceId: string | null;
  /** The member's group metadata now, or null when it has none (between generations). */
  groupMetadata(): GroupMetadata | null;
  /**
   * The group coordinator refused this member's generation (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID): the member
   * loses its partitions and rejoins, as after a refused OffsetCommit.
   */
  generationLost(error: Error): void;
}

/**
 * A sink that stores each partition's next offset with its data (compare-and-set on `expectedOffset`), so the
 * consumer's exactly-once delivery reads positions from it rather than from Kafka. Implemented by SqlSink and HdfsSink.
 */
export interface ExactlyOnceSink {
  /**
   * True (or absent, the original contract) when one write() of several partitions' batches is one
   * atomic unit. A sink that commits each partition on its own (e.g. files) declares false;
   * GroupCommitSink refuses such a sink.
   */
  readonly atomicAcrossPartitions?: boolean;
  /**
   * True when the stored positions are the Kafka group's committed offsets, committed in the sink's own
   * transaction (KafkaSink): the strategy then sends no monitoring OffsetCommit of its own.
   */
  readonly offsetsInGroup?: boolean;
  /**
   * True when the sink produces the handler's returned records ({@link SinkBatch}'s `outputs`) in its
   * transaction (KafkaSink): dead letters then go into the same transaction as outputs, not through a producer
   * of their own.
   */
  readonly transactionalOutput?: boolean;
  /**
   * Reads the stored positions for these partitions (seeding absent rows with -1n, insert-if-absent). Key = `${topic}:${partition}`.
   * A staging sink also discards whatever it staged for them and recovers their state (e.g. orphaned temp files).
   */
  open(groupId: string, partitions: TopicPartition[], context?: SinkContext): Promise<Map<string, bigint>>;
  /**
   * Writes all batches and their CAS offset updates. `expectedOffset` is where the batch continues from: the
   * durable position, or for a staging sink, the end of what it staged. Any CAS that fails → nothing of that
   * partition written, 'fenced' with re-read stored offsets. Nothing half-written, ever. Atomic across
   * partitions only when {@link atomicAcrossPartitions} is not false.
   */
  write(groupId: string, batches: SinkBatch[], context?: SinkContext): Promise<WriteResult>;
  /**
   * Makes everything staged for these partitions durable (or discards it when fenced), before the member gives
   * them up (revoke, stop). Optional: a sink whose writes always commit needs none. Afterwards nothing is staged
   * for them; the result lists their durable positions ('committed' when there was nothing to report).
   */
  flush?(groupId: string, partitions: TopicPartition[]): Promise<WriteResult>;
  /**
   * Checks the output records one input record's handler returned (`source`: that record; `offset` absent for a
   * batch handler's outputs), before they join a write: a sink with `transactionalOutput` (KafkaSink) refuses an
   * output it cannot produce (shape, size) with a KafkaEosError KAFKA_OUTPUT_INVALID, which the consumer hands to
   * the poison policy as that input record's failure. Any other error it throws is not the record's fault: the
   * consumer fails with it. Optional.
   */
  checkOutputs?(outputs: readonly OutputRecord[], source: OutputSource): Promise<void>;
  /** Drops whatever is staged for these partitions without committing it (partitions lost). Optional. */
  discard?(partitions: TopicPartition[]): Promise<void>;
  /**
   * Registers `listener` for durable positions that move outside write() and flush(): a staging sink's wall-clock
   * rotation (HdfsSink's rotateScheduleIntervalMs) commits open files while the topic is idle. The exactly-once
   * strategy registers one so that Kafka's monitoring commit follows every rotation. Optional: a sink whose
   * positions move only in write() and flush() needs none. Returns a function that removes the listener.
   */
  onDurable?(listener: (positions: DurablePosition[]) => void): () => void;
  /**
   * Moves one partition's stored position by compare-and-set, writing no data: from `expectedOffset` (the durable
   * position; nothing staged) to `offset`, forward (records skipped) or back (records written again). This is how
   * GroupConsumer.seek() moves an exactly-once position: only through the sink, so the output and the position never
   * disagree. Optional: a sink without it refuses seek() (SEEK_UNSUPPORTED; the HDFS sink's positions are its files).
   * @returns committed, or fenced with the stored offset re-read (another writer moved it: nothing changed).
   */
  seek?(groupId: string, request: SeekRequest): Promise<WriteResult>;
  close(): Promise<void>;
}

/** What {@link ExactlyOnceSink.seek} moves: one partition from `expectedOffset` (-1n: none stored) to `offset` (≥ 0). */
export interface SeekRequest extends TopicPartition {
  expectedOffset: bigint;
  offset: bigint;
}

/**
 * The record a sink error blames, if any. A sink that rejects one record of a write (and would
 * accept the others) reports it with a non-retriable error carrying `recordAtFault: true` and the
 * record's `topic`, `partition` and `offset` (as SqlSink's SINK_MAPPING_FAILED and a proven
 * SINK_WRITE_FAILED do). Only such a record is a poison record: an error without the flag (a
 * refusal of every row, an outage, a statement-level failure naming a range) never blames one.
 */
export function rejectedRecord(error: unknown, records: SinkRecord[]): SinkRecord | undefined {
  const e = error as { retriable?: unknown; recordAtFault?: unknown; topic?: unknown; partition?: unknown; offset?: unknown } | null;
  if (!e || typeof e !== 'object' || e.retriable !== false || e.recordAtFault !== true || typeof e.offset !== 'bigint') return undefined;
  return records.find((r) => r.offset === e.offset && r.topic === e.topic && r.partition === e.partition);
}
