/**
 * ListGroups (key 16), v0-v5. v1 adds throttleTimeMs, v3 is flexible (KIP-482), v4 adds
 * statesFilter and each group's state (KIP-518; the filter matches case-insensitively, and an
 * empty filter lists every group), v5 typesFilter and each group's type, `classic` or `consumer`
 * (KIP-848; a consumer group's protocol type is `consumer`, its states Empty, Assigning,
 * Reconciling, Stable). As in Kafka, a broker lists only the groups it coordinates,
 * so an admin client asks every broker and merges the answers.
 */
import { ListGroups } from '../../../protocol/messages/admin';
import { defineHandler } from './types';

export const listGroupsHandler = defineHandler(ListGroups, {
  minVersion: 0,
  maxVersion: 5,
  handle(req, ctx) {
    const { cluster } = ctx;
    if (cluster.down.has(ctx.nodeId)) return { throttleTimeMs: 0, errorCode: 0, groups: [] };
    const groups = cluster.groups
      .listGroups(ctx.version >= 4 ? req.statesFilter : [], ctx.version >= 5 ? req.typesFilter : [])
      .filter((g) => cluster.coordinatorFor(g.groupId) === ctx.nodeId);
    return { throttleTimeMs: 0, errorCode: 0, groups };
  },
});
