/**
 * AlterPartitionReassignments (key 45), v0 (KIP-455; flexible). Per partition, target replicas (or null to cancel),
 * checked as Kafka's ReplicationControlManager.alterPartitionReassignment: an unknown topic or partition is
 * UNKNOWN_TOPIC_OR_PARTITION, a target with an unknown broker, a broker twice or no broker INVALID_REPLICA_ASSIGNMENT
 * (validateManualPartitionAssignment's messages), a cancel with nothing in progress NO_REASSIGNMENT_IN_PROGRESS. A
 * target that adds replicas is in progress until they catch up, else it completes at once (../reassignments.ts); a
 * cancel reverts to the original replicas. Any broker answers (Kafka forwards to the controller).
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { AlterPartitionReassignments } from '../../../protocol/messages/cluster-admin';
import { defineHandler, HandlerContext } from './types';

function reassign(ctx: HandlerContext, topic: string, partition: number,
  replicas: number[] | null): { errorCode: number; errorMessage: string | null } {
  const t = ctx.cluster.topics.get(topic);
  if (!t) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Unable to find a topic named ${topic}.` };
  const log = t.partitions[partition];
  if (!log) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Unable to find partition ${topic}:${partition}.` };
  if (replicas === null) {
    if (ctx.cluster.cancelReassignment(log)) return { errorCode: 0, errorMessage: null };
    return { errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: 'No partition reassignment is in progress.' };
  }
  const invalid = ctx.cluster.replicaListError(replicas);
  if (invalid) return { errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: invalid };
  ctx.cluster.reassignPartition(log, replicas);
  return { errorCode: 0, errorMessage: null };
}

export const alterPartitionReassignmentsHandler = defineHandler(AlterPartitionReassignments, {
  minVersion: 0,
  maxVersion: 0,
  handle(req, ctx) {
    const responses = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, ...reassign(ctx, t.name, p.partitionIndex, p.replicas) })),
    }));
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses };
  },
});
