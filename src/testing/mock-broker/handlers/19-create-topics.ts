/**
 * CreateTopics (key 19), v0-v7. v1 adds validateOnly and error messages; v2 throttleTimeMs; v5 is
 * flexible and answers each created (or validated) topic's partition count, replication factor and
 * configs (as DescribeConfigs reports them, KIP-525); v6 = v5 (THROTTLING_QUOTA_EXCEEDED, KIP-599,
 * never answered: no quotas); v7 answers the created topic's id (KIP-516; zero for validateOnly).
 * numPartitions and replicationFactor of -1 take the cluster defaults (KIP-464). Manual
 * replica assignments are not supported and answer INVALID_REQUEST. More than
 * MAX_PARTITIONS_PER_TOPIC partitions answer INVALID_PARTITIONS (a mock limit: one request for
 * 2^31-1 partitions would exhaust memory).
 */
import { TopicError } from '../cluster';
import { ErrorCode } from '../../../protocol/error-codes';
import { CreateTopics } from '../../../protocol/messages/admin';
import { MAX_PARTITIONS_PER_TOPIC } from './37-create-partitions';
import { topicEntries } from './32-describe-configs';
import { Body, defineHandler } from './types';

const ZERO_UUID = '0'.repeat(32);

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
      if (t.assignments.length > 0) {
        return {
          name: t.name, errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: 'manual replica assignment is not supported by the mock cluster',
        };
      }
      if (t.numPartitions > MAX_PARTITIONS_PER_TOPIC) {
        return {
          name: t.name, errorCode: ErrorCode.INVALID_PARTITIONS,
          errorMessage: `the mock cluster allows at most ${MAX_PARTITIONS_PER_TOPIC} partitions per topic`,
        };
      }
      const configs: Record<string, string | null> = {};
      for (const c of t.configs) configs[c.name] = c.value;
      try {
        const topic = ctx.cluster.createTopic(t.name, t.numPartitions, t.replicationFactor, configs, req.validateOnly);
        const topicId = req.validateOnly ? ZERO_UUID : topic.topicId;
        const created = { name: t.name, topicId, errorCode: 0, errorMessage: null };
        if (ctx.version < 5) return created;
        const rf = t.replicationFactor === -1
          ? Math.min(ctx.cluster.config.defaultReplicationFactor, ctx.cluster.brokers.length)
          : t.replicationFactor;
        return {
          ...created,
          numPartitions: t.numPartitions === -1 ? ctx.cluster.config.defaultPartitions : t.numPartitions,
          replicationFactor: rf,
          configs: topicEntries(ctx.cluster, topic).map((e) => ({
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
