/**
 * HdfsSink: writes Kafka records to HDFS files over WebHDFS, exactly once, with the offsets kept in the
 * committed file names (docs/hdfs-sink.md). Records are staged in memory per Kafka partition (one open
 * "file set", one file per partition path) and committed at rotation: by record count (flushSize), by
 * record time (rotateIntervalMs), on a wall-clock schedule (rotateScheduleIntervalMs), and on flush
 * (revoke, stop). Writes answer `staged` until a rotation makes them durable. Not atomic across
 * Kafka partitions: each partition commits on its own.
 */
import type { ExactlyOnceSink, WriteResult } from '../../sink-contract';
import type { DurablePosition, SinkBatch, SinkRecord, TopicPartition } from '../../records';
import { partitionKey } from '../../records';
import { SinkWriteError } from '../errors';
import { randomUUID } from 'node:crypto';
import { attemptDir, claimName, commitFiles, HdfsLayout, makeAttempt, type StagedFile } from './commit';
import { recover, type StrayClaim } from './recovery';
import { validateHdfsSinkConfig, type HdfsSinkConfig, type NormalizedHdfsSinkConfig } from './config';
import { Format, jsonValue, type Row } from './format';
import { schemaKey } from '../schema-columns';
import { createPartitioner, type Partitioner } from './partitioner';
import { WebHdfsClient, WebHdfsError } from './webhdfs-client';

/** One Kafka partition as the sink knows it. */
interface PartitionState {
  tp: TopicPartition;
  /** Durable next offset (end of the last claim + 1; -1n: no claim yet). */
  durable: bigint;
  /** First offset of the open file set (null: nothing open, or no record yet in a partition without a claim). */
  start: bigint | null;
  /** Staged end: the next offset after what is staged (= durable when nothing is). A write's expectedOffset must equal it. */
  end: bigint;
  /** Per partition path: rows not yet encoded, and (JSON lines) bytes encoded at the end of earlier writes. */
  rows: Map<string, StagedRows>;
  count: number;
  firstTimestamp: bigint | null;
  /** Set by a background (scheduled) commit that was fenced or failed: the next write reports it. */
  failure: { kind: 'fenced'; stored: bigint } | { kind: 'error'; error: unknown } | null;
  /** The key/value schema of the open files (schema-shaped formats: a new schema rotates). */
  schema?: string;
  /** Serialises writes, flushes and scheduled commits of this partition. */
  lock: Promise<unknown>;
  /** This writer's attempt directories live under `+tmp/<topic>/<partition>/<session>` (a new id after every recovery or failure). */
  session: string;
  /**
   * The next commit's attempt directory, made ahead and not used yet (undefined inside: making it failed, the commit
   * makes it): sent at the first write after a recovery or failure, then beside each commit's uploads.
   */
  made: Promise<string | undefined> | undefined;
}

/**
 * What is staged for one partition path. JSON lines are encoded to bytes at the end of each write, so the
 * staged data is a few large Buffers rather than flushSize small strings the garbage collector must trace.
 */
interface StagedRows { rows: Row[]; chunks: Buffer[]; count: number }

