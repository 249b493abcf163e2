/**
 * HdfsSink: writes Kafka records to HDFS files over WebHDFS, exactly once, with the offsets kept in the
 * committed file names (docs/hdfs-sink.md). Records are staged in memory per Kafka partition (one open
 * "file set", one file per partition path) and committed at rotation: by record count (flushSize), by
 * record time (rotateIntervalMs), on a wall-clock schedule (rotateScheduleIntervalMs), and on flush
 * (revoke, stop). Writes answer `staged` until a rotation makes them durable. Not atomic across
 * Kafka partitions: each partition commits on its own.
 */
import type { ExactlyOnceSink, WriteResult } from '../../sink-contract';
import type { DurablePosition, SinkBatch, TopicPartition } from '../../records';
import { partitionKey } from '../../records';
import { SinkWriteError } from '../errors';
import { HdfsLayout } from './commit';
import type { StrayClaim } from './recovery';
import { validateHdfsSinkConfig, type HdfsSinkConfig, type NormalizedHdfsSinkConfig } from './config';
import { Format } from './format';
import { createPartitioner, type Partitioner } from './partitioner';
import { PartitionWriter, type HdfsCommit, type WriterContext } from './partition-writer';
import { WebHdfsClient } from './webhdfs-client';

export type { HdfsCommit } from './partition-writer';

/**
 * The HDFS sink (see the module comment): per-partition staging, commits by claim + publish (commit.ts),
 * positions recovered from the committed file names on open(). Not atomic across partitions.
 */
export class HdfsSink implements ExactlyOnceSink {
  readonly atomicAcrossPartitions = false;
  readonly client: WebHdfsClient;
  readonly layout: HdfsLayout;
  /** Called after each commit (claim + publish). */
  onCommit: ((c: HdfsCommit) => void) | undefined;
  /**
   * Called for each stray claim recovery moved aside: a claim that does not chain from the partition's others
   * (a zombie writer's, committed at a name an `offsets reset --hdfs` freed; docs/hdfs-sink.md). Without a
   * listener each is logged with console.warn.
   */
  onStray: ((s: StrayClaim) => void) | undefined;
  private readonly strayed = (s: StrayClaim) => {
    if (this.onStray) this.onStray(s);
    else console.warn(`kafka-eos HdfsSink: ${s.topic}:${s.partition}: claim ${s.claim} (${s.start}..${s.end}) does not chain from the `
      + `partition's claims (a zombie writer's commit after a reset?): moved aside to ${s.movedTo}, not counted`);
  };
  private readonly cfg: NormalizedHdfsSinkConfig;
  private readonly format: Format;
  private readonly partitioner: Partitioner;
  /** One writer per assigned partition (partition-writer.ts: its state machine, staging and commits). */
  private readonly writers = new Map<string, PartitionWriter>();
  private readonly context: WriterContext;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** A scheduled rotation is under way. */
  private rotating = false;
  /** Listeners of durable positions moved by the schedule (see {@link onDurable}). */
  private readonly durableListeners = new Set<(positions: DurablePosition[]) => void>();

  /** @throws SinkConfigError (CONFIG_INVALID) naming the field. */
  constructor(config: HdfsSinkConfig) {
    this.cfg = validateHdfsSinkConfig(config);
    this.client = new WebHdfsClient({ url: this.cfg.url, user: this.cfg.user, ...this.cfg.retry });
    this.format = new Format(this.cfg.format, this.cfg.includeKafkaCoordinates);
    this.layout = new HdfsLayout(this.cfg.topicsDir, this.format.extension);
    this.partitioner = createPartitioner(this.cfg.partitioner);
    this.context = {
      client: this.client, layout: this.layout, format: this.format, partitioner: this.partitioner, cfg: this.cfg,
      strayed: this.strayed, committed: (c) => this.onCommit?.(c), closed: () => this.closed,
    };
    if (this.cfg.rotateScheduleIntervalMs !== undefined) {
      this.timer = setInterval(() => void this.scheduledRotation(), this.cfg.rotateScheduleIntervalMs);
      this.timer.unref();
    }
  }

  /**
   * Recovers each partition from HDFS (never from Kafka): publishes a claim whose writer died before
   * publishing, deletes orphaned temp files, drops anything staged here, and returns the next offset
   * (end of the last committed file + 1; -1n when none).
   * @throws WebHdfsError (retriable) when HDFS stays unavailable; SinkWriteError SINK_CLOSED.
   */
  async open(_groupId: string, partitions: TopicPartition[]): Promise<Map<string, bigint>> {
    this.assertOpen();
    const out = new Map<string, bigint>();
    for (const tp of partitions) {
      const key = partitionKey(tp);
      const writer = new PartitionWriter(tp, this.context, this.writers.get(key)?.settled);
      this.writers.set(key, writer);
      await writer.open();
      out.set(key, writer.durable);
    }
    return out;
  }

