/**
 * Group commit: writes that arrive together (batches of different partitions handled
 * concurrently, e.g. with `partitionsConsumedConcurrently` > 1) share one sink transaction, up to
 * `maxRows` rows. Each partition keeps its own compare-and-set, so the guarantees are those of
 * the wrapped sink: if one partition is fenced or one record rejected, the transaction rolls back,
 * that caller gets its answer, and the others are written again together.
 * Requires a sink whose writes are atomic across partitions ({@link ExactlyOnceSink.atomicAcrossPartitions}
 * not false); flush, discard, onDurable and seek pass through to it.
 */
import { rejectedRecord, type ExactlyOnceSink, type SeekRequest, type SinkContext, type WriteResult } from '../sink-contract';
import { type DurablePosition, type OutputRecord, type OutputSource, type SinkBatch, type TopicPartition } from '../records';
import { KafkaEosError } from '../errors';

/** Options of {@link GroupCommitSink}. */
export interface GroupCommitOptions {
  /** Most rows in one grouped transaction (default 5000). A single larger write still goes alone. */
  maxRows?: number;
  /** How long a write waits for others to join its transaction, ms (default 0: the writes queued in the same event-loop turn). */
  lingerMs?: number;
}

interface Pending {
  groupId: string;
  batches: SinkBatch[];
  rows: number;
  resolve: (r: WriteResult) => void;
  reject: (e: unknown) => void;
  /** The consumer's context (the same for every write of one consumer). */
  context: SinkContext | undefined;
}

const rowsOf = (batches: SinkBatch[]) => batches.reduce((n, b) => n + b.records.length, 0);
const key = (tp: TopicPartition) => `${tp.topic}:${tp.partition}`;

/** The queued write holding the record a sink error names (see {@link rejectedRecord}), if any. */
function ownerOfRejected(error: unknown, items: Pending[]): Pending | undefined {
  return items.find((p) => p.batches.some((b) => rejectedRecord(error, b.records) !== undefined));
}

/** Wraps a sink whose writes are atomic across partitions and groups concurrent writes into one (see the module comment). */
export class GroupCommitSink implements ExactlyOnceSink {
  private queue: Pending[] = [];
  private scheduled = false;
  private flushing: Promise<void> = Promise.resolve();
  private readonly maxRows: number;
  private readonly lingerMs: number;

  readonly atomicAcrossPartitions = true;
  /** The inner sink's (see ExactlyOnceSink). */
  readonly offsetsInGroup: boolean | undefined;
  /** The inner sink's (see ExactlyOnceSink). */
  readonly transactionalOutput: boolean | undefined;

  /** Throws KafkaEosError CONFIG_INVALID for a bad maxRows or lingerMs, or a sink not atomic across partitions. */
  constructor(readonly inner: ExactlyOnceSink, options: GroupCommitOptions = {}) {
    if (inner.atomicAcrossPartitions === false) {
      throw new KafkaEosError(
        'CONFIG_INVALID',
        'groupCommit: the sink does not write several partitions atomically (atomicAcrossPartitions: false);'
          + ' group commit needs one that does',
      );
    }
    this.offsetsInGroup = inner.offsetsInGroup;
    this.transactionalOutput = inner.transactionalOutput;
    this.maxRows = options.maxRows ?? 5000;
    this.lingerMs = options.lingerMs ?? 0;
    if (!Number.isInteger(this.maxRows) || this.maxRows < 1) {
      throw new KafkaEosError('CONFIG_INVALID', `groupCommit.maxRows: must be a positive integer, got ${options.maxRows}`);
    }
    if (!Number.isInteger(this.lingerMs) || this.lingerMs < 0) {
      throw new KafkaEosError('CONFIG_INVALID', `groupCommit.lingerMs: must be a non-negative integer, got ${options.lingerMs}`);
    }
  }

  open(groupId: string, partitions: TopicPartition[], context?: SinkContext): Promise<Map<string, bigint>> {
    return this.inner.open(groupId, partitions, context);
  }

  flush(groupId: string, partitions: TopicPartition[]): Promise<WriteResult> {
    return this.flushing.then(() => this.inner.flush?.(groupId, partitions) ?? { status: 'committed' });
  }

