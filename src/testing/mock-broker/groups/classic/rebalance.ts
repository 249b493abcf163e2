/**
 * The rebalance driver of the classic group coordinator: join-phase completion, generations, the
 * sync phase, session expiry, and the timers behind them. After Kafka's `GroupMetadataManager`
 * (prepareRebalance, completeClassicGroupJoin, expireClassicGroupMemberHeartbeat, expirePendingSync,
 * tryCompleteInitialRebalanceElseSchedule). The request-facing side is in protocol.ts.
 */
import type { EventLog } from '../../event-log';
import { ErrorCode } from '../../../../protocol/error-codes';
import { decodeSubscriptionTopics } from './subscription';
import { ClassicGroup, ClassicGroupMember, EMPTY_ASSIGNMENT, joinError, syncError } from './group';
import type { KeyedTimers } from '../timers';
import type { GroupState, JoinGroupResponse } from '../types';

const KEY_SEP = '\u0000';
export const hbKey = (groupId: string, memberId: string) => `hb${KEY_SEP}${groupId}${KEY_SEP}${memberId}`;
export const hbKeyPrefix = (groupId: string) => `hb${KEY_SEP}${groupId}${KEY_SEP}`;
export const joinKey = (groupId: string) => `join${KEY_SEP}${groupId}`;
export const syncKey = (groupId: string) => `sync${KEY_SEP}${groupId}`;

export class Rebalancer {
  constructor(
    /** Whether `group` is still registered and the coordinator open (timers of a deleted group do nothing). */
    private readonly current: (group: ClassicGroup) => boolean,
    private readonly timers: KeyedTimers,
    private readonly events: EventLog,
    private readonly config: { initialRebalanceDelayMs: number; now: () => number },
  ) {}

  /** The response a member gets for the current generation (members only for the leader). */
  currentGenerationResponse(
    group: ClassicGroup, memberId: string, withMembers: boolean, leader = group.leaderId ?? '', skipAssignment = false,
  ): JoinGroupResponse {
    return {
      errorCode: ErrorCode.NONE, generationId: group.generationId, protocolType: group.protocolType, protocolName: group.protocolName,
      leader, memberId, members: withMembers ? group.currentMembersForLeader() : [], skipAssignment,
    };
  }

  maybePrepareRebalanceOrCompleteJoin(group: ClassicGroup, reason: string): void {
    if (group.canRebalance()) this.prepareRebalance(group, reason);
    else this.maybeCompleteJoinPhase(group);
  }

  prepareRebalance(group: ClassicGroup, reason: string): void {
    if (group.is('CompletingRebalance')) this.resetAndPropagateAssignmentWithError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    this.removeSyncExpiration(group);
    const isInitialRebalance = group.is('Empty');
    if (isInitialRebalance) {
      const delayMs = this.config.initialRebalanceDelayMs;
      const remainingMs = Math.max(group.rebalanceTimeoutMs() - delayMs, 0);
      this.timers.schedule(joinKey(group.groupId), delayMs, () => this.tryCompleteInitialRebalance(group, delayMs, remainingMs));
    }
    this.transition(group, 'PreparingRebalance', reason);
    if (!isInitialRebalance) this.maybeCompleteJoinElseSchedule(group);
  }

  maybeCompleteJoinElseSchedule(group: ClassicGroup): void {
    if (group.hasAllMembersJoined()) return this.completeJoin(group);
    this.timers.schedule(joinKey(group.groupId), group.rebalanceTimeoutMs(), () => this.completeJoin(group));
  }

  /** KIP-134 `InitialDelayedJoin`: extend the delay while new members keep arriving, within the rebalance timeout. */
  tryCompleteInitialRebalance(group: ClassicGroup, delayMs: number, remainingMs: number): void {
    if (!this.isCurrent(group)) return;
    if (group.newMemberAdded && remainingMs !== 0) {
      group.newMemberAdded = false;
      const newDelayMs = Math.min(this.config.initialRebalanceDelayMs, remainingMs);
      const newRemainingMs = Math.max(remainingMs - delayMs, 0);
      this.timers.schedule(joinKey(group.groupId), newDelayMs, () => this.tryCompleteInitialRebalance(group, newDelayMs, newRemainingMs));
      return;
    }
    this.completeJoin(group);
  }

