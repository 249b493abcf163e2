/**
 * FindCoordinator (key 10), v0-v2. v1 adds keyType (0 = group, 1 = transaction) and an error
 * message. Placement hashes the key over the brokers, the way Kafka places __consumer_offsets
 * partitions; a test can move a coordinator (faults). A coordinator on a broker that is down
 * answers COORDINATOR_NOT_AVAILABLE.
 */
import { ErrorCode } from '../../protocol/error-codes';
import { FindCoordinator } from '../../protocol/messages/group';
import { defineHandler } from './types';

export const findCoordinatorHandler = defineHandler(FindCoordinator, {
  minVersion: 0,
  maxVersion: 3,
  handle(req, ctx) {
    const { cluster } = ctx;
    if (req.keyType !== 0 && req.keyType !== 1) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `unknown key type ${req.keyType}`, nodeId: -1, host: '', port: -1 };
    }
    const nodeId = cluster.coordinatorFor(req.key);
    const broker = cluster.broker(nodeId);
    if (!broker || cluster.down.has(nodeId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'the coordinator is not available', nodeId: -1, host: '', port: -1 };
    }
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId, host: broker.host, port: broker.port };
  },
});
