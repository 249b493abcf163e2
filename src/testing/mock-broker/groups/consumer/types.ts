/**
 * Request, response and view shapes of the KIP-848 consumer group coordinator. Field names are those
 * of Apache Kafka's ConsumerGroupHeartbeat / ConsumerGroupDescribe message definitions in lowerCamelCase.
 */
import type { ConsumerGroupState } from './group';
import type { MemberState } from './member';

/** Settings of KIP-848 groups (Kafka's group.consumer.* broker configs). */
export interface ConsumerGroupConfig {
  /** group.consumer.heartbeat.interval.ms, answered to every member (Kafka default 5000). */
  heartbeatIntervalMs: number;
  /** group.consumer.session.timeout.ms: a member that does not heartbeat for this long is removed (Kafka 45000). */
  sessionTimeoutMs: number;
  /** group.consumer.max.size (Kafka default Int.MaxValue) → GROUP_MAX_SIZE_REACHED. */
  maxSize: number;
  /** Clock for timestamps (timers use the global setTimeout). */
  now: () => number;
}

export interface TopicPartitionsWire {
  topicId: string;
  partitions: number[];
}

/** ConsumerGroupHeartbeat request (v0-v1). Nullable fields are null when unchanged since the last heartbeat. */
export interface ConsumerGroupHeartbeatRequest {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  topicPartitions: TopicPartitionsWire[] | null;
}

export interface ConsumerGroupHeartbeatResponse {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: TopicPartitionsWire[] } | null;
}

/** One group of a ConsumerGroupDescribe answer. */
export interface DescribedConsumerGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: {
    memberId: string; instanceId: string | null; rackId: string | null; memberEpoch: number; clientId: string; clientHost: string;
    subscribedTopicNames: string[]; subscribedTopicRegex: string | null;
    assignment: { topicPartitions: { topicId: string; topicName: string; partitions: number[] }[] };
    targetAssignment: { topicPartitions: { topicId: string; topicName: string; partitions: number[] }[] };
  }[];
}

/** A member of a consumer group as tests see it: assignments by topic name. */
export interface ConsumerMemberView {
  memberId: string;
  instanceId: string | null;
  clientId: string;
  clientHost: string;
  rackId: string | null;
  memberEpoch: number;
  state: MemberState;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  rebalanceTimeoutMs: number;
  /** topic name → sorted partitions the member owns and may fetch. */
  assigned: Record<string, number[]>;
  /** topic name → partitions it must still revoke. */
  pendingRevocation: Record<string, number[]>;
  /** topic name → its partitions in the target assignment. */
  target: Record<string, number[]>;
}

export interface ConsumerGroupView {
  groupId: string;
  state: ConsumerGroupState;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: ConsumerMemberView[];
}

/**
 * Event types the consumer group coordinator records (all carry `groupId` and `groupType: 'consumer'`):
 *   group.created        { }
 *   group.state          { from, to, reason, groupEpoch, assignmentEpoch }
 *   group.epoch          { groupEpoch, reason }                      group epoch bumped
 *   group.assignment     { assignmentEpoch, assignor, target: { memberId: { topic: partitions } } }
 *   group.deleted        { offsetsDeleted } / group.converted { to: 'classic' }
 *   member.joined        { memberId, instanceId, clientId, clientHost, subscribedTopicNames, serverAssignor }
 *   member.reconciled    { memberId, from, to, memberEpoch, assigned, pendingRevocation, reason }
 *   member.left          { memberId, instanceId, memberEpoch: -1 | -2 }
 *   member.expired       { memberId, instanceId, cause: session-timeout | rebalance-timeout }
 *   member.replaced      { instanceId, oldMemberId, newMemberId }      static member came back
 *   member.fenced        { memberId, errorCode, receivedEpoch, memberEpoch }
 */
export type ConsumerGroupEventType = string;
