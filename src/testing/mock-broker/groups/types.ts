/**
 * Shapes of the group coordinator. The request and response types are derived from the message
 * schemas (src/protocol/messages, Kafka's JSON definitions in lowerCamelCase), never kept by hand:
 * int64 is `bigint`, bytes are `Buffer`, nullable strings are `string | null`. Fields a later
 * version added are optional for direct callers; the API handlers translate between these and
 * the wire versions (e.g. LeaveGroup v0-v2's single memberId). The rest are domain types.
 */
import type { DescribeGroups, ListGroups, OffsetDelete } from '../../../protocol/messages/admin';
import type { Heartbeat, JoinGroup, LeaveGroup, OffsetCommit, OffsetFetch, SyncGroup } from '../../../protocol/messages/group';
import type { RequestOf, ResponseOf } from '../../../protocol/schema';
import type { Clock } from '../../../util/clock';

/** Kafka's classic group states, spelt as DescribeGroups and ListGroups report them. */
export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

export interface GroupCoordinatorConfig {
  /**
   * group.initial.rebalance.delay.ms. Kafka's default is 3000; ours is **0**, the value Kafka's own
   * integration tests and the usual development images use, so a single consumer gets its assignment
   * without a 3 s pause. Set 3000 to reproduce production timing (members starting together then share
   * one rebalance instead of one each).
   */
  initialRebalanceDelayMs: number;
  /** group.min.session.timeout.ms (Kafka default 6000). */
  minSessionTimeoutMs: number;
  /** group.max.session.timeout.ms (Kafka default 1800000). */
  maxSessionTimeoutMs: number;
  /** group.max.size (Kafka default Int.MaxValue) → GROUP_MAX_SIZE_REACHED. */
  maxGroupSize?: number;
  /**
   * How long a *new* member's parked JoinGroup may wait before it is dropped (Kafka's
   * GroupCoordinatorConfig.CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS, fixed at 5 minutes there).
   */
  newMemberJoinTimeoutMs?: number;
  /** offset.metadata.max.bytes (Kafka default 4096) → OFFSET_METADATA_TOO_LARGE. */
  offsetMetadataMaxBytes?: number;
  /** For OffsetCommit/OffsetDelete UNKNOWN_TOPIC_OR_PARTITION (a KafkaApis check). Default: every partition exists. */
  partitionExists?: (topic: string, partition: number) => boolean;
  /**
   * The clock of every group timer (session, rebalance, join, sync, KIP-848 timeouts, offsets retention) and
   * timestamp. Default: wall time on the global `setTimeout` (jest's fake timers drive it). A `ManualClock`
   * (src/util/clock.ts) makes a test decide when time passes.
   */
  clock?: Clock;
  /** Clock for timestamps only (kept for callers that set it); default `clock.now`. */
  now?: () => number;
  /**
   * offsets.retention.minutes in ms (Kafka default 7 days): committed offsets of a group without members expire
   * this long after their commit (a classic group: after it became Empty), and a group without members and
   * offsets is deleted, as Kafka's `cleanupGroupMetadata` does.
   */
  offsetsRetentionMs?: number;
  /** offsets.retention.check.interval.ms (Kafka default 600000): how often the expiration runs. */
  offsetsRetentionCheckIntervalMs?: number;
  /** KIP-848 groups: group.consumer.heartbeat.interval.ms (Kafka default 5000). */
  consumerHeartbeatIntervalMs?: number;
  /** KIP-848 groups: group.consumer.session.timeout.ms (Kafka default 45000). */
  consumerSessionTimeoutMs?: number;
  /** KIP-848 groups: group.consumer.max.size (Kafka default Int.MaxValue) → GROUP_MAX_SIZE_REACHED. */
  consumerMaxGroupSize?: number;
  /** The cluster's topics, for KIP-848 server-side assignment. Default: no topics. */
  topics?: import('./consumer/assignment').TopicSource;
}

export interface RequestContext {
  clientId: string;
  clientHost: string;
  apiVersion: number;
}

type JoinGroupWire = RequestOf<typeof JoinGroup>;
type SyncGroupWire = RequestOf<typeof SyncGroup>;
type OffsetCommitWire = RequestOf<typeof OffsetCommit>;
type OffsetCommitPartitionWire = OffsetCommitWire['topics'][number]['partitions'][number];
/** `T` with the keys `K` optional: fields a later version added, which direct callers may leave out. */
type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
/** A response without the fields the handler adds (throttleTimeMs). */
type Answer<T> = Omit<T, 'throttleTimeMs'>;

/** One protocol of a JoinGroup (name + opaque metadata; ConsumerProtocolSubscription for consumers). */
export type JoinGroupProtocol = JoinGroupWire['protocols'][number];

/**
 * JoinGroup as the coordinator takes it (the decoded wire request). `rebalanceTimeoutMs` -1 or
 * absent (v0) means "use sessionTimeoutMs", as KafkaApis does.
 */
export type JoinGroupRequest = Optional<JoinGroupWire, 'rebalanceTimeoutMs' | 'groupInstanceId' | 'reason'>;
export type JoinGroupResponse = Answer<ResponseOf<typeof JoinGroup>>;
export type JoinGroupResponseMember = JoinGroupResponse['members'][number];

