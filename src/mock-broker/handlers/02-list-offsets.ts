/**
 * ListOffsets (key 2), v0-v5. Timestamp -2 = earliest (the log start offset), -1 = latest
 * (the high watermark, or the LSO for read_committed, v2+), otherwise the first offset whose
 * record timestamp is ≥ the given one (-1 offset if none). v0 answers with oldStyleOffsets;
 * v1+ with a single offset and timestamp; v4 adds leader epochs.
 */
import { decodeBatch } from '../../protocol/record-batch';
import { ErrorCode } from '../../protocol/error-codes';
import { ListOffsets } from '../../protocol/messages/data';
import { PartitionLog } from '../partition-log';
import { lastStableOffset } from '../transactions/producer-state';
import { Body, defineHandler } from './types';

export const EARLIEST = -2n;
export const LATEST = -1n;

/** The first record at or after `timestamp` (ms): scans batches by max timestamp, then records. */
export function offsetForTimestamp(log: PartitionLog, timestamp: bigint, maxDecompressedBytes?: number): { offset: bigint; timestamp: bigint } | null {
  for (const b of log.liveBatches()) {
    if (b.maxTimestamp < timestamp || b.isControl) continue;
    for (const rec of decodeBatch(b.bytes, maxDecompressedBytes).records) {
      if (rec.timestamp >= timestamp && rec.offset >= BigInt(log.logStartOffset)) return { offset: rec.offset, timestamp: rec.timestamp };
    }
  }
  return null;
}

export const listOffsetsHandler = defineHandler(ListOffsets, {
  minVersion: 0,
  maxVersion: 6,
  handle(req, ctx) {
    const topics = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const base = { partitionIndex: p.partitionIndex, errorCode: 0, oldStyleOffsets: [] as bigint[], timestamp: -1n, offset: -1n, leaderEpoch: -1 };
        const log = ctx.cluster.partition(t.name, p.partitionIndex);
        if (!log) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
        if (log.leaderId !== ctx.nodeId) return { ...base, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
        let found: { offset: bigint; timestamp: bigint } | null;
        if (p.timestamp === EARLIEST) found = { offset: BigInt(log.logStartOffset), timestamp: -1n };
        else if (p.timestamp === LATEST) found = { offset: BigInt(req.isolationLevel === 1 ? lastStableOffset(log) : log.highWatermark), timestamp: -1n };
        else found = offsetForTimestamp(log, p.timestamp, ctx.cluster.maxDecompressedBatchBytes);
        const offset = found ? found.offset : -1n;
        return { ...base, offset, timestamp: found ? found.timestamp : -1n, leaderEpoch: found ? log.leaderEpoch : -1, oldStyleOffsets: found ? [offset] : [] };
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
});
