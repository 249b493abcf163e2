/**
 * One Kafka partition of the HDFS sink: its durable position, its open file set, and one state value advanced
 * through one transition table (util/state-machine.ts), as Kafka Connect's HDFS `TopicPartitionWriter` keeps
 * its progress in one `State` enum.
 *
 * ```
 * recovering ──▶ idle ◀──────────────┐          recovering: reading the durable position from HDFS
 *     ▲   ▲      │  ▲                │          idle: nothing staged (the staged end is the durable position)
 *     │   │      ▼  │  (rotation,    │          staging: a file set is open (rows, or only offsets after them)
 *     │   └── staging ── flush) ──▶ committing  committing: claim + publish of the open file set (commit.ts)
 *     └────────────────── (fenced) ──┘          failed: a scheduled commit failed or was fenced; the next
 *       idle, recovering ──▶ failed ──▶ idle            write or flush reports it
 * ```
 *
 * The open file set exists exactly in `staging` and `committing`, the failure exactly in `failed`. Every call that
 * changes the writer runs under its lock (writes, flushes and scheduled commits of one partition never overlap).
 */
import { randomUUID } from 'node:crypto';
import type { SinkBatch, SinkRecord, TopicPartition } from '../../records';
import { partitionKey } from '../../records';
import { StateMachine } from '../../util/state-machine';
import { SinkWriteError } from '../errors';
import { attemptDir, claimName, commitFiles, makeAttempt, type HdfsLayout, type StagedFile } from './commit';
import type { NormalizedHdfsSinkConfig } from './config';
import { jsonValue, LineBuffer, type Format, type JsonLine, type Row } from './format';
import type { Partitioner } from './partitioner';
import { recover, type StrayClaim } from './recovery';
import { schemaKey } from '../schema-columns';
import { WebHdfsClient, WebHdfsError } from './webhdfs-client';

/** The states of a {@link PartitionWriter} (see the module comment). */
export type WriterState = 'recovering' | 'idle' | 'staging' | 'committing' | 'failed';

/** The writer's transition table: from → allowed next states. */
export const WRITER_TRANSITIONS: Readonly<Record<WriterState, readonly WriterState[]>> = {
  recovering: ['idle', 'recovering', 'failed'],
  idle: ['staging', 'recovering', 'failed'],
  staging: ['committing', 'recovering'],
  committing: ['idle', 'recovering'],
  failed: ['idle'],
};

/** Committed files, for observers (tests, the demo). */
export interface HdfsCommit { topic: string; partition: number; start: bigint; end: bigint; files: string[] }

/** What the writers of one sink share. */
export interface WriterContext {
  readonly client: WebHdfsClient;
  readonly layout: HdfsLayout;
  readonly format: Format;
  readonly partitioner: Partitioner;
  readonly cfg: NormalizedHdfsSinkConfig;
  /** A claim recovery moved aside. */
  readonly strayed: (s: StrayClaim) => void;
  /** After each commit (claim + publish). */
  readonly committed: (c: HdfsCommit) => void;
  /** Whether the sink is closed (a scheduled commit then does nothing). */
  readonly closed: () => boolean;
}

/**
 * What is staged for one partition path. JSON lines are appended to one growing buffer as each record is staged
 * (`lines`: the file's bytes, built once, nothing per record for the garbage collector to trace); CSV, Parquet and
 * the schema formats keep their rows and encode a file at its commit.
 */
interface StagedRows { rows: Row[]; lines: LineBuffer | null; count: number }

/** The open file set (one file per partition path), from `start` (null: no record yet, in a partition without a claim). */
interface FileSet {
  start: bigint | null;
  /** The staged end: the next offset after what is staged. A write's expectedOffset must equal it. */
  end: bigint;
  rows: Map<string, StagedRows>;
  count: number;
  firstTimestamp: bigint | null;
  /** The key/value schema of the open files (schema-shaped formats: a record with another schema rotates first). */
  schema: string | undefined;
}

