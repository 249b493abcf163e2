/**
 * Where a consumer group's positions live when the sink, not Kafka, owns them.
 * Positions are "next offset to consume" per (group, topic, partition); -1n means "none stored yet".
 */
import type { TopicPartition } from '../records';

export type { TopicPartition } from '../records';

/** A partition whose compare-and-set failed, with the stored position read back after rollback (-1n = none). */
export interface FencedPartition { topic: string; partition: number; storedOffset: bigint }

/** One partition's CAS step: move the stored position from `expectedOffset` to `nextOffset`. */
export interface OffsetAdvance { topic: string; partition: number; expectedOffset: bigint; nextOffset: bigint }

/**
 * A store of positions with compare-and-set.
 * @typeParam Tx the store's transaction handle (a knex transaction for the SQL store).
 */
export interface OffsetStore<Tx = unknown> {
  /**
   * Reads the stored positions, seeding absent rows with -1n (insert-if-absent, never overwriting).
   * @returns Map keyed `${topic}:${partition}` → next offset (-1n = none stored).
   */
  load(groupId: string, partitions: TopicPartition[]): Promise<Map<string, bigint>>;
  /**
   * Sets the position of `tp` to `next` if and only if it currently is `expected` (-1n also matches an absent row).
   * Runs inside `trx` when given (the caller's data transaction), else in a transaction of its own.
   * @returns true when the position moved; false when it did not match (fenced: another writer owns or advanced it).
   */
  compareAndSet(trx: Tx | undefined, groupId: string, tp: TopicPartition, expected: bigint, next: bigint): Promise<boolean>;
}
