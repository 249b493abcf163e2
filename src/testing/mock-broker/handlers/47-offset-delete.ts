/**
 * OffsetDelete (key 47), v0 only (KIP-496; Kafka has no later version). Deletes committed
 * offsets of an Empty group, or of a consumer group for topics it no longer subscribes to
 * (GROUP_SUBSCRIBED_TO_TOPIC per partition otherwise). Unknown groups answer GROUP_ID_NOT_FOUND,
 * unknown partitions UNKNOWN_TOPIC_OR_PARTITION. Sent to the group's coordinator.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { OffsetDelete } from '../../../protocol/messages/admin';
import { isCoordinator } from './group-common';
import { defineHandler } from './types';

export const offsetDeleteHandler = defineHandler(OffsetDelete, {
  minVersion: 0,
  maxVersion: 0,
  handle(req, ctx) {
    if (!isCoordinator(ctx, req.groupId)) return { errorCode: ErrorCode.NOT_COORDINATOR, throttleTimeMs: 0, topics: [] };
    const res = ctx.cluster.groups.deleteOffsets({ groupId: req.groupId, topics: req.topics });
    return { throttleTimeMs: 0, ...res };
  },
});