/** A failure of a scheduled commit, reported by the next write or flush. */
type Failure = { kind: 'fenced'; stored: bigint } | { kind: 'error'; error: unknown };

/** One partition's writer (see the module comment). */
export class PartitionWriter {
  /** Durable next offset (end of the last claim + 1; -1n: no claim yet). */
  durable = -1n;
  private readonly machine: StateMachine<WriterState>;
  private files: FileSet | null = null;
  private failure: Failure | null = null;
  /** Serialises writes, flushes and scheduled commits of this partition. */
  private lock: Promise<unknown>;
  /** Attempt directories live under `+tmp/<topic>/<partition>/<session>` (a new id after every recovery or failure). */
  private session = randomUUID();
  /**
   * The next commit's attempt directory, made ahead and not used yet (undefined inside: making it failed, the commit
   * makes it): sent at the first write after a recovery or failure, then beside each commit's uploads.
   */
  private made: Promise<string | undefined> | undefined;

  /** `prior`: the lock of the writer this one replaces (a partition re-opened), awaited before anything here runs. */
  constructor(readonly tp: TopicPartition, private readonly ctx: WriterContext, prior: Promise<unknown> = Promise.resolve()) {
    this.lock = prior;
    this.machine = new StateMachine<WriterState>({
      name: `HDFS writer ${partitionKey(tp)}`, initial: 'recovering', transitions: WRITER_TRANSITIONS,
    });
  }

  /** The current state. */
  get state(): WriterState {
    return this.machine.state;
  }

  /** The staged end (the durable position when nothing is staged). */
  get end(): bigint {
    return this.files?.end ?? this.durable;
  }

  /** Whether a file set with a start offset is open (what a scheduled rotation commits). */
  get hasOpenFile(): boolean {
    return this.files !== null && this.files.start !== null;
  }

  /** The promise of everything queued on this writer (a replacing writer waits for it). */
  get settled(): Promise<unknown> {
    return this.lock;
  }

  /** Recovers from HDFS, under the lock (open()). @throws WebHdfsError when HDFS stays unavailable */
  open(): Promise<void> {
    return this.locked(() => this.recover());
  }

  /**
   * Stages a batch, committing at every rotation point inside it, under the lock.
   * @returns 'fenced' when the batch does not continue the staged end (the durable position re-read) or a rotation's
   *   commit was fenced, or a scheduled commit's failure was fenced; 'ok' otherwise.
   * @throws SinkMappingError (nothing of the batch staged); WebHdfsError / SinkWriteError from a commit (staging dropped)
   */
  write(b: SinkBatch): Promise<'ok' | 'fenced'> {
    return this.locked(() => this.stage(b));
  }

  /** Commits the open file set (revoke, stop), under the lock; reports a scheduled commit's failure first. */
  flush(): Promise<'ok' | 'fenced'> {
    return this.locked(async () => {
      if (this.machine.is('failed')) return this.takeFailure();
      return this.hasOpenFile ? this.commit() : 'ok';
    });
  }

  /** Wall-clock rotation: commits the open file set, traffic or not; a failure is kept for the next write or flush. */
  scheduledCommit(): Promise<void> {
    return this.locked(async () => {
      if (!this.hasOpenFile || this.ctx.closed()) return;
      let failure: Failure | null = null;
      try {
        if ((await this.commit()) === 'fenced') failure = { kind: 'fenced', stored: this.durable };
      } catch (error) {
        failure = { kind: 'error', error };
      }
      if (failure) {
        this.failure = failure;
        this.machine.to('failed', failure.kind === 'fenced' ? 'scheduled commit fenced' : 'scheduled commit failed');
      }
    }).catch(() => undefined);
  }

