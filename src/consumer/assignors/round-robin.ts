/**
 * The `roundrobin` assignor, following Java's `org.apache.kafka.clients.consumer.RoundRobinAssignor`.
 *
 * Lays out every partition of every subscribed topic (topics in Java string order, partitions
 * ascending) and deals them to the members in Java's member order (group.instance.id when present,
 * else member id) in a circle, skipping members not subscribed to the partition's topic. With
 * identical subscriptions counts differ by at most one; with different subscriptions the result can
 * be unbalanced (use `sticky` for balance).
 *
 * Example (Java's Javadoc): C0 {t0}, C1 {t0,t1}, C2 {t0,t1,t2}; t0, t1, t2 with 1, 2, 3 partitions:
 * C0 = [t0p0], C1 = [t1p0], C2 = [t1p1, t2p0, t2p1, t2p2].
 */
import {
  compareMembers,
  compareStrings,
  existingTopics,
  finishAssignment,
  type GroupAssignment,
  type GroupSubscriptions,
  type PartitionsPerTopic,
  type TopicPartition,
} from '../../protocol/consumer-protocol';

/** Protocol name shared with Java, librdkafka and kafka-python consumers. */
export const ROUND_ROBIN_ASSIGNOR_NAME = 'roundrobin';

/**
 * Pure round-robin assignment.
 *
 * @param subscriptions memberId -> subscription (only `topics` and `groupInstanceId` are read).
 * @param partitionsPerTopic topic -> partition count; unknown or empty topics are skipped.
 * @returns every member, each with its partitions sorted by topic then partition.
 * @throws KafkaEosError `ASSIGNOR_INVALID_INPUT` on a negative or fractional partition count.
 */
export function assignRoundRobin(subscriptions: GroupSubscriptions, partitionsPerTopic: PartitionsPerTopic): GroupAssignment {
  const topicCounts = existingTopics(partitionsPerTopic);
  const members = [...subscriptions].map(([memberId, sub]) => ({
    memberId,
    groupInstanceId: sub.groupInstanceId,
    topics: new Set(sub.topics),
  }));
  members.sort(compareMembers);

  const allTopics = new Set<string>();
  for (const m of members) for (const t of m.topics) if (topicCounts.has(t)) allTopics.add(t);

  const lists = new Map<string, TopicPartition[]>(members.map((m) => [m.memberId, []]));
  let next = 0; // index of the member the circular iterator points at
  for (const topic of [...allTopics].sort(compareStrings)) {
    const count = topicCounts.get(topic) ?? 0;
    for (let partition = 0; partition < count; partition++) {
      // Terminates: the topic is in allTopics only because some member subscribes to it.
      while (!members[next]!.topics.has(topic)) next = (next + 1) % members.length;
      lists.get(members[next]!.memberId)!.push({ topic, partition });
      next = (next + 1) % members.length;
    }
  }
  return finishAssignment(subscriptions.keys(), lists);
}
