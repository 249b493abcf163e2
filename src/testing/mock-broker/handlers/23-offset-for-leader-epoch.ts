/**
 * OffsetForLeaderEpoch (key 23), v0-v4: the end offset of a leader epoch, which consumers use to
 * detect log truncation after a leader change (KIP-320). v1 adds the epoch in the answer, v2
 * currentLeaderEpoch (FENCED_LEADER_EPOCH when older than the partition's, UNKNOWN_LEADER_EPOCH
 * when newer), v3 replicaId, v4 is flexible. End offsets come from the partition's leader epoch
 * history (PartitionLog.endOffsetFor, after Kafka's LeaderEpochFileCache). The mock never truncates,
 * so a consumer's check always passes.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { OffsetForLeaderEpoch } from '../../../protocol/messages/cluster-admin';
import { Body, defineHandler, leaderLog } from './types';

export const offsetForLeaderEpochHandler = defineHandler(OffsetForLeaderEpoch, {
  minVersion: 0,
  maxVersion: 4,
  handle(req, ctx) {
    const topics = req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => {
        const answer = (errorCode: number, leaderEpoch = -1, endOffset = -1) =>
          ({ errorCode, partition: p.partition, leaderEpoch, endOffset: BigInt(endOffset) });
        const log = leaderLog(ctx, t.topic, p.partition);
        if (typeof log === 'number') return answer(log);
        if (p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch < log.leaderEpoch) return answer(ErrorCode.FENCED_LEADER_EPOCH);
        if (p.currentLeaderEpoch > log.leaderEpoch) return answer(ErrorCode.UNKNOWN_LEADER_EPOCH);
        const end = log.endOffsetFor(p.leaderEpoch);
        return answer(0, end.epoch, end.endOffset);
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
});
