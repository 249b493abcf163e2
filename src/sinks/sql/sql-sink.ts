/**
 * SqlSink: writes Kafka records to a SQL table exactly once (SQLite via sqlite3, PostgreSQL via pg).
 * The rows of all batches of one write() and the CAS updates of their partitions' next_offset commit in one
 * transaction (on PostgreSQL and SQLite on a raw driver connection from knex's pool, raw-transaction.ts; on MySQL a
 * knex transaction); a CAS matching 0 rows (a zombie writer, or a stale position) rolls everything back.
 * Rows travel by each database's bulk path inside that transaction (row-writer.ts): COPY on PostgreSQL,
 * reused prepared multi-row INSERTs on SQLite.
 */
import { valuesInsert } from './insert';
import type { Knex } from 'knex';
import type { SqlTx } from './raw-transaction';
import { SqlOffsetStore } from './offset-store';
import { type ExactlyOnceSink, type SeekRequest, type WriteResult } from '../../sink-contract';
import { partitionKey, type SinkBatch, type TopicPartition } from '../../records';
import { validateSqlSinkConfig, type NormalizedSqlSinkConfig, type SqlSinkConfig } from './config';
import { ensureDataTable } from './ddl';
import { assertQuestionMarksSafe, createKnex, isKnexInstance, rowsPerStatement } from './dialect';
import { isTransientSqlError, SinkWriteError } from './errors';
import type { CompiledMapping, Row } from './mapping';
import { compileSinkMapping } from './schema-mapping';
import { classifyRejection, isSystemicSqlError, isUniqueViolation, refusedWrite, type RowOrigin } from './rejection';
import { KafkaEosError } from '../../errors';
import { copyChunksOf, RowsRejected, RowWriter, type CopyTextRows, type FlatRows, type RowSet } from './row-writer';
import { copySql } from './copy';
import type { TxOpening } from './raw-transaction';
import type { CompiledSchemaMapping } from './schema-mapping';
import { SchemaTable, tombstonesHandled } from './schema-table';

/**
 * Rows per COPY data message of a pipelined write (pg-pipelined.ts): small enough that the server works on one chunk
 * while the next is encoded (~15 KB for a row of 7 short columns), large enough that messages cost little
 * (bench/sql-sink.js: 250 rows gave 1.45-1.53x the rows/s of sending 1,000-row chunks after the CAS's answer).
 */
const PIPELINED_ROWS_PER_CHUNK = 250;

/** A batch as mapped: its rows as objects, or none when the write's rows are flat (see MappedWrite); one offset per row. */
interface MappedBatch { batch: SinkBatch; rows: Row[] | undefined; offsets: bigint[] }
/**
 * The rows of one write. A declarative mapping (outside upsert, whose duplicate keys are collapsed on row objects)
 * gives `flat`: every row's bind values in one array, straight from the records, in the mapping's column order; on
 * PostgreSQL, the COPY text lines themselves (no array of values either).
 */
/** A batch mapped to row objects. */
type RowBatch = MappedBatch & { rows: Row[] };
interface MappedWrite { batches: MappedBatch[]; flat: ((FlatRows | CopyTextRows) & { columns: string[] }) | undefined }

/** The SQL sink (see the module comment). Atomic across partitions: one write() is one transaction. */
export class SqlSink implements ExactlyOnceSink {
  /** One write() of several partitions is one transaction. */
  readonly atomicAcrossPartitions = true;
  /** The offsets table, usable directly (e.g. `sink.offsets.read(...)`). */
  readonly offsets: SqlOffsetStore;
  readonly knex: Knex;
  private readonly cfg: NormalizedSqlSinkConfig;
  private readonly mapper: CompiledMapping;
  private readonly ownsKnex: boolean;
  private readonly writer: RowWriter;
  private dataReady: Promise<void> | undefined;
  /** mapping.fromSchema: the table made (autoCreate) and checked from the records' schemas. */
  private readonly schemaTable: SchemaTable | undefined;
  private closed = false;

