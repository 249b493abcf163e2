/**
 * The batch runner: hands the fetch loop's chunks (fetch/partition.ts) to the strategy and the user's handler, at
 * most `partitionsConsumedConcurrently` partitions at a time, one batch at a time per partition, in the order the
 * chunks arrived. A partition's chunk is handled only while the partition is `active` (partitions/owned.ts): not
 * while its positions are read and onPartitionsAssigned runs, not once its revocation began. While a batch runs,
 * the fetch loop already fetches the partition's next chunk.
 *
 * Each running batch has a {@link ProcessingWatch}: its signal aborts on stop(), when a rebalance revokes (or loses)
 * the partition, or past `maxProcessingTimeMs`. {@link BatchRunner.idle} is how a revocation waits for the batches of
 * the partitions it gives up, and only those.
 */
import type { FetchedChunk, FetchPartition } from '../fetch/partition';
import type { Fetcher } from '../fetch/fetcher';
import type { OwnedPartition } from '../partitions/owned';
import { ProcessingWatch } from '../watch';

/** What the runner needs (times in ms). */
export interface BatchRunnerOptions {
  /** Partitions whose batches are handled at once (KafkaJS's partitionsConsumedConcurrently). */
  concurrency: number;
  fetcher: Fetcher;
  /** The owned incarnation a fetch partition belongs to (undefined once revoked or lost). */
  ownerOf: (p: FetchPartition) => OwnedPartition | undefined;
  /** Handles one chunk (runner/batch.ts). Never throws (failures go to the consumer). */
  handle: (owned: OwnedPartition, chunk: FetchedChunk, watch: ProcessingWatch) => Promise<void>;
  maxProcessingTimeMs: number;
  /** A batch ran past maxProcessingTimeMs. */
  onTimeout: (owned: OwnedPartition) => void;
  /** Whether batches may start (the consumer is starting, running or draining). */
  accepting: () => boolean;
}

/** The batch runner (see the module comment). */
export class BatchRunner {
  private readonly ready: FetchPartition[] = [];
  private readonly running = new Map<string, { done: Promise<void>; watch: ProcessingWatch }>();
  private idleWaiters: { keys: ReadonlySet<string> | null; resolve: () => void }[] = [];

  constructor(private readonly o: BatchRunnerOptions) {}

  /** The fetch loop has a chunk for `p`. */
  onChunk(p: FetchPartition): void {
    this.ready.push(p);
    this.pump();
  }

  /** Partitions became active: their chunks (fetched while they were positioned) may run. */
  activated(partitions: OwnedPartition[]): void {
    for (const p of partitions) if (p.fetch.state === 'buffered') this.ready.push(p.fetch);
    this.pump();
  }

  /** Aborts the handlers' signals of the batches of `keys` (null: every batch). */
  abort(keys: ReadonlySet<string> | null, reason: string): void {
    for (const [key, r] of this.running) if (keys === null || keys.has(key)) r.watch.abort(reason);
  }

  /** Resolves when no batch of `keys` (null: of any partition) is running. */
  idle(keys: ReadonlySet<string> | null = null): Promise<void> {
    if (!this.busyWith(keys)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push({ keys, resolve }));
  }

  /** How many batches are running. */
  get size(): number {
    return this.running.size;
  }

  private busyWith(keys: ReadonlySet<string> | null): boolean {
    if (keys === null) return this.running.size > 0;
    for (const k of keys) if (this.running.has(k)) return true;
    return false;
  }

  private pump(): void {
    if (!this.o.accepting()) return;
    for (let i = 0; i < this.ready.length && this.running.size < this.o.concurrency;) {
      const p = this.ready[i];
      const owner = this.o.ownerOf(p);
      if (!owner || p.released || p.state !== 'buffered') {
        this.ready.splice(i, 1);
        continue;
      }
      if (this.running.has(p.key) || owner.state !== 'active' || this.o.fetcher.isStopped(p.key)) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      const chunk = this.o.fetcher.take(p);
      if (chunk) this.run(owner, chunk);
    }
  }

  private run(owner: OwnedPartition, chunk: FetchedChunk): void {
    const watch = new ProcessingWatch({ maxProcessingTimeMs: this.o.maxProcessingTimeMs, onTimeout: () => this.o.onTimeout(owner) });
    // Registered before the handler runs: a record handler that returns its result (no promise) may run the whole batch
    // inside this call, and an abort it asks for (stop()) must reach its watch before its next record.
    const entry: { done: Promise<void>; watch: ProcessingWatch } = { done: Promise.resolve(), watch };
    this.running.set(owner.key, entry);
    entry.done = (async () => {
      watch.start();
      try {
        await this.o.handle(owner, chunk, watch);
      } finally {
        watch.stop();
      }
    })().finally(() => {
      this.running.delete(owner.key);
      this.idleWaiters = this.idleWaiters.filter((w) => {
        if (this.busyWith(w.keys)) return true;
        w.resolve();
        return false;
      });
      if (owner.fetch.state === 'buffered' && !this.ready.includes(owner.fetch)) this.ready.push(owner.fetch);
      this.pump();
    });
  }

  /** Starts whatever waits (after the consumer began accepting batches). */
  resume(): void {
    this.pump();
  }
}
