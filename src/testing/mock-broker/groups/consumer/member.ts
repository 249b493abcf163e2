/**
 * A member of a KIP-848 consumer group and its reconciliation, after Apache Kafka's `ConsumerGroupMember`,
 * `MemberState` and `CurrentAssignmentBuilder` (group-coordinator module).
 *
 * Reconciliation state (one field, {@link MEMBER_TRANSITIONS}):
 * - `unknown`: joined (or rejoined with epoch 0), nothing reconciled yet;
 * - `unrevoked_partitions`: the target took partitions away; the member keeps its epoch and must
 *   heartbeat without them (its owned partitions) before it gets anything new;
 * - `unreleased_partitions`: the member is at the target epoch but some of its target partitions are
 *   still owned (assigned or pending revocation) by other members; it gets them once they are released;
 * - `stable`: the member owns its whole target assignment at the target epoch;
 * - `static_left`: a static member left with epoch -2: it keeps its partitions until it comes back (under a new
 *   member id that takes them over, or its own id rejoining with epoch 0) or its session times out;
 * - `left`: removed (left with epoch -1, fenced, expired); terminal.
 *
 * A partition is given to a member only when no other member owns it: revocation always comes first.
 */
import { StateMachine } from '../../../../util/state-machine';
import {
  Assignment, EMPTY, equals, intersect, isEmpty, partitionsOf, subtract, union,
} from './assignment';

export type MemberState = 'unknown' | 'stable' | 'unrevoked_partitions' | 'unreleased_partitions' | 'static_left' | 'left';

/** Leaving for good: a member leaves with epoch -1, is fenced out, expires, or is replaced. */
const GONE = 'left';

/**
 * The member's state table. The reconciliation moves are those Kafka's `CurrentAssignmentBuilder.build` can make
 * (between `stable`, `unrevoked_partitions` and `unreleased_partitions`, and out of `unknown` once reconciled);
 * `unknown` is entered again only by a rejoin with epoch 0 (the member starts over, owning nothing); a static
 * member's leave with epoch -2 (`static_left`) ends in a rejoin or its removal; `left` is terminal.
 */
export const MEMBER_TRANSITIONS: Readonly<Record<MemberState, readonly MemberState[]>> = {
  unknown: ['stable', 'unrevoked_partitions', 'unreleased_partitions', 'static_left', GONE],
  stable: ['unrevoked_partitions', 'unreleased_partitions', 'unknown', 'static_left', GONE],
  unrevoked_partitions: ['stable', 'unreleased_partitions', 'unknown', 'static_left', GONE],
  unreleased_partitions: ['stable', 'unrevoked_partitions', 'unknown', 'static_left', GONE],
  static_left: ['unknown', GONE],
  left: [],
};

/** What a member told the coordinator about itself (from its heartbeats). */
export interface MemberSubscription {
  subscribedTopicNames: readonly string[];
  subscribedTopicRegex: string | null;
  /** The assignor the member asked for, null for the group's default. */
  serverAssignor: string | null;
}

/** The non-null fields of a heartbeat that describe the member (Kafka keeps the last value of each). */
export interface SubscriptionUpdate {
  rackId: string | null;
  /** -1: unchanged. */
  rebalanceTimeoutMs: number;
  subscribedTopicNames: readonly string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
}

/** A static member's epoch while it is away (ConsumerGroupHeartbeat with epoch -2). */
export const STATIC_LEAVE_EPOCH = -2;

/**
 * One member of a consumer group. Its state, epochs, assignment and subscription are private: they change only
 * through the methods below, and the state only through its {@link StateMachine} (named `consumer group member
 * <id>`; an illegal move throws ILLEGAL_GROUP_TRANSITION).
 */
export class ConsumerGroupMember {
  private readonly machine: StateMachine<MemberState>;
  private epoch = 0;
  private previousEpoch = -1;
  private assignedPartitions: Assignment = EMPTY;
  private revoking: Assignment = EMPTY;
  private subscribed: MemberSubscription = { subscribedTopicNames: [], subscribedTopicRegex: null, serverAssignor: null };
  private rack: string | null = null;
  private rebalanceTimeout = -1;

  constructor(
    readonly memberId: string,
    readonly instanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
  ) {
    this.machine = new StateMachine<MemberState>({
      name: `consumer group member ${memberId}`, initial: 'unknown', transitions: MEMBER_TRANSITIONS, errorCode: 'ILLEGAL_GROUP_TRANSITION',
    });
  }

  get state(): MemberState { return this.machine.state; }
  get memberEpoch(): number { return this.epoch; }
  get previousMemberEpoch(): number { return this.previousEpoch; }
  /** Partitions the member owns and may fetch. */
  get assigned(): Assignment { return this.assignedPartitions; }
  /** Partitions the member still owns but must give up (state `unrevoked_partitions`). */
  get pendingRevocation(): Assignment { return this.revoking; }
  get subscription(): MemberSubscription { return this.subscribed; }
  get rackId(): string | null { return this.rack; }
  get rebalanceTimeoutMs(): number { return this.rebalanceTimeout; }

  /** Every partition this member owns: assigned and pending revocation. */
  owned(): Assignment {
    return union(this.assignedPartitions, this.revoking);
  }

