/** The handler registry: one entry per API key. ApiVersions advertises exactly these. */
import { KafkaEosError } from '../../../errors';
import { produceHandler } from './00-produce';
import { fetchHandler } from './01-fetch';
import { listOffsetsHandler } from './02-list-offsets';
import { metadataHandler } from './03-metadata';
import { offsetCommitHandler } from './08-offset-commit';
import { offsetFetchHandler } from './09-offset-fetch';
import { findCoordinatorHandler } from './10-find-coordinator';
import { joinGroupHandler } from './11-join-group';
import { heartbeatHandler } from './12-heartbeat';
import { leaveGroupHandler } from './13-leave-group';
import { syncGroupHandler } from './14-sync-group';
import { apiVersionsHandler } from './18-api-versions';
import { createTopicsHandler } from './19-create-topics';
import { describeGroupsHandler } from './15-describe-groups';
import { listGroupsHandler } from './16-list-groups';
import { saslHandshakeHandler } from './17-sasl-handshake';
import { deleteTopicsHandler } from './20-delete-topics';
import { deleteRecordsHandler } from './21-delete-records';
import { describeConfigsHandler } from './32-describe-configs';
import { saslAuthenticateHandler } from './36-sasl-authenticate';
import { createPartitionsHandler } from './37-create-partitions';
import { deleteGroupsHandler } from './42-delete-groups';
import { offsetDeleteHandler } from './47-offset-delete';
import { initProducerIdHandler } from './22-init-producer-id';
import { addPartitionsToTxnHandler } from './24-add-partitions-to-txn';
import { addOffsetsToTxnHandler } from './25-add-offsets-to-txn';
import { endTxnHandler } from './26-end-txn';
import { txnOffsetCommitHandler } from './28-txn-offset-commit';
import { offsetForLeaderEpochHandler } from './23-offset-for-leader-epoch';
import { describeAclsHandler } from './29-describe-acls';
import { createAclsHandler } from './30-create-acls';
import { deleteAclsHandler } from './31-delete-acls';
import { alterConfigsHandler } from './33-alter-configs';
import { describeLogDirsHandler } from './35-describe-log-dirs';
import { incrementalAlterConfigsHandler } from './44-incremental-alter-configs';
import { alterPartitionReassignmentsHandler } from './45-alter-partition-reassignments';
import { listPartitionReassignmentsHandler } from './46-list-partition-reassignments';
import { describeClientQuotasHandler } from './48-describe-client-quotas';
import { alterClientQuotasHandler } from './49-alter-client-quotas';
import { describeUserScramCredentialsHandler } from './50-describe-user-scram-credentials';
import { alterUserScramCredentialsHandler } from './51-alter-user-scram-credentials';
import { describeClusterHandler } from './60-describe-cluster';
import { describeProducersHandler } from './61-describe-producers';
import { describeTransactionsHandler } from './65-describe-transactions';
import { listTransactionsHandler } from './66-list-transactions';
import { consumerGroupHeartbeatHandler } from './68-consumer-group-heartbeat';
import { consumerGroupDescribeHandler } from './69-consumer-group-describe';
import { withSaslGate } from './sasl';
import type { Handler } from './types';

export function createRegistry(): ReadonlyMap<number, Handler> {
  const registry = new Map<number, Handler>();
  const all: Handler[] = [
    produceHandler, fetchHandler, listOffsetsHandler, metadataHandler, offsetCommitHandler,
    offsetFetchHandler, findCoordinatorHandler, joinGroupHandler, heartbeatHandler,
    leaveGroupHandler, syncGroupHandler, apiVersionsHandler(() => registry), createTopicsHandler,
    describeGroupsHandler, listGroupsHandler, saslHandshakeHandler, deleteTopicsHandler, deleteRecordsHandler,
    describeConfigsHandler, saslAuthenticateHandler, createPartitionsHandler, deleteGroupsHandler, offsetDeleteHandler,
    initProducerIdHandler, addPartitionsToTxnHandler, addOffsetsToTxnHandler, endTxnHandler, txnOffsetCommitHandler,
    offsetForLeaderEpochHandler, describeAclsHandler, createAclsHandler, deleteAclsHandler, alterConfigsHandler,
    describeLogDirsHandler, incrementalAlterConfigsHandler, alterPartitionReassignmentsHandler,
      listPartitionReassignmentsHandler, describeClientQuotasHandler, alterClientQuotasHandler,
    describeUserScramCredentialsHandler, alterUserScramCredentialsHandler,
    describeClusterHandler, describeProducersHandler, describeTransactionsHandler, listTransactionsHandler,
    consumerGroupHeartbeatHandler, consumerGroupDescribeHandler,
  ];
  for (const h of all) {
    if (registry.has(h.schema.apiKey)) throw new KafkaEosError('INTERNAL_ERROR', `two handlers for API key ${h.schema.apiKey}`);
    registry.set(h.schema.apiKey, h);
  }
  // SASL: with users configured, requests before authentication close the connection (see sasl.ts).
  for (const [key, h] of registry) registry.set(key, withSaslGate(h));
  return registry;
}
