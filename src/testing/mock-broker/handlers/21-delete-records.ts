/**
 * DeleteRecords (key 21), v0-v2 (KIP-107). v2 is flexible (KIP-482). Moves a partition's log
 * start offset up to the given offset (-1 = the high watermark); the answer's lowWatermark is
 * the new log start offset. An offset above the high watermark or below -1 answers
 * OFFSET_OUT_OF_RANGE; a partition this broker does not lead NOT_LEADER_OR_FOLLOWER. A fetch
 * below the new log start offset then answers OFFSET_OUT_OF_RANGE. Moving the start backwards is
 * a no-op that reports the current start, as Kafka does.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { DeleteRecords } from '../../../protocol/messages/admin';
import { Body, defineHandler, leaderLog } from './types';

export const HIGH_WATERMARK = -1n;

export const deleteRecordsHandler = defineHandler(DeleteRecords, {
  minVersion: 0,
  maxVersion: 2,
  handle(req, ctx) {
    const { cluster } = ctx;
    const topics = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const fail = (errorCode: number) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode });
        const log = leaderLog(ctx, t.name, p.partitionIndex);
        if (typeof log === 'number') return fail(log);
        const requested: bigint = p.offset;
        const hw = BigInt(log.highWatermark);
        if (requested < HIGH_WATERMARK || requested > hw) return fail(ErrorCode.OFFSET_OUT_OF_RANGE);
        const before = log.logStartOffset;
        log.deleteBefore(Number(requested === HIGH_WATERMARK ? hw : requested));
        if (log.logStartOffset !== before) {
          cluster.events.record('records-deleted', { topic: t.name, partition: p.partitionIndex, logStartOffset: log.logStartOffset });
        }
        return { partitionIndex: p.partitionIndex, lowWatermark: BigInt(log.logStartOffset), errorCode: 0 };
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
});
