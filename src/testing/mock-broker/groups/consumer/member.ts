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
import {
  Assignment, EMPTY, equals, intersect, isEmpty, partitionsOf, subtract, union,
} from './assignment';

export type MemberState = 'unknown' | 'stable' | 'unrevoked_partitions' | 'unreleased_partitions' | 'static_left' | 'left';

const LIVE: readonly MemberState[] = ['unknown', 'stable', 'unrevoked_partitions', 'unreleased_partitions', 'static_left', 'left'];

/**
 * Allowed transitions. A live member may move between the reconciliation states, go back to `unknown`
 * (a rejoin with epoch 0), leave for a while (`static_left`) or for good (`left`).
 */
export const MEMBER_TRANSITIONS: Readonly<Record<MemberState, readonly MemberState[]>> = {
  unknown: LIVE,
  stable: LIVE,
  unrevoked_partitions: LIVE,
  unreleased_partitions: LIVE,
  static_left: ['unknown', 'left'],
  left: [],
};

/** Thrown when a reconciliation step would take a transition {@link MEMBER_TRANSITIONS} does not allow. */
export class IllegalMemberTransitionError extends Error {
  constructor(readonly memberId: string, readonly from: MemberState, readonly to: MemberState) {
    super(`consumer group member ${memberId}: illegal transition ${from} -> ${to}`);
    this.name = 'IllegalMemberTransitionError';
  }
}

/** What a member told the coordinator about itself (from its heartbeats). */
export interface MemberSubscription {
  subscribedTopicNames: readonly string[];
  subscribedTopicRegex: string | null;
  /** The assignor the member asked for, null for the group's default. */
  serverAssignor: string | null;
}

export class ConsumerGroupMember {
  state: MemberState = 'unknown';
  memberEpoch = 0;
  previousMemberEpoch = -1;
  /** Partitions the member owns and may fetch. */
  assigned: Assignment = EMPTY;
  /** Partitions the member still owns but must give up (state `unrevoked_partitions`). */
  pendingRevocation: Assignment = EMPTY;
  subscription: MemberSubscription = { subscribedTopicNames: [], subscribedTopicRegex: null, serverAssignor: null };
  rackId: string | null = null;
  rebalanceTimeoutMs = -1;

  constructor(
    readonly memberId: string,
    public instanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
  ) {}

  /** Every partition this member owns: assigned and pending revocation. */
  owned(): Assignment {
    return union(this.assigned, this.pendingRevocation);
  }

  /** Changes the reconciliation state; throws IllegalMemberTransitionError when the table forbids it. */
  transition(to: MemberState): void {
    if (!MEMBER_TRANSITIONS[this.state].includes(to)) throw new IllegalMemberTransitionError(this.memberId, this.state, to);
    this.state = to;
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

/** True when the member's assigned partitions differ between two reconciliation results. */
export function assignedChanged(before: Assignment, after: Assignment): boolean {
  return !equals(before, after);
}
