/**
 * Committed offsets, per group, topic and partition, as Kafka's `OffsetMetadataManager` keeps them
 * (`OffsetAndMetadata`: offset, leader epoch, metadata — "" when none was given — and commit time).
 * Pure storage: validation of who may commit lives in the coordinator.
 */
import type { CommittedOffsetView } from './types';

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
  }
}