  /**
   * Applies the non-null fields of a heartbeat (Kafka's `maybeUpdate*`); true when the subscription or the
   * assignor changed. An empty regex is no regex (Kafka's member record uses "" for none; librdkafka sends it).
   */
  updateSubscription(u: SubscriptionUpdate): boolean {
    if (u.rackId !== null) this.rack = u.rackId;
    if (u.rebalanceTimeoutMs !== -1) this.rebalanceTimeout = u.rebalanceTimeoutMs;
    const before = this.subscribed;
    const regex = u.subscribedTopicRegex === '' ? null : u.subscribedTopicRegex;
    this.subscribed = {
      subscribedTopicNames: u.subscribedTopicNames !== null ? [...u.subscribedTopicNames].sort() : before.subscribedTopicNames,
      subscribedTopicRegex: u.subscribedTopicNames !== null && regex === null ? null : regex ?? before.subscribedTopicRegex,
      serverAssignor: u.serverAssignor ?? before.serverAssignor,
    };
    return this.subscribed.subscribedTopicNames.join('\0') !== before.subscribedTopicNames.join('\0')
      || this.subscribed.subscribedTopicRegex !== before.subscribedTopicRegex || this.subscribed.serverAssignor !== before.serverAssignor;
  }

  /** Applies one reconciliation step (see {@link reconcile}); true when anything the member owns or its epoch changed. */
  apply(next: Reconciled, reason: string): boolean {
    const changed = this.state !== next.state || this.epoch !== next.memberEpoch
      || !equals(this.assignedPartitions, next.assigned) || !equals(this.revoking, next.pendingRevocation);
    if (next.state !== this.state) this.machine.to(next.state, reason);
    this.epoch = next.memberEpoch;
    this.previousEpoch = next.previousMemberEpoch;
    this.assignedPartitions = next.assigned;
    this.revoking = next.pendingRevocation;
    return changed;
  }

  /** A rejoin with epoch 0 (after a fencing, or a static member back under its own id): it starts over owning nothing. */
  rejoin(reason: string): void {
    this.machine.to('unknown', reason);
    this.epoch = 0;
    this.assignedPartitions = EMPTY;
    this.revoking = EMPTY;
  }

  /** A static member leaves with epoch -2: it keeps its partitions until it comes back or its session times out. */
  leaveStatic(reason: string): void {
    this.machine.to('static_left', reason);
    this.previousEpoch = this.epoch;
    this.epoch = STATIC_LEAVE_EPOCH;
  }

  /** Gone for good (left with epoch -1, expired, fenced out or replaced). */
  leave(reason: string): void {
    this.machine.to('left', reason);
  }

  /**
   * A static member back under a new member id (KIP-345 for KIP-848): the new member takes over the old one's
   * epoch, assignment and subscription; the old one leaves.
   */
  static replacing(old: ConsumerGroupMember, memberId: string, clientId: string, clientHost: string): ConsumerGroupMember {
    const m = new ConsumerGroupMember(memberId, old.instanceId, clientId, clientHost);
    m.epoch = old.previousEpoch >= 0 && old.epoch < 0 ? old.previousEpoch : old.epoch;
    m.previousEpoch = old.previousEpoch;
    m.assignedPartitions = old.assignedPartitions;
    m.revoking = old.revoking;
    m.subscribed = old.subscribed;
    m.rack = old.rack;
    m.rebalanceTimeout = old.rebalanceTimeout;
    old.leave(`replaced by ${memberId}`);
    return m;
  }
}

/** The result of one reconciliation step (Kafka's `CurrentAssignmentBuilder.build`). */
export interface Reconciled {
  state: MemberState;
  memberEpoch: number;
  previousMemberEpoch: number;
  assigned: Assignment;
  pendingRevocation: Assignment;
}

/**
 * One reconciliation step of `member` towards `target` at `targetEpoch`. `ownedByRequest` is the
 * member's owned partitions as its heartbeat reported them (null when not sent); `ownedByOther` tells
 * whether another member still owns a partition. Pure: the caller applies the result.
 */
export function reconcile(
  member: Pick<ConsumerGroupMember, 'state' | 'memberEpoch' | 'previousMemberEpoch' | 'assigned' | 'pendingRevocation'>,
  targetEpoch: number, target: Assignment, ownedByRequest: Assignment | null,
  ownedByOther: (topicId: string, partition: number) => boolean,
): Reconciled {
  const unchanged: Reconciled = {
    state: member.state, memberEpoch: member.memberEpoch, previousMemberEpoch: member.previousMemberEpoch,
    assigned: member.assigned, pendingRevocation: member.pendingRevocation,
  };
  switch (member.state) {
    case 'stable':
      if (member.memberEpoch === targetEpoch) return unchanged;
      break;
    case 'unrevoked_partitions':
      // Progress only once the member reported owned partitions without any of the revoked ones.
      if (ownedByRequest === null || !isEmpty(intersect(ownedByRequest, member.pendingRevocation))) return unchanged;
      break;
    default:
      break;
  }
  const retained = intersect(member.assigned, target);
  const toRevoke = subtract(member.assigned, target);
  if (!isEmpty(toRevoke)) {
    return {
      state: 'unrevoked_partitions', memberEpoch: member.memberEpoch, previousMemberEpoch: member.previousMemberEpoch, assigned: retained,
      pendingRevocation: toRevoke,
    };
  }
  const wanted = subtract(target, member.assigned);
  const free: [string, number][] = [];
  let unreleased = false;
  for (const [t, p] of partitionsOf(wanted)) {
    if (ownedByOther(t, p)) unreleased = true;
    else free.push([t, p]);
  }
  const assigned = union(retained, new Map(groupByTopic(free)));
  const epochMoved = member.memberEpoch !== targetEpoch;
  return {
    state: unreleased ? 'unreleased_partitions' : 'stable',
    memberEpoch: targetEpoch,
    previousMemberEpoch: epochMoved ? member.memberEpoch : member.previousMemberEpoch,
    assigned,
    pendingRevocation: EMPTY,
  };
}

function groupByTopic(pairs: readonly [string, number][]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [t, p] of pairs) out.set(t, [...(out.get(t) ?? []), p]);
  return out;
}
