/**
 * OffsetCommit (key 8), v0-v9. v1 adds generationId and memberId (v1 also a per-partition
 * commit timestamp, ignored), v2-v4 retentionTimeMs (ignored: offsets live as long as the
 * cluster), v3 throttleTimeMs, v6 committedLeaderEpoch, v7 groupInstanceId (KIP-345), v8 is
 * flexible, v9 (KIP-848) carries a consumer group member's epoch in generationId
 * (STALE_MEMBER_EPOCH when it is not the member's; a KIP-848 member must use v9, UNSUPPORTED_VERSION
 * below) and answers GROUP_ID_NOT_FOUND for an unknown group.
 * A commit with generation -1 and no member id is a "simple" commit, accepted only while the
 * group is Empty (see group-coordinator.ts).
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { OffsetCommit } from '../../../protocol/messages/group';
import { isCoordinator, requestContext } from './group-common';
import { Body, defineHandler } from './types';

export const offsetCommitHandler = defineHandler(OffsetCommit, {
  minVersion: 0,
  maxVersion: 9,
  handle(req, ctx) {
    if (!isCoordinator(ctx, req.groupId)) {
      const topics = req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.NOT_COORDINATOR })),
      }));
      return { throttleTimeMs: 0, topics };
    }
    const generationId = ctx.version === 0 ? -1 : req.generationId;
    const res = ctx.cluster.groups.commitOffsets({ ...req, generationId }, requestContext(ctx));
    return { throttleTimeMs: 0, ...res };
  },
});
