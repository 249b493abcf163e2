/**
 * The classic group protocol of the mock cluster: JoinGroup, SyncGroup, Heartbeat and LeaveGroup, as Apache
 * Kafka's `GroupMetadataManager` (classic part, group-coordinator module, 3.7+) implements them, with the request
 * checks of `GroupCoordinatorService`/`KafkaApis` that concern groups. Older Kafka had the same logic in core's
 * `GroupCoordinator.scala`. Its groups live in the one {@link GroupRegistry}; the coordinator (../coordinator.ts)
 * hands it the group a JoinGroup may use (converting an empty consumer group, refusing a live one).
 *
 * JoinGroup and SyncGroup return promises that stay pending while the request is parked (a rebalance), exactly
 * as Kafka parks the response future. Everything else answers synchronously.
 *
 * Protocol facts followed here (with the Kafka KIP or class):
 * - KIP-394: JoinGroup v4+ with an empty member id gets MEMBER_ID_REQUIRED and a pending member id,
 *   which expires after the session timeout if the member never comes back.
 * - Join phase: ends when every member has rejoined and no member id is pending (`hasAllMembersJoined`),
 *   or at the largest member rebalance timeout; dynamic members that did not rejoin are removed, static
 *   ones are kept (`completeClassicGroupJoin`). The first rebalance of an Empty group is delayed by
 *   group.initial.rebalance.delay.ms, extended while new members keep arriving, within the rebalance
 *   timeout (`InitialDelayedJoin`, KIP-134).
 * - Sync phase: members that do not SyncGroup within the rebalance timeout are removed and a new
 *   rebalance starts (KIP-496 era `expirePendingSync`).
 * - Liveness: heartbeats, commits (Stable/PreparingRebalance) and completed rebalances reset the session
 *   timer; members parked in JoinGroup or SyncGroup are alive, except new members, which are dropped
 *   after `newMemberJoinTimeoutMs` (`hasSatisfiedHeartbeat`).
 * - KIP-345 static membership: a known instance id joining with an empty member id replaces the old
 *   member id; in Stable with an unchanged selected protocol there is no rebalance
 *   (`updateStaticMemberThenRebalanceOrCompleteJoin`). The old id is fenced (FENCED_INSTANCE_ID).
 *
 * Every state change and membership change goes to the {@link EventLog} (event types: ../types.ts).
 */
import { randomUUID } from 'node:crypto';
import type { EventLog } from '../../event-log';
import { ErrorCode } from '../../../../protocol/error-codes';
import { ClassicGroup, ClassicGroupMember, EMPTY_ASSIGNMENT, joinError, syncError } from './group';
import type { KeyedTimers } from '../timers';
import { Rebalancer, hbKey } from './rebalance';
import type {
  GroupCoordinatorConfig, HeartbeatRequest, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest, LeaveGroupResponse,
  RequestContext, SyncGroupRequest, SyncGroupResponse,
} from '../types';

/** JoinGroup v9+ lets a replaced static leader skip the assignment (KIP-814). */
const SKIP_ASSIGNMENT_MIN_VERSION = 9;
/** JoinGroup v4+ requires a known member id (KIP-394). */
const MEMBER_ID_REQUIRED_MIN_VERSION = 4;

/** What the classic protocol needs from the coordinator that owns the registry. */
export interface ClassicGroupHost {
  /** False once the coordinator is closed: every request answers COORDINATOR_NOT_AVAILABLE. */
  readonly active: boolean;
  /**
   * The classic group a JoinGroup of `groupId` uses: the existing one, or (when `create`) a new one, converting
   * an empty consumer group; 'consumer' when a live consumer group holds the id; undefined when none exists.
   */
  classicGroupForJoin(groupId: string, create: boolean): ClassicGroup | 'consumer' | undefined;
  /** The classic group `groupId`, if there is one. */
  classicGroup(groupId: string): ClassicGroup | undefined;
}

/** JoinGroup, SyncGroup, Heartbeat and LeaveGroup of classic groups (see the module comment). */
export class ClassicGroupProtocol {
  constructor(
    private readonly config: Readonly<Pick<Required<GroupCoordinatorConfig>, 'minSessionTimeoutMs' | 'maxSessionTimeoutMs'
      | 'maxGroupSize' | 'newMemberJoinTimeoutMs'>>,
    private readonly host: ClassicGroupHost,
    private readonly rb: Rebalancer,
    private readonly timers: KeyedTimers,
    private readonly events: EventLog,
  ) {}