  /** Validates the whole config first. @throws SinkConfigError (CONFIG_INVALID) naming the field. */
  constructor(config: SqlSinkConfig) {
    this.cfg = validateSqlSinkConfig(config);
    this.ownsKnex = !isKnexInstance(config.knex);
    this.knex = isKnexInstance(config.knex) ? config.knex : createKnex(config.knex);
    try {
      const m = this.cfg.mapping;
      assertQuestionMarksSafe(this.knex, [['table', this.cfg.table],
        ...(typeof m === 'function' || 'fromSchema' in m ? []
          : Object.keys(m.columns).map((c): [string, string] => [`mapping.columns.${c}`, c]))]);
      this.offsets = new SqlOffsetStore({ knex: this.knex, table: this.cfg.offsetsTable, retry: config.retry, target: this.cfg.table });
    } catch (err) {
      if (this.ownsKnex) void this.knex.destroy();
      throw err;
    }
    this.mapper = compileSinkMapping(this.cfg.mapping, this.offsets.dialect, this.cfg.includeKafkaCoordinates);
    if ('columnsOf' in this.mapper) {
      this.schemaTable = new SchemaTable(this.knex, this.cfg.table, this.mapper as CompiledSchemaMapping, {
        autoCreate: this.cfg.autoCreate, includeKafkaCoordinates: this.cfg.includeKafkaCoordinates, primaryKey: this.cfg.conflictKey,
      });
    }
    const dialect = this.offsets.dialect;
    this.writer = new RowWriter(this.knex, dialect, (n) => rowsPerStatement(dialect, n, this.cfg.maxRowsPerStatement),
      this.offsets.sqliteStatements);
  }

  /**
   * Creates missing tables (offsets always, data table if autoCreate), seeds absent positions with -1 and reads them.
   * @returns `${topic}:${partition}` → stored next offset (-1n = none).
   * @throws SinkWriteError SINK_CLOSED, SINK_RETRIES_EXHAUSTED, SINK_WRITE_REFUSED (retriable) when the database refuses
   *   whatever is asked (a table or the database gone, a privilege revoked); KafkaEosError SINK_UNAVAILABLE (retriable)
   *   when the database is busy or unreachable; driver errors for other DDL failures.
   */
  async open(groupId: string, partitions: TopicPartition[]): Promise<Map<string, bigint>> {
    this.assertOpen();
    try {
      await this.ensureDataTable();
      return await this.offsets.load(groupId, partitions);
    } catch (e) {
      // A busy or unreachable database at assignment is an outage, not a failure: retriable, so the consumer keeps
      // the partitions and reads their positions again when the database is back (sink-unavailable).
      if (!(e instanceof KafkaEosError) && isTransientSqlError(e)) {
        const message = `reading the stored positions failed: ${(e as Error).message}`;
        throw new KafkaEosError('SINK_UNAVAILABLE', message, { retriable: true, cause: e });
      }
      // A database that refuses whatever is asked (dropped or renamed, its table gone, a privilege revoked) is the
      // write path's block: retriable, bounded by sinkBlockedTimeoutMs, never a raw driver error failing the consumer.
      if (!(e instanceof KafkaEosError) && isSystemicSqlError(e)) throw refusedWrite('reading the stored positions', e);
      throw e;
    }
  }

