/**
 * CreateTopics (key 19), v0-v7. v1 adds validateOnly and error messages; v2 throttleTimeMs; v5 is
 * flexible and answers each created (or validated) topic's partition count, replication factor and
 * configs (as DescribeConfigs reports them, KIP-525); v6 = v5 (THROTTLING_QUOTA_EXCEEDED, KIP-599,
 * never answered: no quotas); v7 answers the created topic's id (KIP-516; zero for validateOnly).
 * numPartitions and replicationFactor of -1 take the cluster defaults (KIP-464). Manual replica
 * assignments (`assignments`: partition index → broker ids, leader first) are checked as Kafka's
 * ReplicationControlManager.createTopic does: numPartitions and replicationFactor must be -1
 * (INVALID_REQUEST), partitions 0..n-1 once each, known brokers, no broker twice, the same replica
 * count everywhere (INVALID_REPLICA_ASSIGNMENT). More than MAX_PARTITIONS_PER_TOPIC partitions answer
 * INVALID_PARTITIONS (a mock limit: one request for 2^31-1 partitions would exhaust memory).
 */
import { TopicError } from '../cluster';
import { topicEntries } from '../config-entries';
import { ErrorCode } from '../../../protocol/error-codes';
import { CreateTopics } from '../../../protocol/messages/admin';
import { MAX_PARTITIONS_PER_TOPIC } from './37-create-partitions';
import { Body, defineHandler } from './types';

const ZERO_UUID = '0'.repeat(32);

/** The manual assignment as replica lists by partition index, or Kafka's refusal. */
function manualAssignment(assignments: readonly Body[]): number[][] | TopicError {
  const byPartition = new Map<number, number[]>();
  for (const a of assignments) {
    if (byPartition.has(a.partitionIndex)) {
      return new TopicError('INVALID_REPLICA_ASSIGNMENT', `Found multiple manual partition assignments for partition ${a.partitionIndex}`);
    }
    byPartition.set(a.partitionIndex, a.brokerIds);
  }
  const plan: number[][] = [];
  for (let i = 0; i < byPartition.size; i++) {
    const replicas = byPartition.get(i);
    if (!replicas) return new TopicError('INVALID_REPLICA_ASSIGNMENT', 'partitions should be a consecutive 0-based integer sequence');
    plan.push(replicas);
  }
  return plan;
}

export const createTopicsHandler = defineHandler(CreateTopics, {
  minVersion: 0,
  maxVersion: 7,
  handle(req, ctx) {
    const seen = new Set<string>();
    const topics = req.topics.map((t) => {
      if (seen.has(t.name)) {
        return { name: t.name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `topic '${t.name}' appears twice in the request` };
      }
      seen.add(t.name);
      if (t.numPartitions > MAX_PARTITIONS_PER_TOPIC || t.assignments.length > MAX_PARTITIONS_PER_TOPIC) {
        return {
          name: t.name, errorCode: ErrorCode.INVALID_PARTITIONS,
          errorMessage: `the mock cluster allows at most ${MAX_PARTITIONS_PER_TOPIC} partitions per topic`,
        };
      }
      const configs: Record<string, string | null> = {};
      for (const c of t.configs) configs[c.name] = c.value;
      try {
        const plan = t.assignments.length > 0 ? manualAssignment(t.assignments) : undefined;
        if (plan instanceof TopicError) throw plan;
        const topic = ctx.cluster.createTopic(t.name, t.numPartitions, t.replicationFactor, configs, req.validateOnly, plan);
        const topicId = req.validateOnly ? ZERO_UUID : topic.topicId;
        const created = { name: t.name, topicId, errorCode: 0, errorMessage: null };
        if (ctx.version < 5) return created;
        const rf = plan ? plan[0].length : t.replicationFactor === -1
          ? Math.min(ctx.cluster.config.defaultReplicationFactor, ctx.cluster.brokers.length)
          : t.replicationFactor;
        return {
          ...created,
          numPartitions: plan ? plan.length : t.numPartitions === -1 ? ctx.cluster.config.defaultPartitions : t.numPartitions,
          replicationFactor: rf,
          configs: topicEntries(ctx.cluster, topic, ctx.nodeId).map((e) => ({
            name: e.name, value: e.sensitive ? null : e.value, readOnly: e.readOnly, configSource: e.source, isSensitive: e.sensitive,
          })),
        };
      } catch (e) {
        if (!(e instanceof TopicError)) throw e;
        return { name: t.name, errorCode: ErrorCode[e.kafkaError], errorMessage: e.message };
      }
    });
    return { throttleTimeMs: 0, topics };
  },
});