  /**
   * Stages each batch (rows built first: a record that cannot be written throws SINK_MAPPING_FAILED with
   * its coordinates and nothing of the batch is staged), committing at every rotation point inside it.
   * `expectedOffset` must be the staged end (or the durable position when nothing is staged).
   * @returns staged (with durable positions), committed (nothing left staged), or fenced (staging discarded).
   * @throws WebHdfsError (retriable) when HDFS stays unavailable: staging is discarded; re-open before writing again.
   */
  async write(_groupId: string, batches: SinkBatch[]): Promise<WriteResult> {
    this.assertOpen();
    const durable: DurablePosition[] = [];
    const fenced: DurablePosition[] = [];
    let open = false;
    for (const b of batches) {
      const writer = this.writers.get(partitionKey(b));
      if (!writer) {
        throw new SinkWriteError('SINK_BATCH_INVALID', `${partitionKey(b)} was not opened`, { topic: b.topic, partition: b.partition });
      }
      const outcome = await writer.write(b);
      if (outcome === 'fenced') fenced.push({ topic: b.topic, partition: b.partition, storedOffset: writer.durable });
      else durable.push({ topic: b.topic, partition: b.partition, storedOffset: writer.durable });
      if (writer.end !== writer.durable) open = true;
    }
    if (fenced.length > 0) return { status: 'fenced', fenced };
    return open ? { status: 'staged', durable } : { status: 'committed' };
  }

  /** Commits what is staged for these partitions (revoke, stop). Fenced partitions are reported, their staging dropped. */
  async flush(_groupId: string, partitions: TopicPartition[]): Promise<WriteResult> {
    const fenced: DurablePosition[] = [];
    const durable: DurablePosition[] = [];
    // Partitions commit independently: in parallel.
    await Promise.all(partitions.map(async (tp) => {
      const writer = this.writers.get(partitionKey(tp));
      if (!writer) return;
      const ok = await writer.flush();
      (ok === 'fenced' ? fenced : durable).push({ topic: tp.topic, partition: tp.partition, storedOffset: writer.durable });
    }));
    return fenced.length > 0 ? { status: 'fenced', fenced } : { status: 'staged', durable };
  }

  /** Drops what is staged for these partitions (lost): nothing is committed; recovery cleans their temp files. */
  async discard(partitions: TopicPartition[]): Promise<void> {
    for (const tp of partitions) this.writers.delete(partitionKey(tp));
  }

  /**
   * Stops the schedule and drops staged data (a consumer's stop flushes first, through revoke); removes the
   * attempt directories made ahead (best effort: a new owner's recovery removes what is left). Idempotent.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    const writers = [...this.writers.values()];
    this.writers.clear();
    await Promise.allSettled(writers.map((w) => w.abandon()));
  }

  /** Positions as this sink knows them: durable and staged end (for tests and metrics). */
  positions(): Map<string, { durable: bigint; staged: bigint | null }> {
    return new Map([...this.writers].map(([k, w]) => [k, { durable: w.durable, staged: w.end === w.durable ? null : w.end }]));
  }

  /**
   * Registers a listener for the durable positions the wall-clock schedule (rotateScheduleIntervalMs) moves: its
   * commits happen outside write() and flush(), typically while the topic is idle, and the consumer's monitoring
   * commit to Kafka follows them (issue 24). Called once per scheduled rotation that made something durable, with
   * the partitions it moved. Returns a function removing the listener.
   */
  onDurable(listener: (positions: DurablePosition[]) => void): () => void {
    this.durableListeners.add(listener);
    return () => { this.durableListeners.delete(listener); };
  }

  /** Wall-clock rotation: commits every open file set, traffic or not (kafka-connect-hdfs #329); reports what moved. */
  private async scheduledRotation(): Promise<void> {
    // One rotation at a time: a tick while the last one still commits (slow HDFS) is skipped, not queued.
    if (this.rotating) return;
    this.rotating = true;
    try {
      await this.rotateOpenFiles();
    } finally {
      this.rotating = false;
    }
  }

  private async rotateOpenFiles(): Promise<void> {
    const moved: DurablePosition[] = [];
    for (const [key, writer] of this.writers) {
      if (!writer.hasOpenFile) continue;
      const before = writer.durable;
      await writer.scheduledCommit();
      // Still this partition's writer (not dropped or reopened meanwhile), and the commit made something durable.
      if (this.writers.get(key) === writer && writer.durable > before) {
        moved.push({ topic: writer.tp.topic, partition: writer.tp.partition, storedOffset: writer.durable });
      }
    }
    if (moved.length === 0 || this.closed) return;
    for (const listener of this.durableListeners) {
      try {
        listener(moved);
      } catch {
        // A listener's failure is its own: the files are committed either way.
      }
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new SinkWriteError('SINK_CLOSED', 'the sink is closed');
  }
}
