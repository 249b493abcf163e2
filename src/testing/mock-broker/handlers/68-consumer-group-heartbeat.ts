/**
 * ConsumerGroupHeartbeat (key 68), v0-v1 (KIP-848), flexible from v0. v0: the coordinator makes the member id
 * on the first heartbeat (epoch 0); v1: the client makes it (KIP-1082) and may subscribe by regular expression.
 * A broker that does not coordinate the group answers NOT_COORDINATOR. The consumer group coordinator
 * (groups/consumer/protocol.ts) does the rest: joins, epochs, reconciliation, leaves.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { ConsumerGroupHeartbeat } from '../../../protocol/messages/consumer-group';
import type { ConsumerGroupHeartbeatRequest } from '../groups/consumer/types';
import { isCoordinator, requestContext } from './group-common';
import { Handler } from './types';

export const consumerGroupHeartbeatHandler: Handler = {
  schema: ConsumerGroupHeartbeat,
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    if (!isCoordinator(ctx, req.groupId)) {
      return {
        throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, errorMessage: null, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0,
        assignment: null,
      };
    }
    const res = ctx.cluster.groups.consumerGroupHeartbeat(req as ConsumerGroupHeartbeatRequest, requestContext(ctx));
    return { throttleTimeMs: 0, ...res };
  },
};
