/**
 * The `range` assignor, following Java's `org.apache.kafka.clients.consumer.RangeAssignor`
 * (without rack awareness).
 *
 * Per topic: lay out the partitions in numeric order and the topic's subscribers in Java's member
 * order (group.instance.id when present, else member id), give each subscriber
 * `floor(partitions / subscribers)` consecutive partitions, and one extra to each of the first
 * `partitions % subscribers` subscribers. Topics are independent, so with identical subscriptions
 * the same members always get the extra partitions (co-partitioning, and an imbalance that adds up
 * across topics).
 *
 * Example (Java's Javadoc): C0 and C1 both subscribe to t0 and t1, 3 partitions each:
 * C0 = [t0p0, t0p1, t1p0, t1p1], C1 = [t0p2, t1p2].
 */
import {
  compareMembers,
  existingTopics,
  finishAssignment,
  type GroupAssignment,
  type GroupSubscriptions,
  type PartitionsPerTopic,
  type TopicPartition,
} from '../../protocol/consumer-protocol';

/** Protocol name shared with Java, librdkafka and kafka-python consumers. */
export const RANGE_ASSIGNOR_NAME = 'range';

/**
 * Pure range assignment.
 *
 * @param subscriptions memberId -> subscription (only `topics` and `groupInstanceId` are read).
 * @param partitionsPerTopic topic -> partition count; unknown or empty topics are skipped.
 * @returns every member, each with its partitions sorted by topic then partition.
 * @throws KafkaEosError `ASSIGNOR_INVALID_INPUT` on a negative or fractional partition count.
 */
export function assignRange(subscriptions: GroupSubscriptions, partitionsPerTopic: PartitionsPerTopic): GroupAssignment {
  const topics = existingTopics(partitionsPerTopic);
  const subscribers = new Map<string, { memberId: string; groupInstanceId?: string | null }[]>();
  for (const [memberId, sub] of subscriptions) {
    for (const topic of new Set(sub.topics)) {
      if (!topics.has(topic)) continue;
      let list = subscribers.get(topic);
      if (!list) subscribers.set(topic, (list = []));
      list.push({ memberId, groupInstanceId: sub.groupInstanceId });
    }
  }

  const lists = new Map<string, TopicPartition[]>();
  for (const [topic, consumers] of subscribers) {
    consumers.sort(compareMembers);
    const count = topics.get(topic) ?? 0;
    const perConsumer = Math.floor(count / consumers.length);
    const withExtra = count % consumers.length;
    consumers.forEach(({ memberId }, i) => {
      const start = i * perConsumer + Math.min(i, withExtra);
      const length = perConsumer + (i < withExtra ? 1 : 0);
      let list = lists.get(memberId);
      if (!list) lists.set(memberId, (list = []));
      for (let p = start; p < start + length; p++) list.push({ topic, partition: p });
    });
  }
  return finishAssignment(subscriptions.keys(), lists);
}
