/**
 * ListPartitionReassignments (key 46), v0 (KIP-455; flexible). Answers the reassignments in progress (replicas, adding,
 * removing; ../reassignments.ts), as Kafka's ReplicationControlManager.listPartitionReassignments: of every topic
 * (null), or of the partitions named; unknown topics and partitions are left out, and so is a topic with nothing in
 * progress.
 */
import { ListPartitionReassignments } from '../../../protocol/messages/cluster-admin';
import type { OngoingReassignment } from '../reassignments';
import { defineHandler } from './types';

export const listPartitionReassignmentsHandler = defineHandler(ListPartitionReassignments, {
  minVersion: 0,
  maxVersion: 0,
  handle(req, ctx) {
    const { cluster } = ctx;
    const wanted: OngoingReassignment[] = req.topics === null
      ? cluster.reassignments.all()
      : req.topics.flatMap((t) => t.partitionIndexes.map((p) => {
        const log = cluster.topics.get(t.name)?.partitions[p];
        return log ? cluster.reassignments.of(log) : undefined;
      }).filter((o): o is OngoingReassignment => o !== undefined));
    const byTopic = new Map<string, OngoingReassignment[]>();
    for (const o of wanted) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o]);
    const topics = [...byTopic].map(([name, list]) => ({
      name,
      partitions: list.map((o) => ({
        partitionIndex: o.partition, replicas: [...o.replicas], addingReplicas: [...o.adding], removingReplicas: [...o.removing],
      })),
    }));
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, topics };
  },
});