  /**
   * Maps every record, then in one transaction: CAS every partition (expectedOffset → nextOffset), insert/upsert the
   * rows in chunks, commit. A mapping failure throws before anything is sent, except on PostgreSQL's pipelined path
   * (insert and kafka-key with a declarative mapping, pg-pipelined.ts), where rows are encoded as they are sent: there
   * it ends the COPY with CopyFail and the transaction is rolled back; nothing is written either way.
   * @returns committed, or fenced with the stored offsets of the partitions whose CAS failed (nothing written).
   * @throws SinkMappingError (SINK_MAPPING_FAILED) with topic/partition/offset/column of the record;
   *   SinkWriteError SINK_BATCH_INVALID (inconsistent batches), SINK_WRITE_FAILED with `recordAtFault` (the
   *   database rejected one record and accepts the others, proven by replaying the rows one by one in a
   *   transaction that is always rolled back; everything rolled back, not retried), SINK_WRITE_REFUSED
   *   (retriable: the database refuses the write as a whole, see rejection.ts), SINK_RETRIES_EXHAUSTED
   *   (outcome unknown); KafkaEosError SINK_UNAVAILABLE (retriable) when the database is lost while a refused write
   *   is replayed to find the record at fault.
   */
  async write(groupId: string, batches: SinkBatch[]): Promise<WriteResult> {
    this.assertOpen();
    for (const b of batches) validateRecords(b);
    const mapped = this.mapAll(batches);
    await this.ensureDataTable();
    if (this.schemaTable) await this.schemaTable.prepare(mapped.batches);
    // kafka-key on PostgreSQL COPYs straight in; a replay (rows already stored after an operator rewound the
    // offsets) meets a unique violation, rolls back, and goes again through the staged ON CONFLICT path.
    let staged = this.cfg.mode === 'upsert';
    let stageRebuilt = false;
    for (;;) {
      let onCommit = (): void => undefined;
      try {
        const result = await this.offsets.withOffsetsOn(groupId, batches, async (tx) => {
          onCommit = await this.insertAll(tx, mapped, staged);
        }, this.pipelined(mapped, staged));
        if (result.status === 'fenced') return { status: 'fenced', fenced: result.fenced };
        if (!result.recovered) onCommit();
        return { status: 'committed' };
      } catch (err) {
        const pg = this.offsets.dialect === 'postgres';
        if (staged && pg) {
          // Any failure of a staged write, by one message too: every connection rebuilds its stage table on its next
          // one (as stagedUpsert does). A stage gone from the connection (DISCARD TEMP, a pooler's reset) fails the
          // message before its rows (42P01, "statements"), where the writer never hears of it: go once more, by
          // statements that build the stage again, rather than refuse every write from now on.
          this.forgetStage(mapped);
          if (!stageRebuilt && !(err instanceof KafkaEosError) && isSystemicSqlError(err)) { stageRebuilt = true; continue; }
        }
        if (!staged && this.cfg.mode === 'kafka-key' && pg && isUniqueViolation(err)) { staged = true; continue; }
        if (err instanceof SinkWriteError && err.code === 'SINK_WRITE_FAILED') {
          const verdict = await this.classifyRefusal(mapped, err);
          // The staged path failed yet no record is at fault (e.g. a stage table older than an ALTER COLUMN): the
          // writer has forgotten its stage tables, so go once more with them rebuilt from the target's columns.
          if (staged && !stageRebuilt && pg && verdict.code === 'SINK_WRITE_REFUSED') { stageRebuilt = true; continue; }
          throw verdict;
        }
        // A driver error outside the rows (the offsets table renamed, a privilege revoked): never a record's fault.
        if (!(err instanceof KafkaEosError) && isSystemicSqlError(err)) throw refusedWrite('an error no row can cause', err);
        throw err;
      }
    }
  }

  /**
   * Decides whether a refused write is one record's fault or the database's (see rejection.ts):
   * replays the rows one at a time with the write path's statement, in a transaction that is
   * always rolled back.
   */
  private async classifyRefusal(mapped: MappedWrite, error: SinkWriteError): Promise<SinkWriteError> {
    const { flat } = mapped;
    const rows: Row[] = !flat ? mapped.batches.flatMap((m) => m.rows!)
      : 'values' in flat ? flatRowObjects(flat)
        : mapped.batches.flatMap((m) => m.batch.records.map((r) => this.mapper.toRow(r))); // the lines' rows, mapped again
    const origins: RowOrigin[] = [];
    for (const { batch, offsets } of mapped.batches) {
      for (const offset of offsets) origins.push({ topic: batch.topic, partition: batch.partition, offset });
    }
    return classifyRejection(this.knex, origins,
      (trx, i) => valuesInsert(trx, this.cfg.table, Object.keys(rows[i]!), [rows[i]!], this.cfg.conflictKey), error.cause ?? error);
  }

  /**
   * Moves a partition's stored position (GroupConsumer.seek under exactly-once) by compare-and-set on the offsets
   * table, writing no rows. @returns committed, or fenced with the stored offset re-read.
   * @throws SinkWriteError SINK_CLOSED, SINK_BATCH_INVALID, SINK_RETRIES_EXHAUSTED (retriable).
   */
  async seek(groupId: string, request: SeekRequest): Promise<WriteResult> {
    this.assertOpen();
    return this.offsets.seek(groupId, request, request.expectedOffset, request.offset);
  }

  /**
   * Other data tables this group's stored positions were written for (from the offsets table's
   * `target` column): non-empty means the group id is shared with a sink writing elsewhere, which
   * splits the stream or starts this table past records it never received. `kafka-eos run` warns.
   */
  async otherTargets(groupId: string): Promise<string[]> {
    return (await this.offsets.targetsOf(groupId)).filter((t) => t !== this.cfg.table);
  }

  /** The data table name. */
  get table(): string {
    return this.cfg.table;
  }

