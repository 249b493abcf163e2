/** Heartbeat (key 12), v0-v3. v1 adds throttleTimeMs, v3 groupInstanceId (KIP-345). */
import { ErrorCode } from '../../../protocol/error-codes';
import { Heartbeat } from '../../../protocol/messages/group';
import { isCoordinator, requestContext } from './group-common';
import { defineHandler } from './types';

export const heartbeatHandler = defineHandler(Heartbeat, {
  minVersion: 0,
  maxVersion: 4,
  handle(req, ctx) {
    if (!isCoordinator(ctx, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR };
    const res = ctx.cluster.groups.heartbeat(req, requestContext(ctx));
    return { throttleTimeMs: 0, ...res };
  },
});
