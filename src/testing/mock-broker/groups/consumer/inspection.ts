/**
 * KIP-848 consumer groups in the shape of the inspector's {@link GroupInspection}, so `inspect.group()`,
 * `waitForStableGroup` and `inspect.assignments()` read both kinds of group the same way: the group epoch
 * stands for the generation, the assignor for the protocol name, and a member's assignment is the partitions
 * it owns now (not those still pending revocation). The KIP-848 details are under `consumer`.
 */
import type { CommittedOffsetView } from '../types';
import type { GroupInspection, MemberInspection } from '../inspection';
import type { ConsumerGroupView } from './types';

/** One consumer group as a GroupInspection; `sessionTimeoutMs` is the cluster's group.consumer.session.timeout.ms. */
export function consumerGroupInspection(
  v: ConsumerGroupView & { offsets: CommittedOffsetView[] }, sessionTimeoutMs: number,
): GroupInspection {
  const members: MemberInspection[] = v.members.map((m) => ({
    memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, groupInstanceId: m.instanceId, sessionTimeoutMs,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs, protocols: m.serverAssignor === null ? [] : [m.serverAssignor],
    assignment: Object.fromEntries(Object.entries(m.assigned).map(([t, ps]) => [t, [...ps]])), userData: null,
    rawAssignment: Buffer.alloc(0), awaitingJoin: false, awaitingSync: false,
  }));
  const subscribed = [...new Set(v.members.flatMap((m) => m.subscribedTopicNames))].sort();
  return {
    groupId: v.groupId, groupType: 'consumer', state: v.state, generationId: v.groupEpoch,
    protocolType: 'consumer', protocolName: v.assignorName,
    leader: null, members, pendingMemberIds: [], subscribedTopics: subscribed,
    offsets: v.offsets.map((o) => ({
      topic: o.topic, partition: o.partition, offset: Number(o.committedOffset), leaderEpoch: o.committedLeaderEpoch,
      metadata: o.metadata, commitTimestampMs: o.commitTimestampMs,
    })),
    consumer: { groupEpoch: v.groupEpoch, assignmentEpoch: v.assignmentEpoch, assignorName: v.assignorName, members: v.members },
  };
}