  /** After close: removes the attempt directory made ahead (best effort: a new owner's recovery removes what is left). */
  async abandon(): Promise<void> {
    await Promise.allSettled([this.lock]);
    const made = await this.made;
    this.made = undefined;
    const { topic, partition } = this.tp;
    if (made !== undefined) await this.ctx.client.delete(`${this.ctx.layout.tmpDir(topic, partition)}/${this.session}`, true);
  }

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.catch(() => undefined).then(fn);
    this.lock = run;
    return run;
  }

  private async stage(b: SinkBatch): Promise<'ok' | 'fenced'> {
    if (this.machine.is('failed')) return this.takeFailure();
    if (this.machine.is('recovering')) await this.recover(); // an earlier recovery failed (open rejected)
    if (b.expectedOffset !== this.end) {
      this.files = null;
      await this.recover();
      return 'fenced';
    }
    const { cfg, format } = this.ctx;
    // The attempt directory of the next commit, made while records are staged (not awaited here).
    this.made ??= this.makeAhead();
    // Every row first: a record that cannot be written throws before anything of the batch is staged.
    // The default partitioner needs no value: rows are built without a parse closure per record.
    // JSON lines keep only each record's value bytes here (checked); the line is appended to the file's buffer below.
    let rows: Row[] | null = null;
    let values: Uint8Array[] | null = null;
    let dirs: string[] | null = null;
    if (cfg.partitioner.type === 'default') {
      if (format.jsonLines) values = b.records.map((r) => format.lineValue(r));
      else rows = b.records.map((r) => format.toRow(r));
    } else {
      const built = b.records.map((r) => this.toRow(r));
      if (format.jsonLines) values = built.map((x) => (x.row as JsonLine).value);
      else rows = built.map((x) => x.row);
      dirs = b.records.map((r, i) => this.ctx.partitioner(r, built[i]!.value));
    }
    const defaultDir = `partition=${b.partition}`;
    let staged: StagedRows | undefined;
    let stagedDir: string | null = null;
    for (let i = 0; i < b.records.length; i++) {
      const r = b.records[i]!;
      const dir = dirs ? dirs[i]! : defaultDir;
      let files = this.files;
      // A file holds one schema (format-schema.ts): a record with another key or value schema rotates first.
      const schema = format.fromSchema && r.value !== null ? schemaKey(r) : undefined;
      if (files !== null && files.count > 0 && ((schema !== undefined && files.schema !== undefined && schema !== files.schema)
        || (cfg.rotateIntervalMs !== undefined && files.firstTimestamp !== null
        && r.timestamp - files.firstTimestamp >= BigInt(cfg.rotateIntervalMs)))) {
        files.end = r.offset; // the file covers up to the record before this one
        if ((await this.commit()) === 'fenced') return 'fenced';
        stagedDir = null; // a commit starts a new file set
      }
      files = this.openFiles();
      files.start ??= this.durable >= 0n ? this.durable : r.offset;
      files.firstTimestamp ??= r.timestamp;
      if (schema !== undefined) files.schema = schema;
      if (dir !== stagedDir || !staged) {
        staged = files.rows.get(dir);
        if (!staged) files.rows.set(dir, (staged = { rows: [], lines: values ? new LineBuffer() : null, count: 0 }));
        stagedDir = dir;
      }
      if (values) format.appendLine(staged.lines!, r, values[i]!);
      else staged.rows.push(rows![i]!);
      staged.count++;
      files.count++;
      if (files.count >= cfg.flushSize) {
        files.end = r.offset + 1n;
        if ((await this.commit()) === 'fenced') return 'fenced';
        stagedDir = null;
      }
    }
    // The staged end moves once per write (per record it only matters at a rotation, set above).
    const last = b.records.at(-1);
    if (last && this.files && this.files.count > 0) this.files.end = last.offset + 1n;
    if (b.nextOffset > this.end) {
      // Offsets after the last record (control records, filtered records): staged with the open file.
      // Before a partition's first record there is no start offset yet: the range waits for one.
      const files = this.openFiles();
      if (files.start === null && this.durable >= 0n) files.start = this.durable;
      files.end = b.nextOffset;
    }
    return 'ok';
  }

  /** The open file set, opened (idle → staging) when there is none. */
  private openFiles(): FileSet {
    if (!this.files) {
      this.machine.to('staging', 'first record or offsets staged');
      this.files = { start: null, end: this.durable, rows: new Map(), count: 0, firstTimestamp: null, schema: undefined };
    }
    return this.files;
  }

  /** The row of a record, and its parsed value for the partitioner (parsed at most once, only when read). */
  private toRow(r: SinkRecord): { row: Row; value: () => unknown } {
    let parsed: { v: unknown } | undefined;
    const value = () => (parsed ??= { v: jsonValue(r) }).v;
    return { row: this.ctx.format.toRow(r, value), value };
  }

  /**
   * Commits the open file set [start, end - 1] (staging → committing → idle). Fenced: staging dropped, the durable
   * position re-read (→ recovering → idle). Errors: staging dropped (→ idle), a new session, rethrown.
   */
  private async commit(): Promise<'ok' | 'fenced'> {
    const { tp, ctx } = this;
    const files = this.files!;
    const start = files.start!;
    const end = files.end - 1n;
    const staged: StagedFile[] = [...files.rows].map(([partitionPath, s]) => ({
      partitionPath, bytes: s.lines ? s.lines.bytes() : ctx.format.encode(s.rows), records: s.count,
    }));
    this.machine.to('committing', `[${start}, ${end}]`);
    let outcome;
    // The attempt made ahead is used once: whatever this commit's outcome, the next one gets another.
    const made = await this.made;
    this.made = undefined;
    try {
      outcome = await commitFiles(ctx.client, ctx.layout, tp.topic, tp.partition, start, end, this.durable < 0n, staged,
        { session: this.session, made, prepareNext: true });
    } catch (e) {
      this.drop('commit failed');
      this.session = randomUUID(); // this session's attempt for the claim may hold partial uploads: never reused
      throw e instanceof WebHdfsError ? e : new SinkWriteError(
        'SINK_WRITE_FAILED',
        `${partitionKey(tp)}: commit of [${start}, ${end}] failed: ${(e as Error).message}`,
        { topic: tp.topic, partition: tp.partition },
        { cause: e, retriable: true },
      );
    }
    this.files = null;
    if (outcome.status === 'fenced') {
      await this.recover();
      return 'fenced';
    }
    this.durable = end + 1n;
    this.machine.to('idle', `committed [${start}, ${end}]`);
    this.made = outcome.next === undefined ? undefined : Promise.resolve(outcome.next);
    ctx.committed({ topic: tp.topic, partition: tp.partition, start, end, files: outcome.files });
    return 'ok';
  }

  /** Recovers the partition from HDFS (recovery.ts recover: the durable position; `+tmp` of the partition deleted), in a new session. */
  private async recover(): Promise<void> {
    this.files = null;
    this.machine.to('recovering', 'reading the durable position from HDFS');
    this.made = undefined;
    this.session = randomUUID();
    this.durable = await recover(this.ctx.client, this.ctx.layout, this.tp.topic, this.tp.partition, this.ctx.strayed);
    this.machine.to('idle', `durable position ${this.durable}`);
  }

  /** Makes the next commit's attempt directory (claim: the durable position); never rejects (undefined: the commit makes it). */
  private makeAhead(): Promise<string | undefined> {
    const { topic, partition } = this.tp;
    const dir = attemptDir(this.ctx.layout, topic, partition, this.session, claimName(this.durable < 0n, this.durable));
    return makeAttempt(this.ctx.client, dir).then(() => dir, () => undefined);
  }

  /** Drops the open file set (committing → idle): nothing of it is committed. */
  private drop(reason: string): void {
    this.files = null;
    this.machine.to('idle', reason);
  }

  /** Reports a scheduled commit's failure (failed → idle): fenced with its durable position, or its error thrown. */
  private takeFailure(): 'fenced' {
    const f = this.failure!;
    this.failure = null;
    this.machine.to('idle', 'failure reported');
    if (f.kind === 'error') throw f.error;
    this.durable = f.stored;
    return 'fenced';
  }
}
