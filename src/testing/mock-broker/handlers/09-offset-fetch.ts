/**
 * OffsetFetch (key 9), v1-v9 (v0 read offsets from ZooKeeper and is not served). v2 adds a
 * top-level errorCode and a null topic list meaning "all committed partitions", v3
 * throttleTimeMs, v5 committedLeaderEpoch, v6 is flexible (KIP-482), v7 adds requireStable
 * (KIP-447): a partition whose offset an open transaction holds (TxnOffsetCommit, not yet ended) answers
 * UNSTABLE_OFFSET_COMMIT, for every group of a v8+ request, as Kafka's OffsetMetadataManager does. v8 asks for several groups in one
 * request (KIP-709), each answered by its coordinator (NOT_COORDINATOR per group otherwise); v9 adds
 * each group's memberId and memberEpoch (KIP-848): for a consumer group, a member id that is not a member is
 * UNKNOWN_MEMBER_ID and an epoch that is not the member's STALE_MEMBER_EPOCH (null with -1: no check).
 * A partition with no commit answers offset -1.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { OffsetFetch } from '../../../protocol/messages/group';
import { isCoordinator, requestContext } from './group-common';
import { Body, defineHandler, HandlerContext } from './types';

/** v8+: one entry of `groups`. */
function fetchGroup(g: Body, ctx: HandlerContext, req: Body): Body {
  if (!isCoordinator(ctx, g.groupId)) return { groupId: g.groupId, topics: [], errorCode: ErrorCode.NOT_COORDINATOR };
  const memberId = ctx.version >= 9 ? (g.memberId as string | null) : null;
  const res = ctx.cluster.groups.fetchOffsets(
    {
      groupId: g.groupId, topics: g.topics, memberId, memberEpoch: ctx.version >= 9 ? g.memberEpoch : -1,
      requireStable: req.requireStable === true,
    },
    requestContext(ctx),
  );
  return { groupId: g.groupId, topics: res.topics, errorCode: res.errorCode };
}

export const offsetFetchHandler = defineHandler(OffsetFetch, {
  minVersion: 1,
  maxVersion: 9,
  handle(req, ctx) {
    if (ctx.version >= 8) return { throttleTimeMs: 0, groups: (req.groups as Body[]).map((g) => fetchGroup(g, ctx, req)) };
    if (!isCoordinator(ctx, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, topics: [] };
    const res = ctx.cluster.groups.fetchOffsets(
      { groupId: req.groupId, topics: req.topics, requireStable: ctx.version >= 7 && req.requireStable === true }, requestContext(ctx),
    );
    // v1 has no top-level error: carry a group-level error on every partition instead.
    if (ctx.version < 2 && res.errorCode !== 0) {
      return { topics: res.topics.map((t) => ({ ...t, partitions: t.partitions.map((p) => ({ ...p, errorCode: res.errorCode })) })) };
    }
    return { throttleTimeMs: 0, ...res };
  },
});
