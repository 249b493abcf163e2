/**
 * OffsetFetch (key 9), v1-v7 (v0 read offsets from ZooKeeper and is not served). v2 adds a
 * top-level errorCode and a null topic list meaning "all committed partitions", v3
 * throttleTimeMs, v5 committedLeaderEpoch, v6 is flexible (KIP-482), v7 adds requireStable
 * (KIP-447), which is read but not yet acted on: the answer never carries
 * UNSTABLE_OFFSET_COMMIT for offsets of an open transaction. v8+ (several
 * groups per request) is not served: no client we target sends it. A partition with no commit
 * answers offset -1.
 */
import { ErrorCode } from '../../protocol/error-codes';
import { OffsetFetch } from '../../protocol/messages/group';
import { isCoordinator, requestContext } from './group-common';
import { defineHandler } from './types';

export const offsetFetchHandler = defineHandler(OffsetFetch, {
  minVersion: 1,
  maxVersion: 7,
  handle(req, ctx) {
    if (!isCoordinator(ctx, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, topics: [] };
    const res = ctx.cluster.groups.fetchOffsets({ groupId: req.groupId, topics: req.topics }, requestContext(ctx));
    // v1 has no top-level error: carry a group-level error on every partition instead.
    if (ctx.version < 2 && res.errorCode !== 0) {
      return { topics: res.topics.map((t) => ({ ...t, partitions: t.partitions.map((p) => ({ ...p, errorCode: res.errorCode })) })) };
    }
    return { throttleTimeMs: 0, ...res };
  },
});
