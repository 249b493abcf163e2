/**
 * SyncGroup (key 14), v0-v5. v1 adds throttleTimeMs, v3 groupInstanceId (KIP-345), v4 is
 * flexible, v5 (KIP-559) carries protocolType and protocolName both ways: a request naming another
 * type or protocol than the group's is INCONSISTENT_GROUP_PROTOCOL, and the answer names the group's.
 * The leader sends the assignments; every member receives its own once the leader has synced.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { SyncGroup } from '../../../protocol/messages/group';
import { isCoordinator, requestContext } from './group-common';
import { defineHandler } from './types';

export const syncGroupHandler = defineHandler(SyncGroup, {
  minVersion: 0,
  maxVersion: 5,
  async handle(req, ctx) {
    if (!isCoordinator(ctx, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, assignment: Buffer.alloc(0) };
    const res = await ctx.cluster.groups.syncGroup(req, requestContext(ctx));
    return { throttleTimeMs: 0, ...res };
  },
});
