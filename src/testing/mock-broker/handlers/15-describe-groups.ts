/**
 * DescribeGroups (key 15), v0-v5. v1 adds throttleTimeMs, v3 includeAuthorizedOperations and
 * authorizedOperations (KIP-430), v4 members' groupInstanceId (KIP-345), v5 is flexible (KIP-482).
 * Each group is answered by its coordinator; a group this broker does not coordinate answers
 * NOT_COORDINATOR. Unknown groups are described as Dead with no error, as Kafka does up to v5.
 * Member metadata and the protocol name are shown only while the group is Stable (Kafka's rule).
 * With no ACLs every operation is allowed, so authorizedOperations is DESCRIBE|READ|DELETE.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { DescribeGroups } from '../../../protocol/messages/admin';
import { isCoordinator } from './group-common';
import { defineHandler } from './types';

/** AclOperation codes: READ 3, DELETE 6, DESCRIBE 8 (what a group resource supports). */
export const GROUP_AUTHORIZED_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);
/** authorizedOperations when they were not asked for (Kafka's Integer.MIN_VALUE). */
export const NOT_REQUESTED = -2147483648;

export const describeGroupsHandler = defineHandler(DescribeGroups, {
  minVersion: 0,
  maxVersion: 5,
  handle(req, ctx) {
    const ops = req.includeAuthorizedOperations ? GROUP_AUTHORIZED_OPERATIONS : NOT_REQUESTED;
    const groups = req.groups.map((groupId) => {
      if (!isCoordinator(ctx, groupId)) {
        return {
          errorCode: ErrorCode.NOT_COORDINATOR, groupId, groupState: '', protocolType: '', protocolData: '', members: [],
          authorizedOperations: NOT_REQUESTED,
        };
      }
      const [described] = ctx.cluster.groups.describeGroups([groupId]);
      return { ...described, authorizedOperations: described.errorCode === 0 ? ops : NOT_REQUESTED };
    });
    return { throttleTimeMs: 0, groups };
  },
});
