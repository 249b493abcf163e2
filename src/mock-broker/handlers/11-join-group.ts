/**
 * JoinGroup (key 11), v0-v5. v1 adds rebalanceTimeoutMs (v0 uses the session timeout), v2
 * throttleTimeMs, v4 MEMBER_ID_REQUIRED for a first join with an empty member id (KIP-394),
 * v5 groupInstanceId for static membership (KIP-345). The group logic is in group-coordinator.ts.
 */
import { ErrorCode } from '../../protocol/error-codes';
import { JoinGroup } from '../../protocol/messages/group';
import { isCoordinator, requestContext } from './group-common';
import { defineHandler } from './types';

export const joinGroupHandler = defineHandler(JoinGroup, {
  minVersion: 0,
  maxVersion: 6,
  async handle(req, ctx) {
    if (!isCoordinator(ctx, req.groupId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, generationId: -1, protocolName: '', leader: '', memberId: req.memberId, members: [] };
    }
    const rebalanceTimeoutMs = ctx.version === 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs;
    const res = await ctx.cluster.groups.joinGroup({ ...req, rebalanceTimeoutMs }, requestContext(ctx));
    return { throttleTimeMs: 0, ...res, protocolName: res.protocolName ?? '' };
  },
});