  /** Passes the inner sink's output check through (KafkaSink). */
  checkOutputs(outputs: readonly OutputRecord[], source: OutputSource): Promise<void> {
    return this.inner.checkOutputs?.(outputs, source) ?? Promise.resolve();
  }

  discard(partitions: TopicPartition[]): Promise<void> {
    return this.inner.discard?.(partitions) ?? Promise.resolve();
  }

  /**
   * Moves a stored position through the inner sink once the writes queued before it are done (see
   * ExactlyOnceSink.seek). @throws KafkaEosError SEEK_UNSUPPORTED when the inner sink has no seek().
   */
  async seek(groupId: string, request: SeekRequest): Promise<WriteResult> {
    await this.flushing;
    if (!this.inner.seek) {
      throw new KafkaEosError('SEEK_UNSUPPORTED', `${request.topic}:${request.partition}: the sink cannot move its stored position`);
    }
    return this.inner.seek(groupId, request);
  }

  /** The inner sink's durable positions moved outside write() (see ExactlyOnceSink.onDurable); a no-op without it. */
  onDurable(listener: (positions: DurablePosition[]) => void): () => void {
    return this.inner.onDurable?.(listener) ?? (() => undefined);
  }

  write(groupId: string, batches: SinkBatch[], context?: SinkContext): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ groupId, batches, rows: rowsOf(batches), resolve, reject, context });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      this.flushing = this.flushing.then(() => this.drain());
    };
    if (this.lingerMs > 0) setTimeout(run, this.lingerMs);
    else setImmediate(run);
  }

  /** Takes queued writes of one group, up to maxRows, and writes them as one transaction. */
  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const groupId = this.queue[0].groupId;
      const taken: Pending[] = [];
      let rows = 0;
      const partitions = new Set<string>();
      this.queue = this.queue.filter((p) => {
        const disjoint = p.batches.every((b) => !partitions.has(key(b)));
        if (p.groupId !== groupId || !disjoint || (taken.length > 0 && rows + p.rows > this.maxRows)) return true;
        taken.push(p);
        rows += p.rows;
        for (const b of p.batches) partitions.add(key(b));
        return false;
      });
      await this.writeTogether(groupId, taken, taken[taken.length - 1]?.context);
    }
  }

  private async writeTogether(groupId: string, items: Pending[], context: SinkContext | undefined): Promise<void> {
    let remaining = items;
    while (remaining.length > 0) {
      let result: WriteResult;
      try {
        result = await this.inner.write(groupId, remaining.flatMap((p) => p.batches), context);
      } catch (e) {
        const owner = remaining.length > 1 ? ownerOfRejected(e, remaining) : undefined;
        if (!owner) {
          for (const p of remaining) p.reject(e);
          return;
        }
        owner.reject(e);
        remaining = remaining.filter((p) => p !== owner);
        continue;
      }
      if (result.status === 'committed') {
        for (const p of remaining) p.resolve(result);
        return;
      }
      if (result.status === 'staged') {
        const durable = new Map(result.durable.map((d) => [key(d), d]));
        for (const p of remaining) {
          p.resolve({
            status: 'staged',
            durable: p.batches.map((b) => durable.get(key(b))).filter((d): d is NonNullable<typeof d> => d !== undefined),
          });
        }
        return;
      }
      // Rolled back: answer the callers whose partitions were fenced; write the others again.
      const fenced = new Map(result.fenced.map((f) => [key(f), f]));
      const hit = remaining.filter((p) => p.batches.some((b) => fenced.has(key(b))));
      for (const p of hit) {
        p.resolve({
          status: 'fenced',
          fenced: p.batches.map((b) => fenced.get(key(b))).filter((f): f is NonNullable<typeof f> => f !== undefined),
        });
      }
      if (hit.length === 0) {
        for (const p of remaining) p.resolve(result);
        return;
      }
      remaining = remaining.filter((p) => !hit.includes(p));
    }
  }

  async close(): Promise<void> {
    await this.flushing;
    await this.inner.close();
  }
}
