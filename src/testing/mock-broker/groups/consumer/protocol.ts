/**
 * The KIP-848 consumer group coordinator of the mock cluster: ConsumerGroupHeartbeat, ConsumerGroupDescribe
 * and the member-epoch checks of OffsetCommit/OffsetFetch, after Apache Kafka 4.x's `GroupMetadataManager`
 * (consumer part: `consumerGroupHeartbeat`, `consumerGroupLeave`, session and rebalance timeouts),
 * `ConsumerGroup.validateOffsetCommit/validateOffsetFetch` and `CurrentAssignmentBuilder`.
 *
 * Facts kept (Kafka class or KIP):
 * - Request checks (`throwIfConsumerGroupHeartbeatRequestIsInvalid`): INVALID_REQUEST for an empty group id,
 *   an empty rack id, a missing member id (epoch > 0, leave, or any epoch from v1 where the client makes its
 *   id), a first heartbeat without rebalance timeout, subscription or with owned partitions, epoch < -2,
 *   -2 without instance id. UNSUPPORTED_ASSIGNOR for an unknown serverAssignor.
 * - Epoch 0 joins (creating the group); another epoch to an unknown group is GROUP_ID_NOT_FOUND, to an unknown
 *   member UNKNOWN_MEMBER_ID. A member epoch ahead of the coordinator's, or behind it other than the previous
 *   epoch with owned partitions inside the assignment (a lost response), is FENCED_MEMBER_EPOCH.
 * - Static members (instanceId): epoch -2 keeps the member and its partitions until its session times out; a
 *   new member id with that instance id takes them over (no rebalance). While the old one has not left it is
 *   UNRELEASED_INSTANCE_ID; an instance id bound to another member id is FENCED_INSTANCE_ID.
 * - Every subscription, membership or metadata change bumps the group epoch; the target assignment is
 *   recomputed at once by the assignor most members asked for (default uniform) and takes the group epoch.
 * - Reconciliation: a partition is revoked from its owner (which acks by heartbeating without it) before any
 *   member gets it; a member that does not revoke within its rebalance timeout is removed.
 * - The assignment is answered on a full heartbeat (epoch 0, or rebalance timeout, subscription and owned
 *   partitions all given) and whenever it changed.
 * - OffsetCommit needs v9+ from a KIP-848 member (UNSUPPORTED_VERSION) and its exact member epoch
 *   (STALE_MEMBER_EPOCH); epoch < 0 commits only into an empty group. OffsetFetch with a member id checks the
 *   same (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH).
 */
import { randomUUID } from 'node:crypto';
import type { EventLog } from '../../event-log';
import { ErrorCode } from '../../../../protocol/error-codes';
import { KeyedTimers } from '../timers';
import {
  Assignment, EMPTY, TopicMetadata, TopicSource, equals, fromWire, isEmpty, subtract, toWire,
} from './assignment';
import { DEFAULT_ASSIGNOR, SERVER_ASSIGNORS } from './assignors';
import { ConsumerGroup, ConsumerGroupState } from './group';
import { ConsumerGroupMember, reconcile } from './member';
import { describeMember, namedAssignment, viewConsumerGroup } from './views';
import type {
  ConsumerGroupConfig, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, ConsumerGroupView, DescribedConsumerGroup,
} from './types';

const LEAVE_EPOCH = -1;
const STATIC_LEAVE_EPOCH = -2;
/** ConsumerGroupHeartbeat v1+: the client generates its member id (KIP-1082). */
const CLIENT_MEMBER_ID_MIN_VERSION = 1;
/** OffsetCommit carries the member epoch from v9 (KIP-848). */
const MEMBER_EPOCH_COMMIT_MIN_VERSION = 9;

/** A heartbeat's failure: the error code and Kafka's message. */
class HeartbeatError extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

/** How the classic coordinator answers for a group id (the two kinds share one namespace). */
export interface ClassicGroupPeer {
  /** 'none' when no classic group has this id, 'empty' when one exists with no members, else 'active'. */
  classicGroupState(groupId: string): 'none' | 'empty' | 'active';
  /** Drops an empty classic group that becomes a consumer group (offsets are kept). */
  dropEmptyClassicGroup(groupId: string): void;
}

