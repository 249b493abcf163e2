/**
 * The group coordinator of the mock cluster, after Apache Kafka's `GroupCoordinatorService` over one
 * `GroupMetadataManager`: one registry of groups (registry.ts) in which classic and KIP-848 consumer groups share
 * one group-id namespace, the committed offsets of both kinds (offsets/), and the timers of both protocols on one
 * injectable clock. The API handlers call it with decoded requests and encode what it returns; each protocol's
 * logic is in its own folder:
 *
 * - classic/protocol.ts   JoinGroup, SyncGroup, Heartbeat, LeaveGroup (classic/rebalance.ts drives rebalances);
 * - consumer/protocol.ts  ConsumerGroupHeartbeat (KIP-848) and the member-epoch checks of offsets;
 * - offsets/api.ts        OffsetCommit/Fetch/Delete and TxnOffsetCommit over offsets/store.ts;
 * - admin.ts              DescribeGroups, ListGroups, DeleteGroups, ConsumerGroupDescribe and the test views;
 * - expiration.ts         offsets.retention.minutes: offsets of empty groups expire, empty groups without offsets go.
 *
 * Where the protocols meet (one namespace): a JoinGroup for an empty consumer group converts it into a classic
 * group, a live one answers GROUP_ID_NOT_FOUND (as Kafka 3.7-3.9 do; Kafka 4 also lets classic members into a
 * consumer group); a first ConsumerGroupHeartbeat for an empty classic group converts it, a live one answers
 * GROUP_ID_NOT_FOUND (Kafka 4 upgrades it online under group.consumer.migration.policy; the mock does not).
 * Offsets are kept across a conversion.
 */
import type { EventLog } from '../event-log';
import { ErrorCode } from '../../../protocol/error-codes';
import { KafkaProtocolError } from '../../../protocol/kafka-errors';
import { systemClock } from '../../../util/clock';
import type { Clock } from '../../../util/clock';
import { GroupAdmin } from './admin';
import { ClassicGroup, joinError, syncError } from './classic/group';
import { ClassicGroupProtocol } from './classic/protocol';
import { Rebalancer, hbKeyPrefix, joinKey, syncKey } from './classic/rebalance';
import type { TopicSource } from './consumer/assignment';
import { ConsumerGroup } from './consumer/group';
import { ConsumerGroupProtocol } from './consumer/protocol';
import type { HeartbeatContext } from './consumer/protocol';
import type {
  ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, ConsumerGroupView, DescribedConsumerGroup,
} from './consumer/types';
import { GroupExpiration } from './expiration';
import { OffsetApi, TxnOffsetCommitRequest } from './offsets/api';
import { OffsetStore } from './offsets/store';
import { GroupRegistry } from './registry';
import type { Group } from './registry';
import { KeyedTimers } from './timers';
import type {
  CommittedOffsetView, DescribedGroup, GroupCoordinatorConfig, GroupView, HeartbeatRequest, JoinGroupRequest, JoinGroupResponse,
  LeaveGroupRequest, LeaveGroupResponse, ListedGroup, OffsetCommitRequest, OffsetCommitResponse, OffsetDeleteRequest,
  OffsetDeleteResponse, OffsetFetchRequest, OffsetFetchResponse, RequestContext, SyncGroupRequest, SyncGroupResponse,
} from './types';

export type * from './types';
export { TRANSITIONS } from './classic/group';

/** The coordinator's settings with every default filled in. */
export type ResolvedConfig = Required<Omit<GroupCoordinatorConfig, 'partitionExists' | 'topics'>>
  & Pick<GroupCoordinatorConfig, 'partitionExists'>;

const NO_TOPICS: TopicSource = { byName: () => undefined, byId: () => undefined, all: () => [], version: () => 0 };

/** The mock cluster's group coordinator (see the module comment); `ClusterState.groups`. */
export class GroupCoordinator {
  readonly config: Readonly<ResolvedConfig>;
  private readonly registry = new GroupRegistry();
  private readonly offsetStore = new OffsetStore();
  private readonly timers: KeyedTimers;
  private readonly offsetApi: OffsetApi;
  private readonly rb: Rebalancer;
  private readonly classic: ClassicGroupProtocol;
  private readonly consumer: ConsumerGroupProtocol;
  private readonly admin: GroupAdmin;
  private readonly expiration: GroupExpiration;
  private closed = false;

