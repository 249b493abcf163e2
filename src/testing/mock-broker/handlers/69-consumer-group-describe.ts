/**
 * ConsumerGroupDescribe (key 69), v0 (KIP-848), flexible. Each group is answered by its coordinator
 * (NOT_COORDINATOR otherwise); an unknown or classic group is GROUP_ID_NOT_FOUND. Members carry their current
 * and target assignments by topic id and name. With no ACLs every operation is allowed (DESCRIBE|READ|DELETE).
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { ConsumerGroupDescribe } from '../../../protocol/messages/consumer-group';
import { GROUP_AUTHORIZED_OPERATIONS, NOT_REQUESTED } from './15-describe-groups';
import { isCoordinator } from './group-common';
import { Handler } from './types';

export const consumerGroupDescribeHandler: Handler = {
  schema: ConsumerGroupDescribe,
  minVersion: 0,
  maxVersion: 0,
  handle(req, ctx) {
    const groups = (req.groupIds as string[]).map((groupId) => {
      if (!isCoordinator(ctx, groupId)) {
        return {
          errorCode: ErrorCode.NOT_COORDINATOR, errorMessage: null, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0,
          assignorName: '', members: [], authorizedOperations: NOT_REQUESTED,
        };
      }
      const [described] = ctx.cluster.groups.describeConsumerGroups([groupId]);
      const ops = req.includeAuthorizedOperations && described.errorCode === ErrorCode.NONE ? GROUP_AUTHORIZED_OPERATIONS : NOT_REQUESTED;
      return { ...described, authorizedOperations: ops };
    });
    return { throttleTimeMs: 0, groups };
  },
};
