/**
 * One partition's log: record batches kept as the bytes the producer sent, with the log start
 * offset, the log end offset and the high watermark (equal here: there are no lagging
 * replicas). Offsets are plain numbers internally (exact up to 2^53) and bigint on the wire.
 * Retention by bytes and by time moves the log start offset, as Kafka's segment deletion does,
 * but per batch rather than per segment.
 */
import { BatchHeader } from '../../protocol/record-batch';

const EMPTY = Buffer.alloc(0);

export interface StoredBatch {
  baseOffset: number;
  lastOffset: number;
  maxTimestamp: bigint;
  appendTimeMs: number;
  isControl: boolean;
  isTransactional: boolean;
  producerId: bigint;
  bytes: Buffer;
}

export interface RetentionPolicy {
  /** retention.bytes per partition; -1 = unbounded. */
  retentionBytes: number;
  /** retention.ms; -1 = unbounded. */
  retentionMs: number;
}

export interface ReadResult {
  chunks: Buffer[];
  bytes: number;
}

export class PartitionLog {
  private readonly batches: StoredBatch[] = [];
  private head = 0; // index of the first live batch
  private appendListeners = new Set<() => void>();
  logStartOffset = 0;
  logEndOffset = 0;
  sizeBytes = 0;
  leaderEpoch = 0;
  /** Each leader epoch and the offset it started at (Kafka's leader epoch cache). */
  private readonly epochStarts: { epoch: number; startOffset: number }[] = [{ epoch: 0, startOffset: 0 }];

  constructor(
    readonly topic: string,
    readonly partition: number,
    public leaderId: number,
    public replicas: number[],
    private retention: RetentionPolicy,
  ) {}

  /** The high watermark: every appended record is committed at once in the mock. */
  get highWatermark(): number {
    return this.logEndOffset;
  }

  get batchCount(): number {
    return this.batches.length - this.head;
  }

  /**
   * Appends validated batches, assigning consecutive offsets, and rewrites base offset and leader
   * epoch in the stored bytes. By default each batch is copied so that the request frame is not
   * retained; `copy: false` keeps the caller's bytes (when they are most of their buffer, a copy
   * would only double the memory). Returns the base offset of the first batch.
   */
  append(batches: { header: BatchHeader; bytes: Buffer }[], nowMs: number, options: { copy?: boolean } = {}): number {
    const first = this.logEndOffset;
    const copyBytes = options.copy ?? true;
    for (const { header, bytes } of batches) {
      let copy = bytes;
      if (copyBytes) {
        copy = Buffer.allocUnsafe(bytes.length);
        bytes.copy(copy);
      }
      copy.writeBigInt64BE(BigInt(this.logEndOffset), 0);
      copy.writeInt32BE(this.leaderEpoch, 12);
      const stored: StoredBatch = {
        baseOffset: this.logEndOffset,
        lastOffset: this.logEndOffset + header.lastOffsetDelta,
        maxTimestamp: header.maxTimestamp,
        appendTimeMs: nowMs,
        isControl: header.isControl,
        isTransactional: header.isTransactional,
        producerId: header.producerId,
        bytes: copy,
      };
      this.batches.push(stored);
      this.logEndOffset = stored.lastOffset + 1;
      this.sizeBytes += copy.length;
    }
    this.enforceRetention(nowMs);
    this.wake();
    return first;
  }

  /**
   * Moves leadership to broker `leaderId` (or -1: offline) with a leader epoch bump, and wakes
   * parked fetches so that they answer NOT_LEADER_OR_FOLLOWER at once, as Kafka does when a
   * partition's leadership changes under a long poll.
   */
  changeLeader(leaderId: number): void {
    if (leaderId >= 0) this.leaderId = leaderId;
    this.leaderEpoch++;
    // Kafka's LeaderEpochFileCache.assign on makeLeader: entries at or after the new start go.
    while (this.epochStarts.length > 0 && this.epochStarts[this.epochStarts.length - 1].startOffset >= this.logEndOffset) {
      this.epochStarts.pop();
    }
    this.epochStarts.push({ epoch: this.leaderEpoch, startOffset: this.logEndOffset });
    this.wake();
  }