  constructor(
    config: Partial<GroupCoordinatorConfig>,
    private readonly events: EventLog,
  ) {
    const clock: Clock = config.clock ?? systemClock;
    this.config = {
      initialRebalanceDelayMs: config.initialRebalanceDelayMs ?? 0,
      minSessionTimeoutMs: config.minSessionTimeoutMs ?? 6000,
      maxSessionTimeoutMs: config.maxSessionTimeoutMs ?? 1_800_000,
      maxGroupSize: config.maxGroupSize ?? Number.MAX_SAFE_INTEGER,
      newMemberJoinTimeoutMs: config.newMemberJoinTimeoutMs ?? 5 * 60 * 1000,
      offsetMetadataMaxBytes: config.offsetMetadataMaxBytes ?? 4096,
      partitionExists: config.partitionExists,
      clock,
      now: config.now ?? (() => clock.now()),
      offsetsRetentionMs: config.offsetsRetentionMs ?? 7 * 24 * 60 * 60 * 1000,
      offsetsRetentionCheckIntervalMs: config.offsetsRetentionCheckIntervalMs ?? 600_000,
      consumerHeartbeatIntervalMs: config.consumerHeartbeatIntervalMs ?? 5000,
      consumerSessionTimeoutMs: config.consumerSessionTimeoutMs ?? 45_000,
      consumerMaxGroupSize: config.consumerMaxGroupSize ?? Number.MAX_SAFE_INTEGER,
    };
    this.timers = new KeyedTimers(clock);
    const coordinator = this; // eslint-disable-line @typescript-eslint/no-this-alias
    const current = (g: Group) => !this.closed && this.registry.isCurrent(g);
    this.rb = new Rebalancer(current, this.timers, events, this.config);
    this.classic = new ClassicGroupProtocol(this.config, {
      get active() { return !coordinator.closed; },
      classicGroupForJoin: (id, create) => this.classicGroupForJoin(id, create),
      classicGroup: (id) => this.registry.classic(id),
    }, this.rb, this.timers, events);
    const topics = config.topics ?? NO_TOPICS;
    this.consumer = new ConsumerGroupProtocol({
      heartbeatIntervalMs: this.config.consumerHeartbeatIntervalMs, sessionTimeoutMs: this.config.consumerSessionTimeoutMs,
      maxSize: this.config.consumerMaxGroupSize, now: this.config.now,
    }, topics, {
      consumerGroupFor: (id, create) => this.consumerGroupFor(id, create),
      consumerGroup: (id) => this.registry.consumer(id),
      isCurrent: current,
    }, this.timers, events);
    this.offsetApi = new OffsetApi({
      config: this.config,
      offsets: this.offsetStore,
      classicGroup: (id) => this.registry.classic(id),
      getOrCreateGroup: (id) => this.getOrCreateClassicGroup(id),
      touchMember: (g, m) => this.rb.rescheduleHeartbeat(g, m, m.sessionTimeoutMs),
      record: (type, data) => this.events.record(type, data),
      consumerGroups: {
        has: (id) => this.registry.consumer(id) !== undefined,
        validateOffsetCommit: (id, memberId, memberEpoch, apiVersion, transactional) =>
          this.consumer.validateOffsetCommit(this.registry.consumer(id)!, memberId, memberEpoch, apiVersion, transactional),
      },
    });
    this.admin = new GroupAdmin(this.registry, this.offsetStore, topics, {
      get closed() { return coordinator.closed; },
      deleteGroup: (g, why) => this.deleteGroup(g, why),
    });
    this.expiration = new GroupExpiration(
      this.registry, this.offsetStore, this.config, this.timers, events, (g) => this.deleteGroup(g, 'expired'),
    );
    this.expiration.start();
  }

  // ---------------------------------------------------------------- the classic protocol (classic/protocol.ts)

  joinGroup(req: JoinGroupRequest, ctx: RequestContext): Promise<JoinGroupResponse> {
    return this.classic.joinGroup(req, ctx);
  }

  syncGroup(req: SyncGroupRequest, ctx: RequestContext): Promise<SyncGroupResponse> {
    return this.classic.syncGroup(req, ctx);
  }

  heartbeat(req: HeartbeatRequest, ctx: RequestContext): { errorCode: number } {
    return this.classic.heartbeat(req, ctx);
  }

  leaveGroup(req: LeaveGroupRequest, ctx: RequestContext): LeaveGroupResponse {
    return this.classic.leaveGroup(req, ctx);
  }

  // ---------------------------------------------------------------- the consumer protocol (consumer/protocol.ts)

