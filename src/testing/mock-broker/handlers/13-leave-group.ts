/**
 * LeaveGroup (key 13), v0-v5. v0-v2 carry one memberId; v3 carries a list of members, each
 * by member id or group instance id (KIP-345), with a per-member error; v4 is flexible; v5 adds
 * each member's reason (KIP-800), recorded with the leave in the event log.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { LeaveGroup } from '../../../protocol/messages/group';
import { isCoordinator, requestContext } from './group-common';
import { defineHandler } from './types';

export const leaveGroupHandler = defineHandler(LeaveGroup, {
  minVersion: 0,
  maxVersion: 5,
  handle(req, ctx) {
    if (!isCoordinator(ctx, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, members: [] };
    const members = ctx.version >= 3 ? req.members : [{ memberId: req.memberId, groupInstanceId: null }];
    const res = ctx.cluster.groups.leaveGroup({ groupId: req.groupId, members }, requestContext(ctx));
    // v0-v2 have no per-member results: a single member's error is the top-level error.
    const errorCode = ctx.version < 3 && res.errorCode === 0 && res.members.length === 1 ? res.members[0].errorCode : res.errorCode;
    return { throttleTimeMs: 0, errorCode, members: res.members };
  },
});