  /**
   * The end offset of leader epoch `epoch` (OffsetForLeaderEpoch), as Kafka's
   * LeaderEpochFileCache.endOffsetFor: the current epoch ends at the log end offset; an older one
   * where the next epoch starts (reported with the largest known epoch ≤ the requested one); a
   * newer or undefined one is (-1, -1).
   */
  endOffsetFor(epoch: number): { epoch: number; endOffset: number } {
    if (epoch < 0) return { epoch: -1, endOffset: -1 };
    if (epoch === this.leaderEpoch) return { epoch, endOffset: this.logEndOffset };
    const higher = this.epochStarts.find((e) => e.epoch > epoch);
    if (!higher) return { epoch: -1, endOffset: -1 };
    const floor = [...this.epochStarts].reverse().find((e) => e.epoch <= epoch);
    return { epoch: floor ? floor.epoch : epoch, endOffset: higher.startOffset };
  }

  /** Replaces the retention policy (AlterConfigs); it applies from the next append on. */
  setRetention(policy: RetentionPolicy): void {
    this.retention = { ...policy };
  }

  /** Wakes every parked reader (they re-check their condition). */
  wake(): void {
    for (const l of [...this.appendListeners]) l();
  }

  /** Calls `listener` after every append until the returned function is called. */
  onAppend(listener: () => void): () => void {
    this.appendListeners.add(listener);
    return () => this.appendListeners.delete(listener);
  }

  /** Index of the first live batch whose last offset is ≥ `offset`, or -1. */
  private findBatch(offset: number): number {
    let lo = this.head;
    let hi = this.batches.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.batches[mid].lastOffset >= offset) {
        found = mid;
        hi = mid - 1;
      } else lo = mid + 1;
    }
    return found;
  }

  /**
   * Whole batches from the one holding `offset`, below `upTo` (the high watermark, or the LSO
   * for read_committed), up to `maxBytes`. When `minOneBatch` is set the first batch is
   * returned even if it is larger than `maxBytes` (KIP-74), so a consumer always progresses.
   */
  read(offset: number, maxBytes: number, minOneBatch: boolean, upTo = this.highWatermark): ReadResult {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let i = this.findBatch(offset);
    if (i < 0) return { chunks, bytes };
    for (; i < this.batches.length; i++) {
      const b = this.batches[i];
      if (b.baseOffset >= upTo) break;
      if (bytes + b.bytes.length > maxBytes && !(minOneBatch && chunks.length === 0)) break;
      chunks.push(b.bytes);
      bytes += b.bytes.length;
    }
    return { chunks, bytes };
  }

  /** The live batches, oldest first (read-only view for inspection and timestamp look-ups). */
  liveBatches(): readonly StoredBatch[] {
    return this.batches.slice(this.head);
  }

  /** DeleteRecords: moves the log start offset forward (never back) and drops whole batches below it. */
  deleteBefore(offset: number): void {
    if (offset <= this.logStartOffset) return;
    this.logStartOffset = Math.min(offset, this.logEndOffset);
    this.dropBatchesBelow(this.logStartOffset);
  }

  private dropBatchesBelow(offset: number): void {
    while (this.head < this.batches.length && this.batches[this.head].lastOffset < offset) {
      const dropped = this.batches[this.head];
      this.sizeBytes -= dropped.bytes.length;
      dropped.bytes = EMPTY; // release the payload now; the small record goes with the next compaction
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.batches.length) {
      this.batches.splice(0, this.head);
      this.head = 0;
    }
  }

  private enforceRetention(nowMs: number): void {
    const { retentionBytes, retentionMs } = this.retention;
    while (this.head < this.batches.length - 1) {
      const oldest = this.batches[this.head];
      const tooBig = retentionBytes >= 0 && this.sizeBytes > retentionBytes;
      const tooOld = retentionMs >= 0 && nowMs - oldest.appendTimeMs > retentionMs;
      if (!tooBig && !tooOld) break;
      this.logStartOffset = oldest.lastOffset + 1;
      this.dropBatchesBelow(this.logStartOffset);
    }
  }
}
