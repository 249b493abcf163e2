/**
 * The `cooperative-sticky` assignor: Java's `CooperativeStickyAssignor` (KIP-429), wire-compatible with Java's and
 * librdkafka's. The assignment is the sticky one (sticky.ts: balance first, then keep what members own), computed
 * from each member's OwnedPartitions and generation (ConsumerProtocolSubscription v1+, v2+). Then every partition
 * that would change owner is taken out of its new owner's assignment: its old owner's assignment no longer holds it,
 * so the old owner revokes it and rejoins, and the partition is given in that follow-up rebalance, once nobody
 * claims it. A partition therefore never has two owners, even for a moment (Java's `adjustAssignment`).
 *
 * The generation a member reports: the subscription's GenerationId (v2+) when it is set, else the four bytes of
 * userData Java's assignor writes (its `subscriptionUserData`: the generation as an int32) for readers of v0/v1.
 * A claim is counted for the "changes owner" test whatever its generation: a stale claim delays a hand-over by one
 * rebalance at worst, never gives a partition to two members.
 */
import {
  type ConsumerProtocolSubscription, type GroupAssignment, type GroupSubscriptions, type PartitionsPerTopic, type TopicPartition,
} from '../../protocol/consumer-protocol';
import { assignSticky } from './sticky';

/** Protocol name shared with Java and librdkafka consumers. */
export const COOPERATIVE_STICKY_ASSIGNOR_NAME = 'cooperative-sticky';

const key = (tp: TopicPartition) => `${tp.topic}\0${tp.partition}`;

/** The subscription userData Java's CooperativeStickyAssignor writes: the member's generation as a big-endian int32. */
export function cooperativeStickyUserData(generation: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(generation, 0);
  return b;
}

/**
 * The generation a cooperative-sticky member reports: the subscription's GenerationId (v2+) when set (>= 0), else
 * an int32 userData (older Java writers), else undefined (no generation: its claims count as generation -1).
 */
export function cooperativeGeneration(sub: Pick<ConsumerProtocolSubscription, 'generationId' | 'userData'>): number | undefined {
  if (sub.generationId >= 0) return sub.generationId;
  if (sub.userData && sub.userData.length === 4) {
    const g = sub.userData.readInt32BE(0);
    return g >= 0 ? g : undefined;
  }
  return undefined;
}

/**
 * Pure cooperative-sticky assignment (see the module comment). `subscriptions` carry each member's
 * `ownedPartitions` and `generation`; the result holds every member, with the partitions that change owner left out
 * (they are assigned in the follow-up rebalance).
 * @throws KafkaEosError ASSIGNOR_INVALID_INPUT / ASSIGNOR_INTERNAL as {@link assignSticky}.
 */
export function assignCooperativeSticky(subscriptions: GroupSubscriptions, partitionsPerTopic: PartitionsPerTopic): GroupAssignment {
  const withOwned = new Map([...subscriptions].map(([id, s]) => [id, { ...s, ownedPartitions: s.ownedPartitions ?? [] }]));
  const assignment = assignSticky(withOwned, partitionsPerTopic);
  const claimedBy = new Map<string, Set<string>>();
  for (const [id, s] of withOwned) {
    for (const tp of s.ownedPartitions) {
      const set = claimedBy.get(key(tp)) ?? new Set<string>();
      set.add(id);
      claimedBy.set(key(tp), set);
    }
  }
  for (const [id, partitions] of assignment) {
    const owned = new Set(withOwned.get(id)!.ownedPartitions.map(key));
    assignment.set(id, partitions.filter((tp) => {
      if (owned.has(key(tp))) return true;
      const claimants = claimedBy.get(key(tp));
      return !claimants || [...claimants].every((c) => c === id);
    }));
  }
  return assignment;
}