export type SyncGroupRequest = Optional<SyncGroupWire, 'groupInstanceId' | 'protocolType' | 'protocolName'>;
export type SyncGroupResponse = Answer<ResponseOf<typeof SyncGroup>>;

export type HeartbeatRequest = Optional<RequestOf<typeof Heartbeat>, 'groupInstanceId'>;

/** LeaveGroup in its v3+ shape (a list of members; the handler lifts v0-v2's single memberId). */
export type LeaveGroupRequest = Pick<RequestOf<typeof LeaveGroup>, 'groupId'> & {
  members: Optional<RequestOf<typeof LeaveGroup>['members'][number], 'groupInstanceId' | 'reason'>[];
};
export type LeaveGroupResponse = Answer<ResponseOf<typeof LeaveGroup>>;

/**
 * OffsetCommit as the coordinator takes it. `generationId` -1: a "simple" commit from a client not
 * using group management (or the admin client). retentionTimeMs and commitTimestamp are ignored.
 */
export type OffsetCommitRequest = Optional<Pick<OffsetCommitWire, 'groupId' | 'generationId' | 'memberId' | 'groupInstanceId'>,
  'groupInstanceId'> & {
  topics: {
    name: string;
    partitions: Optional<
      Pick<OffsetCommitPartitionWire, 'partitionIndex' | 'committedOffset' | 'committedLeaderEpoch' | 'committedMetadata'>,
      'committedLeaderEpoch'
    >[];
  }[];
};
export type OffsetCommitResponse = Answer<ResponseOf<typeof OffsetCommit>>;

/** OffsetFetch in its v0-v7 shape; `topics` null: every committed offset of the group. */
export type OffsetFetchRequest = Pick<RequestOf<typeof OffsetFetch>, 'groupId' | 'topics'> & {
  /** v9+ (KIP-848): the member fetching; null with epoch -1 for an admin or a classic member. */
  memberId?: string | null;
  memberEpoch?: number;
  requireStable?: boolean;
};
/**
 * One partition of an OffsetFetch answer: committedOffset -1n when nothing is committed; Kafka
 * answers metadata "" (not null) when nothing is committed or no metadata was given.
 */
export type OffsetFetchResponsePartition = OffsetFetchResponse['topics'][number]['partitions'][number];
export type OffsetFetchResponse = Answer<Pick<ResponseOf<typeof OffsetFetch>, 'errorCode' | 'topics'>>;

export type DescribedGroup = Omit<ResponseOf<typeof DescribeGroups>['groups'][number], 'authorizedOperations'>;
export type DescribedGroupMember = DescribedGroup['members'][number];
/** ListGroups v5 adds `groupType`: `classic` or `consumer` (KIP-848). */
export type ListedGroup = Pick<ResponseOf<typeof ListGroups>['groups'][number], 'groupId' | 'protocolType' | 'groupState'>
  & { groupType?: string };

export type OffsetDeleteRequest = RequestOf<typeof OffsetDelete>;
export type OffsetDeleteResponse = Answer<ResponseOf<typeof OffsetDelete>>;

export interface CommittedOffsetView {
  topic: string;
  partition: number;
  committedOffset: bigint;
  committedLeaderEpoch: number;
  metadata: string;
  commitTimestampMs: number;
}

export interface MemberView {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocols: string[];
  assignment: Buffer;
  awaitingJoin: boolean;
  awaitingSync: boolean;
}

/** A read-only snapshot of one group, for tests and the inspect module. */
export interface GroupView {
  groupId: string;
  state: GroupState;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string | null;
  members: MemberView[];
  pendingMemberIds: string[];
  pendingSyncMemberIds: string[];
  subscribedTopics: string[] | null;
  offsets: CommittedOffsetView[];
}

/**
 * Event types the group coordinator records in the EventLog (all carry `groupId`):
 *   group.created        { }                                   first JoinGroup or simple OffsetCommit
 *   group.state          { from, to, reason, generationId }    every transition
 *   group.generation     { generationId, protocolType, protocolName, leader, members: [{memberId, groupInstanceId}] }
 *   group.deleted        { offsetsDeleted }                    DeleteGroups
 *   member.pending       { memberId, clientId, clientHost }    MEMBER_ID_REQUIRED handed out
 *   member.joined        { memberId, groupInstanceId, clientId, clientHost, protocols, sessionTimeoutMs, rebalanceTimeoutMs }
 *   member.rejoined      { memberId, groupInstanceId, metadataChanged }
 *   member.left          { memberId, groupInstanceId, reason }  LeaveGroup
 *   member.expired       { memberId, groupInstanceId, cause }  cause: session-timeout | new-member-join-timeout |
 *                        pending-member-timeout | not-rejoined | pending-sync-timeout | group-max-size
 *   member.replaced      { groupInstanceId, oldMemberId, newMemberId, rebalance }  KIP-345
 *   member.assignment    { generationId, memberId, groupInstanceId, assignment: Buffer }
 *   offsets.committed    { memberId, generationId, partitions }
 *   offsets.deleted      { partitions }
 */
export type GroupEventType =
  | 'group.created' | 'group.state' | 'group.generation' | 'group.deleted'
  | 'member.pending' | 'member.joined' | 'member.rejoined' | 'member.left' | 'member.expired' | 'member.replaced' | 'member.assignment'
  | 'offsets.committed' | 'offsets.deleted';
