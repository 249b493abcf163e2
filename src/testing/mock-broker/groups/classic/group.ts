/**
 * The classic group and member model, after Apache Kafka's `ClassicGroup`, `ClassicGroupMember` and
 * `ClassicGroupState` (group-coordinator/…/classic/, Kafka 3.7+; `GroupMetadata`/`MemberMetadata` in
 * core before that). This module holds state and its invariants only: no timers, no I/O. Parked
 * JoinGroup/SyncGroup requests are stored as resolver functions on their member.
 *
 * Invariants kept here:
 * - `state` is one {@link StateMachine}, changed only by {@link ClassicGroup.transitionTo}, which checks
 *   {@link TRANSITIONS} and {@link GUARDS}.
 * - `numAwaitingJoin` equals the number of members with a parked JoinGroup.
 * - `supportedProtocolCounts[name]` counts members that list protocol `name`.
 * - a static member's instance id maps to exactly one member id (`staticMembers`).
 * - the leader is a member, or null when there are no members.
 */
import { KafkaEosError } from '../../../../errors';
import { IllegalTransitionError, StateMachine } from '../../../../util/state-machine';
import { ErrorCode } from '../../../../protocol/error-codes';
import type { GroupState, JoinGroupProtocol, JoinGroupResponse, JoinGroupResponseMember, SyncGroupResponse } from '../types';

/**
 * Allowed transitions, written as Kafka writes them (`ClassicGroupState.validPreviousStates`): for each
 * target state, the states it may be entered from.
 */
export const TRANSITIONS: Readonly<Record<GroupState, readonly GroupState[]>> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

/** Guards on entering a state, by name: null when the group may enter it, else why not. */
export const GUARDS: Readonly<Partial<Record<GroupState, (g: ClassicGroup) => string | null>>> = {
  Empty: (g) => (g.numMembers === 0 ? null : `group still has ${g.numMembers} members`),
  CompletingRebalance: (g) => (g.numMembers > 0 ? null : 'group has no members'),
};

export const EMPTY_ASSIGNMENT: Buffer = Buffer.alloc(0);

type JoinResolver = (response: JoinGroupResponse) => void;
type SyncResolver = (response: SyncGroupResponse) => void;

export function protocolsEqual(a: readonly JoinGroupProtocol[], b: readonly JoinGroupProtocol[]): boolean {
  return a.length === b.length && a.every((p, i) => p.name === b[i]!.name && p.metadata.equals(b[i]!.metadata));
}

export class ClassicGroupMember {
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocols: JoinGroupProtocol[];
  assignment: Buffer;
  /** A member added by this rebalance: its parked join does not count as liveness (`hasSatisfiedHeartbeat`). */
  isNew = false;
  awaitingJoin: JoinResolver | null = null;
  awaitingSync: SyncResolver | null = null;

  constructor(
    readonly memberId: string,
    readonly groupInstanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    readonly protocolType: string,
    protocols: JoinGroupProtocol[],
    assignment: Buffer = EMPTY_ASSIGNMENT,
  ) {
    this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.protocols = protocols;
    this.assignment = assignment;
  }

  get isStatic(): boolean {
    return this.groupInstanceId !== null;
  }

  /** Kafka's `hasSatisfiedHeartbeat`: members parked in a rebalance are alive, unless new. */
  hasSatisfiedHeartbeat(): boolean {
    if (this.isNew) return false;
    return this.awaitingJoin !== null || this.awaitingSync !== null;
  }

  matches(protocols: readonly JoinGroupProtocol[]): boolean {
    return protocolsEqual(this.protocols, protocols);
  }

  /** The member's first preferred protocol among the candidates (Kafka's `vote`). */
  vote(candidates: ReadonlySet<string>): string {
    const p = this.protocols.find((x) => candidates.has(x.name));
    if (!p) throw new KafkaEosError('ILLEGAL_STATE', `member ${this.memberId} supports none of the candidate protocols`);
    return p.name;
  }

  metadata(protocolName: string | null): Buffer {
    const p = this.protocols.find((x) => x.name === protocolName);
    if (!p) throw new KafkaEosError('ILLEGAL_STATE', `member ${this.memberId} does not support protocol ${protocolName}`);
    return p.metadata;
  }
}

export class ClassicGroup {
  readonly type = 'classic';
  private readonly machine: StateMachine<GroupState>;
  private _previousState: GroupState = 'Dead';
  stateTimestampMs: number;
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  /** Insertion-ordered: the order members are listed to the leader and re-elected in. */
  readonly members = new Map<string, ClassicGroupMember>();
  /** groupInstanceId → memberId. */
  readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED that have not joined yet (KIP-394). */
  readonly pendingJoinMembers = new Set<string>();
  /** Members that received the JoinGroup response of this generation but have not sent SyncGroup. */
  readonly pendingSyncMembers = new Set<string>();
  /** Set when a member joins during the initial (delayed) rebalance: the delay is extended. */
  newMemberAdded = false;
  /** Topics the consumer-protocol members subscribe to; null when unknown (not parsed / not a consumer group). */
  subscribedTopics: Set<string> | null = null;
  private numAwaitingJoin = 0;
  private readonly supportedProtocolCounts = new Map<string, number>();

