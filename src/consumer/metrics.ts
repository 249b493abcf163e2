/**
 * Consumer metrics: per-partition lag (the high watermark minus the partition's position: under exactly-once the
 * position the sink stored, whatever the consumer is doing: handling batches, paused, or waiting for the sink; the
 * high watermark from every fetch response, and from ListOffsets for a partition not fetched lately, e.g. paused),
 * records processed per second (over a sliding window), rebalances with their durations (ms, from
 * the start of revocation, or the first join, to the assignment being ready), and error counts.
 */
import { partitionKey, TopicPartition } from '../records';

export interface PartitionMetrics extends TopicPartition {
  /**
   * The partition's position: under exactly-once the next offset the sink stored (durable: a staging sink's tail
   * counts as lag until it is committed); otherwise the next offset after the last handled batch (null until known).
   */
  position: bigint | null;
  /** The partition's high watermark as last seen (a fetch response, or ListOffsets while it is not fetched; null until then). */
  highWatermark: bigint | null;
  /** highWatermark − position, ≥ 0 (null until both are known). */
  lag: bigint | null;
}

/** How often partitions not fetched lately (paused, held) get their high watermark by ListOffsets, ms. */
export const LAG_REFRESH_MS = 2000;

export interface RebalanceRecord {
  /** Epoch ms when revocation (or the first join) began. */
  startedAt: number;
  /** Until the new assignment was positioned and handed to onPartitionsAssigned, ms. */
  durationMs: number;
  revoked: TopicPartition[];
  assigned: TopicPartition[];
}

export interface ConsumerMetricsSnapshot {
  /**
   * Records handled since start (Prometheus `records_processed_total`): written, tombstones, skipped and dead-lettered
   * together (a batch counts every record before the position it ends at, whatever became of each).
   */
  processed: number;
  /**
   * Of `processed`, tombstones (a null value) the handler or sink took (a JDBC sink with delete.enabled deletes their
   * rows); tombstones skipped or dead-lettered by the poison policy count there instead.
   */
  tombstones: number;
  /** Records per second over the last `windowMs`. */
  processedPerSecond: number;
  batches: number;
  errors: number;
  retries: number;
  deadLettered: number;
  skipped: number;
  rebalances: { count: number; lastDurationMs: number | null; totalDurationMs: number; recent: RebalanceRecord[] };
  /** Partitions currently assigned. */
  partitions: PartitionMetrics[];
}

export class ConsumerMetrics {
  private processed = 0;
  private batches = 0;
  private samples: { at: number; records: number }[] = [];
  private readonly lag = new Map<string, PartitionMetrics>();
  /** When each partition's high watermark was last seen (epoch ms). */
  private readonly seenAt = new Map<string, number>();
  /** The positions the sink stored (exactly-once), keyed `topic:partition` (-1n: none). */
  private stored: (() => ReadonlyMap<string, bigint>) | null = null;
  readonly counts = { errors: 0, retries: 0, deadLettered: 0, skipped: 0 };
  private tombstonesHandled = 0;
  /** Tombstones the poison policy skipped or dead-lettered (counted in `skipped` / `deadLettered`, not `tombstones`). */
  private tombstonesPoliced = 0;
  private readonly rebalances: RebalanceRecord[] = [];
  private rebalanceCount = 0;
  private rebalanceTotalMs = 0;

  constructor(private readonly windowMs = 10000, private readonly now: () => number = Date.now) {}

  /** A batch handled: `records` of it (`tombstones` of them with a null value) before `position`. */
  recordBatch(tp: TopicPartition, records: number, position: bigint, highWatermark: bigint, tombstones = 0): void {
    this.processed += records;
    this.tombstonesHandled += tombstones;
    this.batches += 1;
    const at = this.now();
    this.samples.push({ at, records });
    while (this.samples.length > 0 && this.samples[0].at < at - this.windowMs) this.samples.shift();
    const lag = highWatermark > position ? highWatermark - position : 0n;
    this.lag.set(partitionKey(tp), { topic: tp.topic, partition: tp.partition, position, highWatermark, lag });
    this.seenAt.set(partitionKey(tp), at);
  }

