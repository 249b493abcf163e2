/**
 * Manual assignment (Kafka's `KafkaConsumer.assign()`) on KafkaJS 2.2.4, which only consumes
 * through a group. The consumer joins a private group of one, named
 * `<groupId>.kafka-eos-assign.<uuid>`, whose assignor hands that one member exactly the requested
 * partitions: nobody else ever joins it, so it never rebalances. Offsets are never committed to
 * the private group: they live in the sink (exactly-once) or are committed to `groupId` with
 * "simple" commits (generation -1), as Kafka's assign() consumers do; positions are read back
 * from there on start. The private group is left on stop and, holding no offsets, disappears.
 */
import { randomUUID } from 'node:crypto';
import type { Admin, PartitionAssigner } from 'kafkajs';
import { encodeAssignment, encodeSubscription } from './assignors';
import type { ManualAssignment } from './options';
import { partitionKey, TopicPartition } from '../records';

export const MANUAL_ASSIGNOR_NAME = 'kafka-eos-assign';

export function privateGroupId(groupId: string): string {
  return `${groupId}.kafka-eos-assign.${randomUUID()}`;
}

export function manualPartitions(assign: ManualAssignment[]): TopicPartition[] {
  return assign.flatMap((a) => a.partitions.map((partition) => ({ topic: a.topic, partition })));
}

/** Gives the (only) member of the private group every requested partition. */
export function manualAssigner(assign: ManualAssignment[]): PartitionAssigner {
  const assignedPartitions = manualPartitions(assign);
  return () => ({
    name: MANUAL_ASSIGNOR_NAME,
    version: 0,
    protocol: ({ topics }) => ({ name: MANUAL_ASSIGNOR_NAME, metadata: encodeSubscription({ topics }, 0) }),
    async assign({ members }) {
      return members.map((m, i) => ({
        memberId: m.memberId,
        memberAssignment: encodeAssignment({ assignedPartitions: i === 0 ? assignedPartitions : [] }, 0),
      }));
    },
  });
}

/** Positions committed under `groupId`, or the log start (fromBeginning) / end where none is. */
export async function committedPositions(
  admin: Admin, groupId: string, partitions: TopicPartition[], fromBeginning: boolean,
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const topic of new Set(partitions.map((p) => p.topic))) {
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const ends = await admin.fetchTopicOffsets(topic);
    for (const tp of partitions.filter((p) => p.topic === topic)) {
      const c = committed?.partitions.find((p) => p.partition === tp.partition);
      const end = ends.find((e) => e.partition === tp.partition);
      const fallback = BigInt(fromBeginning ? end?.low ?? '0' : end?.high ?? '0');
      out.set(partitionKey(tp), c && BigInt(c.offset) >= 0n ? BigInt(c.offset) : fallback);
    }
  }
  return out;
}
