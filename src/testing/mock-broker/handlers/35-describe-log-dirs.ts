/**
 * DescribeLogDirs (key 35), v0-v4 (v2 flexible, v3 top-level errorCode, v4 totalBytes and
 * usableBytes). Each broker has one log directory, `/mock-kafka/broker-<id>` (nothing is on disk),
 * holding every partition it is a replica of: partitionSize is the partition's stored bytes,
 * offsetLag 0 (replicas are always in sync), no future replicas. topics null = every topic; a
 * topic or partition this broker does not hold is left out, as Kafka does. totalBytes and
 * usableBytes are -1 (unknown).
 */
import { DescribeLogDirs } from '../../../protocol/messages/cluster-admin';
import { Body, defineHandler } from './types';

export const describeLogDirsHandler = defineHandler(DescribeLogDirs, {
  minVersion: 0,
  maxVersion: 4,
  handle(req, ctx) {
    const { cluster, nodeId } = ctx;
    const wanted = req.topics === null ? null : new Map(req.topics.map((t) => [t.topic, new Set(t.partitions)]));
    const topics: Body[] = [];
    for (const topic of cluster.topics.values()) {
      const only = wanted === null ? undefined : wanted.get(topic.name);
      if (wanted !== null && !only) continue;
      const partitions = topic.partitions
        .filter((log) => log.replicas.includes(nodeId) && (only === undefined || only.has(log.partition)))
        .map((log) => ({ partitionIndex: log.partition, partitionSize: BigInt(log.sizeBytes), offsetLag: 0n, isFutureKey: false }));
      if (partitions.length > 0) topics.push({ name: topic.name, partitions });
    }
    return {
      throttleTimeMs: 0, errorCode: 0,
      results: [{ errorCode: 0, logDir: `/mock-kafka/broker-${nodeId}`, topics, totalBytes: -1n, usableBytes: -1n }],
    };
  },
});
