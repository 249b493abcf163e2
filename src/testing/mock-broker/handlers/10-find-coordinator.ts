/**
 * FindCoordinator (key 10), v0-v6. v1 adds keyType (0 = group, 1 = transaction) and an error
 * message; v3 is flexible; v4 (KIP-699) batches: coordinatorKeys in, one coordinators entry per key
 * out, each with its own error; v5 = v4 (its clients accept TRANSACTION_ABORTABLE, KIP-890); v6
 * (KIP-932) adds key type 2, share groups, which the mock does not run: INVALID_REQUEST, as Kafka
 * answers while share groups are disabled. Placement hashes the key over the brokers, the way Kafka
 * places __consumer_offsets partitions; a test can move a coordinator (faults). A coordinator on a
 * broker that is down answers COORDINATOR_NOT_AVAILABLE. The address is the coordinator's endpoint of the
 * listener the request came in on.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { FindCoordinator } from '../../../protocol/messages/group';
import { defineHandler, HandlerContext } from './types';

interface Coordinator { key: string; nodeId: number; host: string; port: number; errorCode: number; errorMessage: string | null }

function find(key: string, keyType: number, ctx: HandlerContext): Coordinator {
  const { cluster } = ctx;
  const none = { key, nodeId: -1, host: '', port: -1 };
  if (keyType !== 0 && keyType !== 1) {
    return { ...none, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `unknown or disabled key type ${keyType}` };
  }
  const nodeId = cluster.coordinatorFor(key);
  const broker = cluster.broker(nodeId);
  if (!broker || cluster.down.has(nodeId)) {
    return { ...none, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'the coordinator is not available' };
  }
  return { key, nodeId, ...cluster.addressOf(broker, ctx.listener.name), errorCode: 0, errorMessage: null };
}

export const findCoordinatorHandler = defineHandler(FindCoordinator, {
  minVersion: 0,
  maxVersion: 6,
  handle(req, ctx) {
    if (ctx.version >= 4) {
      return { throttleTimeMs: 0, coordinators: (req.coordinatorKeys as string[]).map((k) => find(k, req.keyType, ctx)) };
    }
    const { key: _key, ...one } = find(req.key, req.keyType, ctx);
    return { throttleTimeMs: 0, ...one };
  },
});