  /** Destroys the knex instance if the sink created it from a Knex.Config. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer.close();
    if (this.ownsKnex) await this.knex.destroy();
  }

  private assertOpen(): void {
    if (this.closed) throw new SinkWriteError('SINK_CLOSED', 'the sink is closed');
  }

  private ensureDataTable(): Promise<void> {
    if (!this.cfg.autoCreate || typeof this.cfg.mapping === 'function' || 'fromSchema' in this.cfg.mapping) return Promise.resolve();
    const m = this.cfg.mapping;
    this.dataReady ??= ensureDataTable(this.knex, this.cfg.table, {
      columns: Object.entries(m.columns).map(([name, c]) => ({ name, type: c.type, nullable: c.nullable ?? false })),
      includeKafkaCoordinates: this.cfg.includeKafkaCoordinates,
      primaryKey: this.cfg.conflictKey,
    }).catch((err: unknown) => { this.dataReady = undefined; throw err; });
    return this.dataReady;
  }

  /** Makes every connection rebuild the stage table of this write's columns on its next staged write. */
  private forgetStage(mapped: MappedWrite): void {
    const set = rowSetOf(mapped);
    if (set) this.writer.forgetStage({ table: this.cfg.table, columns: set.columns, conflictKey: this.cfg.conflictKey });
  }

  /**
   * PostgreSQL: the COPY the offset store may send in the same message as BEGIN and the CAS (pg-pipelined.ts); for the
   * staged path, given the transaction's connection, only when it holds the stage table already. @returns undefined on
   * other databases, with `pipelinedWrites: false`, and for a write of no rows.
   */
  private pipelined(mapped: MappedWrite, staged: boolean): TxOpening['copy'] {
    const set = this.offsets.dialect === 'postgres' && this.cfg.pipelinedWrites ? rowSetOf(mapped) : undefined;
    if (!set) return undefined;
    const chunks = copyChunksOf(set.rows, set.columns, PIPELINED_ROWS_PER_CHUNK);
    if (!staged) return { copySql: copySql(this.cfg.table, set.columns), rows: chunks };
    // Staged (upsert, a kafka-key replay): pipelined on a connection that already holds the stage table.
    const target = { table: this.cfg.table, columns: set.columns, conflictKey: this.cfg.conflictKey };
    return (conn) => {
      const stage = this.writer.stagedCopy(conn, target);
      return stage && { ...stage, rows: chunks };
    };
  }

  private mapAll(batches: SinkBatch[]): MappedWrite {
    const handled = batches.map((b) => (this.cfg.behaviorOnNullValues
      ? { ...b, records: tombstonesHandled(b.records, this.cfg.behaviorOnNullValues) } : b));
    const { columns, toValues, toCopyText } = this.mapper;
    if (columns && toCopyText && this.cfg.mode !== 'upsert') {
      // PostgreSQL: the COPY lines straight from the records, encoded a chunk at a time when sent (row-writer.ts
      // CopyTextRows): chunk k is rows [from, to) of one batch, per `ranges` (batch index, from, to).
      let count = 0;
      const ranges: number[] = [];
      const out = handled.map((batch, b) => {
        const { records } = batch;
        for (let i = 0; i < records.length; i += PIPELINED_ROWS_PER_CHUNK) {
          ranges.push(b, i, Math.min(records.length, i + PIPELINED_ROWS_PER_CHUNK));
        }
        count += records.length;
        return { batch, rows: undefined, offsets: records.map((r) => r.offset) };
      });
      const copyText = {
        chunks: ranges.length / 3,
        chunk: (k: number) => toCopyText(handled[ranges[3 * k]!]!.records, ranges[3 * k + 1]!, ranges[3 * k + 2]!),
      };
      return { batches: out, flat: { copyText, count, columns } };
    }
    if (columns && toValues) {
      // Declarative: the bind values straight from the records into one array, no row object (row-writer.ts FlatRows);
      // upsert keeps the last row of each key there (collapseFlatDuplicates).
      let count = 0;
      for (const b of handled) count += b.records.length;
      const values = new Array<unknown>(count * columns.length);
      let at = 0;
      const out = handled.map((batch) => {
        const offsets = new Array<bigint>(batch.records.length);
        for (let i = 0; i < batch.records.length; i++) {
          const r = batch.records[i]!;
          toValues(r, values, at);
          at += columns.length;
          offsets[i] = r.offset;
        }
        return { batch, rows: undefined, offsets };
      });
      if (this.cfg.mode === 'upsert' && this.cfg.conflictKey) return collapseFlatDuplicates(out, { values, count, columns },
        this.cfg.conflictKey);
      return { batches: out, flat: { values, count, columns } };
    }
    const out: RowBatch[] = handled.map((batch) => ({
      batch, rows: batch.records.map((r) => this.mapper.toRow(r)), offsets: batch.records.map((r) => r.offset),
    }));
    if (!this.mapper.columns) {
      // A function mapping may omit columns: every row of a write gets the same column set (declarative rows have it).
      const columns = unionColumns(out);
      for (const mb of out) {
        for (const row of mb.rows) for (const c of columns) if (!(c in row)) row[c] = null;
      }
    }
    if (this.cfg.mode === 'upsert' && this.cfg.conflictKey) collapseDuplicateKeys(out, this.cfg.conflictKey);
    return { batches: out, flat: undefined };
  }

