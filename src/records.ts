/**
 * The shapes every layer above the protocol shares: a topic partition, its map key, and one Kafka record
 * as the consumer hands it on (to a handler or a sink). Imports nothing.
 */

/** One partition of one topic. */
export interface TopicPartition { topic: string; partition: number }

/** One Kafka record as handed to a sink. `offset` and `timestamp` (ms since the epoch) are bigint. */
export interface SinkRecord {
  topic: string; partition: number; offset: bigint; key: Buffer | null; value: Buffer | null; timestamp: bigint /* ms epoch */;
  headers: Record<string, Buffer | string | undefined>;
}

/** The records of one partition to write, with the compare-and-set positions. */
export interface SinkBatch { topic: string; partition: number;
  expectedOffset: bigint;  // the stored next_offset this writer believes is current; -1n = no position stored yet
  nextOffset: bigint;      // last offset of the batch + 1 (offsets may be non-contiguous: never derive from a record count)
  records: SinkRecord[] }  // may be empty (e.g. only control records): still advances the offset by CAS

/** A partition's durable position after a write or flush: the stored next offset (-1n = none stored). */
export interface DurablePosition { topic: string; partition: number; storedOffset: bigint }

/** The map key used by ExactlyOnceSink.open (sink-contract.ts) and every per-partition map: `${topic}:${partition}`. */
export function partitionKey(tp: TopicPartition): string {
  return `${tp.topic}:${tp.partition}`;
}
