/**
 * JoinGroup (key 11), v0-v9. v1 adds rebalanceTimeoutMs (v0 uses the session timeout), v2
 * throttleTimeMs, v4 MEMBER_ID_REQUIRED for a first join with an empty member id (KIP-394),
 * v5 groupInstanceId for static membership (KIP-345), v6 is flexible, v7 answers the group's
 * protocolType and a nullable protocolName (null on errors, KIP-559), v8 carries the member's
 * reason (KIP-800, recorded with the join in the event log), v9 skipAssignment: a static leader
 * rejoining a stable group is told it leads but need not assign (KIP-814; older versions name
 * another leader). The group logic is in group-coordinator.ts.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { JoinGroup } from '../../../protocol/messages/group';
import { isCoordinator, requestContext } from './group-common';
import { defineHandler } from './types';

export const joinGroupHandler = defineHandler(JoinGroup, {
  minVersion: 0,
  maxVersion: 9,
  async handle(req, ctx) {
    if (!isCoordinator(ctx, req.groupId)) {
      const protocolName = ctx.version >= 7 ? null : '';
      return {
        throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, generationId: -1, protocolType: null, protocolName,
        leader: '', memberId: req.memberId, members: [],
      };
    }
    const rebalanceTimeoutMs = ctx.version === 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs;
    const res = await ctx.cluster.groups.joinGroup({ ...req, rebalanceTimeoutMs }, requestContext(ctx));
    return { throttleTimeMs: 0, ...res, protocolName: ctx.version >= 7 ? res.protocolName : res.protocolName ?? '' };
  },
});
