/**
 * Prometheus metrics for {@link GroupConsumer}s and their sinks, through prom-client. Embedding
 * users read {@link ConsumerPrometheusMetrics.registry} (or pass their own) and serve it next to
 * their other metrics; `kafka-eos run --metrics-port` serves it with {@link serveMetrics}.
 *
 * Metrics (prefix `kafka_eos_` by default; every one labelled `group`):
 * - `partition_lag`, `partition_position`, `partition_high_watermark` (gauges, records/offsets,
 *   labels topic, partition): read from each consumer's metrics() at scrape time; lag is the high
 *   watermark (the last fetch response, or ListOffsets for a partition not fetched, e.g. paused) minus the position
 *   (exactly-once: the position the sink stored, whatever the consumer is doing).
 * - `assigned_partitions` (gauge).
 * - `records_processed_total` (topic, partition), `commits_total` (target: kafka | sink),
 *   `fenced_writes_total` (topic, partition), `rebalances_total`, `retries_total`,
 *   `dead_lettered_total`, `skipped_total`, `errors_total` (code: the KafkaEosError code, else the error's name).
 * - `rebalance_duration_seconds` (histogram): from revocation (or the first join) to the new
 *   assignment being positioned.
 * - `sink_write_duration_seconds` (histogram, label outcome: committed | staged | fenced | error):
 *   one ExactlyOnceSink.write() call, for sinks wrapped with {@link ConsumerPrometheusMetrics.instrumentSink}.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { GroupConsumer } from '../consumer/group-consumer';
import type { RebalanceRecord } from '../consumer/metrics';
import type { ExactlyOnceSink, SinkContext, WriteResult } from '../sink-contract';
import type { SinkBatch, TopicPartition } from '../records';
import { HEALTH_STATES, type ConsumerHealth } from './health';

/** Options of {@link ConsumerPrometheusMetrics}. */
export interface ConsumerPrometheusOptions {
  /** Register into this registry (default: a new one, see `registry`). */
  registry?: Registry;
  /** Metric name prefix (default `kafka_eos_`). */
  prefix?: string;
  /** Buckets of rebalance_duration_seconds (default 0.05 s … 120 s). */
  rebalanceBuckets?: number[];
  /** Buckets of sink_write_duration_seconds (default 1 ms … 10 s). */
  sinkWriteBuckets?: number[];
}

/** The error code used as a label: KafkaEosError.code, else the error's name, else UNKNOWN. */
export function errorCodeOf(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown } | null;
  if (e && typeof e.code === 'string' && e.code !== '') return e.code;
  if (e && typeof e.name === 'string' && e.name !== '' && e.name !== 'Error') return e.name;
  return 'UNKNOWN';
}

/**
 * The metrics of any number of consumers (distinguished by their group id) in one registry.
 * Attach each consumer with {@link attach}; wrap exactly-once sinks with {@link instrumentSink}
 * before handing them to the consumer.
 */
export class ConsumerPrometheusMetrics {
  /** The registry holding every metric below; serve `await registry.metrics()` as text/plain. */
  readonly registry: Registry;
  private readonly consumers = new Map<GroupConsumer, string>();
  private readonly processed: Counter<'group' | 'topic' | 'partition'>;
  private readonly commits: Counter<'group' | 'target'>;
  private readonly fenced: Counter<'group' | 'topic' | 'partition'>;
  private readonly rebalances: Counter<'group'>;
  private readonly retries: Counter<'group'>;
  private readonly deadLettered: Counter<'group'>;
  private readonly skipped: Counter<'group'>;
  private readonly errors: Counter<'group' | 'code'>;
  private readonly rebalanceSeconds: Histogram<'group'>;
  private readonly sinkWriteSeconds: Histogram<'group' | 'outcome'>;
  private readonly sinkBlockedRefusals: Counter<'group'>;
  private readonly healths = new Map<ConsumerHealth, string>();
  /** Errors by group and code, as errors_total counts them: the status line reads the same numbers. */
  private readonly errorCounts = new Map<string, Map<string, number>>();

