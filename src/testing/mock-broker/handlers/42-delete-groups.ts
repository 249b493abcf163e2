/**
 * DeleteGroups (key 42), v0-v2 (KIP-229). v2 is flexible (KIP-482). Only an Empty group can be
 * deleted (NON_EMPTY_GROUP otherwise, GROUP_ID_NOT_FOUND when unknown); its committed offsets go
 * with it. Each group is answered by its coordinator; others answer NOT_COORDINATOR.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { DeleteGroups } from '../../../protocol/messages/admin';
import { isCoordinator } from './group-common';
import { defineHandler } from './types';

export const deleteGroupsHandler = defineHandler(DeleteGroups, {
  minVersion: 0,
  maxVersion: 2,
  handle(req, ctx) {
    const results = req.groupsNames.map((groupId) => {
      if (!isCoordinator(ctx, groupId)) return { groupId, errorCode: ErrorCode.NOT_COORDINATOR };
      return ctx.cluster.groups.deleteGroups([groupId])[0];
    });
    return { throttleTimeMs: 0, results };
  },
});