  /** Kafka's `maybeCompleteJoinPhase`: never early during the initial (delayed) rebalance. */
  maybeCompleteJoinPhase(group: ClassicGroup): void {
    if (!group.is('PreparingRebalance') || group.previousState === 'Empty' || !group.hasAllMembersJoined()) return;
    this.completeJoin(group);
  }

  /** Kafka's `completeClassicGroupJoin`: drop dynamic members that did not rejoin, start the next generation. */
  completeJoin(group: ClassicGroup): void {
    if (!this.isCurrent(group)) return;
    this.timers.cancel(joinKey(group.groupId));
    if (!group.is('PreparingRebalance')) return;
    for (const m of [...group.members.values()]) {
      if (!m.awaitingJoin && !m.isStatic) this.removeMember(group, m, 'member.expired', { cause: 'not-rejoined' });
    }
    if (!group.maybeElectNewJoinedLeader() && group.numMembers > 0) {
      // Nobody rejoined (only static members remain): wait another rebalance timeout for them.
      this.timers.schedule(joinKey(group.groupId), group.rebalanceTimeoutMs(), () => this.completeJoin(group));
      return;
    }
    this.initNextGeneration(group);
    if (group.is('Empty')) return;
    for (const member of group.members.values()) {
      group.completeJoin(member, this.currentGenerationResponse(group, member.memberId, group.isLeader(member.memberId)));
      this.rescheduleHeartbeat(group, member, member.sessionTimeoutMs);
      member.isNew = false;
      group.pendingSyncMembers.add(member.memberId);
    }
    const generationId = group.generationId;
    // A rebalance timeout of 0 (KafkaJS's Broker.joinGroup without one encodes 0): Kafka's timer runs an expired task
    // at once and its expiration event precedes the JoinGroup answers, which wait for the group's write; so the
    // members are gone before any SyncGroup can arrive. Done here at once too, not by a timer racing the client.
    if (group.rebalanceTimeoutMs() === 0) this.expirePendingSync(group, generationId);
    else this.timers.schedule(syncKey(group.groupId), group.rebalanceTimeoutMs(), () => this.expirePendingSync(group, generationId));
  }

