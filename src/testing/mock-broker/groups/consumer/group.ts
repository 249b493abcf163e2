/**
 * A KIP-848 consumer group, after Apache Kafka's `ConsumerGroup` (group-coordinator module): the group
 * epoch (bumped by every membership, subscription or metadata change), the target assignment and its
 * epoch, the members, and who owns each partition now (Kafka's `currentPartitionEpoch`).
 *
 * State (one {@link StateMachine}, table {@link CONSUMER_GROUP_TRANSITIONS}), derived as Kafka's `maybeUpdateGroupState` does:
 * Empty (no members), Assigning (group epoch ahead of the target assignment epoch), Reconciling (some
 * member not yet at the target epoch or not `stable`), Stable; Dead once deleted.
 */
import { StateMachine } from '../../../../util/state-machine';
import { Assignment, EMPTY, partitionsOf } from './assignment';
import { DEFAULT_ASSIGNOR } from './assignors';
import type { ConsumerGroupMember } from './member';

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

/** Allowed group state transitions (a heartbeat may pass through several in one step; Dead only from Empty). */
export const CONSUMER_GROUP_TRANSITIONS: Readonly<Record<ConsumerGroupState, readonly ConsumerGroupState[]>> = {
  Empty: ['Assigning', 'Reconciling', 'Stable', 'Dead'],
  Assigning: ['Reconciling', 'Stable', 'Empty'],
  Reconciling: ['Assigning', 'Stable', 'Empty'],
  Stable: ['Assigning', 'Reconciling', 'Empty'],
  Dead: [],
};

const key = (topicId: string, p: number) => `${topicId}:${p}`;

/** One state change of a consumer group, as the group reports it to its owner (who puts it in the event log). */
export interface ConsumerGroupTransition {
  readonly groupId: string;
  readonly from: ConsumerGroupState;
  readonly to: ConsumerGroupState;
  readonly reason: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
}

/**
 * A KIP-848 consumer group. Its state, epochs and target assignment are private: the state changes only through
 * its {@link StateMachine} (an illegal move throws ILLEGAL_GROUP_TRANSITION naming the group), the epochs and the
 * target only through {@link bumpGroupEpoch} and {@link setTargetAssignment}.
 */
export class ConsumerGroup {
  readonly type = 'consumer';
  private readonly machine: StateMachine<ConsumerGroupState>;
  private epoch = 0;
  private targetEpoch = 0;
  private target = new Map<string, Assignment>();
  private assignor = DEFAULT_ASSIGNOR;
  readonly members = new Map<string, ConsumerGroupMember>();
  /** instance id → member id of static members. */
  readonly staticMembers = new Map<string, string>();
  /** `topicId:partition` → the member owning it (assigned or pending revocation). */
  private readonly owners = new Map<string, string>();

  constructor(readonly groupId: string, readonly createdAtMs: number, onTransition: (t: ConsumerGroupTransition) => void = () => {}) {
    this.machine = new StateMachine<ConsumerGroupState>({
      name: `consumer group ${groupId}`, initial: 'Empty', transitions: CONSUMER_GROUP_TRANSITIONS, errorCode: 'ILLEGAL_GROUP_TRANSITION',
      onTransition: ({ from, to, reason }) => onTransition({
        groupId, from, to, reason, groupEpoch: this.epoch, assignmentEpoch: this.targetEpoch,
      }),
    });
  }

  get state(): ConsumerGroupState { return this.machine.state; }
  /** Bumped by every membership, subscription or metadata change. */
  get groupEpoch(): number { return this.epoch; }
  /** The group epoch the target assignment was computed at. */
  get assignmentEpoch(): number { return this.targetEpoch; }
  /** member id → its partitions in the target assignment. */
  get targetAssignment(): ReadonlyMap<string, Assignment> { return this.target; }
  /** The assignor that computed (or will compute) the target: the one most members ask for. */
  get assignorName(): string { return this.assignor; }

  /** Kafka's `isEmpty`: no members. */
  isEmpty(): boolean {
    return this.members.size === 0;
  }

  /** Moves to `to` (a no-op when already there); throws ILLEGAL_GROUP_TRANSITION when the table forbids it. */
  transition(to: ConsumerGroupState, reason: string): void {
    if (to !== this.state) this.machine.to(to, reason);
  }

  /** Moves to the state the group's data implies now (Kafka's `maybeUpdateGroupState`). */
  updateState(reason: string): void {
    this.transition(this.derivedState(), reason);
  }

  bumpGroupEpoch(): number {
    return ++this.epoch;
  }

  /** A new target assignment, computed by `assignorName` at the current group epoch (or none left: no members). */
  setTargetAssignment(assignorName: string, target: Map<string, Assignment>): void {
    this.assignor = assignorName;
    this.target = target;
    this.targetEpoch = this.epoch;
  }

  /** The state the group's data implies now (Kafka's `maybeUpdateGroupState`). */
  derivedState(): ConsumerGroupState {
    if (this.state === 'Dead') return 'Dead';
    if (this.members.size === 0) return 'Empty';
    if (this.epoch > this.targetEpoch) return 'Assigning';
    for (const m of this.members.values()) {
      if (m.state !== 'stable' || m.memberEpoch !== this.targetEpoch) return 'Reconciling';
    }
    return 'Stable';
  }

  targetOf(memberId: string): Assignment {
    return this.target.get(memberId) ?? EMPTY;
  }

  /** A replacing static member inherits the target of the one it replaces (no rebalance). */
  inheritTarget(memberId: string, target: Assignment): void {
    this.target.set(memberId, target);
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
    this.target.delete(member.memberId);
    if (member.instanceId !== null && this.staticMembers.get(member.instanceId) === member.memberId) {
      this.staticMembers.delete(member.instanceId);
    }
  }

  staticMember(instanceId: string): ConsumerGroupMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }
}