  /** ConsumerGroupHeartbeat (KIP-848). Never throws: every failure is an error code in the answer. */
  consumerGroupHeartbeat(req: ConsumerGroupHeartbeatRequest, ctx: HeartbeatContext): ConsumerGroupHeartbeatResponse {
    if (this.closed) {
      return {
        errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'The coordinator is not available.', memberId: null, memberEpoch: 0,
        heartbeatIntervalMs: 0, assignment: null,
      };
    }
    return this.consumer.heartbeat(req, ctx);
  }

  // ---------------------------------------------------------------- offsets (offsets/api.ts)

  commitOffsets(req: OffsetCommitRequest, ctx: RequestContext): OffsetCommitResponse {
    if (this.closed) return this.offsetApi.failCommit(req, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    return this.offsetApi.commit(req, ctx);
  }

  fetchOffsets(req: OffsetFetchRequest, _ctx?: RequestContext): OffsetFetchResponse {
    if (this.closed) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, topics: [] };
    const cg = req.memberId !== undefined ? this.registry.consumer(req.groupId) : undefined;
    if (cg) {
      const errorCode = this.consumer.validateOffsetFetch(cg, req.memberId!, req.memberEpoch ?? -1);
      if (errorCode !== ErrorCode.NONE) return { errorCode, topics: [] };
    }
    return this.offsetApi.fetch(req);
  }

  /** TxnOffsetCommit: staged until the transaction ends (see OffsetApi.txnCommit). */
  txnCommitOffsets(req: TxnOffsetCommitRequest): OffsetCommitResponse {
    if (this.closed) return this.offsetApi.failCommit(req, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    return this.offsetApi.txnCommit(req);
  }

  /** A transaction marker for `groupId`: the producer's staged offsets are committed or dropped. */
  completeTxnOffsets(groupId: string, producerId: bigint, commit: boolean): void {
    this.offsetApi.completeTxn(groupId, producerId, commit);
  }

  deleteOffsets(req: OffsetDeleteRequest): OffsetDeleteResponse {
    if (this.closed) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, topics: [] };
    return this.offsetApi.delete(req);
  }

  // ---------------------------------------------------------------- admin APIs and views (admin.ts)

  /** DescribeGroups: unknown groups are reported as Dead with no error (Kafka, DescribeGroups v0-v5). */
  describeGroups(groupIds: string[]): DescribedGroup[] {
    return this.admin.describeGroups(groupIds);
  }

  /** ListGroups; `statesFilter` matches case-insensitively (KIP-518), `typesFilter` by group type (KIP-848). */
  listGroups(statesFilter?: string[], typesFilter?: string[]): ListedGroup[] {
    return this.admin.listGroups(statesFilter, typesFilter);
  }

  /** DeleteGroups: only empty groups (NON_EMPTY_GROUP otherwise); removes the group and its offsets. */
  deleteGroups(groupIds: string[]): { groupId: string; errorCode: number }[] {
    return this.admin.deleteGroups(groupIds);
  }

  /** ConsumerGroupDescribe: GROUP_ID_NOT_FOUND for an unknown or classic group. */
  describeConsumerGroups(groupIds: string[]): DescribedConsumerGroup[] {
    return this.admin.describeConsumerGroups(groupIds);
  }

  /** A classic group with its committed offsets, or undefined. */
  group(groupId: string): GroupView | undefined {
    return this.admin.classicView(groupId);
  }

  /** Every classic group. */
  groups(): GroupView[] {
    return this.admin.classicViews();
  }

  /** A KIP-848 consumer group with its committed offsets, or undefined. */
  consumerGroup(groupId: string): (ConsumerGroupView & { offsets: CommittedOffsetView[] }) | undefined {
    return this.admin.consumerView(groupId);
  }

  /** Every KIP-848 consumer group, with committed offsets. */
  consumerGroupViews(): (ConsumerGroupView & { offsets: CommittedOffsetView[] })[] {
    return this.admin.consumerViews();
  }

  /** Every group id, of both kinds (the coordinator placement of faults reads it). */
  groupIds(): string[] {
    return this.registry.all().map((g) => g.groupId);
  }

  // ---------------------------------------------------------------- lifecycle

  /** Number of live timers (heartbeat, join, sync, KIP-848 session and rebalance); 0 after {@link close}. */
  get pendingTimers(): number {
    return this.timers.size - (this.expiration.running ? 1 : 0);
  }

