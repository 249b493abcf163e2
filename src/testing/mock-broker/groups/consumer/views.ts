/**
 * Read-only shapes of KIP-848 consumer groups: ConsumerGroupDescribe members, the classic DescribeGroups
 * view of a consumer group (as Kafka's `ConsumerGroup.asDescribedGroup` gives it), and test views
 * with assignments by topic name.
 */
import { encodeAssignment, encodeSubscription } from '../../../../protocol/consumer-protocol';
import { Assignment, TopicSource } from './assignment';
import type { ConsumerGroup } from './group';
import type { ConsumerGroupMember } from './member';
import type { ConsumerGroupView, DescribedConsumerGroup } from './types';

/** topic name → partitions (topics the cluster no longer knows are named by id). */
export function namedAssignment(a: Assignment, topics: TopicSource): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [topicId, parts] of a) out[topics.byId(topicId)?.name ?? topicId] = [...parts];
  return out;
}

function describedAssignment(a: Assignment, topics: TopicSource) {
  return { topicPartitions: [...a].map(([topicId, partitions]) => ({
    topicId, topicName: topics.byId(topicId)?.name ?? '', partitions: [...partitions],
  })) };
}

export function describeMember(m: ConsumerGroupMember, target: Assignment, topics: TopicSource): DescribedConsumerGroup['members'][number] {
  return {
    memberId: m.memberId, instanceId: m.instanceId, rackId: m.rackId, memberEpoch: m.memberEpoch,
    clientId: m.clientId, clientHost: m.clientHost,
    subscribedTopicNames: [...m.subscription.subscribedTopicNames], subscribedTopicRegex: m.subscription.subscribedTopicRegex,
    assignment: describedAssignment(m.assigned, topics), targetAssignment: describedAssignment(target, topics),
  };
}

/**
 * A consumer group through the classic DescribeGroups API: protocol type `consumer`, the assignor as
 * protocol data, each member's subscription and assignment in Java's ConsumerProtocol encoding.
 */
export function describeAsClassic(g: ConsumerGroup, topics: TopicSource) {
  const tps = (a: Assignment) => [...a].map(([id, partitions]) => ({ topic: topics.byId(id)?.name ?? id, partitions: [...partitions] }));
  return {
    errorCode: 0, groupId: g.groupId, groupState: g.state, protocolType: 'consumer', protocolData: g.assignorName,
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId, groupInstanceId: m.instanceId, clientId: m.clientId, clientHost: m.clientHost,
      memberMetadata: encodeSubscription({ topics: [...m.subscription.subscribedTopicNames], userData: null }),
      memberAssignment: encodeAssignment({
        assignedPartitions: tps(m.assigned).flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))),
        userData: null,
      }),
    })),
  };
}

export function viewConsumerGroup(g: ConsumerGroup, topics: TopicSource): ConsumerGroupView {
  return {
    groupId: g.groupId, state: g.state, groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, assignorName: g.assignorName,
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId, instanceId: m.instanceId, clientId: m.clientId, clientHost: m.clientHost, rackId: m.rackId,
      memberEpoch: m.memberEpoch, state: m.state, subscribedTopicNames: [...m.subscription.subscribedTopicNames],
      subscribedTopicRegex: m.subscription.subscribedTopicRegex, serverAssignor: m.subscription.serverAssignor,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs, assigned: namedAssignment(m.assigned, topics),
      pendingRevocation: namedAssignment(m.pendingRevocation, topics), target: namedAssignment(g.targetOf(m.memberId), topics),
    })),
  };
}
