/**
 * A sink's stored positions as the operator's tools (`kafka-eos offsets`) see them, whatever the store: the SQL
 * offsets table (sql-positions.ts) or the HDFS sink's claims (hdfs-positions.ts). Apart from group-offsets.ts so the
 * stores can implement it without importing group-offsets.ts back.
 */
import type { TopicPartition } from '../records';

/** One stored position: `nextOffset` is the next offset to consume, -1n = none stored yet. */
export interface StoredPosition extends TopicPartition { nextOffset: bigint }

/** A partition a reset moves back: from `from` to `to` (< from); the records in between are written again by the replay. */
export interface Rewind extends TopicPartition { from: bigint; to: bigint }

/**
 * A sink's stored positions as operators see them. The consumer itself only ever moves a position
 * by compare-and-set through its sink; these calls are for a group without members.
 */
export interface SinkPositionStore {
  /** How output names the store, e.g. `the sink's offsets table kafka_eos_offsets`. */
  readonly label: string;
  /** Every position stored for the group (of `topics` when given), ordered by topic then partition. */
  list(groupId: string, topics?: string[]): Promise<StoredPosition[]>;
  /**
   * The position the store can move a partition to when `wanted` is asked, with a note
   * when it differs (the HDFS sink replaces whole files: a rewind lands on a file's first offset).
   * Absent: every offset can be stored as asked.
   */
  align?(tp: TopicPartition, wanted: bigint, logStartOffset: bigint): Promise<{ target: bigint; note?: string }>;
  /**
   * What a replay from the planned positions would do to the sink's output that an operator must know before
   * executing it (the SQL store: rows inserted again into a table without a key). Absent: nothing to say.
   */
  replayWarnings?(groupId: string, rewinds: Rewind[]): Promise<string[]>;
  /** Sets each partition's position (the HDFS store rewinds or skips its files; the SQL store overwrites rows). */
  overwrite(groupId: string, positions: StoredPosition[]): Promise<void>;
}
