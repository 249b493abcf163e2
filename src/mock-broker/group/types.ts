/**
 * Request and response shapes of the group coordinator. Field names are those of Apache Kafka's
 * message schemas (clients/src/main/resources/common/message/*.json) in lowerCamelCase; int64 is
 * `bigint`, bytes are `Buffer`, nullable strings are `string | null`. The API handlers translate
 * between these and the wire versions (e.g. LeaveGroup v0-v2's single memberId).
 */

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
  /** Clock for timestamps. Default `Date.now`. Timers always use the global `setTimeout`. */
  now?: () => number;
  /** KIP-848 groups: group.consumer.heartbeat.interval.ms (Kafka default 5000). */
  consumerHeartbeatIntervalMs?: number;
  /** KIP-848 groups: group.consumer.session.timeout.ms (Kafka default 45000). */
  consumerSessionTimeoutMs?: number;
  /** KIP-848 groups: group.consumer.max.size (Kafka default Int.MaxValue) → GROUP_MAX_SIZE_REACHED. */
  consumerMaxGroupSize?: number;
  /** The cluster's topics, for KIP-848 server-side assignment. Default: no topics. */
  topics?: import('../consumer-group/assignment').TopicSource;
}

export interface RequestContext {
  clientId: string;
  clientHost: string;
  apiVersion: number;
}

export interface JoinGroupProtocol {
  name: string;
  metadata: Buffer;
}

export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  /** -1 or absent (v0) means "use sessionTimeoutMs", as KafkaApis does. */
  rebalanceTimeoutMs?: number;
  memberId: string;
  groupInstanceId?: string | null;
  protocolType: string;
  protocols: JoinGroupProtocol[];
  reason?: string | null;
}

export interface JoinGroupResponseMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Buffer;
}

export interface JoinGroupResponse {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  members: JoinGroupResponseMember[];
  skipAssignment: boolean;
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId?: string | null;
  protocolType?: string | null;
  protocolName?: string | null;
  assignments: { memberId: string; assignment: Buffer }[];
}

export interface SyncGroupResponse {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId?: string | null;
}

export interface LeaveGroupRequest {
  groupId: string;
  members: { memberId: string; groupInstanceId?: string | null; reason?: string | null }[];
}

export interface LeaveGroupResponse {
  errorCode: number;
  members: { memberId: string; groupInstanceId: string | null; errorCode: number }[];
}

export interface OffsetCommitRequest {
  groupId: string;
  /** -1: a "simple" commit from a client not using group management (or the admin client). */
  generationId: number;
  memberId: string;
  groupInstanceId?: string | null;
  topics: {
    name: string;
    partitions: { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch?: number; committedMetadata: string | null }[];
  }[];
}

export interface OffsetCommitResponse {
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}

export interface OffsetFetchRequest {
  groupId: string;
  /** null: every committed offset of the group. */
  topics: { name: string; partitionIndexes: number[] }[] | null;
  /** v9+ (KIP-848): the member fetching; null with epoch -1 for an admin or a classic member. */
  memberId?: string | null;
  memberEpoch?: number;
  requireStable?: boolean;
}

export interface OffsetFetchResponsePartition {
  partitionIndex: number;
  /** -1n when nothing is committed. */
  committedOffset: bigint;
  committedLeaderEpoch: number;
  /** Kafka answers "" (not null) when nothing is committed or no metadata was given. */
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResponse {
  errorCode: number;
  topics: { name: string; partitions: OffsetFetchResponsePartition[] }[];
}

export interface DescribedGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  memberMetadata: Buffer;
  memberAssignment: Buffer;
}

export interface DescribedGroup {
  errorCode: number;
  groupId: string;
  groupState: string;
  protocolType: string;
  protocolData: string;
  members: DescribedGroupMember[];
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  groupState: string;
  /** ListGroups v5: `classic` or `consumer` (KIP-848). */
  groupType?: string;
}

export interface OffsetDeleteRequest {
  groupId: string;
  topics: { name: string; partitions: { partitionIndex: number }[] }[];
}

export interface OffsetDeleteResponse {
  errorCode: number;
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}

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
