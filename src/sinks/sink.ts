/**
 * The exactly-once sink contract. A sink stores, per (group, topic, partition), the next offset to consume,
 * and writes a batch's output together with that offset in one atomic unit guarded by a compare-and-set.
 * See docs/architecture.md ("the exactly-once invariant").
 */

/** One partition of one topic. */
export interface TopicPartition { topic: string; partition: number }

/** One Kafka record as handed to a sink. `offset` and `timestamp` (ms since the epoch) are bigint. */
export interface SinkRecord { topic: string; partition: number; offset: bigint; key: Buffer | null; value: Buffer | null; timestamp: bigint /* ms epoch */; headers: Record<string, Buffer | string | undefined> }

/** The records of one partition to write, with the compare-and-set positions. */
export interface SinkBatch { topic: string; partition: number;
  expectedOffset: bigint;  // the stored next_offset this writer believes is current; -1n = no position stored yet
  nextOffset: bigint;      // last offset of the batch + 1 (offsets may be non-contiguous: never derive from a record count)
  records: SinkRecord[] }  // may be empty (e.g. only control records): still advances the offset by CAS

/** Outcome of {@link ExactlyOnceSink.write}. `fenced` lists the partitions whose CAS failed, with the stored offset re-read after rollback (-1n = none stored). */
export type WriteResult = { status: 'committed' } | { status: 'fenced'; fenced: { topic: string; partition: number; storedOffset: bigint }[] };

export interface ExactlyOnceSink {
  /** Reads the stored positions for these partitions (seeding absent rows with -1n, insert-if-absent). Key = `${topic}:${partition}`. */
  open(groupId: string, partitions: TopicPartition[]): Promise<Map<string, bigint>>;
  /** Writes all batches and their CAS offset updates in one transaction. Any CAS that matches 0 rows → roll back everything, return 'fenced' with re-read stored offsets. Nothing half-written, ever. */
  write(groupId: string, batches: SinkBatch[]): Promise<WriteResult>;
  close(): Promise<void>;
}

/** The map key used by {@link ExactlyOnceSink.open}: `${topic}:${partition}`. */
export function partitionKey(tp: TopicPartition): string {
  return `${tp.topic}:${tp.partition}`;
}

/**
 * The record a sink error names, if any: a non-retriable error carrying the `topic`,
 * `partition` and `offset` of one of the records written (as SqlSink's SINK_MAPPING_FAILED and
 * SINK_WRITE_FAILED do). A sink that rejects one record of a write reports it this way.
 */
export function rejectedRecord(error: unknown, records: SinkRecord[]): SinkRecord | undefined {
  const e = error as { retriable?: unknown; topic?: unknown; partition?: unknown; offset?: unknown } | null;
  if (!e || typeof e !== 'object' || e.retriable !== false || typeof e.offset !== 'bigint') return undefined;
  return records.find((r) => r.offset === e.offset && r.topic === e.topic && r.partition === e.partition);
}
