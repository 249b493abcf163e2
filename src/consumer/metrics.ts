/**
 * Consumer metrics: per-partition lag (high watermark − position, from each fetched batch),
 * records processed per second (over a sliding window), rebalances with their durations (ms, from
 * the start of revocation, or the first join, to the assignment being ready), and error counts.
 */
import { partitionKey, TopicPartition } from '../records';

export interface PartitionMetrics extends TopicPartition {
  /** Next offset this member will consume (null until the first batch). */
  position: bigint | null;
  /** The partition's high watermark as of the last fetch (null until the first batch). */
  highWatermark: bigint | null;
  /** highWatermark − position, ≥ 0 (null until the first batch). */
  lag: bigint | null;
}

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
    for (const tp of partitions) this.lag.delete(partitionKey(tp));
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

  position(tp: TopicPartition): bigint | null {
    return this.lag.get(partitionKey(tp))?.position ?? null;
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
      partitions: [...this.lag.values()].map((p) => ({ ...p })),
    };
  }
}