  constructor(
    readonly groupId: string,
    now: number,
  ) {
    this.stateTimestampMs = now;
    this.machine = new StateMachine<GroupState>({
      name: `group ${groupId}`, initial: 'Empty', previous: TRANSITIONS, errorCode: 'ILLEGAL_GROUP_TRANSITION',
    });
  }

  get state(): GroupState {
    return this.machine.state;
  }
  get previousState(): GroupState {
    return this._previousState;
  }
  get numMembers(): number {
    return this.members.size;
  }
  get numAwaitingJoinResponse(): number {
    return this.numAwaitingJoin;
  }
  is(state: GroupState): boolean {
    return this.machine.is(state);
  }

  /** Kafka's `isEmpty` for a classic group: in state Empty. */
  isEmpty(): boolean {
    return this.machine.is('Empty');
  }

  /** Kafka's `canRebalance`: PreparingRebalance may be entered from the current state. */
  canRebalance(): boolean {
    return this.machine.can('PreparingRebalance');
  }

  /**
   * Change state; throws IllegalTransitionError (code ILLEGAL_GROUP_TRANSITION, naming the group) if the table
   * or a guard ({@link GUARDS}) forbids it.
   */
  transitionTo(to: GroupState, now: number, reason = ''): { from: GroupState; to: GroupState } {
    const from = this.machine.state;
    const why = this.machine.can(to) ? GUARDS[to]?.(this) ?? null : null;
    if (why !== null) throw new IllegalTransitionError(this.machine.name, from, to, why, 'ILLEGAL_GROUP_TRANSITION');
    this.machine.to(to, reason);
    this._previousState = from;
    this.stateTimestampMs = now;
    return { from, to };
  }

  member(memberId: string): ClassicGroupMember | undefined {
    return this.members.get(memberId);
  }
  hasMember(memberId: string): boolean {
    return this.members.has(memberId);
  }
  isLeader(memberId: string): boolean {
    return this.leaderId !== null && this.leaderId === memberId;
  }
  isPendingMember(memberId: string): boolean {
    return this.pendingJoinMembers.has(memberId);
  }
  staticMemberId(groupInstanceId: string): string | undefined {
    return this.staticMembers.get(groupInstanceId);
  }

  /** Kafka's `hasAllMembersJoined`: every member is parked in JoinGroup and nobody holds a pending member id. */
  hasAllMembersJoined(): boolean {
    return this.members.size === this.numAwaitingJoin && this.pendingJoinMembers.size === 0;
  }

  /** The largest member rebalance timeout: how long a join phase may last. */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /** Kafka's `supportsProtocols`: can a member with this type and these protocols join? */
  supportsProtocols(protocolType: string, protocolNames: readonly string[]): boolean {
    if (this.is('Empty')) return protocolType.length > 0 && protocolNames.length > 0;
    return this.protocolType === protocolType
      && protocolNames.some((n) => (this.supportedProtocolCounts.get(n) ?? 0) === this.members.size);
  }