  constructor(options: ConsumerPrometheusOptions = {}) {
    this.registry = options.registry ?? new Registry();
    const p = options.prefix ?? 'kafka_eos_';
    const registers = [this.registry];
    const partitionGauge = (name: string, help: string,
      pick: (x: { position: bigint | null; highWatermark: bigint | null; lag: bigint | null }) => bigint | null) => {
      const consumers = this.consumers;
      return new Gauge({
        name: p + name, help, labelNames: ['group', 'topic', 'partition'], registers,
        collect() {
          this.reset();
          for (const [c, group] of consumers) {
            for (const part of c.metrics().partitions) {
              const v = pick(part);
              if (v !== null) this.set({ group, topic: part.topic, partition: String(part.partition) }, Number(v));
            }
          }
        },
      });
    };
    partitionGauge('partition_lag', 'High watermark minus the position (exactly-once: the sink\'s stored one), records', (x) => x.lag);
    partitionGauge('partition_position', 'The position: the sink\'s stored next offset (exactly-once), else the next offset '
      + 'after the last handled batch', (x) => x.position);
    partitionGauge('partition_high_watermark', 'High watermark as last seen (fetch response or ListOffsets)', (x) => x.highWatermark);
    const consumers = this.consumers;
    new Gauge({
      name: p + 'assigned_partitions', help: 'Partitions currently assigned to the attached consumers', labelNames: ['group'], registers,
      collect() {
        this.reset();
        const counts = new Map<string, number>();
        for (const [c, group] of consumers) counts.set(group, (counts.get(group) ?? 0) + c.metrics().partitions.length);
        for (const [group, n] of counts) this.set({ group }, n);
      },
    });
    this.processed = new Counter({ name: p + 'records_processed_total', help: 'Records handed to the handler or sink',
      labelNames: ['group', 'topic', 'partition'], registers });
    this.commits = new Counter({ name: p + 'commits_total',
      help: 'Offset commits: to Kafka, or sink writes that committed or staged positions', labelNames: ['group', 'target'], registers });
    this.fenced = new Counter({ name: p + 'fenced_writes_total',
      help: 'Sink writes refused because another writer moved the position on', labelNames: ['group', 'topic', 'partition'], registers });
    this.rebalances = new Counter({ name: p + 'rebalances_total', help: 'Completed rebalances (assignments received)',
      labelNames: ['group'], registers });
    this.retries = new Counter({ name: p + 'retries_total', help: 'Processing retries', labelNames: ['group'], registers });
    this.deadLettered = new Counter({ name: p + 'dead_lettered_total', help: 'Records produced to a dead-letter topic',
      labelNames: ['group'], registers });
    this.skipped = new Counter({ name: p + 'skipped_total', help: 'Records stepped over by the skip poison policy',
      labelNames: ['group'], registers });
    this.errors = new Counter({ name: p + 'errors_total', help: 'Errors by code', labelNames: ['group', 'code'], registers });
    this.sinkBlockedRefusals = new Counter({ name: p + 'sink_blocked_refusals_total',
      help: 'Writes the sink refused as a whole (sink-blocked: a missing table or column, a privilege, read-only)',
      labelNames: ['group'], registers });
    const healths = this.healths;
    new Gauge({
      name: p + 'health_state', labelNames: ['group', 'state'], registers,
      help: `1 for the state each consumer is in, 0 for the others (${HEALTH_STATES.join(', ')}); ready = the /readyz answer`,
      collect() {
        this.reset();
        for (const [h, group] of healths) {
          const { state } = h.report();
          for (const s of HEALTH_STATES) this.set({ group, state: s }, s === state ? 1 : 0);
        }
      },
    });
    this.rebalanceSeconds = new Histogram({
      name: p + 'rebalance_duration_seconds', help: 'From revocation (or the first join) to the new assignment being positioned',
        labelNames: ['group'], registers,
      buckets: options.rebalanceBuckets ?? [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    });
    this.sinkWriteSeconds = new Histogram({
      name: p + 'sink_write_duration_seconds', help: 'One sink write (all batches of one call, with their offsets)',
        labelNames: ['group', 'outcome'], registers,
      buckets: options.sinkWriteBuckets ?? [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
  }

  /**
   * Follows a consumer's events (batch, commit, fenced, rebalance, retry, dead-letter, error,
   * sink-unavailable) and reads its metrics() at scrape time. Returns the function that detaches it.
   */
  attach(consumer: GroupConsumer, groupId: string): () => void {
    this.consumers.set(consumer, groupId);
    const group = groupId;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const handlers: Record<string, (arg: any) => void> = {
      batch: (b: { topic: string; partition: number; records: number }) => this.processed.inc({ group, topic: b.topic,
        partition: String(b.partition) }, b.records),
      commit: () => this.commits.inc({ group, target: 'kafka' }),
      fenced: (f: TopicPartition) => this.fenced.inc({ group, topic: f.topic, partition: String(f.partition) }),
      rebalance: (r: RebalanceRecord) => { this.rebalances.inc({ group }); this.rebalanceSeconds.observe({ group },
        r.durationMs / 1000); },
      retry: () => this.retries.inc({ group }),
      'dead-letter': () => this.deadLettered.inc({ group }),
      skipped: (x: { records: number }) => this.skipped.inc({ group }, x.records),
      error: (e: unknown) => this.countError(group, e),
      'sink-unavailable': (i: { error: unknown }) => this.countError(group, i.error),
      'sink-blocked': () => this.sinkBlockedRefusals.inc({ group }),
    };
    // The typed map is checked where the handlers are written; the loop attaches them by name.
    const emitter = consumer as unknown as NodeJS.EventEmitter;
    for (const [event, fn] of Object.entries(handlers)) emitter.on(event, fn);
    return () => {
      for (const [event, fn] of Object.entries(handlers)) emitter.off(event, fn);
      this.consumers.delete(consumer);
    };
  }

  /** Exports `health`'s state as kafka_eos_health_state{group, state} (1 for the current one). Returns the detach function. */
  attachHealth(health: ConsumerHealth, groupId: string): () => void {
    this.healths.set(health, groupId);
    return () => { this.healths.delete(health); };
  }

  /** Errors of `groupId` by code, as counted into errors_total (the consumer's errors and the sink's outages). */
  errorsByCode(groupId: string): ReadonlyMap<string, number> {
    return this.errorCounts.get(groupId) ?? new Map();
  }

  private countError(group: string, error: unknown): void {
    const code = errorCodeOf(error);
    this.errors.inc({ group, code });
    const counts = this.errorCounts.get(group) ?? new Map<string, number>();
    counts.set(code, (counts.get(code) ?? 0) + 1);
    this.errorCounts.set(group, counts);
  }

  /**
   * Wraps a sink so each write() is timed into sink_write_duration_seconds and each committed or
   * staged write counts as a commit (target sink); `onCommitted` is told of each committed write's
   * batches. Everything else is passed through unchanged,
   * including the optional flush/discard/onDurable/seek and atomicAcrossPartitions.
   */
  instrumentSink(sink: ExactlyOnceSink, onCommitted?: (batches: readonly SinkBatch[]) => void): ExactlyOnceSink {
    const observe = (groupId: string, started: bigint, outcome: string) =>
      this.sinkWriteSeconds.observe({ group: groupId, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    const wrapped: ExactlyOnceSink = {
      get atomicAcrossPartitions() { return sink.atomicAcrossPartitions; },
      get offsetsInGroup() { return sink.offsetsInGroup; },
      get transactionalOutput() { return sink.transactionalOutput; },
      open: (groupId, partitions, context) => sink.open(groupId, partitions, context),
      write: async (groupId: string, batches: SinkBatch[], context?: SinkContext): Promise<WriteResult> => {
        const started = process.hrtime.bigint();
        let result: WriteResult;
        try {
          result = await sink.write(groupId, batches, context);
        } catch (e) {
          observe(groupId, started, 'error');
          throw e;
        }
        observe(groupId, started, result.status);
        if (result.status !== 'fenced') this.commits.inc({ group: groupId, target: 'sink' });
        if (result.status === 'committed') onCommitted?.(batches);
        return result;
      },
      close: () => sink.close(),
    };
    if (sink.flush) wrapped.flush = (groupId, partitions) => sink.flush!(groupId, partitions);
    if (sink.discard) wrapped.discard = (partitions) => sink.discard!(partitions);
    if (sink.checkOutputs) wrapped.checkOutputs = (outputs, source) => sink.checkOutputs!(outputs, source);
    if (sink.onDurable) wrapped.onDurable = (listener) => sink.onDurable!(listener);
    if (sink.seek) wrapped.seek = (groupId, request) => sink.seek!(groupId, request);
    return wrapped;
  }
}