  /**
   * Writes the rows of every batch in the transaction `tx` through the dialect's bulk path (see row-writer.ts): rows of all
   * partitions go together (one column set per write). A rejected chunk becomes SINK_WRITE_FAILED naming its
   * range; write() then locates the exact row. @returns the writer's commit hook.
   */
  private async insertAll(tx: SqlTx, mapped: MappedWrite, staged: boolean): Promise<() => void> {
    const set = rowSetOf(mapped);
    if (!set) return () => undefined;
    const { rows, columns } = set;
    const target = { table: this.cfg.table, columns, conflictKey: this.cfg.conflictKey };
    try {
      return await this.writer.write(tx, target, rows, staged);
    } catch (err) {
      if (!(err instanceof RowsRejected)) throw err;
      throw chunkRejected(mapped.batches, err.first, err.count, err.cause);
    }
  }

}

/** The rows of a write as the row writer takes them, with their columns; undefined for a write of no rows. */
function rowSetOf({ batches, flat }: MappedWrite): { rows: RowSet; columns: string[] } | undefined {
  if (flat) return flat.count === 0 ? undefined : { rows: flat, columns: flat.columns };
  const objects = batches.length === 1 ? batches[0]!.rows! : batches.flatMap((m) => m.rows!);
  return objects.length === 0 ? undefined : { rows: objects, columns: Object.keys(objects[0]!) };
}

/** The batch and offset of the i-th row of a write (rows of all batches in order). */
function rowOrigin(mapped: MappedBatch[], i: number): { batch: SinkBatch; offset: bigint } {
  for (const m of mapped) {
    if (i < m.offsets.length) return { batch: m.batch, offset: m.offsets[i]! };
    i -= m.offsets.length;
  }
  throw new KafkaEosError('INTERNAL_ERROR', `row ${i} is beyond the write`);
}

/** SINK_WRITE_FAILED for the rows [first, first + count) of the write (a statement or COPY the database refused). */
function chunkRejected(mapped: MappedBatch[], first: number, count: number, err: unknown): SinkWriteError {
  const a = rowOrigin(mapped, first);
  const b = rowOrigin(mapped, first + count - 1);
  const where = a.batch === b.batch
    ? `${a.batch.topic}:${a.batch.partition} rows at offsets ${a.offset}..${b.offset}`
    : `rows from ${a.batch.topic}:${a.batch.partition}@${a.offset} to ${b.batch.topic}:${b.batch.partition}@${b.offset}`;
  return new SinkWriteError('SINK_WRITE_FAILED', `${where} rejected: ${(err as Error)?.message ?? String(err)}`, {
    topic: a.batch.topic, partition: a.batch.partition, offset: a.offset,
    lastOffset: a.batch === b.batch ? b.offset : undefined,
  }, { cause: err });
}

/**
 * Records must belong to the batch, be strictly increasing, lie in [expectedOffset, nextOffset).
 * @throws SinkWriteError SINK_BATCH_INVALID
 */
export function validateRecords(b: SinkBatch): void {
  let prev: bigint | undefined;
  const key = partitionKey(b);
  const invalid = (message: string, offset?: bigint) =>
    new SinkWriteError('SINK_BATCH_INVALID', message, { topic: b.topic, partition: b.partition, offset });
  if (!Array.isArray(b.records)) throw invalid(`${key}: records must be an array`);
  for (const r of b.records) {
    const at = r.offset;
    if (r.topic !== b.topic || r.partition !== b.partition) {
      throw invalid(`record ${r.topic}:${r.partition}@${r.offset} is in batch ${key}`, at);
    }
    if (typeof r.offset !== 'bigint') throw invalid(`${key}: record offset must be a bigint`, at);
    if (prev !== undefined && r.offset <= prev) throw invalid(`${key}: offsets not strictly increasing (${prev} then ${r.offset})`, at);
    prev = r.offset;
  }
  // Strictly increasing: the first and the last record bound them all (then the first record out of range is named).
  const { records } = b;
  if (records.length === 0) return;
  if (typeof b.nextOffset === 'bigint' && records[records.length - 1]!.offset >= b.nextOffset) {
    const r = records.find((x) => x.offset >= b.nextOffset)!;
    throw invalid(`${key}: record offset ${r.offset} >= nextOffset ${b.nextOffset}`, r.offset);
  }
  if (typeof b.expectedOffset === 'bigint' && b.expectedOffset >= 0n && records[0]!.offset < b.expectedOffset) {
    throw invalid(`${key}: record offset ${records[0]!.offset} < expectedOffset ${b.expectedOffset}`, records[0]!.offset);
  }
}