  initNextGeneration(group: ClassicGroup): void {
    group.generationId++;
    const hasMembers = group.numMembers > 0;
    group.protocolName = hasMembers ? group.selectProtocol() : null;
    group.subscribedTopics = this.computeSubscribedTopics(group);
    this.transition(
      group, hasMembers ? 'CompletingRebalance' : 'Empty',
      `generation ${group.generationId} ${hasMembers ? `with ${group.numMembers} members` : 'is empty'}`,
    );
    group.pendingSyncMembers.clear();
    this.events.record('group.generation', {
      groupId: group.groupId, generationId: group.generationId, protocolType: group.protocolType, protocolName: group.protocolName,
      leader: group.leaderId,
      members: [...group.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId })),
    });
  }

  /** Kafka's `computeSubscribedTopics`: the union of the consumer-protocol subscriptions, null when unknown. */
  computeSubscribedTopics(group: ClassicGroup): Set<string> | null {
    if (!group.usesConsumerProtocol()) return null;
    if (group.numMembers === 0) return new Set();
    if (group.protocolName === null) return null;
    const all = new Set<string>();
    for (const m of group.members.values()) {
      const topics = decodeSubscriptionTopics(m.metadata(group.protocolName));
      if (topics === null) return null;
      topics.forEach((t) => all.add(t));
    }
    return all;
  }

  expirePendingSync(group: ClassicGroup, generationId: number): void {
    if (!this.isCurrent(group) || generationId !== group.generationId) return;
    if (!(group.is('CompletingRebalance') || group.is('Stable')) || group.pendingSyncMembers.size === 0) return;
    const late = [...group.pendingSyncMembers];
    for (const memberId of late) {
      const m = group.member(memberId);
      if (m) this.removeMember(group, m, 'member.expired', { cause: 'pending-sync-timeout' });
      else group.pendingSyncMembers.delete(memberId);
    }
    this.prepareRebalance(group, `removing [${late.join(', ')}] on pending sync request expiration`);
  }

  expireHeartbeat(group: ClassicGroup, memberId: string): void {
    if (!this.isCurrent(group) || group.is('Dead')) return;
    if (group.isPendingMember(memberId)) {
      group.remove(memberId);
      this.events.record('member.expired', { groupId: group.groupId, memberId, groupInstanceId: null, cause: 'pending-member-timeout' });
      if (group.is('PreparingRebalance') && group.hasAllMembersJoined()) this.completeJoin(group);
      return;
    }
    const member = group.member(memberId);
    if (!member || member.hasSatisfiedHeartbeat()) return;
    const cause = member.isNew && member.awaitingJoin ? 'new-member-join-timeout' : 'session-timeout';
    this.removeMember(group, member, 'member.expired', { cause });
    this.afterMemberRemoved(group, `removing member ${memberId} on heartbeat expiration (${cause})`);
  }

  /** After a member is gone: rebalance (Stable/CompletingRebalance) or maybe finish the join phase. */
  afterMemberRemoved(group: ClassicGroup, reason: string): void {
    if (group.is('Stable') || group.is('CompletingRebalance')) this.maybePrepareRebalanceOrCompleteJoin(group, reason);
    else if (group.is('PreparingRebalance') && group.hasAllMembersJoined()) this.completeJoin(group);
  }

  /** Remove a member: answer its parked requests (UNKNOWN_MEMBER_ID), cancel its timer, record why. */
  removeMember(group: ClassicGroup, member: ClassicGroupMember, eventType: string, data: Record<string, unknown>): void {
    group.completeJoin(member, joinError(ErrorCode.UNKNOWN_MEMBER_ID, ''));
    group.completeSync(member, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    group.remove(member.memberId);
    this.timers.cancel(hbKey(group.groupId, member.memberId));
    this.events.record(eventType, { groupId: group.groupId, memberId: member.memberId, groupInstanceId: member.groupInstanceId, ...data });
  }

  resetAndPropagateAssignmentWithError(group: ClassicGroup, errorCode: number): void {
    for (const m of group.members.values()) m.assignment = EMPTY_ASSIGNMENT;
    this.propagateAssignment(group, errorCode);
  }

  propagateAssignment(group: ClassicGroup, errorCode: number): void {
    const ok = errorCode === ErrorCode.NONE;
    for (const m of group.members.values()) {
      const answered = group.completeSync(m, {
        errorCode, protocolType: ok ? group.protocolType : null, protocolName: ok ? group.protocolName : null, assignment: m.assignment,
      });
      // A parked sync satisfied the heartbeat; the session restarts from its answer.
      if (answered) this.rescheduleHeartbeat(group, m, m.sessionTimeoutMs);
    }
  }

  removeSyncExpiration(group: ClassicGroup): void {
    group.pendingSyncMembers.clear();
    this.timers.cancel(syncKey(group.groupId));
  }

  removePendingSyncMember(group: ClassicGroup, memberId: string): void {
    group.pendingSyncMembers.delete(memberId);
    if (!(group.is('CompletingRebalance') || group.is('Stable')) || group.pendingSyncMembers.size === 0) {
      this.timers.cancel(syncKey(group.groupId));
    }
  }

  rescheduleHeartbeat(group: ClassicGroup, member: ClassicGroupMember, timeoutMs: number): void {
    const memberId = member.memberId;
    this.timers.schedule(hbKey(group.groupId, memberId), timeoutMs, () => this.expireHeartbeat(group, memberId));
  }


  isCurrent(group: ClassicGroup): boolean {
    return this.current(group);
  }

  /** Moves `group` to `to` (its state machine checks the table and guards) and puts the transition in the event log. */
  transition(group: ClassicGroup, to: GroupState, reason: string): void {
    const { from } = group.transitionTo(to, this.config.now(), reason);
    this.events.record('group.state', { groupId: group.groupId, from, to, reason, generationId: group.generationId });
  }
}
