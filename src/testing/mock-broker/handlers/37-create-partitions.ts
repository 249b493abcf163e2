/**
 * CreatePartitions (key 37), v0-v3 (KIP-195). v2 is flexible (KIP-482); v3 only marks a
 * server-side change. Grows a topic to `count` partitions. New partitions take the replicas the
 * request assigns (one broker list per new partition, all of the topic's replication factor), or
 * else are spread round-robin over the brokers. Errors as Kafka: a count not above the current
 * one is INVALID_PARTITIONS, a bad assignment INVALID_REPLICA_ASSIGNMENT, a topic given twice
 * INVALID_REQUEST, an unknown topic UNKNOWN_TOPIC_OR_PARTITION. validateOnly checks without
 * creating. Any broker accepts the request (KRaft forwards it to the controller).
 */
import { MAX_CLUSTER_PARTITIONS } from '../cluster';
import type { ClusterState, Topic } from '../cluster';
import { ErrorCode } from '../../../protocol/error-codes';
import { CreatePartitions } from '../../../protocol/messages/admin';
import { Body, defineHandler } from './types';

const INVALID_REPLICA_ASSIGNMENT = 39;

/**
 * The most partitions a topic may have in the mock. Kafka sets no such limit, but one request
 * for 2^31-1 partitions would exhaust the process's memory (found by the fuzz test); above this
 * the mock answers INVALID_PARTITIONS. Also applied by CreateTopics.
 */
export const MAX_PARTITIONS_PER_TOPIC = 100_000;

type Outcome = { errorCode: number; errorMessage: string | null };

function plan(cluster: ClusterState, topic: Topic, count: number, assignments: { brokerIds: number[] }[] | null): Outcome | number[][] {
  const current = topic.partitions.length;
  if (count <= current) {
    const msg = count === current
      ? `Topic already has ${current} partitions.`
      : `Topic currently has ${current} partitions, which is higher than the requested ${count}.`;
    return { errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: msg };
  }
  if (count > MAX_PARTITIONS_PER_TOPIC) {
    return {
      errorCode: ErrorCode.INVALID_PARTITIONS,
      errorMessage: `The mock cluster allows at most ${MAX_PARTITIONS_PER_TOPIC} partitions per topic, ${count} requested.`,
    };
  }
  const added = count - current;
  if (cluster.partitionCount + added > MAX_CLUSTER_PARTITIONS) {
    return {
      errorCode: ErrorCode.INVALID_PARTITIONS,
      errorMessage: `The mock cluster holds at most ${MAX_CLUSTER_PARTITIONS} partitions in all;`
        + ` it has ${cluster.partitionCount}, ${added} more requested.`,
    };
  }
  const rf = topic.partitions[0]?.replicas.length ?? 1;
  const ids = cluster.brokers.map((b) => b.nodeId);
  if (assignments !== null) {
    if (assignments.length !== added) {
      return {
        errorCode: INVALID_REPLICA_ASSIGNMENT,
        errorMessage: `Increasing the number of partitions by ${added} but ${assignments.length} assignments provided.`,
      };
    }
    for (const a of assignments) {
      if (a.brokerIds.length !== rf) {
        return {
          errorCode: INVALID_REPLICA_ASSIGNMENT,
          errorMessage: `Inconsistent replication factor between partitions, partition 0 has ${rf}`
            + ` while partitions [${a.brokerIds}] has replication factor ${a.brokerIds.length}.`,
        };
      }
      if (new Set(a.brokerIds).size !== a.brokerIds.length) {
        return {
          errorCode: INVALID_REPLICA_ASSIGNMENT,
          errorMessage: `Duplicate brokers not allowed in replica assignment: ${a.brokerIds.join(', ')}.`,
        };
      }
      const unknown = a.brokerIds.filter((b) => !ids.includes(b));
      if (unknown.length > 0) {
        return { errorCode: INVALID_REPLICA_ASSIGNMENT, errorMessage: `Unknown broker(s) in replica assignment: ${unknown.join(', ')}.` };
      }
    }
    return assignments.map((a) => a.brokerIds);
  }
  if (rf > ids.length) {
    return {
      errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, errorMessage: `Replication factor ${rf} is larger than the ${ids.length} brokers.`,
    };
  }
  const out: number[][] = [];
  for (let p = current; p < count; p++) {
    const replicas: number[] = [];
    for (let r = 0; r < rf; r++) replicas.push(ids[(p + r) % ids.length]);
    out.push(replicas);
  }
  return out;
}

export const createPartitionsHandler = defineHandler(CreatePartitions, {
  minVersion: 0,
  maxVersion: 3,
  handle(req, ctx) {
    const { cluster } = ctx;
    const seen = new Map<string, number>();
    for (const t of req.topics) seen.set(t.name, (seen.get(t.name) ?? 0) + 1);
    const results = req.topics.map((t) => {
      const answer = (o: Outcome) => ({ name: t.name, ...o });
      if ((seen.get(t.name) ?? 0) > 1) {
        return answer({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Duplicate topic ${t.name} in the request.` });
      }
      const topic = cluster.topics.get(t.name);
      if (!topic) return answer({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `The topic '${t.name}' does not exist.` });
      const replicas = plan(cluster, topic, t.count, t.assignments);
      if (!Array.isArray(replicas)) return answer(replicas);
      if (!req.validateOnly) {
        cluster.addPartitions(topic, replicas);
      }
      return answer({ errorCode: 0, errorMessage: null });
    });
    return { throttleTimeMs: 0, results };
  },
});