  /** Under exactly-once: where the sink's stored positions are read (the lag is counted from them). */
  storedPositions(read: () => ReadonlyMap<string, bigint>): void {
    this.stored = read;
  }

  /** A fetch response or a ListOffsets told the high watermark of an owned partition. */
  highWatermark(tp: TopicPartition, highWatermark: bigint): void {
    const p = this.lag.get(partitionKey(tp));
    if (!p) return;
    p.highWatermark = highWatermark;
    if (p.position !== null) p.lag = highWatermark > p.position ? highWatermark - p.position : 0n;
    this.seenAt.set(partitionKey(tp), this.now());
  }

  /** The owned partitions whose high watermark was not seen for `ms` (or never). */
  staleHighWatermarks(ms: number): TopicPartition[] {
    const before = this.now() - ms;
    return [...this.lag.values()].filter((p) => (this.seenAt.get(partitionKey(p)) ?? 0) < before)
      .map((p) => ({ topic: p.topic, partition: p.partition }));
  }

  /** Partitions newly owned (their figures start empty; partitions already known keep theirs). */
  assigned(partitions: TopicPartition[]): void {
    for (const tp of partitions) {
      const k = partitionKey(tp);
      if (!this.lag.has(k)) this.lag.set(k, { topic: tp.topic, partition: tp.partition, position: null, highWatermark: null, lag: null });
    }
  }

  /** Partitions no longer owned (revoked or lost). */
  removed(partitions: TopicPartition[]): void {
    for (const tp of partitions) {
      this.lag.delete(partitionKey(tp));
      this.seenAt.delete(partitionKey(tp));
    }
  }

  /** Records the poison policy skipped or dead-lettered, `tombstones` of them with a null value. */
  policed(kind: 'skipped' | 'deadLettered', records: number, tombstones: number): void {
    this.counts[kind] += records;
    this.tombstonesPoliced += tombstones;
  }

  recordRebalance(r: RebalanceRecord): void {
    this.rebalanceCount += 1;
    this.rebalanceTotalMs += r.durationMs;
    this.rebalances.push(r);
    if (this.rebalances.length > 20) this.rebalances.shift();
  }

  /** The next offset after the last handled batch (the fetch side: drain() compares it with the high watermarks). */
  position(tp: TopicPartition): bigint | null {
    return this.lag.get(partitionKey(tp))?.position ?? null;
  }

  /** A partition as reported: under exactly-once its position is the sink's stored one, and its lag counts from there. */
  private view(p: PartitionMetrics): PartitionMetrics {
    const stored = this.stored?.().get(partitionKey(p));
    const position = stored !== undefined && stored >= 0n ? stored : p.position;
    const lag = position === null || p.highWatermark === null ? null : p.highWatermark > position ? p.highWatermark - position : 0n;
    return { ...p, position, lag };
  }

  snapshot(): ConsumerMetricsSnapshot {
    const at = this.now();
    const recent = this.samples.filter((s) => s.at >= at - this.windowMs);
    const records = recent.reduce((n, s) => n + s.records, 0);
    return {
      processed: this.processed,
      tombstones: Math.max(0, this.tombstonesHandled - this.tombstonesPoliced),
      processedPerSecond: records / (this.windowMs / 1000),
      batches: this.batches,
      ...this.counts,
      rebalances: {
        count: this.rebalanceCount,
        lastDurationMs: this.rebalances.at(-1)?.durationMs ?? null,
        totalDurationMs: this.rebalanceTotalMs,
        recent: [...this.rebalances],
      },
      partitions: [...this.lag.values()].map((p) => this.view(p)),
    };
  }
}
