/**
 * What `kafka-eos run` handled and committed, by partition, so that its last line says what happened and nothing
 * more: where each partition's records are stored up to, where Kafka's group offsets stand, and what was not
 * committed when a stop ran out of time. Fed by the consumer's events (`batch`, `commit`, `assigned`, `revoked`,
 * `lost`); reads nothing from the cluster (at the end the brokers may be gone). The last line speaks of the partitions
 * this member owned when its stop began ({@link ProgressTracker.stopping}); those it gave up earlier (a rebalance moved
 * them) are named apart ({@link ProgressTracker.givenUpLine}): their later records are another member's.
 */
import type { TopicPartition } from '../../records';

/** The consumer events the tracker follows (GroupConsumer's, by name). */
export interface ProgressSource {
  on(event: 'batch', f: (b: { topic: string; partition: number; nextOffset: bigint }) => void): unknown;
  on(event: 'commit', f: (c: { offsets: { topic: string; partition: number; offset: bigint }[] }) => void): unknown;
  on(event: 'assigned' | 'revoked', f: (a: { partitions: TopicPartition[] }) => void): unknown;
  on(event: 'lost', f: (a: { partitions: TopicPartition[] }) => void): unknown;
}

const key = (tp: TopicPartition) => `${tp.topic}-${tp.partition}`;

/** Per partition: the next offset after the last batch handled, the last offset committed to Kafka, whether owned. */
export class ProgressTracker {
  private readonly handled = new Map<string, bigint>();
  private readonly committed = new Map<string, bigint>();
  private readonly owned = new Set<string>();
  /**
   * The next offsets a sink that commits the group's offsets in its own transactions (KafkaSink, `offsetsInGroup`)
   * committed, from its committed writes (see {@link sinkCommitted}); no `commit` event reports those.
   */
  private readonly stored = new Map<string, bigint>();
  /** The partitions owned when the stop began (undefined before). */
  private final: Set<string> | undefined;

  /**
   * `transactionalSink`: the run's sink commits the group's offsets in its own transactions (KafkaSink); they are
   * then reported through {@link sinkCommitted}, and the last line says what was stored, not only what was handled.
   */
  constructor(consumer: ProgressSource, readonly transactionalSink = false) {
    consumer.on('batch', (b) => { this.handled.set(key(b), b.nextOffset); });
    consumer.on('commit', (c) => { for (const o of c.offsets) this.committed.set(key(o), o.offset); });
    consumer.on('assigned', ({ partitions }) => { for (const tp of partitions) this.owned.add(key(tp)); });
    const drop = ({ partitions }: { partitions: TopicPartition[] }) => { for (const tp of partitions) this.owned.delete(key(tp)); };
    consumer.on('revoked', drop);
    consumer.on('lost', drop);
  }

  /**
   * A write of a sink with `offsetsInGroup` (KafkaSink) committed: its batches' next offsets are stored, and are
   * Kafka's group offsets too (committed in the same transaction).
   */
  sinkCommitted(positions: readonly { topic: string; partition: number; nextOffset: bigint }[]): void {
    for (const p of positions) {
      this.stored.set(key(p), p.nextOffset);
      this.committed.set(key(p), p.nextOffset);
    }
  }

  /**
   * With a sink that commits in transactions ({@link ProgressTracker.transactionalSink}): the partitions owned at the
   * end whose handled position is not what the sink committed, with both (null: nothing committed). Empty otherwise.
   */
  notStored(): { partition: string; handled: bigint; stored: bigint | null }[] {
    if (!this.transactionalSink) return [];
    const end = this.ending();
    return this.sorted((k) => end.has(k) && this.stored.get(k) !== this.handled.get(k))
      .map(([partition, handled]) => ({ partition, handled, stored: this.stored.get(partition) ?? null }));
  }

  /** The stop begins: the partitions owned now are the ones the last line speaks of (the stop revokes them next). */
  stopping(): void {
    this.final ??= new Set(this.owned);
  }

  /** The partitions of the end: owned when the stop began, or owned now before any stop. */
  private ending(): Set<string> {
    return this.final ?? this.owned;
  }

  private sorted(keep: (k: string) => boolean): [string, bigint][] {
    return [...this.handled].filter(([k]) => keep(k)).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
  }

  /** `t-0 600, t-1 300`: the next offset after what was handled, per partition owned at the end (sorted). */
  handledLine(): string {
    const end = this.ending();
    return this.sorted((k) => end.has(k)).map(([k, o]) => `${k} ${o}`).join(', ');
  }

  /** `t-2 300`: the same for partitions handled, then given up before the end (a rebalance moved them; sorted). */
  givenUpLine(): string {
    const end = this.ending();
    return this.sorted((k) => !end.has(k)).map(([k, o]) => `${k} ${o}`).join(', ');
  }

  /** Partitions owned at the end whose handled position is past the offset Kafka last took (or Kafka took none), with both. */
  kafkaBehind(): { partition: string; handled: bigint; committed: bigint | null }[] {
    const end = this.ending();
    return [...this.handled].filter(([k, o]) => end.has(k) && this.committed.get(k) !== o)
      .map(([partition, handled]) => ({ partition, handled, committed: this.committed.get(partition) ?? null }))
      .sort((a, b) => a.partition.localeCompare(b.partition, 'en', { numeric: true }));
  }

  /**
   * The partitions still owned (a stop that did not finish) with where they stand: `t-0 (committed up to 600)` when
   * Kafka's group offset reached what was handled, else `t-1 (handled up to 300, Kafka's group offset 250)`; empty when
   * none is owned.
   */
  unfinished(): string[] {
    return [...this.owned].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).map((k) => {
      const h = this.handled.get(k);
      const c = this.committed.get(k);
      if (h === undefined) return `${k} (nothing handled, Kafka's group offset ${c === undefined ? 'none' : c})`;
      return c === h ? `${k} (committed up to ${h})` : `${k} (handled up to ${h}, Kafka's group offset ${c === undefined ? 'none' : c})`;
    });
  }
}