  // ---------------------------------------------------------------- JoinGroup

  joinGroup(req: JoinGroupRequest, ctx: RequestContext): Promise<JoinGroupResponse> {
    if (!this.host.active) return Promise.resolve(joinError(ErrorCode.COORDINATOR_NOT_AVAILABLE, req.memberId));
    if (!req.groupId) return Promise.resolve(joinError(ErrorCode.INVALID_GROUP_ID, req.memberId));
    if (req.sessionTimeoutMs < this.config.minSessionTimeoutMs || req.sessionTimeoutMs > this.config.maxSessionTimeoutMs) {
      return Promise.resolve(joinError(ErrorCode.INVALID_SESSION_TIMEOUT, req.memberId));
    }
    const normalized: NormalizedJoin = {
      ...req,
      groupInstanceId: req.groupInstanceId ?? null,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs === undefined || req.rebalanceTimeoutMs < 0
        ? req.sessionTimeoutMs
        : req.rebalanceTimeoutMs,
      reason: req.reason ?? null,
    };
    return new Promise((resolve) => this.join(normalized, ctx, resolve));
  }

  private join(req: NormalizedJoin, ctx: RequestContext, resolve: (r: JoinGroupResponse) => void): void {
    const isUnknownMember = req.memberId === '';
    // Only a member without an id may create a group (GroupIdNotFound is reported as UNKNOWN_MEMBER_ID).
    const group = this.host.classicGroupForJoin(req.groupId, isUnknownMember);
    // Kafka 4 lets classic members into a consumer group (mixed groups); the mock answers as Kafka 3.7-3.9 did.
    if (group === 'consumer') return resolve(joinError(ErrorCode.GROUP_ID_NOT_FOUND, req.memberId));
    if (!group) return resolve(joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));
    if (!this.acceptJoiningMember(group, req.memberId)) {
      const member = group.member(req.memberId);
      if (member) this.rb.removeMember(group, member, 'member.expired', { cause: 'group-max-size' });
      else group.remove(req.memberId);
      return resolve(joinError(ErrorCode.GROUP_MAX_SIZE_REACHED, ''));
    }
    if (isUnknownMember) this.joinNewMember(group, req, ctx, resolve);
    else this.joinExistingMember(group, req, ctx, resolve);
  }

  /** Kafka's `acceptJoiningMember`: group.max.size counts parked joins while preparing, members otherwise. */
  private acceptJoiningMember(group: ClassicGroup, memberId: string): boolean {
    switch (group.state) {
      case 'Empty':
      case 'Dead':
        return true;
      case 'PreparingRebalance':
        return (group.member(memberId)?.awaitingJoin ?? null) !== null || group.numAwaitingJoinResponse < this.config.maxGroupSize;
      case 'CompletingRebalance':
      case 'Stable':
        return group.hasMember(memberId) || group.numMembers < this.config.maxGroupSize;
    }
  }

  private joinNewMember(group: ClassicGroup, req: NormalizedJoin, ctx: RequestContext, resolve: (r: JoinGroupResponse) => void): void {
    if (group.is('Dead')) return resolve(joinError(ErrorCode.COORDINATOR_NOT_AVAILABLE, ''));
    if (!group.supportsProtocols(req.protocolType, req.protocols.map((p) => p.name))) {
      return resolve(joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ''));
    }
    const newMemberId = `${req.groupInstanceId ?? ctx.clientId}-${randomUUID()}`;
    if (req.groupInstanceId !== null) {
      const existingMemberId = group.staticMemberId(req.groupInstanceId);
      if (existingMemberId !== undefined) return this.replaceStaticMember(group, req, ctx, existingMemberId, newMemberId, resolve);
      return this.addMemberThenRebalanceOrCompleteJoin(group, req, ctx, newMemberId, resolve);
    }
    if (ctx.apiVersion >= MEMBER_ID_REQUIRED_MIN_VERSION) {
      group.pendingJoinMembers.add(newMemberId);
      this.timers.schedule(hbKey(group.groupId, newMemberId), req.sessionTimeoutMs, () => this.rb.expireHeartbeat(group, newMemberId));
      this.events.record('member.pending', {
        groupId: group.groupId, memberId: newMemberId, clientId: ctx.clientId, clientHost: ctx.clientHost,
      });
      return resolve(joinError(ErrorCode.MEMBER_ID_REQUIRED, newMemberId));
    }
    this.addMemberThenRebalanceOrCompleteJoin(group, req, ctx, newMemberId, resolve);
  }

  private joinExistingMember(group: ClassicGroup, req: NormalizedJoin, ctx: RequestContext, resolve: (r: JoinGroupResponse) => void): void {
    const { memberId } = req;
    if (group.is('Dead')) return resolve(joinError(ErrorCode.COORDINATOR_NOT_AVAILABLE, memberId));
    if (!group.supportsProtocols(req.protocolType, req.protocols.map((p) => p.name))) {
      return resolve(joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId));
    }
    if (group.isPendingMember(memberId)) {
      // Pending ids are only handed to dynamic members; Kafka treats an instance id here as a broken client.
      if (req.groupInstanceId !== null) return resolve(joinError(ErrorCode.UNKNOWN_SERVER_ERROR, memberId));
      return this.addMemberThenRebalanceOrCompleteJoin(group, req, ctx, memberId, resolve);
    }
    const error = group.validateMember(memberId, req.groupInstanceId);
    if (error !== ErrorCode.NONE) return resolve(joinError(error, memberId));
    const member = group.member(memberId)!;
    const why = `; client reason: ${req.reason ?? 'not provided'}`;
    switch (group.state) {
      case 'PreparingRebalance':
        return this.updateMemberThenRebalanceOrCompleteJoin(
          group, member, req, resolve, `member ${memberId} is joining group during PreparingRebalance${why}`,
        );
      case 'CompletingRebalance':
        if (member.matches(req.protocols)) return resolve(this.rb.currentGenerationResponse(group, memberId, group.isLeader(memberId)));
        return this.updateMemberThenRebalanceOrCompleteJoin(
          group, member, req, resolve, `updating metadata for member ${memberId} during CompletingRebalance${why}`,
        );
      case 'Stable':
        if (group.isLeader(memberId)) {
          return this.updateMemberThenRebalanceOrCompleteJoin(
            group, member, req, resolve, `leader ${memberId} re-joining group during Stable${why}`,
          );
        }
        if (!member.matches(req.protocols)) {
          return this.updateMemberThenRebalanceOrCompleteJoin(
            group, member, req, resolve, `updating metadata for member ${memberId} during Stable${why}`,
          );
        }
        return resolve(this.rb.currentGenerationResponse(group, memberId, false));
      default:
        // Empty (cannot hold a member) or Dead (handled above): let the client reset and rejoin.
        return resolve(joinError(ErrorCode.UNKNOWN_MEMBER_ID, memberId));
    }
  }


  private addMemberThenRebalanceOrCompleteJoin(
    group: ClassicGroup, req: NormalizedJoin, ctx: RequestContext, memberId: string, resolve: (r: JoinGroupResponse) => void,
  ): void {
    const member = new ClassicGroupMember(
      memberId, req.groupInstanceId, ctx.clientId, ctx.clientHost,
      req.rebalanceTimeoutMs, req.sessionTimeoutMs, req.protocolType, req.protocols,
    );
    member.isNew = true;
    if (group.is('PreparingRebalance') && group.previousState === 'Empty') group.newMemberAdded = true;
    group.add(member, resolve);
    // A new member cannot heartbeat while parked: its join is bounded by the new-member join timeout instead.
    this.rb.rescheduleHeartbeat(group, member, this.config.newMemberJoinTimeoutMs);
    this.events.record('member.joined', {
      groupId: group.groupId, memberId, groupInstanceId: req.groupInstanceId, clientId: ctx.clientId, clientHost: ctx.clientHost,
      protocols: req.protocols.map((p) => p.name), sessionTimeoutMs: req.sessionTimeoutMs, rebalanceTimeoutMs: req.rebalanceTimeoutMs,
    });
    this.rb.maybePrepareRebalanceOrCompleteJoin(
      group, `adding new member ${memberId} with group instance id ${req.groupInstanceId}; client reason: ${req.reason ?? 'not provided'}`,
    );
  }

  private updateMemberThenRebalanceOrCompleteJoin(
    group: ClassicGroup, member: ClassicGroupMember, req: NormalizedJoin, resolve: (r: JoinGroupResponse) => void, reason: string,
  ): void {
    const metadataChanged = !member.matches(req.protocols);
    const superseded = group.updateMember(member, req.protocols, req.rebalanceTimeoutMs, req.sessionTimeoutMs, resolve);
    // Kafka overwrites a parked future; we answer it so no promise is left dangling.
    superseded?.(joinError(ErrorCode.REBALANCE_IN_PROGRESS, member.memberId));
    this.events.record('member.rejoined', {
      groupId: group.groupId, memberId: member.memberId, groupInstanceId: member.groupInstanceId, metadataChanged,
    });
    this.rb.maybePrepareRebalanceOrCompleteJoin(group, reason);
  }

  /** KIP-345: a known static member restarted (empty member id). Kafka's `updateStaticMemberThenRebalanceOrCompleteJoin`. */
  private replaceStaticMember(
    group: ClassicGroup, req: NormalizedJoin, ctx: RequestContext, oldMemberId: string, newMemberId: string,
    resolve: (r: JoinGroupResponse) => void,
  ): void {
    const instanceId = req.groupInstanceId!;
    const leaderBefore = group.leaderId ?? '';
    const member = group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
    this.timers.cancel(hbKey(group.groupId, oldMemberId));
    this.rb.rescheduleHeartbeat(group, member, member.sessionTimeoutMs);
    group.updateMember(member, req.protocols, req.rebalanceTimeoutMs, req.sessionTimeoutMs, resolve);
    const reason = `; client reason: ${req.reason ?? 'not provided'}`;
    if (group.is('Stable')) {
      const rebalance = group.protocolName !== group.selectProtocol();
      this.events.record('member.replaced', { groupId: group.groupId, groupInstanceId: instanceId, oldMemberId, newMemberId, rebalance });
      if (!rebalance) {
        // No rebalance: the member keeps its assignment. Before v9 a replaced leader is told the old
        // leader id so that it does not run an assignment it cannot deliver.
        const isLeader = group.isLeader(newMemberId);
        const response = ctx.apiVersion >= SKIP_ASSIGNMENT_MIN_VERSION
          ? this.rb.currentGenerationResponse(group, newMemberId, isLeader, group.leaderId ?? '', isLeader)
          : this.rb.currentGenerationResponse(group, newMemberId, false, leaderBefore);
        group.completeJoin(member, response);
        return;
      }
      return this.rb.maybePrepareRebalanceOrCompleteJoin(
        group,
        `group's selected protocol will change because static member ${newMemberId} with instance id ${instanceId}`
          + ` joined with change of protocol${reason}`,
      );
    }
    this.events.record('member.replaced', {
      groupId: group.groupId, groupInstanceId: instanceId, oldMemberId, newMemberId, rebalance: group.is('CompletingRebalance'),
    });
    if (group.is('CompletingRebalance')) {
      // The leader may already be assigning to the old id: rebalance so the new id gets an assignment.
      return this.rb.prepareRebalance(group, `updating metadata for static member ${newMemberId} with instance id ${instanceId}${reason}`);
    }
    this.rb.maybeCompleteJoinPhase(group);
  }

  // ---------------------------------------------------------------- SyncGroup

  syncGroup(req: SyncGroupRequest, _ctx: RequestContext): Promise<SyncGroupResponse> {
    if (!this.host.active) return Promise.resolve(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!req.groupId) return Promise.resolve(syncError(ErrorCode.INVALID_GROUP_ID));
    const group = this.host.classicGroup(req.groupId);
    if (!group || group.is('Empty')) return Promise.resolve(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    const error = this.validateSync(group, req);
    if (error !== ErrorCode.NONE) return Promise.resolve(syncError(error));
    const member = group.member(req.memberId)!;
    if (group.is('PreparingRebalance')) return Promise.resolve(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
    if (group.is('Stable')) {
      this.rb.removePendingSyncMember(group, req.memberId);
      return Promise.resolve({
        errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment,
      });
    }
    // CompletingRebalance: park until the leader's assignment arrives.
    return new Promise((resolve) => {
      const superseded = member.awaitingSync;
      member.awaitingSync = resolve;
      superseded?.(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      this.rb.removePendingSyncMember(group, req.memberId);
      if (group.isLeader(req.memberId)) this.completeSyncWithLeaderAssignment(group, req);
    });
  }

  private validateSync(group: ClassicGroup, req: SyncGroupRequest): number {
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const error = group.validateMember(req.memberId, req.groupInstanceId);
    if (error !== ErrorCode.NONE) return error;
    if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    const inconsistent = (asked: string | null | undefined, actual: string | null) => asked != null && actual !== null && asked !== actual;
    if (inconsistent(req.protocolType, group.protocolType) || inconsistent(req.protocolName, group.protocolName)) {
      return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    }
    return ErrorCode.NONE;
  }

  private completeSyncWithLeaderAssignment(group: ClassicGroup, req: SyncGroupRequest): void {
    const given = new Map(req.assignments.map((a) => [a.memberId, a.assignment]));
    for (const m of group.members.values()) {
      m.assignment = given.get(m.memberId) ?? EMPTY_ASSIGNMENT;
      this.events.record('member.assignment', {
        groupId: group.groupId, generationId: group.generationId, memberId: m.memberId,
        groupInstanceId: m.groupInstanceId, assignment: m.assignment,
      });
    }
    this.rb.propagateAssignment(group, ErrorCode.NONE);
    this.rb.transition(group, 'Stable', `assignment received from leader ${req.memberId} for generation ${group.generationId}`);
  }

  // ---------------------------------------------------------------- Heartbeat, LeaveGroup

  heartbeat(req: HeartbeatRequest, _ctx: RequestContext): { errorCode: number } {
    if (!this.host.active) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    if (!req.groupId) return { errorCode: ErrorCode.INVALID_GROUP_ID };
    const group = this.host.classicGroup(req.groupId);
    if (!group) return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    if (group.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    const error = group.validateMember(req.memberId, req.groupInstanceId);
    if (error !== ErrorCode.NONE) return { errorCode: error };
    if (req.generationId !== group.generationId) return { errorCode: ErrorCode.ILLEGAL_GENERATION };
    if (group.is('Empty')) return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    const member = group.member(req.memberId)!;
    this.rb.rescheduleHeartbeat(group, member, member.sessionTimeoutMs);
    // Newer Kafka answers NONE in CompletingRebalance: the member got its JoinGroup response already.
    return { errorCode: group.is('PreparingRebalance') ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE };
  }

  leaveGroup(req: LeaveGroupRequest, _ctx: RequestContext): LeaveGroupResponse {
    if (!this.host.active) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    if (!req.groupId) return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const group = this.host.classicGroup(req.groupId);
    const answer = (m: { memberId: string; groupInstanceId?: string | null }, errorCode: number) => ({
      memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? null, errorCode,
    });
    if (!group) return { errorCode: ErrorCode.NONE, members: req.members.map((m) => answer(m, ErrorCode.UNKNOWN_MEMBER_ID)) };
    if (group.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const results: LeaveGroupResponse['members'] = [];
    const left: string[] = [];
    for (const m of req.members) {
      const reason = m.reason ?? 'not provided';
      let target: ClassicGroupMember | undefined;
      if (m.memberId === '') {
        // Administrative removal by instance id (KIP-345).
        const id = m.groupInstanceId != null ? group.staticMemberId(m.groupInstanceId) : undefined;
        target = id === undefined ? undefined : group.member(id);
        if (!target) {
          results.push(answer(m, ErrorCode.UNKNOWN_MEMBER_ID));
          continue;
        }
      } else if (group.isPendingMember(m.memberId)) {
        group.remove(m.memberId);
        this.timers.cancel(hbKey(group.groupId, m.memberId));
        this.events.record('member.left', { groupId: group.groupId, memberId: m.memberId, groupInstanceId: null, reason, pending: true });
        results.push(answer(m, ErrorCode.NONE));
        left.push(m.memberId);
        continue;
      } else {
        const error = group.validateMember(m.memberId, m.groupInstanceId);
        if (error !== ErrorCode.NONE) {
          results.push(answer(m, error));
          continue;
        }
        target = group.member(m.memberId)!;
      }
      this.rb.removeMember(group, target, 'member.left', { reason });
      results.push(answer(m, ErrorCode.NONE));
      left.push(target.memberId);
    }
    if (left.length > 0) {
      const reason = `explicit LeaveGroup request for (${left.join(', ')}) members`;
      if (group.is('Stable') || group.is('CompletingRebalance')) this.rb.maybePrepareRebalanceOrCompleteJoin(group, reason);
      else if (group.is('PreparingRebalance')) this.rb.maybeCompleteJoinPhase(group);
    }
    return { errorCode: ErrorCode.NONE, members: results };
  }

}

interface NormalizedJoin extends JoinGroupRequest {
  groupInstanceId: string | null;
  rebalanceTimeoutMs: number;
  reason: string | null;
}
