/**
 * DescribeCluster (key 60), v0-v1 (KIP-700; flexible from v0; v1 adds endpointType, KIP-919).
 * Answers the live brokers, the cluster id and the controller (the first live broker, as in
 * Metadata), each at its endpoint of the request's listener. endpointType 2 (controllers) is UNSUPPORTED_ENDPOINT_TYPE,
 * as a Kafka broker answers. Authorized operations, when asked for, are every cluster operation (cluster ACLs are not
 * enforced, even with an authorizer: authorize.ts).
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { DescribeCluster } from '../../../protocol/messages/cluster-admin';
import { AclOperation } from '../acls';
import { defineHandler } from './types';

const BROKERS = 1;
/** CLUSTER's operations (Kafka's AclEntry.supportedOperations(CLUSTER)) as a bit field. */
const CLUSTER_OPERATIONS = [
  AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS,
  AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER, AclOperation.DESCRIBE,
].reduce((bits, op) => bits | (1 << op), 0);

export const describeClusterHandler = defineHandler(DescribeCluster, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    const { cluster } = ctx;
    const base = {
      throttleTimeMs: 0, errorCode: 0, errorMessage: null as string | null, endpointType: req.endpointType,
      clusterId: cluster.config.clusterId,
      controllerId: cluster.controllerId, brokers: [] as object[], clusterAuthorizedOperations: -2147483648,
    };
    if (req.endpointType !== BROKERS) {
      return {
        ...base,
        errorCode: ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
        errorMessage: 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER',
      };
    }
    return {
      ...base,
      brokers: cluster.brokers.filter((b) => !cluster.down.has(b.nodeId))
        .map((b) => ({ brokerId: b.nodeId, ...cluster.addressOf(b, ctx.listener.name), rack: b.rack })),
      clusterAuthorizedOperations: req.includeClusterAuthorizedOperations ? CLUSTER_OPERATIONS : -2147483648,
    };
  },
});