  add(member: ClassicGroupMember, onJoin: JoinResolver | null): void {
    if (member.groupInstanceId !== null) {
      if (this.staticMembers.has(member.groupInstanceId)) {
        throw new KafkaEosError('ILLEGAL_STATE', `static member ${member.groupInstanceId} is already a member of ${this.groupId}`);
      }
      this.staticMembers.set(member.groupInstanceId, member.memberId);
    }
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.protocolType !== member.protocolType) throw new KafkaEosError('ILLEGAL_STATE', 'group and member protocol types differ');
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    this.countProtocols(member, +1);
    member.awaitingJoin = onJoin;
    if (onJoin) this.numAwaitingJoin++;
    this.pendingJoinMembers.delete(member.memberId);
  }

  /**
   * Remove a member or pending member id. A removed leader is replaced by the first remaining member.
   * Parked requests of the removed member are *not* answered here: the caller does that first.
   */
  remove(memberId: string): ClassicGroupMember | undefined {
    const removed = this.members.get(memberId);
    if (removed) {
      this.members.delete(memberId);
      this.countProtocols(removed, -1);
      if (removed.awaitingJoin) this.numAwaitingJoin--;
      if (removed.groupInstanceId !== null) this.staticMembers.delete(removed.groupInstanceId);
    }
    if (this.isLeader(memberId)) {
      const next = this.members.keys().next();
      this.leaderId = next.done ? null : next.value;
    }
    this.pendingJoinMembers.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
    return removed;
  }

  /** Replace a member's protocols and timeouts, and park (or un-park) its JoinGroup. Returns the superseded resolver. */
  updateMember(
    member: ClassicGroupMember, protocols: JoinGroupProtocol[], rebalanceTimeoutMs: number, sessionTimeoutMs: number,
    onJoin: JoinResolver | null,
  ): JoinResolver | null {
    this.countProtocols(member, -1);
    member.protocols = protocols;
    this.countProtocols(member, +1);
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
    const previous = member.awaitingJoin;
    if (onJoin && !previous) this.numAwaitingJoin++;
    else if (!onJoin && previous) this.numAwaitingJoin--;
    member.awaitingJoin = onJoin;
    return previous;
  }

  /** Answer a member's parked JoinGroup, if any. */
  completeJoin(member: ClassicGroupMember, response: JoinGroupResponse): boolean {
    const resolve = member.awaitingJoin;
    if (!resolve) return false;
    member.awaitingJoin = null;
    this.numAwaitingJoin--;
    resolve(response);
    return true;
  }

  /** Answer a member's parked SyncGroup, if any. */
  completeSync(member: ClassicGroupMember, response: SyncGroupResponse): boolean {
    const resolve = member.awaitingSync;
    if (!resolve) return false;
    member.awaitingSync = null;
    resolve(response);
    return true;
  }

  /**
   * KIP-345: give a static member a new member id, keeping its metadata and assignment. Parked requests
   * of the old id are answered with FENCED_INSTANCE_ID (Kafka's `replaceStaticMember`).
   */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): ClassicGroupMember {
    const old = this.members.get(oldMemberId);
    if (!old) throw new KafkaEosError('ILLEGAL_STATE', `cannot replace non-existing member ${oldMemberId}`);
    this.completeJoin(old, { ...joinError(ErrorCode.FENCED_INSTANCE_ID, oldMemberId) });
    this.completeSync(old, {
      errorCode: ErrorCode.FENCED_INSTANCE_ID, protocolType: null, protocolName: null, assignment: EMPTY_ASSIGNMENT,
    });
    this.members.delete(oldMemberId);
    const replacement = new ClassicGroupMember(
      newMemberId, old.groupInstanceId, old.clientId, old.clientHost,
      old.rebalanceTimeoutMs, old.sessionTimeoutMs, old.protocolType, old.protocols, old.assignment,
    );
    this.members.set(newMemberId, replacement);
    if (this.isLeader(oldMemberId)) this.leaderId = newMemberId;
    this.staticMembers.set(groupInstanceId, newMemberId);
    if (this.pendingSyncMembers.delete(oldMemberId)) this.pendingSyncMembers.add(newMemberId);
    return replacement;
  }

  /**
   * Kafka's `validateMember`: a static member must present the member id its instance id maps to
   * (FENCED_INSTANCE_ID otherwise), and the member must exist (UNKNOWN_MEMBER_ID). Returns NONE or the error.
   */
  validateMember(memberId: string, groupInstanceId: string | null | undefined): number {
    if (groupInstanceId != null) {
      const existing = this.staticMembers.get(groupInstanceId);
      if (existing === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (existing !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
    }
    return this.members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  /**
   * At the end of a join phase: keep the leader if it rejoined, otherwise elect the first member that
   * did. False when nobody rejoined (Kafka's `maybeElectNewJoinedLeader`).
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.members.get(this.leaderId);
    if (leader && leader.awaitingJoin) return true;
    for (const m of this.members.values()) {
      if (m.awaitingJoin) {
        this.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  /**
   * Kafka's `selectProtocol`: the candidates are the protocols every member supports; each member votes
   * for its most preferred candidate; most votes wins (ties: the candidate voted for first).
   */
  selectProtocol(): string {
    if (this.members.size === 0) throw new KafkaEosError('ILLEGAL_STATE', `cannot select a protocol for empty group ${this.groupId}`);
    const candidates = new Set([...this.supportedProtocolCounts].filter(([, n]) => n === this.members.size).map(([name]) => name));
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(candidates);
      votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    let best: string | null = null;
    let bestVotes = -1;
    for (const [name, n] of votes) {
      if (n > bestVotes) {
        best = name;
        bestVotes = n;
      }
    }
    return best!;
  }

  /** Members as the leader's JoinGroup response lists them, with the selected protocol's metadata. */
  currentMembersForLeader(): JoinGroupResponseMember[] {
    return [...this.members.values()].map((m) => ({
      memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata(this.protocolName),
    }));
  }

  usesConsumerProtocol(): boolean {
    return this.protocolType === 'consumer';
  }

  /** Kafka's `isSubscribedToTopic`: unknown subscriptions count as subscribed for consumer groups. */
  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopics === null ? this.usesConsumerProtocol() : this.subscribedTopics.has(topic);
  }

  private countProtocols(member: ClassicGroupMember, delta: 1 | -1): void {
    for (const p of member.protocols) this.supportedProtocolCounts.set(p.name, (this.supportedProtocolCounts.get(p.name) ?? 0) + delta);
  }
}

/** A JoinGroup error response with Kafka's defaults for the other fields. */
export function joinError(errorCode: number, memberId: string): JoinGroupResponse {
  return { errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId, members: [], skipAssignment: false };
}

export function syncError(errorCode: number): SyncGroupResponse {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY_ASSIGNMENT };
}
