/**
 * ListPartitionReassignments (key 46), v0 (KIP-455; flexible). Answers the reassignments in progress, as Kafka's
 * ReplicationControlManager.listPartitionReassignments: of every topic (null), or of the partitions named (unknown
 * topics and partitions left out; a topic with nothing in progress is not listed). The mock completes every
 * reassignment at once (45-alter-partition-reassignments.ts), so none is ever in progress and the list is empty.
 */
import { ListPartitionReassignments } from '../../../protocol/messages/cluster-admin';
import { defineHandler } from './types';

export const listPartitionReassignmentsHandler = defineHandler(ListPartitionReassignments, {
  minVersion: 0,
  maxVersion: 0,
  handle() {
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, topics: [] };
  },
});