export interface HeartbeatContext {
  clientId: string;
  clientHost: string;
  apiVersion: number;
}

export class ConsumerGroupCoordinator {
  private readonly groupsById = new Map<string, ConsumerGroup>();
  private readonly timers = new KeyedTimers();
  private closed = false;

  constructor(
    readonly config: Readonly<ConsumerGroupConfig>,
    private readonly topics: TopicSource,
    private readonly classic: ClassicGroupPeer,
    private readonly events: EventLog,
  ) {}

  // ---------------------------------------------------------------- ConsumerGroupHeartbeat

  /** One ConsumerGroupHeartbeat. Never throws: every failure is an error code in the answer. */
  heartbeat(req: ConsumerGroupHeartbeatRequest, ctx: HeartbeatContext): ConsumerGroupHeartbeatResponse {
    try {
      if (this.closed) throw new HeartbeatError(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'The coordinator is not available.');
      this.validate(req, ctx.apiVersion);
      if (req.memberEpoch === LEAVE_EPOCH || req.memberEpoch === STATIC_LEAVE_EPOCH) return this.leave(req);
      return this.join(req, ctx);
    } catch (e) {
      if (!(e instanceof HeartbeatError)) throw e;
      if (e.errorCode === ErrorCode.FENCED_MEMBER_EPOCH || e.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
        this.events.record(
          'member.fenced',
          { groupId: req.groupId, groupType: 'consumer', memberId: req.memberId, errorCode: e.errorCode, receivedEpoch: req.memberEpoch },
        );
      }
      return { errorCode: e.errorCode, errorMessage: e.message, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
    }
  }

  private validate(req: ConsumerGroupHeartbeatRequest, apiVersion: number): void {
    const invalid = (msg: string) => new HeartbeatError(ErrorCode.INVALID_REQUEST, msg);
    if (!req.groupId) throw invalid("GroupId can't be empty.");
    if (req.rackId !== null && req.rackId === '') throw invalid("RackId can't be empty.");
    if (req.memberEpoch < STATIC_LEAVE_EPOCH) throw invalid(`MemberEpoch is invalid: ${req.memberEpoch}.`);
    if ((req.memberEpoch !== 0 || apiVersion >= CLIENT_MEMBER_ID_MIN_VERSION) && !req.memberId) throw invalid("MemberId can't be empty.");
    if (req.memberEpoch === 0) {
      if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
      if (req.topicPartitions === null || req.topicPartitions.length > 0) throw invalid('TopicPartitions must be empty when (re-)joining.');
      if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null) {
        throw invalid('SubscribedTopicNames or SubscribedTopicRegex must be set in first request.');
      }
    }
    if (req.memberEpoch === STATIC_LEAVE_EPOCH && req.instanceId === null) throw invalid("InstanceId can't be null.");
    if (req.serverAssignor !== null && !SERVER_ASSIGNORS.has(req.serverAssignor)) {
      throw new HeartbeatError(ErrorCode.UNSUPPORTED_ASSIGNOR,
        `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${[...SERVER_ASSIGNORS.keys()].join(', ')}.`);
    }
    if (req.subscribedTopicRegex) compileRegex(req.subscribedTopicRegex);
  }

  private join(req: ConsumerGroupHeartbeatRequest, ctx: HeartbeatContext): ConsumerGroupHeartbeatResponse {
    const group = this.groupFor(req.groupId, req.memberEpoch === 0);
    const before = group.state;
    const { member, isNew } = req.memberEpoch === 0 ? this.joiningMember(group, req, ctx) : {
      member: this.existingMember(group, req), isNew: false,
    };
    const reasons: string[] = [];
    if (isNew) reasons.push(`member ${member.memberId} joined`);
    if (this.updateSubscription(member, req) && !isNew) reasons.push(`member ${member.memberId} updated its subscription`);
    if (this.metadataChanged(group)) reasons.push('subscribed topic metadata changed');
    if (reasons.length > 0) this.bumpGroupEpoch(group, reasons.join('; '));
    if (group.groupEpoch > group.assignmentEpoch) this.computeTargetAssignment(group);
    const assignedBefore = member.assigned;
    this.reconcileMember(group, member, fromWire(req.topicPartitions), 'heartbeat');
    this.scheduleSession(group, member);
    this.updateState(group, before, `heartbeat of member ${member.memberId} (epoch ${req.memberEpoch})`);
    const subscribes = req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null;
    const full = req.memberEpoch === 0 || (req.rebalanceTimeoutMs !== -1 && subscribes && req.topicPartitions !== null);
    return {
      errorCode: ErrorCode.NONE, errorMessage: null, memberId: member.memberId, memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.config.heartbeatIntervalMs,
      assignment: full || !equals(assignedBefore, member.assigned) ? { topicPartitions: toWire(member.assigned) } : null,
    };
  }

