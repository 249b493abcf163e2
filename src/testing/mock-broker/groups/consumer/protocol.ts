/**
 * The KIP-848 consumer group protocol of the mock cluster: ConsumerGroupHeartbeat (joins, epochs,
 * reconciliation, leaves, session and rebalance timeouts) and the member-epoch checks of OffsetCommit/OffsetFetch,
 * after Apache Kafka 4.x's `GroupMetadataManager` (consumer part: `consumerGroupHeartbeat`, `consumerGroupLeave`),
 * `ConsumerGroup.validateOffsetCommit/validateOffsetFetch` and `CurrentAssignmentBuilder`. Its groups live in the
 * one {@link GroupRegistry}; the coordinator hands it the group for a heartbeat (converting an empty classic group,
 * refusing a live one).
 *
 * Facts kept (Kafka class or KIP):
 * - Request checks (`throwIfConsumerGroupHeartbeatRequestIsInvalid`): INVALID_REQUEST for an empty group id,
 *   an empty rack id, a missing member id (epoch > 0, leave, or any epoch from v1 where the client makes its
 *   id), a first heartbeat without rebalance timeout, subscription or with owned partitions, epoch < -2,
 *   -2 without instance id. UNSUPPORTED_ASSIGNOR for an unknown serverAssignor; INVALID_REGULAR_EXPRESSION for a
 *   regex RE2J cannot run (subscriptions.ts). Strings longer than 32767 bytes never get here: like Kafka's
 *   generated readers, the decoder refuses them and the connection closes.
 * - Epoch 0 joins (creating the group); another epoch to an unknown group is GROUP_ID_NOT_FOUND, to an unknown
 *   member UNKNOWN_MEMBER_ID. A member epoch ahead of the coordinator's, or behind it other than the previous
 *   epoch with owned partitions inside the assignment (a lost response), is FENCED_MEMBER_EPOCH.
 * - Static members (instanceId): epoch -2 keeps the member and its partitions until its session times out; a
 *   new member id with that instance id takes them over (no rebalance). While the old one has not left it is
 *   UNRELEASED_INSTANCE_ID; an instance id bound to another member id is FENCED_INSTANCE_ID.
 * - Every subscription, membership or metadata change bumps the group epoch; the target assignment is
 *   recomputed at once by the assignor most members asked for (default uniform) and takes the group epoch.
 *   Subscribed topics are re-read only when a subscription or the cluster's topics changed.
 * - Reconciliation: a partition is revoked from its owner (which acks by heartbeating without it) before any
 *   member gets it; a member that does not revoke within its rebalance timeout is removed (a negative rebalance
 *   timeout, which Kafka accepts, expires at once, as Kafka's timer does).
 * - The assignment is answered on a full heartbeat (epoch 0, or rebalance timeout, subscription and owned
 *   partitions all given) and whenever it changed.
 * - OffsetCommit needs v9+ from a KIP-848 member (UNSUPPORTED_VERSION) and its exact member epoch
 *   (STALE_MEMBER_EPOCH); epoch < 0 commits only into an empty group. OffsetFetch with a member id checks the
 *   same (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH).
 */