/** Committed files, for observers (tests, the demo). */
export interface HdfsCommit { topic: string; partition: number; start: bigint; end: bigint; files: string[] }

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
  private readonly states = new Map<string, PartitionState>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  /** @throws SinkConfigError (CONFIG_INVALID) naming the field. */
  constructor(config: HdfsSinkConfig) {
    this.cfg = validateHdfsSinkConfig(config);
    this.client = new WebHdfsClient({ url: this.cfg.url, user: this.cfg.user, ...this.cfg.retry });
    this.format = new Format(this.cfg.format, this.cfg.includeKafkaCoordinates);
    this.layout = new HdfsLayout(this.cfg.topicsDir, this.format.extension);
    this.partitioner = createPartitioner(this.cfg.partitioner);
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
      const prior = this.states.get(key)?.lock ?? Promise.resolve();
      const state: PartitionState = {
        tp, durable: -1n, start: null, end: -1n, rows: new Map(), count: 0, firstTimestamp: null, failure: null, lock: prior,
        session: randomUUID(), made: undefined,
      };
      const run = prior.catch(() => undefined).then(() => this.recover(state));
      state.lock = run;
      this.states.set(key, state);
      await run;
      out.set(key, state.durable);
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
      const state = this.states.get(partitionKey(b));
      if (!state) {
        throw new SinkWriteError('SINK_BATCH_INVALID', `${partitionKey(b)} was not opened`, { topic: b.topic, partition: b.partition });
      }
      const outcome = await this.locked(state, () => this.stage(state, b));
      if (outcome === 'fenced') fenced.push({ topic: b.topic, partition: b.partition, storedOffset: state.durable });
      else durable.push({ topic: b.topic, partition: b.partition, storedOffset: state.durable });
      if (state.end !== state.durable) open = true;
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
      const state = this.states.get(partitionKey(tp));
      if (!state) return;
      const ok = await this.locked(state, async () => {
        if (state.failure) return this.takeFailure(state);
        return state.start === null ? 'ok' : this.commit(state);
      });
      (ok === 'fenced' ? fenced : durable).push({ topic: tp.topic, partition: tp.partition, storedOffset: state.durable });
    }));
    return fenced.length > 0 ? { status: 'fenced', fenced } : { status: 'staged', durable };
  }

  /** Drops what is staged for these partitions (lost): nothing is committed; recovery cleans their temp files. */
  async discard(partitions: TopicPartition[]): Promise<void> {
    for (const tp of partitions) this.states.delete(partitionKey(tp));
  }

  /**
   * Stops the schedule and drops staged data (a consumer's stop flushes first, through revoke); removes the
   * attempt directories made ahead (best effort: a new owner's recovery removes what is left). Idempotent.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    const states = [...this.states.values()];
    this.states.clear();
    await Promise.allSettled(states.map((s) => s.lock));
    await Promise.allSettled(states.map(async (s) => {
      const made = await s.made;
      s.made = undefined;
      if (made !== undefined) await this.client.delete(`${this.layout.tmpDir(s.tp.topic, s.tp.partition)}/${s.session}`, true);
    }));
  }

  /** Positions as this sink knows them: durable and staged end (for tests and metrics). */
  positions(): Map<string, { durable: bigint; staged: bigint | null }> {
    return new Map([...this.states].map(([k, s]) => [k, { durable: s.durable, staged: s.end === s.durable ? null : s.end }]));
  }

  private locked<T>(state: PartitionState, fn: () => Promise<T>): Promise<T> {
    const run = state.lock.catch(() => undefined).then(fn);
    state.lock = run;
    return run;
  }

  private async stage(state: PartitionState, b: SinkBatch): Promise<'ok' | 'fenced'> {
    if (state.failure) return this.takeFailure(state);
    if (b.expectedOffset !== state.end) {
      this.drop(state);
      await this.recover(state);
      return 'fenced';
    }
    // The attempt directory of the next commit, made while records are staged (not awaited here).
    state.made ??= this.makeAhead(state);
    // Every row first: a record that cannot be written throws before anything of the batch is staged.
    // The default partitioner needs no value: rows are built without a parse closure per record.
    let rows: Row[];
    let dirs: string[] | null = null;
    if (this.cfg.partitioner.type === 'default') rows = b.records.map((r) => this.format.toRow(r));
    else {
      const built = b.records.map((r) => this.toRow(r));
      rows = built.map((x) => x.row);
      dirs = b.records.map((r, i) => this.partitioner(r, built[i]!.value));
    }
    const defaultDir = `partition=${b.partition}`;
    let staged: StagedRows | undefined;
    let stagedDir: string | null = null;
    for (let i = 0; i < b.records.length; i++) {
      const r = b.records[i]!;
      const row = rows[i]!;
      const dir = dirs ? dirs[i]! : defaultDir;
      // A file holds one schema (format-schema.ts): a record with another key or value schema rotates first.
      const schema = this.format.fromSchema && r.value !== null ? schemaKey(r) : undefined;
      if ((schema !== undefined && state.count > 0 && state.schema !== undefined && schema !== state.schema)
        || (this.cfg.rotateIntervalMs !== undefined && state.firstTimestamp !== null && state.count > 0
        && r.timestamp - state.firstTimestamp >= BigInt(this.cfg.rotateIntervalMs))) {
        state.end = r.offset; // the file covers up to the record before this one
        if ((await this.commit(state)) === 'fenced') return 'fenced';
        stagedDir = null; // a commit starts a new file set
      }
      if (state.start === null) state.start = state.durable >= 0n ? state.durable : r.offset;
      state.firstTimestamp ??= r.timestamp;
      if (schema !== undefined) state.schema = schema;
      if (dir !== stagedDir || !staged) {
        staged = state.rows.get(dir);
        if (!staged) state.rows.set(dir, (staged = { rows: [], chunks: [], count: 0 }));
        stagedDir = dir;
      }
      staged.rows.push(row);
      staged.count++;
      state.count++;
      if (state.count >= this.cfg.flushSize) {
        state.end = r.offset + 1n;
        if ((await this.commit(state)) === 'fenced') return 'fenced';
        stagedDir = null;
      }
    }
    // The staged end moves once per write (per record it only matters at a rotation, set above).
    const last = b.records.at(-1);
    if (last && state.count > 0) state.end = last.offset + 1n;
    for (const staged of state.rows.values()) {
      const chunk = staged.rows.length > 0 ? this.format.encodeChunk(staged.rows) : null;
      if (chunk) { staged.chunks.push(chunk); staged.rows = []; }
    }
    if (b.nextOffset > state.end) {
      // Offsets after the last record (control records, filtered records): staged with the open file.
      // Before a partition's first record there is no start offset yet: the range waits for one.
      if (state.start === null && state.durable >= 0n) state.start = state.durable;
      state.end = b.nextOffset;
    }
    return 'ok';
  }

  /** The row of a record, and its parsed value for the partitioner (parsed at most once, only when read). */
  private toRow(r: SinkRecord): { row: Row; value: () => unknown } {
    let parsed: { v: unknown } | undefined;
    const value = () => (parsed ??= { v: jsonValue(r) }).v;
    return { row: this.format.toRow(r, value), value };
  }

  /** Commits the open file set [start, end - 1]. Fenced: staging dropped, durable re-read. Errors: staging dropped, rethrown. */
  private async commit(state: PartitionState): Promise<'ok' | 'fenced'> {
    const { tp } = state;
    const start = state.start!;
    const end = state.end - 1n;
    const files: StagedFile[] = [...state.rows].map(([partitionPath, s]) => ({
      partitionPath, bytes: this.format.encode(s.rows, s.chunks), records: s.count,
    }));
    let outcome;
    // The attempt made ahead is used once: whatever this commit's outcome, the next one gets another.
    const made = await state.made;
    state.made = undefined;
    try {
      outcome = await commitFiles(this.client, this.layout, tp.topic, tp.partition, start, end, state.durable < 0n, files,
        { session: state.session, made, prepareNext: true });
    } catch (e) {
      this.drop(state);
      state.session = randomUUID(); // this session's attempt for the claim may hold partial uploads: never reused
      throw e instanceof WebHdfsError ? e : new SinkWriteError(
        'SINK_WRITE_FAILED',
        `${partitionKey(tp)}: commit of [${start}, ${end}] failed: ${(e as Error).message}`,
        { topic: tp.topic, partition: tp.partition },
        { cause: e, retriable: true },
      );
    }
    this.drop(state);
    if (outcome.status === 'fenced') {
      await this.recover(state);
      return 'fenced';
    }
    state.durable = end + 1n;
    state.end = state.durable;
    state.made = outcome.next === undefined ? undefined : Promise.resolve(outcome.next);
    this.onCommit?.({ topic: tp.topic, partition: tp.partition, start, end, files: outcome.files });
    return 'ok';
  }

  /** Recovers the partition from HDFS (recovery.ts recover: the durable position; `+tmp` of the partition deleted), in a new session. */
  private async recover(state: PartitionState): Promise<void> {
    state.made = undefined;
    state.session = randomUUID();
    state.durable = await recover(this.client, this.layout, state.tp.topic, state.tp.partition, this.strayed);
    state.end = state.durable;
  }

  /** Makes the next commit's attempt directory (claim: the durable position); never rejects (undefined: the commit makes it). */
  private makeAhead(state: PartitionState): Promise<string | undefined> {
    const { topic, partition } = state.tp;
    const dir = attemptDir(this.layout, topic, partition, state.session, claimName(state.durable < 0n, state.durable));
    return makeAttempt(this.client, dir).then(() => dir, () => undefined);
  }

  private drop(state: PartitionState): void {
    state.start = null;
    state.rows = new Map();
    state.count = 0;
    state.firstTimestamp = null;
    state.end = state.durable;
  }

  private takeFailure(state: PartitionState): 'fenced' {
    const f = state.failure!;
    state.failure = null;
    if (f.kind === 'error') throw f.error;
    state.durable = f.stored;
    state.end = f.stored;
    return 'fenced';
  }

  /** Wall-clock rotation: commits every open file set, traffic or not (kafka-connect-hdfs #329). */
  private async scheduledRotation(): Promise<void> {
    for (const state of this.states.values()) {
      if (state.start === null || state.failure) continue;
      await this.locked(state, async () => {
        if (state.start === null || state.failure || this.closed) return;
        try {
          if ((await this.commit(state)) === 'fenced') state.failure = { kind: 'fenced', stored: state.durable };
        } catch (error) {
          state.failure = { kind: 'error', error };
        }
      }).catch(() => undefined);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new SinkWriteError('SINK_CLOSED', 'the sink is closed');
  }
}