  /** Stop: clear every timer; parked JoinGroup/SyncGroup answer COORDINATOR_NOT_AVAILABLE; later calls too. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.answerAllParked(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    this.expiration.stop();
    this.timers.cancelAll();
  }

  /**
   * Coordinator moved (fault injection): parked JoinGroup/SyncGroup answer NOT_COORDINATOR, so clients
   * rediscover the coordinator and retry. Group state is kept, as the new coordinator would load it; like
   * a load, every member's session timer restarts.
   */
  moveAway(): void {
    if (this.closed) return;
    this.answerAllParked(ErrorCode.NOT_COORDINATOR);
    for (const g of this.registry.classicGroups()) {
      for (const m of g.members.values()) this.rb.rescheduleHeartbeat(g, m, m.sessionTimeoutMs);
    }
    this.consumer.moveAway(this.registry.consumerGroups());
  }

  // ---------------------------------------------------------------- one namespace

  /** The classic group a JoinGroup uses; see the module comment for what meets a consumer group. */
  private classicGroupForJoin(groupId: string, create: boolean): ClassicGroup | 'consumer' | undefined {
    const existing = this.registry.get(groupId);
    if (existing?.type === 'classic') return existing;
    if (existing) {
      if (!existing.isEmpty()) return 'consumer';
      this.deleteGroup(existing, 'converted');
    }
    return create ? this.getOrCreateClassicGroup(groupId) : undefined;
  }

  /** The consumer group a heartbeat uses; see the module comment for what meets a classic group. */
  private consumerGroupFor(groupId: string, create: boolean): ConsumerGroup {
    const existing = this.registry.get(groupId);
    if (existing?.type === 'consumer') return existing;
    if (existing && !existing.isEmpty()) {
      // Kafka 4 upgrades a classic group online (group.consumer.migration.policy); the mock does not (docs/mock-broker.md).
      throw new KafkaProtocolError('GROUP_ID_NOT_FOUND', `Group ${groupId} is not a consumer group.`);
    }
    if (!create) throw new KafkaProtocolError('GROUP_ID_NOT_FOUND', `Group ${groupId} not found.`);
    if (existing) this.deleteGroup(existing, 'converted');
    const group = new ConsumerGroup(groupId, this.config.now(), (t) => this.events.record('group.state', { ...t, groupType: 'consumer' }));
    this.registry.add(group);
    this.events.record('group.created', { groupId, groupType: 'consumer' });
    return group;
  }

  private getOrCreateClassicGroup(groupId: string): ClassicGroup {
    let group = this.registry.classic(groupId);
    if (!group) {
      group = new ClassicGroup(groupId, this.config.now());
      this.registry.add(group);
      this.events.record('group.created', { groupId });
    }
    return group;
  }

  /**
   * Removes an empty group: DeleteGroups (`deleted`, offsets go too), the other protocol taking its id (`converted`,
   * offsets stay) or the retention cleanup (`expired`, no offsets are left). Returns how many offsets were deleted.
   */
  private deleteGroup(group: Group, why: 'deleted' | 'converted' | 'expired'): number {
    if (group.type === 'classic') {
      this.rb.transition(group, 'Dead', why === 'converted' ? 'converted to a consumer group' : why === 'deleted' ? 'DeleteGroups' : why);
      this.timers.cancelPrefix(hbKeyPrefix(group.groupId));
      this.timers.cancel(joinKey(group.groupId));
      this.timers.cancel(syncKey(group.groupId));
    } else {
      group.transition('Dead', why);
      this.consumer.cancelGroupTimers(group);
    }
    this.registry.delete(group);
    if (why === 'converted') {
      const to = group.type === 'classic' ? 'consumer' : 'classic';
      this.events.record('group.converted', { groupId: group.groupId, groupType: to, from: group.type });
      return 0;
    }
    const offsetsDeleted = why === 'deleted' ? this.offsetStore.deleteGroup(group.groupId) : 0;
    const kind = group.type === 'consumer' ? { groupType: 'consumer' } : {};
    this.events.record('group.deleted', { groupId: group.groupId, ...kind, offsetsDeleted, ...(why === 'expired' ? { reason: why } : {}) });
    return offsetsDeleted;
  }

  private answerAllParked(errorCode: number): void {
    for (const g of this.registry.classicGroups()) {
      for (const m of g.members.values()) {
        g.completeJoin(m, joinError(errorCode, m.memberId));
        g.completeSync(m, syncError(errorCode));
      }
    }
  }
}