  /** The group, created (or converted from an empty classic group) when a member joins. */
  private groupFor(groupId: string, create: boolean): ConsumerGroup {
    const existing = this.groupsById.get(groupId);
    if (existing) return existing;
    const classic = this.classic.classicGroupState(groupId);
    if (classic === 'active') {
      // Kafka 4 upgrades a classic group online (group.consumer.migration.policy); the mock does not (docs/mock-broker.md).
      throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    }
    if (!create) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    if (classic === 'empty') {
      this.classic.dropEmptyClassicGroup(groupId);
      this.events.record('group.converted', { groupId, groupType: 'consumer', from: 'classic' });
    }
    const group = new ConsumerGroup(groupId, this.config.now());
    this.groupsById.set(groupId, group);
    this.events.record('group.created', { groupId, groupType: 'consumer' });
    return group;
  }

  private joiningMember(
    group: ConsumerGroup, req: ConsumerGroupHeartbeatRequest, ctx: HeartbeatContext,
  ): { member: ConsumerGroupMember; isNew: boolean } {
    const memberId = req.memberId || randomUUID();
    if (req.instanceId !== null) {
      const old = group.staticMember(req.instanceId);
      if (old && old.memberId !== memberId) {
        if (old.memberEpoch !== STATIC_LEAVE_EPOCH) {
          throw new HeartbeatError(
            ErrorCode.UNRELEASED_INSTANCE_ID, `Static member ${old.memberId} with instance id ${req.instanceId} is not released yet.`,
          );
        }
        return { member: this.replaceStaticMember(group, old, memberId, ctx), isNew: false };
      }
    }
    const known = group.members.get(memberId);
    if (known) {
      // A member rejoining with epoch 0 (after a fencing) starts over: it owns nothing until reconciled.
      const owned = known.owned();
      known.assigned = EMPTY;
      known.pendingRevocation = EMPTY;
      known.memberEpoch = 0;
      known.transition('unknown');
      group.updateOwnership(known, owned);
      return { member: known, isNew: false };
    }
    if (group.members.size >= this.config.maxSize) {
      throw new HeartbeatError(
        ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${this.config.maxSize} members.`,
      );
    }
    const member = new ConsumerGroupMember(memberId, req.instanceId, ctx.clientId, ctx.clientHost);
    group.add(member);
    this.events.record('member.joined', {
      groupId: group.groupId, groupType: 'consumer', memberId, instanceId: req.instanceId,
      clientId: ctx.clientId, clientHost: ctx.clientHost,
      subscribedTopicNames: req.subscribedTopicNames, subscribedTopicRegex: req.subscribedTopicRegex, serverAssignor: req.serverAssignor,
    });
    return { member, isNew: true };
  }

  /** A static member back under a new member id takes over the old one's epoch and partitions. */
  private replaceStaticMember(
    group: ConsumerGroup, old: ConsumerGroupMember, memberId: string, ctx: HeartbeatContext,
  ): ConsumerGroupMember {
    const member = new ConsumerGroupMember(memberId, old.instanceId, ctx.clientId, ctx.clientHost);
    Object.assign(member, {
      memberEpoch: old.previousMemberEpoch >= 0 && old.memberEpoch < 0 ? old.previousMemberEpoch : old.memberEpoch,
      previousMemberEpoch: old.previousMemberEpoch, assigned: old.assigned, pendingRevocation: old.pendingRevocation,
      subscription: old.subscription, rackId: old.rackId, rebalanceTimeoutMs: old.rebalanceTimeoutMs,
    });
    const target = group.targetOf(old.memberId);
    old.transition('left');
    group.remove(old);
    this.cancelTimers(group, old);
    group.add(member);
    group.targetAssignment.set(memberId, target);
    group.updateOwnership(member, EMPTY);
    this.events.record(
      'member.replaced',
      { groupId: group.groupId, groupType: 'consumer', instanceId: old.instanceId, oldMemberId: old.memberId, newMemberId: memberId },
    );
    return member;
  }

  private existingMember(group: ConsumerGroup, req: ConsumerGroupHeartbeatRequest): ConsumerGroupMember {
    const member = group.members.get(req.memberId);
    if (!member) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${group.groupId}.`);
    if (req.instanceId !== null && group.staticMembers.get(req.instanceId) !== member.memberId) {
      throw new HeartbeatError(
        ErrorCode.FENCED_INSTANCE_ID, `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by another member.`,
      );
    }
    if (req.memberEpoch > member.memberEpoch) {
      throw new HeartbeatError(
        ErrorCode.FENCED_MEMBER_EPOCH,
        fencedMessage('greater', req.memberEpoch, member.memberEpoch),
      );
    }
    if (req.memberEpoch < member.memberEpoch) {
      const owned = fromWire(req.topicPartitions);
      const lostResponse = req.memberEpoch === member.previousMemberEpoch && owned !== null && isEmpty(subtract(owned, member.assigned));
      if (!lostResponse) {
        throw new HeartbeatError(
          ErrorCode.FENCED_MEMBER_EPOCH,
          fencedMessage('smaller', req.memberEpoch, member.memberEpoch),
        );
      }
    }
    return member;
  }

  /** Applies the non-null fields of a heartbeat; true when the subscription (or assignor) changed. */
  private updateSubscription(member: ConsumerGroupMember, req: ConsumerGroupHeartbeatRequest): boolean {
    if (req.rackId !== null) member.rackId = req.rackId;
    if (req.rebalanceTimeoutMs !== -1) member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    const before = member.subscription;
    // An empty regex is no regex (Kafka's member record uses "" for none; librdkafka sends it).
    const regex = req.subscribedTopicRegex === '' ? null : req.subscribedTopicRegex;
    const next = {
      subscribedTopicNames: req.subscribedTopicNames !== null ? [...req.subscribedTopicNames].sort() : before.subscribedTopicNames,
      subscribedTopicRegex: req.subscribedTopicNames !== null && regex === null ? null : regex ?? before.subscribedTopicRegex,
      serverAssignor: req.serverAssignor ?? before.serverAssignor,
    };
    member.subscription = next;
    return next.subscribedTopicNames.join('\0') !== before.subscribedTopicNames.join('\0')
      || next.subscribedTopicRegex !== before.subscribedTopicRegex || next.serverAssignor !== before.serverAssignor;
  }

  /** Topics a member subscribes to, by name and by regular expression (a full match, as RE2J's matches()). */
  private subscribedTopics(member: ConsumerGroupMember): TopicMetadata[] {
    const out = new Map<string, TopicMetadata>();
    for (const name of member.subscription.subscribedTopicNames) {
      const t = this.topics.byName(name);
      if (t) out.set(t.topicId, t);
    }
    if (member.subscription.subscribedTopicRegex !== null) {
      const re = compileRegex(member.subscription.subscribedTopicRegex);
      for (const t of this.topics.all()) if (!t.name.startsWith('__') && re.test(t.name)) out.set(t.topicId, t);
    }
    return [...out.values()];
  }

  private metadataChanged(group: ConsumerGroup): boolean {
    const seen = new Map<string, string>();
    for (const m of group.members.values()) for (const t of this.subscribedTopics(m)) seen.set(t.name, `${t.topicId}:${t.numPartitions}`);
    const fingerprint = [...seen].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, v]) => `${n}=${v}`).join(',');
    if (fingerprint === group.metadataFingerprint) return false;
    group.metadataFingerprint = fingerprint;
    return true;
  }

  private bumpGroupEpoch(group: ConsumerGroup, reason: string): void {
    group.groupEpoch++;
    this.events.record('group.epoch', { groupId: group.groupId, groupType: 'consumer', groupEpoch: group.groupEpoch, reason });
  }

  /** The most requested server assignor (Kafka's `computePreferredServerAssignor`), else uniform. */
  private preferredAssignor(group: ConsumerGroup): string {
    const counts = new Map<string, number>();
    for (const m of group.members.values()) {
      const a = m.subscription.serverAssignor;
      if (a !== null) counts.set(a, (counts.get(a) ?? 0) + 1);
    }
    let best = DEFAULT_ASSIGNOR;
    let bestCount = 0;
    for (const [name, n] of counts) if (n > bestCount || (n === bestCount && name < best)) [best, bestCount] = [name, n];
    return best;
  }

  private computeTargetAssignment(group: ConsumerGroup): void {
    group.assignorName = this.preferredAssignor(group);
    const assignor = SERVER_ASSIGNORS.get(group.assignorName)!;
    const topics = new Map<string, TopicMetadata>();
    const members = [...group.members.values()].map((m) => {
      const subscribed = this.subscribedTopics(m);
      for (const t of subscribed) topics.set(t.topicId, t);
      return {
        memberId: m.memberId, subscribedTopicIds: new Set(subscribed.map((t) => t.topicId)), previousTarget: group.targetOf(m.memberId),
      };
    });
    group.targetAssignment = assignor.assign(members, topics);
    group.assignmentEpoch = group.groupEpoch;
    const target: Record<string, Record<string, number[]>> = {};
    for (const [id, a] of group.targetAssignment) target[id] = namedAssignment(a, this.topics);
    this.events.record(
      'group.assignment',
      { groupId: group.groupId, groupType: 'consumer', assignmentEpoch: group.assignmentEpoch, assignor: group.assignorName, target },
    );
  }

  private reconcileMember(group: ConsumerGroup, member: ConsumerGroupMember, owned: Assignment | null, reason: string): void {
    const next = reconcile(member, group.assignmentEpoch, group.targetOf(member.memberId), owned, (t, p) => {
      const o = group.ownerOf(t, p);
      return o !== undefined && o !== member.memberId;
    });
    const from = member.state;
    const ownedBefore = member.owned();
    const changed = from !== next.state || member.memberEpoch !== next.memberEpoch
      || !equals(member.assigned, next.assigned) || !equals(member.pendingRevocation, next.pendingRevocation);
    member.transition(next.state);
    Object.assign(
      member,
      {
        memberEpoch: next.memberEpoch, previousMemberEpoch: next.previousMemberEpoch, assigned: next.assigned,
        pendingRevocation: next.pendingRevocation,
      },
    );
    group.updateOwnership(member, ownedBefore);
    if (next.state === 'unrevoked_partitions') this.scheduleRebalanceTimeout(group, member);
    else this.timers.cancel(this.key(group, member, 'rebalance'));
    if (!changed) return;
    this.events.record('member.reconciled', {
      groupId: group.groupId, groupType: 'consumer', memberId: member.memberId, from, to: next.state, memberEpoch: member.memberEpoch,
      assigned: namedAssignment(member.assigned, this.topics),
      pendingRevocation: namedAssignment(member.pendingRevocation, this.topics), reason,
    });
  }

  // ---------------------------------------------------------------- leave, timeouts

  private leave(req: ConsumerGroupHeartbeatRequest): ConsumerGroupHeartbeatResponse {
    const group = this.groupsById.get(req.groupId);
    if (!group) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} not found.`);
    const member = req.instanceId !== null ? group.staticMember(req.instanceId) : group.members.get(req.memberId);
    if (!member) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${group.groupId}.`);
    if (member.memberId !== req.memberId) {
      throw new HeartbeatError(
        ErrorCode.FENCED_INSTANCE_ID, `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by another member.`,
      );
    }
    const before = group.state;
    this.events.record(
      'member.left',
      {
        groupId: group.groupId, groupType: 'consumer', memberId: member.memberId, instanceId: member.instanceId,
        memberEpoch: req.memberEpoch,
      },
    );
    if (req.memberEpoch === STATIC_LEAVE_EPOCH) {
      // The static member keeps its partitions until it returns or its session times out.
      member.previousMemberEpoch = member.memberEpoch;
      member.memberEpoch = STATIC_LEAVE_EPOCH;
      member.transition('static_left');
      this.timers.cancel(this.key(group, member, 'rebalance'));
      this.scheduleSession(group, member);
    } else {
      this.removeMember(group, member, `member ${member.memberId} left the group`);
    }
    this.updateState(group, before, `member ${member.memberId} left (epoch ${req.memberEpoch})`);
    return {
      errorCode: ErrorCode.NONE, errorMessage: null, memberId: member.memberId, memberEpoch: req.memberEpoch, heartbeatIntervalMs: 0,
      assignment: null,
    };
  }

  private removeMember(group: ConsumerGroup, member: ConsumerGroupMember, reason: string): void {
    member.transition('left');
    group.remove(member);
    this.cancelTimers(group, member);
    this.bumpGroupEpoch(group, reason);
    if (group.members.size > 0) this.computeTargetAssignment(group);
    else group.assignmentEpoch = group.groupEpoch;
  }

  private expire(group: ConsumerGroup, member: ConsumerGroupMember, cause: 'session-timeout' | 'rebalance-timeout'): void {
    if (group.members.get(member.memberId) !== member) return;
    const before = group.state;
    this.events.record(
      'member.expired', { groupId: group.groupId, groupType: 'consumer', memberId: member.memberId, instanceId: member.instanceId, cause },
    );
    this.removeMember(group, member, `member ${member.memberId} removed: ${cause}`);
    this.updateState(group, before, `member ${member.memberId} expired (${cause})`);
  }

  private key(group: ConsumerGroup, member: ConsumerGroupMember, kind: 'session' | 'rebalance'): string {
    return `${group.groupId}\0${member.memberId}\0${kind}`;
  }

  private scheduleSession(group: ConsumerGroup, member: ConsumerGroupMember): void {
    this.timers.schedule(
      this.key(group, member, 'session'), this.config.sessionTimeoutMs, () => this.expire(group, member, 'session-timeout'),
    );
  }

  private scheduleRebalanceTimeout(group: ConsumerGroup, member: ConsumerGroupMember): void {
    const k = this.key(group, member, 'rebalance');
    if (this.timers.has(k)) return;
    const epoch = member.memberEpoch;
    this.timers.schedule(k, Math.max(0, member.rebalanceTimeoutMs), () => {
      if (member.state === 'unrevoked_partitions' && member.memberEpoch === epoch) this.expire(group, member, 'rebalance-timeout');
    });
  }

  private cancelTimers(group: ConsumerGroup, member: ConsumerGroupMember): void {
    this.timers.cancel(this.key(group, member, 'session'));
    this.timers.cancel(this.key(group, member, 'rebalance'));
  }

  private updateState(group: ConsumerGroup, before: ConsumerGroupState, reason: string): void {
    const to = group.derivedState();
    if (to === group.state) return;
    const from = before;
    group.transition(to);
    this.events.record(
      'group.state',
      {
        groupId: group.groupId, groupType: 'consumer', from, to, reason, groupEpoch: group.groupEpoch,
        assignmentEpoch: group.assignmentEpoch,
      },
    );
  }

  // ---------------------------------------------------------------- offsets, admin, inspection

  /** True when `groupId` is a consumer (KIP-848) group. */
  has(groupId: string): boolean {
    return this.groupsById.has(groupId);
  }

  /** Error code of an OffsetCommit into a consumer group (`ConsumerGroup.validateOffsetCommit`); NONE when allowed. */
  validateOffsetCommit(groupId: string, memberId: string, memberEpoch: number, apiVersion: number, transactional = false): number {
    const group = this.groupsById.get(groupId)!;
    if (memberEpoch < 0 && group.members.size === 0) return ErrorCode.NONE;
    if (transactional && memberEpoch < 0 && memberId === '') return ErrorCode.NONE;
    const member = group.members.get(memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (!transactional && apiVersion < MEMBER_EPOCH_COMMIT_MIN_VERSION) return ErrorCode.UNSUPPORTED_VERSION;
    if (memberEpoch !== member.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    this.scheduleSession(group, member);
    return ErrorCode.NONE;
  }

  /** Error code of an OffsetFetch of a consumer group (`ConsumerGroup.validateOffsetFetch`); NONE when allowed. */
  validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): number {
    const group = this.groupsById.get(groupId)!;
    if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
    const member = group.members.get(memberId ?? '');
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberEpoch !== member.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  /** True when the consumer group `groupId` exists and has no members. */
  isEmpty(groupId: string): boolean {
    return this.groupsById.get(groupId)?.members.size === 0;
  }

  /** Deletes an empty consumer group (DeleteGroups, or a classic member taking the id); false if not possible. */
  deleteEmpty(groupId: string, why: 'deleted' | 'converted'): boolean {
    const group = this.groupsById.get(groupId);
    if (!group || group.members.size > 0) return false;
    group.transition('Dead');
    this.groupsById.delete(groupId);
    this.events.record(
      'group.state',
      {
        groupId, groupType: 'consumer', from: 'Empty', to: 'Dead', reason: why, groupEpoch: group.groupEpoch,
        assignmentEpoch: group.assignmentEpoch,
      },
    );
    if (why === 'converted') this.events.record('group.converted', { groupId, groupType: 'classic', from: 'consumer' });
    return true;
  }

  /** ConsumerGroupDescribe: GROUP_ID_NOT_FOUND for an unknown or classic group. */
  describe(groupIds: string[]): DescribedConsumerGroup[] {
    return groupIds.map((groupId) => {
      const none = { groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] };
      if (this.closed) return { ...none, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null };
      if (!groupId) return { ...none, errorCode: ErrorCode.INVALID_GROUP_ID, errorMessage: 'Group id must not be empty.' };
      const group = this.groupsById.get(groupId);
      if (!group) {
        const message = this.classic.classicGroupState(groupId) === 'none'
          ? `Group ${groupId} not found.`
          : `Group ${groupId} is not a consumer group.`;
        return { ...none, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: message };
      }
      return {
        errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: group.state, groupEpoch: group.groupEpoch,
        assignmentEpoch: group.assignmentEpoch, assignorName: group.assignorName,
        members: [...group.members.values()].map((m) => describeMember(m, group.targetOf(m.memberId), this.topics)),
      };
    });
  }

  /** Every consumer group (for ListGroups, DescribeGroups and inspect). */
  all(): ConsumerGroup[] {
    return [...this.groupsById.values()];
  }

  get(groupId: string): ConsumerGroup | undefined {
    return this.groupsById.get(groupId);
  }

  view(groupId: string): ConsumerGroupView | undefined {
    const g = this.groupsById.get(groupId);
    return g ? viewConsumerGroup(g, this.topics) : undefined;
  }

  /** The target assignment of a member, for the classic DescribeGroups view. */
  topicSource(): TopicSource {
    return this.topics;
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  /** The coordinator moved (fault injection): state kept, every session timer restarts as after a load. */
  moveAway(): void {
    for (const g of this.groupsById.values()) for (const m of g.members.values()) this.scheduleSession(g, m);
  }

  close(): void {
    this.closed = true;
    this.timers.cancelAll();
  }
}

/** Kafka's FENCED_MEMBER_EPOCH message. */
function fencedMessage(which: 'greater' | 'smaller', received: number, known: number): string {
  return `The consumer group member has a ${which} member epoch (${received}) than the one known by the group coordinator (${known}). `
    + 'The member must abandon all its partitions and rejoin.';
}

/** Compiles a subscription regex as a full match; INVALID_REGULAR_EXPRESSION when it does not compile. */
function compileRegex(source: string): RegExp {
  try {
    return new RegExp(`^(?:${source})$`);
  } catch (e) {
    throw new HeartbeatError(
      ErrorCode.INVALID_REGULAR_EXPRESSION,
      `SubscribedTopicRegex \`${source}\` is not a valid regular expression: ${(e as Error).message}.`,
    );
  }
}