function unionColumns(mapped: RowBatch[]): string[] {
  const cols = new Set<string>();
  for (const mb of mapped) for (const row of mb.rows) for (const c of Object.keys(row)) cols.add(c);
  return [...cols];
}

/** Flat rows as row objects (the row-by-row replay of a refused write binds row objects). */
function flatRowObjects({ values, count, columns }: FlatRows & { columns: readonly string[] }): Row[] {
  const rows: Row[] = [];
  for (let r = 0, p = 0; r < count; r++) {
    const row: Row = {};
    for (const c of columns) row[c] = values[p++];
    rows.push(row);
  }
  return rows;
}

/**
 * A row's upsert key as a Map key: the value itself for one plain column, else the JSON text of the key's values
 * (as collapseDuplicateKeys).
 */
function keyOf(values: readonly unknown[], at: number, keyIndexes: readonly number[]): unknown {
  if (keyIndexes.length === 1) {
    const v = values[at + keyIndexes[0]!] ?? null;
    // Plain values compare by value in a Map; a string is told from a number as JSON.stringify tells "1" from 1.
    if (v === null || typeof v === 'number' || typeof v === 'boolean') return v;
    if (typeof v === 'string') return `s${v}`;
  }
  const key: unknown[] = [];
  for (const i of keyIndexes) key.push(values[at + i] ?? null);
  return `j${JSON.stringify(key)}`;
}

/**
 * {@link collapseDuplicateKeys} on flat rows: the write as is when no key repeats (the common case, no copy), else
 * the last row of each key (later offset / later batch wins) in a new flat array, with the batches' offsets to match.
 */
function collapseFlatDuplicates(mapped: MappedBatch[], flat: FlatRows & { columns: string[] }, key: string[]): MappedWrite {
  const { values, count, columns } = flat;
  const width = columns.length;
  const keyIndexes = key.map((c) => columns.indexOf(c));
  if (keyIndexes.some((i) => i < 0)) throw new KafkaEosError('INTERNAL_ERROR',
    `upsertKey ${key.join(', ')} is not among the mapped columns`);
  const last = new Map<unknown, number>();
  for (let r = 0; r < count; r++) last.set(keyOf(values, r * width, keyIndexes), r);
  if (last.size === count) return { batches: mapped, flat };
  const kept: unknown[] = [];
  let r = 0;
  const batches = mapped.map((m) => {
    const offsets: bigint[] = [];
    for (const offset of m.offsets) {
      if (last.get(keyOf(values, r * width, keyIndexes)) === r) {
        for (let c = 0; c < width; c++) kept.push(values[r * width + c]);
        offsets.push(offset);
      }
      r++;
    }
    return { ...m, offsets };
  });
  return { batches, flat: { values: kept, count: kept.length / width, columns } };
}

/**
 * Upsert: PostgreSQL rejects a statement that updates the same key twice ("ON CONFLICT DO UPDATE command cannot
 * affect row a second time"), so keep only the last row of each key in the write (later offset / later batch wins).
 */
function collapseDuplicateKeys(mapped: RowBatch[], key: string[]): void {
  const last = new Map<string, { b: number; i: number }>();
  mapped.forEach((mb, b) => mb.rows.forEach((row, i) => last.set(JSON.stringify(key.map((c) => row[c] ?? null)), { b, i })));
  mapped.forEach((mb, b) => {
    const keepRows: Row[] = [];
    const keepOffsets: bigint[] = [];
    mb.rows.forEach((row, i) => {
      const w = last.get(JSON.stringify(key.map((c) => row[c] ?? null)));
      if (w && w.b === b && w.i === i) { keepRows.push(row); keepOffsets.push(mb.offsets[i]!); }
    });
    mb.rows = keepRows;
    mb.offsets = keepOffsets;
  });
}
