/**
 * ListOffsets (key 2), v0-v10. Timestamp -2 = earliest (the log start offset), -1 = latest
 * (the high watermark, or the LSO for read_committed, v2+), otherwise the first offset whose
 * record timestamp is ≥ the given one (-1 offset if none, or if that offset is not below the high
 * watermark, or the LSO for read_committed: Kafka does not look past an open transaction). v0 answers with oldStyleOffsets;
 * v1+ with a single offset and timestamp; v4 adds leader epochs. v7 (KIP-734) adds -3, the record
 * with the largest timestamp (the first such record of the first batch holding it, below the
 * high watermark or LSO, with its batch's leader epoch), v8 (KIP-405) -4, the local log start
 * offset, which without tiered storage is the log start offset, v9 (KIP-1005) -5, the last tiered
 * offset: without tiered storage offset -1 and epoch -1 with no error, as Kafka's UnifiedLog
 * answers. v10 (KIP-1075) adds timeoutMs for remote lookups, which the mock never needs. As in
 * Kafka, the special timestamps are honoured whatever the version that carries them.
 */
import { decodeBatch } from '../../../protocol/record-batch';
import { ErrorCode } from '../../../protocol/error-codes';
import { ListOffsets } from '../../../protocol/messages/data';
import { PartitionLog, StoredBatch } from '../partition-log';
import { AclOperation } from '../acls';
import { topicAllowed } from './authorize';
import { lastStableOffset } from '../transactions/producer-state';
import { Body, defineHandler } from './types';

export const EARLIEST = -2n;
export const LATEST = -1n;
/** KIP-734 (v7+): the record with the largest timestamp. */
export const MAX_TIMESTAMP = -3n;
/** KIP-405 (v8+): the first offset of the local log (the log start offset without tiered storage). */
export const EARLIEST_LOCAL = -4n;
/** KIP-1005 (v9+): the last offset in remote storage (none without tiered storage). */
export const LATEST_TIERED = -5n;

type Found = { offset: bigint; timestamp: bigint; leaderEpoch?: number } | null;

/**
 * KIP-734: the first record carrying the log's largest timestamp, if it is below `end` (the high
 * watermark, or the LSO for read_committed), as Kafka's UnifiedLog and Partition answer -3. Control
 * batches count, as in Kafka. A LogAppendTime batch's records all carry its max timestamp.
 */
export function offsetOfMaxTimestamp(log: PartitionLog, end: number, maxDecompressedBytes?: number): Found {
  let best: StoredBatch | null = null;
  for (const b of log.liveBatches()) if (best === null || b.maxTimestamp > best.maxTimestamp) best = b;
  if (best === null) return null;
  const { header, records } = decodeBatch(best.bytes, maxDecompressedBytes);
  const logAppendTime = (header.attributes & 0x08) !== 0;
  const rec = logAppendTime ? records[0] : records.find((r) => r.timestamp === header.maxTimestamp);
  if (!rec || rec.offset >= BigInt(end)) return null;
  const leaderEpoch = header.partitionLeaderEpoch >= 0 ? header.partitionLeaderEpoch : -1;
  return { offset: rec.offset, timestamp: header.maxTimestamp, leaderEpoch };
}

/** The first record at or after `timestamp` (ms): scans batches by max timestamp, then records. */
export function offsetForTimestamp(
  log: PartitionLog, timestamp: bigint, maxDecompressedBytes?: number,
): { offset: bigint; timestamp: bigint } | null {
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
  maxVersion: 10,
  handle(req, ctx) {
    const topics = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const base = {
          partitionIndex: p.partitionIndex, errorCode: 0, oldStyleOffsets: [] as bigint[], timestamp: -1n, offset: -1n, leaderEpoch: -1,
        };
        if (!topicAllowed(ctx, AclOperation.DESCRIBE, t.name)) return { ...base, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
        const log = ctx.cluster.partition(t.name, p.partitionIndex);
        if (!log) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
        if (log.leaderId !== ctx.nodeId) return { ...base, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
        const end = req.isolationLevel === 1 ? lastStableOffset(log) : log.highWatermark;
        const maxBytes = ctx.cluster.maxDecompressedBatchBytes;
        let found: Found;
        if (p.timestamp === EARLIEST || p.timestamp === EARLIEST_LOCAL) found = { offset: BigInt(log.logStartOffset), timestamp: -1n };
        else if (p.timestamp === LATEST) found = { offset: BigInt(end), timestamp: -1n };
        else if (p.timestamp === MAX_TIMESTAMP) found = offsetOfMaxTimestamp(log, end, maxBytes);
        else if (p.timestamp === LATEST_TIERED) found = { offset: -1n, timestamp: -1n, leaderEpoch: -1 };
        else found = offsetForTimestamp(log, p.timestamp, maxBytes);
        // As Kafka's Partition.fetchOffsetForTimestamp: a timestamp lookup answers only offsets below the
        // last fetchable offset (the LSO for read_committed, else the high watermark); past it, none.
        if (p.timestamp >= 0n && found && found.offset >= BigInt(end)) found = null;
        const offset = found ? found.offset : -1n;
        const leaderEpoch = found ? found.leaderEpoch ?? log.leaderEpoch : -1;
        return { ...base, offset, timestamp: found ? found.timestamp : -1n, leaderEpoch, oldStyleOffsets: found ? [offset] : [] };
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
});
