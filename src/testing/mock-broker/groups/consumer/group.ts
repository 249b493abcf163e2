/**
 * A KIP-848 consumer group, after Apache Kafka's `ConsumerGroup` (group-coordinator module): the group
 * epoch (bumped by every membership, subscription or metadata change), the target assignment and its
 * epoch, the members, and who owns each partition now (Kafka's `currentPartitionEpoch`).
 *
 * State (one field, {@link CONSUMER_GROUP_TRANSITIONS}), derived as Kafka's `maybeUpdateGroupState` does:
 * Empty (no members), Assigning (group epoch ahead of the target assignment epoch), Reconciling (some
 * member not yet at the target epoch or not `stable`), Stable; Dead once deleted.
 */
import { Assignment, EMPTY, partitionsOf } from './assignment';
import { DEFAULT_ASSIGNOR } from './assignors';
import type { ConsumerGroupMember } from './member';

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

/** Allowed group state transitions (a heartbeat may pass through several in one step). */
export const CONSUMER_GROUP_TRANSITIONS: Readonly<Record<ConsumerGroupState, readonly ConsumerGroupState[]>> = {
  Empty: ['Assigning', 'Reconciling', 'Stable', 'Dead'],
  Assigning: ['Reconciling', 'Stable', 'Empty'],
  Reconciling: ['Assigning', 'Stable', 'Empty'],
  Stable: ['Assigning', 'Reconciling', 'Empty'],
  Dead: [],
};

/** Thrown when a state change is not in {@link CONSUMER_GROUP_TRANSITIONS}. */
export class IllegalConsumerGroupTransitionError extends Error {
  constructor(readonly groupId: string, readonly from: ConsumerGroupState, readonly to: ConsumerGroupState) {
    super(`consumer group ${groupId}: illegal transition ${from} -> ${to}`);
    this.name = 'IllegalConsumerGroupTransitionError';
  }
}

const key = (topicId: string, p: number) => `${topicId}:${p}`;

export class ConsumerGroup {
  state: ConsumerGroupState = 'Empty';
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerGroupMember>();
  /** instance id → member id of static members. */
  readonly staticMembers = new Map<string, string>();
  /** member id → its partitions in the target assignment. */
  targetAssignment = new Map<string, Assignment>();
  /** The assignor that computed (or will compute) the target: the one most members ask for. */
  assignorName = DEFAULT_ASSIGNOR;
  /** Subscribed topics as last seen: name → `id:partitions`, to notice metadata changes. */
  metadataFingerprint = '';
  /** `topicId:partition` → the member owning it (assigned or pending revocation). */
  private readonly owners = new Map<string, string>();

  constructor(readonly groupId: string, readonly createdAtMs: number) {}

  /** Changes state; throws IllegalConsumerGroupTransitionError when the table forbids it. */
  transition(to: ConsumerGroupState): void {
    if (to === this.state) return;
    if (!CONSUMER_GROUP_TRANSITIONS[this.state].includes(to)) throw new IllegalConsumerGroupTransitionError(this.groupId, this.state, to);
    this.state = to;
  }

  /** The state the group's data implies now (Kafka's `maybeUpdateGroupState`). */
  derivedState(): ConsumerGroupState {
    if (this.state === 'Dead') return 'Dead';
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) {
      if (m.state !== 'stable' || m.memberEpoch !== this.assignmentEpoch) return 'Reconciling';
    }
    return 'Stable';
  }

  targetOf(memberId: string): Assignment {
    return this.targetAssignment.get(memberId) ?? EMPTY;
  }

  /** The member owning a partition now, if any. */
  ownerOf(topicId: string, partition: number): string | undefined {
    return this.owners.get(key(topicId, partition));
  }

  /** Records that `member` now owns exactly its assigned and pending partitions. */
  updateOwnership(member: ConsumerGroupMember, before: Assignment): void {
    for (const [t, p] of partitionsOf(before)) if (this.owners.get(key(t, p)) === member.memberId) this.owners.delete(key(t, p));
    for (const [t, p] of partitionsOf(member.owned())) this.owners.set(key(t, p), member.memberId);
  }

  add(member: ConsumerGroupMember): void {
    this.members.set(member.memberId, member);
    if (member.instanceId !== null) this.staticMembers.set(member.instanceId, member.memberId);
  }

  /** Removes a member and releases its partitions. */
  remove(member: ConsumerGroupMember): void {
    for (const [t, p] of partitionsOf(member.owned())) if (this.owners.get(key(t, p)) === member.memberId) this.owners.delete(key(t, p));
    this.members.delete(member.memberId);
    this.targetAssignment.delete(member.memberId);
    if (member.instanceId !== null && this.staticMembers.get(member.instanceId) === member.memberId) {
      this.staticMembers.delete(member.instanceId);
    }
  }

  staticMember(instanceId: string): ConsumerGroupMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }
}
