/**
 * Committed offsets, per group, topic and partition, as Kafka's `OffsetMetadataManager` keeps them
 * (`OffsetAndMetadata`: offset, leader epoch, metadata — "" when none was given — and commit time).
 * Pure storage: validation of who may commit lives in the coordinator.
 */
import type { CommittedOffsetView } from '../types';

export interface OffsetAndMetadata {
  committedOffset: bigint;
  committedLeaderEpoch: number;
  metadata: string;
  commitTimestampMs: number;
}

export class OffsetStore {
  /** groupId → topic → partition → offset. Insertion-ordered, so fetch-all answers in commit order. */
  private readonly byGroup = new Map<string, Map<string, Map<number, OffsetAndMetadata>>>();

  commit(groupId: string, topic: string, partition: number, value: OffsetAndMetadata): void {
    let topics = this.byGroup.get(groupId);
    if (!topics) this.byGroup.set(groupId, (topics = new Map()));
    let partitions = topics.get(topic);
    if (!partitions) topics.set(topic, (partitions = new Map()));
    partitions.set(partition, value);
  }

  get(groupId: string, topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.byGroup.get(groupId)?.get(topic)?.get(partition);
  }

  /** Every committed offset of a group, grouped by topic. */
  all(groupId: string): Array<[string, Array<[number, OffsetAndMetadata]>]> {
    const topics = this.byGroup.get(groupId);
    if (!topics) return [];
    return [...topics].map(([topic, parts]) => [topic, [...parts]]);
  }

  /** Delete one offset; true if one was there. */
  delete(groupId: string, topic: string, partition: number): boolean {
    const topics = this.byGroup.get(groupId);
    const parts = topics?.get(topic);
    if (!topics || !parts || !parts.delete(partition)) return false;
    if (parts.size === 0) topics.delete(topic);
    if (topics.size === 0) this.byGroup.delete(groupId);
    return true;
  }

  hasOffsets(groupId: string): boolean {
    return this.byGroup.has(groupId);
  }

  deleteGroup(groupId: string): number {
    const n = this.all(groupId).reduce((acc, [, parts]) => acc + parts.length, 0);
    this.byGroup.delete(groupId);
    return n;
  }

  view(groupId: string): CommittedOffsetView[] {
    return this.all(groupId).flatMap(([topic, parts]) => parts.map(([partition, o]) => ({ topic, partition, ...o })));
  }

  clear(): void {
    this.byGroup.clear();
    this.pending.clear();
  }

  // ---- Transactional offsets (TxnOffsetCommit, KIP-98): staged per producer, visible only once the
  // transaction commits (Kafka's `pendingTransactionalOffsets`).

  /** groupId → producerId → `topic\0partition` → staged offset. */
  private readonly pending = new Map<string, Map<bigint, Map<string, { topic: string; partition: number; value: OffsetAndMetadata }>>>();

  stagePending(groupId: string, producerId: bigint, topic: string, partition: number, value: OffsetAndMetadata): void {
    let byProducer = this.pending.get(groupId);
    if (!byProducer) this.pending.set(groupId, (byProducer = new Map()));
    let parts = byProducer.get(producerId);
    if (!parts) byProducer.set(producerId, (parts = new Map()));
    parts.set(`${topic}\0${partition}`, { topic, partition, value });
  }

  /** Ends a producer's transaction for a group: on commit its staged offsets become committed. Returns them. */
  completePending(groupId: string, producerId: bigint, commit: boolean): { topic: string; partition: number; value: OffsetAndMetadata }[] {
    const byProducer = this.pending.get(groupId);
    const parts = byProducer?.get(producerId);
    if (!byProducer || !parts) return [];
    byProducer.delete(producerId);
    if (byProducer.size === 0) this.pending.delete(groupId);
    const staged = [...parts.values()];
    if (commit) for (const s of staged) this.commit(groupId, s.topic, s.partition, s.value);
    return staged;
  }

  /** True while some open transaction holds an offset of the group (the group is not removed then). */
  hasAnyPending(groupId: string): boolean {
    return this.pending.has(groupId);
  }

  /** True while some open transaction holds an offset for this partition (OffsetFetch requireStable). */
  hasPending(groupId: string, topic: string, partition: number): boolean {
    const byProducer = this.pending.get(groupId);
    if (!byProducer) return false;
    for (const parts of byProducer.values()) if (parts.has(`${topic}\0${partition}`)) return true;
    return false;
  }
}