import { randomUUID } from 'node:crypto';
import type { EventLog } from '../../event-log';
import { ErrorCode } from '../../../../protocol/error-codes';
import { KafkaProtocolError } from '../../../../protocol/kafka-errors';
import type { KeyedTimers } from '../timers';
import { Assignment, EMPTY, TopicMetadata, TopicSource, equals, fromWire, isEmpty, subtract, toWire } from './assignment';
import { DEFAULT_ASSIGNOR, SERVER_ASSIGNORS } from './assignors';
import { ConsumerGroup } from './group';
import { ConsumerGroupMember, STATIC_LEAVE_EPOCH, reconcile } from './member';
import { SubscriptionResolver } from './subscriptions';
import { namedAssignment } from './views';
import type { ConsumerGroupConfig, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from './types';

const LEAVE_EPOCH = -1;
/** ConsumerGroupHeartbeat v1+: the client generates its member id (KIP-1082). */
const CLIENT_MEMBER_ID_MIN_VERSION = 1;
/** OffsetCommit carries the member epoch from v9 (KIP-848). */
const MEMBER_EPOCH_COMMIT_MIN_VERSION = 9;

export interface HeartbeatContext {
  clientId: string;
  clientHost: string;
  apiVersion: number;
}

/** What the protocol needs from the coordinator that owns the registry. */
export interface ConsumerGroupHost {
  /**
   * The consumer group `groupId` for a heartbeat: the existing one, or (when `create`) a new one, converting an
   * empty classic group. Throws KafkaProtocolError GROUP_ID_NOT_FOUND for a live classic group, or when not `create`.
   */
  consumerGroupFor(groupId: string, create: boolean): ConsumerGroup;
  /** The consumer group `groupId`, if there is one. */
  consumerGroup(groupId: string): ConsumerGroup | undefined;
  /** Whether `group` is still registered (timers of a deleted group do nothing). */
  isCurrent(group: ConsumerGroup): boolean;
}

/** The same Kafka error as a heartbeat answer. */
const refuse = (name: ConstructorParameters<typeof KafkaProtocolError>[0], message: string) => new KafkaProtocolError(name, message);

/** ConsumerGroupHeartbeat and the member-epoch checks of a KIP-848 group's offsets (see the module comment). */
export class ConsumerGroupProtocol {
  private readonly subscriptions: SubscriptionResolver;
  /** The topics each group's members subscribed to as last resolved: name → `id:partitions`, at a topics version. */
  private readonly seen = new WeakMap<ConsumerGroup, { version: number; fingerprint: string }>();

  constructor(
    readonly config: Readonly<ConsumerGroupConfig>,
    readonly topics: TopicSource,
    private readonly host: ConsumerGroupHost,
    private readonly timers: KeyedTimers,
    private readonly events: EventLog,
  ) {
    this.subscriptions = new SubscriptionResolver(topics);
  }

  // ---------------------------------------------------------------- ConsumerGroupHeartbeat

  /** One ConsumerGroupHeartbeat. Never throws: every failure is an error code (and Kafka's message) in the answer. */
  heartbeat(req: ConsumerGroupHeartbeatRequest, ctx: HeartbeatContext): ConsumerGroupHeartbeatResponse {
    try {
      this.validate(req, ctx.apiVersion);
      if (req.memberEpoch === LEAVE_EPOCH || req.memberEpoch === STATIC_LEAVE_EPOCH) return this.leave(req);
      return this.join(req, ctx);
    } catch (e) {
      if (!(e instanceof KafkaProtocolError)) throw e;
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
    const invalid = (msg: string) => refuse('INVALID_REQUEST', msg);
    const blank = (s: string | null) => s !== null && s.trim() === '';
    if ((req.memberEpoch > 0 || req.memberEpoch === LEAVE_EPOCH || apiVersion >= CLIENT_MEMBER_ID_MIN_VERSION) && blank(req.memberId)) {
      throw invalid("MemberId can't be empty.");
    }
    if (blank(req.groupId)) throw invalid("GroupId can't be empty.");
    if (blank(req.instanceId)) throw invalid("InstanceId can't be empty.");
    if (blank(req.rackId)) throw invalid("RackId can't be empty.");
    if (req.memberEpoch === 0) {
      if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
      if (req.topicPartitions === null || req.topicPartitions.length > 0) throw invalid('TopicPartitions must be empty when (re-)joining.');
      if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null) {
        throw invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
      }
    } else if (req.memberEpoch === STATIC_LEAVE_EPOCH) {
      if (req.instanceId === null) throw invalid("InstanceId can't be null.");
    } else if (req.memberEpoch < STATIC_LEAVE_EPOCH) {
      throw invalid('MemberEpoch is invalid.');
    }
    if (req.serverAssignor !== null && !SERVER_ASSIGNORS.has(req.serverAssignor)) {
      throw refuse('UNSUPPORTED_ASSIGNOR',
        `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${[...SERVER_ASSIGNORS.keys()].join(', ')}.`);
    }
    if (req.subscribedTopicRegex) this.subscriptions.validate(req.subscribedTopicRegex);
  }

  private join(req: ConsumerGroupHeartbeatRequest, ctx: HeartbeatContext): ConsumerGroupHeartbeatResponse {
    const group = this.host.consumerGroupFor(req.groupId, req.memberEpoch === 0);
    const { member, isNew } = req.memberEpoch === 0 ? this.joiningMember(group, req, ctx) : {
      member: this.existingMember(group, req), isNew: false,
    };
    const reasons: string[] = [];
    if (isNew) reasons.push(`member ${member.memberId} joined`);
    const subscriptionChanged = member.updateSubscription(req);
    if (subscriptionChanged && !isNew) reasons.push(`member ${member.memberId} updated its subscription`);
    if (this.metadataChanged(group, isNew || subscriptionChanged)) reasons.push('subscribed topic metadata changed');
    if (reasons.length > 0) this.bumpGroupEpoch(group, reasons.join('; '));
    if (group.groupEpoch > group.assignmentEpoch) this.computeTargetAssignment(group);
    const assignedBefore = member.assigned;
    this.reconcileMember(group, member, fromWire(req.topicPartitions), 'heartbeat');
    this.scheduleSession(group, member);
    group.updateState(`heartbeat of member ${member.memberId} (epoch ${req.memberEpoch})`);
    const subscribes = req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null;
    const full = req.memberEpoch === 0 || (req.rebalanceTimeoutMs !== -1 && subscribes && req.topicPartitions !== null);
    return {
      errorCode: ErrorCode.NONE, errorMessage: null, memberId: member.memberId, memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.config.heartbeatIntervalMs,
      assignment: full || !equals(assignedBefore, member.assigned) ? { topicPartitions: toWire(member.assigned) } : null,
    };
  }

  private joiningMember(
    group: ConsumerGroup, req: ConsumerGroupHeartbeatRequest, ctx: HeartbeatContext,
  ): { member: ConsumerGroupMember; isNew: boolean } {
    const memberId = req.memberId || randomUUID();
    if (req.instanceId !== null) {
      const old = group.staticMember(req.instanceId);
      if (old && old.memberId !== memberId) {
        if (old.memberEpoch !== STATIC_LEAVE_EPOCH) {
          throw refuse('UNRELEASED_INSTANCE_ID', `Static member ${old.memberId} with instance id ${req.instanceId} is not released yet.`);
        }
        return { member: this.replaceStaticMember(group, old, memberId, ctx), isNew: false };
      }
    }
    const known = group.members.get(memberId);
    if (known) {
      // A member rejoining with epoch 0 (after a fencing) starts over: it owns nothing until reconciled.
      const owned = known.owned();
      known.rejoin(`member ${memberId} rejoined with epoch 0`);
      group.updateOwnership(known, owned);
      return { member: known, isNew: false };
    }
    if (group.members.size >= this.config.maxSize) {
      throw refuse('GROUP_MAX_SIZE_REACHED', `The consumer group has reached its maximum capacity of ${this.config.maxSize} members.`);
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
    const target = group.targetOf(old.memberId);
    const member = ConsumerGroupMember.replacing(old, memberId, ctx.clientId, ctx.clientHost);
    group.remove(old);
    this.cancelTimers(group, old);
    group.add(member);
    group.inheritTarget(memberId, target);
    group.updateOwnership(member, EMPTY);
    this.events.record(
      'member.replaced',
      { groupId: group.groupId, groupType: 'consumer', instanceId: old.instanceId, oldMemberId: old.memberId, newMemberId: memberId },
    );
    return member;
  }

  private existingMember(group: ConsumerGroup, req: ConsumerGroupHeartbeatRequest): ConsumerGroupMember {
    const member = group.members.get(req.memberId);
    if (!member) throw refuse('UNKNOWN_MEMBER_ID', `Member ${req.memberId} is not a member of group ${group.groupId}.`);
    if (req.instanceId !== null && group.staticMembers.get(req.instanceId) !== member.memberId) {
      throw refuse('FENCED_INSTANCE_ID', `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by another member.`);
    }
    if (req.memberEpoch > member.memberEpoch) {
      throw refuse('FENCED_MEMBER_EPOCH', fencedMessage('greater', req.memberEpoch, member.memberEpoch));
    }
    if (req.memberEpoch < member.memberEpoch) {
      const owned = fromWire(req.topicPartitions);
      const lostResponse = req.memberEpoch === member.previousMemberEpoch && owned !== null && isEmpty(subtract(owned, member.assigned));
      if (!lostResponse) throw refuse('FENCED_MEMBER_EPOCH', fencedMessage('smaller', req.memberEpoch, member.memberEpoch));
    }
    return member;
  }

  /**
   * Whether the topics the members subscribe to changed since last seen (their ids or partition counts). Re-read
   * only when a subscription changed or the cluster's topics did: a heartbeat that changes nothing costs two reads.
   */
  private metadataChanged(group: ConsumerGroup, subscriptionChanged: boolean): boolean {
    const last = this.seen.get(group);
    if (last && last.version === this.subscriptions.version && !subscriptionChanged) return false;
    return this.resolveSubscribedTopics(group) !== (last?.fingerprint ?? '');
  }

  /** Resolves what the members subscribe to now and remembers it; returns its fingerprint (name=id:partitions,...). */
  private resolveSubscribedTopics(group: ConsumerGroup): string {
    const seen = new Map<string, string>();
    for (const m of group.members.values()) {
      for (const t of this.subscriptions.subscribedTopics(m.subscription)) seen.set(t.name, `${t.topicId}:${t.numPartitions}`);
    }
    const fingerprint = [...seen].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, v]) => `${n}=${v}`).join(',');
    this.seen.set(group, { version: this.subscriptions.version, fingerprint });
    return fingerprint;
  }

  private bumpGroupEpoch(group: ConsumerGroup, reason: string): void {
    const groupEpoch = group.bumpGroupEpoch();
    this.events.record('group.epoch', { groupId: group.groupId, groupType: 'consumer', groupEpoch, reason });
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
    const assignorName = this.preferredAssignor(group);
    const assignor = SERVER_ASSIGNORS.get(assignorName)!;
    const topics = new Map<string, TopicMetadata>();
    const members = [...group.members.values()].map((m) => {
      const subscribed = this.subscriptions.subscribedTopics(m.subscription);
      for (const t of subscribed) topics.set(t.topicId, t);
      return {
        memberId: m.memberId, subscribedTopicIds: new Set(subscribed.map((t) => t.topicId)), previousTarget: group.targetOf(m.memberId),
      };
    });
    group.setTargetAssignment(assignorName, assignor.assign(members, topics));
    const target: Record<string, Record<string, number[]>> = {};
    for (const [id, a] of group.targetAssignment) target[id] = namedAssignment(a, this.topics);
    this.events.record(
      'group.assignment',
      { groupId: group.groupId, groupType: 'consumer', assignmentEpoch: group.assignmentEpoch, assignor: assignorName, target },
    );
  }

  private reconcileMember(group: ConsumerGroup, member: ConsumerGroupMember, owned: Assignment | null, reason: string): void {
    const next = reconcile(member, group.assignmentEpoch, group.targetOf(member.memberId), owned, (t, p) => {
      const o = group.ownerOf(t, p);
      return o !== undefined && o !== member.memberId;
    });
    const from = member.state;
    const ownedBefore = member.owned();
    const changed = member.apply(next, reason);
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
    const group = this.host.consumerGroup(req.groupId);
    if (!group) throw refuse('GROUP_ID_NOT_FOUND', `Group ${req.groupId} not found.`);
    const member = req.instanceId !== null ? group.staticMember(req.instanceId) : group.members.get(req.memberId);
    if (!member) throw refuse('UNKNOWN_MEMBER_ID', `Member ${req.memberId} is not a member of group ${group.groupId}.`);
    if (member.memberId !== req.memberId) {
      throw refuse('FENCED_INSTANCE_ID', `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by another member.`);
    }
    this.events.record(
      'member.left',
      {
        groupId: group.groupId, groupType: 'consumer', memberId: member.memberId, instanceId: member.instanceId,
        memberEpoch: req.memberEpoch,
      },
    );
    if (req.memberEpoch === STATIC_LEAVE_EPOCH) {
      // The static member keeps its partitions until it returns or its session times out.
      member.leaveStatic(`static member ${member.memberId} left with epoch -2`);
      this.timers.cancel(this.key(group, member, 'rebalance'));
      this.scheduleSession(group, member);
    } else {
      this.removeMember(group, member, `member ${member.memberId} left the group`);
    }
    group.updateState(`member ${member.memberId} left (epoch ${req.memberEpoch})`);
    return {
      errorCode: ErrorCode.NONE, errorMessage: null, memberId: member.memberId, memberEpoch: req.memberEpoch, heartbeatIntervalMs: 0,
      assignment: null,
    };
  }

  private removeMember(group: ConsumerGroup, member: ConsumerGroupMember, reason: string): void {
    member.leave(reason);
    group.remove(member);
    this.cancelTimers(group, member);
    this.bumpGroupEpoch(group, reason);
    this.resolveSubscribedTopics(group); // the bump covers what the member's subscription took with it
    if (group.members.size > 0) this.computeTargetAssignment(group);
    else group.setTargetAssignment(group.assignorName, new Map());
  }

  private expire(group: ConsumerGroup, member: ConsumerGroupMember, cause: 'session-timeout' | 'rebalance-timeout'): void {
    if (!this.host.isCurrent(group) || group.members.get(member.memberId) !== member) return;
    this.events.record(
      'member.expired', { groupId: group.groupId, groupType: 'consumer', memberId: member.memberId, instanceId: member.instanceId, cause },
    );
    this.removeMember(group, member, `member ${member.memberId} removed: ${cause}`);
    group.updateState(`member ${member.memberId} expired (${cause})`);
  }

  private key(group: ConsumerGroup, member: ConsumerGroupMember, kind: 'session' | 'rebalance'): string {
    return `consumer\0${group.groupId}\0${member.memberId}\0${kind}`;
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
    this.timers.schedule(k, member.rebalanceTimeoutMs, () => {
      if (member.state === 'unrevoked_partitions' && member.memberEpoch === epoch) this.expire(group, member, 'rebalance-timeout');
    });
  }

  private cancelTimers(group: ConsumerGroup, member: ConsumerGroupMember): void {
    this.timers.cancel(this.key(group, member, 'session'));
    this.timers.cancel(this.key(group, member, 'rebalance'));
  }

  /** Cancels the timers of every member of `group` (the group is deleted or converted). */
  cancelGroupTimers(group: ConsumerGroup): void {
    this.timers.cancelPrefix(`consumer\0${group.groupId}\0`);
  }

  // ---------------------------------------------------------------- offsets

  /** Error code of an OffsetCommit into a consumer group (`ConsumerGroup.validateOffsetCommit`); NONE when allowed. */
  validateOffsetCommit(group: ConsumerGroup, memberId: string, memberEpoch: number, apiVersion: number, transactional = false): number {
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
  validateOffsetFetch(group: ConsumerGroup, memberId: string | null, memberEpoch: number): number {
    if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
    const member = group.members.get(memberId ?? '');
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberEpoch !== member.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  /** The coordinator moved (fault injection): state kept, every session timer restarts as after a load. */
  moveAway(groups: Iterable<ConsumerGroup>): void {
    for (const g of groups) for (const m of g.members.values()) this.scheduleSession(g, m);
  }
}

/** Kafka's FENCED_MEMBER_EPOCH message. */
function fencedMessage(which: 'greater' | 'smaller', received: number, known: number): string {
  return `The consumer group member has a ${which} member epoch (${received}) than the one known by the group coordinator (${known}). `
    + 'The member must abandon all its partitions and rejoin.';
}
