/**
 * SqlSink: writes Kafka records to a SQL table exactly once (SQLite via sqlite3, PostgreSQL via pg).
 * The rows of all batches of one write() and the CAS updates of their partitions' next_offset commit in one
 * knex transaction; a CAS matching 0 rows (a zombie writer, or a stale position) rolls everything back.
 */
import { valuesInsert } from './insert';
import type { Knex } from 'knex';
import { SqlOffsetStore } from '../../offsets/sql-store';
import { partitionKey, type ExactlyOnceSink, type SinkBatch, type TopicPartition, type WriteResult } from '../sink';
import { validateSqlSinkConfig, type NormalizedSqlSinkConfig, type SqlSinkConfig } from './config';
import { ensureDataTable } from './ddl';
import { createKnex, isKnexInstance, rowsPerStatement } from './dialect';
import { isTransientSqlError, SinkWriteError } from './errors';
import { compileMapping, type CompiledMapping, type Row } from './mapping';
import { classifyRejection, isSystemicSqlError, refusedWrite, type RowOrigin } from './rejection';
import { KafkaEosError } from '../../errors';

interface MappedBatch { batch: SinkBatch; rows: Row[]; offsets: bigint[] }

export class SqlSink implements ExactlyOnceSink {
  /** One write() of several partitions is one transaction. */
  readonly atomicAcrossPartitions = true;
  /** The offsets table, usable directly (e.g. `sink.offsets.read(...)`). */
  readonly offsets: SqlOffsetStore;
  readonly knex: Knex;
  private readonly cfg: NormalizedSqlSinkConfig;
  private readonly mapper: CompiledMapping;
  private readonly ownsKnex: boolean;
  private dataReady: Promise<void> | undefined;
  private closed = false;

  /** Validates the whole config first. @throws SinkConfigError (SINK_CONFIG_INVALID) naming the field. */
  constructor(config: SqlSinkConfig) {
    this.cfg = validateSqlSinkConfig(config);
    this.ownsKnex = !isKnexInstance(config.knex);
    this.knex = isKnexInstance(config.knex) ? config.knex : createKnex(config.knex);
    try {
      this.offsets = new SqlOffsetStore({ knex: this.knex, table: this.cfg.offsetsTable, retry: config.retry });
    } catch (err) {
      if (this.ownsKnex) void this.knex.destroy();
      throw err;
    }
    this.mapper = compileMapping(this.cfg.mapping, this.offsets.dialect, this.cfg.includeKafkaCoordinates);
  }

  /**
   * Creates missing tables (offsets always, data table if autoCreate), seeds absent positions with -1 and reads them.
   * @returns `${topic}:${partition}` → stored next offset (-1n = none).
   * @throws SinkWriteError SINK_CLOSED, SINK_RETRIES_EXHAUSTED; driver errors for DDL failures.
   */
  async open(groupId: string, partitions: TopicPartition[]): Promise<Map<string, bigint>> {
    this.assertOpen();
    await this.ensureDataTable();
    return this.offsets.load(groupId, partitions);
  }

  /**
   * Maps every record first (a mapping failure throws before anything is sent), then in one transaction:
   * CAS every partition (expectedOffset → nextOffset), insert/upsert the rows in chunks, commit.
   * @returns committed, or fenced with the stored offsets of the partitions whose CAS failed (nothing written).
   * @throws SinkMappingError (SINK_MAPPING_FAILED) with topic/partition/offset/column of the record;
   *   SinkWriteError SINK_BATCH_INVALID (inconsistent batches), SINK_WRITE_FAILED with `recordAtFault` (the
   *   database rejected one record and accepts the others, proven by replaying the rows one by one in a
   *   transaction that is always rolled back; everything rolled back, not retried), SINK_WRITE_REFUSED
   *   (retriable: the database refuses the write as a whole, see rejection.ts), SINK_RETRIES_EXHAUSTED
   *   (outcome unknown).
   */
  async write(groupId: string, batches: SinkBatch[]): Promise<WriteResult> {
    this.assertOpen();
    for (const b of batches) validateRecords(b);
    const mapped = this.mapAll(batches);
    await this.ensureDataTable();
    let result;
    try {
      result = await this.offsets.withOffsets(groupId, batches, (trx) => this.insertAll(trx, mapped));
    } catch (err) {
      if (err instanceof SinkWriteError && err.code === 'SINK_WRITE_FAILED') throw await this.classifyRefusal(mapped, err);
      // A driver error outside the rows (the offsets table renamed, a privilege revoked): never a record's fault.
      if (!(err instanceof KafkaEosError) && isSystemicSqlError(err)) throw refusedWrite('an error no row can cause', err);
      throw err;
    }
    return result.status === 'fenced' ? { status: 'fenced', fenced: result.fenced } : { status: 'committed' };
  }

  /**
   * Decides whether a refused write is one record's fault or the database's (see rejection.ts):
   * replays the rows one at a time with the write path's statement, in a transaction that is
   * always rolled back.
   */
  private async classifyRefusal(mapped: MappedBatch[], error: SinkWriteError): Promise<SinkWriteError> {
    const rows: Row[] = [];
    const origins: RowOrigin[] = [];
    for (const { batch, rows: r, offsets } of mapped) {
      for (let i = 0; i < r.length; i++) {
        rows.push(r[i]!);
        origins.push({ topic: batch.topic, partition: batch.partition, offset: offsets[i]! });
      }
    }
    return classifyRejection(this.knex, origins,
      (trx, i) => valuesInsert(trx, this.cfg.table, Object.keys(rows[i]!), [rows[i]!], this.cfg.conflictKey), error.cause ?? error);
  }

  /** The data table name. */
  get table(): string {
    return this.cfg.table;
  }

  /** Destroys the knex instance if the sink created it from a Knex.Config. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsKnex) await this.knex.destroy();
  }

  private assertOpen(): void {
    if (this.closed) throw new SinkWriteError('SINK_CLOSED', 'the sink is closed');
  }

  private ensureDataTable(): Promise<void> {
    if (!this.cfg.autoCreate || typeof this.cfg.mapping === 'function') return Promise.resolve();
    const m = this.cfg.mapping;
    this.dataReady ??= ensureDataTable(this.knex, this.cfg.table, {
      columns: Object.entries(m.columns).map(([name, c]) => ({ name, type: c.type, nullable: c.nullable ?? false })),
      includeKafkaCoordinates: this.cfg.includeKafkaCoordinates,
      primaryKey: this.cfg.conflictKey,
    }).catch((err: unknown) => { this.dataReady = undefined; throw err; });
    return this.dataReady;
  }

  private mapAll(batches: SinkBatch[]): MappedBatch[] {
    const out: MappedBatch[] = batches.map((batch) => ({ batch, rows: batch.records.map((r) => this.mapper.toRow(r)), offsets: batch.records.map((r) => r.offset) }));
    const columns = this.mapper.columns ?? unionColumns(out);
    for (const mb of out) {
      for (const row of mb.rows) for (const c of columns) if (!(c in row)) row[c] = null;
    }
    if (this.cfg.mode === 'upsert' && this.cfg.conflictKey) collapseDuplicateKeys(out, this.cfg.conflictKey);
    return out;
  }

  /**
   * Inserts the rows of every batch, in as few statements as the dialect allows: rows of all
   * partitions go into the same VALUES lists (one column set per write), so a write of six
   * partitions costs one or two statements, not six.
   */
  private async insertAll(trx: Knex.Transaction, mapped: MappedBatch[]): Promise<void> {
    const rows: Record<string, unknown>[] = [];
    const origin: { batch: SinkBatch; offset: bigint }[] = [];
    for (const { batch, rows: r, offsets } of mapped) {
      for (let i = 0; i < r.length; i++) {
        rows.push(r[i]);
        origin.push({ batch, offset: offsets[i] });
      }
    }
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!);
    const perStatement = rowsPerStatement(this.offsets.dialect, columns.length, this.cfg.maxRowsPerStatement);
    for (let i = 0; i < rows.length; i += perStatement) {
      const chunk = rows.slice(i, i + perStatement);
      try {
        await valuesInsert(trx, this.cfg.table, columns, chunk, this.cfg.conflictKey);
      } catch (err) {
        if (isTransientSqlError(err)) throw err;
        const first = origin[i];
        const last = origin[i + chunk.length - 1];
        const where = first.batch === last.batch
          ? `${first.batch.topic}:${first.batch.partition} rows at offsets ${first.offset}..${last.offset}`
          : `rows from ${first.batch.topic}:${first.batch.partition}@${first.offset} to ${last.batch.topic}:${last.batch.partition}@${last.offset}`;
        throw new SinkWriteError('SINK_WRITE_FAILED', `${where} rejected: ${(err as Error).message}`, {
          topic: first.batch.topic, partition: first.batch.partition, offset: first.offset,
          lastOffset: first.batch === last.batch ? last.offset : undefined,
        }, { cause: err });
      }
    }
  }

}

/** Records must belong to the batch, be strictly increasing, lie in [expectedOffset, nextOffset). @throws SinkWriteError SINK_BATCH_INVALID */
function validateRecords(b: SinkBatch): void {
  let prev: bigint | undefined;
  const key = partitionKey(b);
  if (!Array.isArray(b.records)) throw new SinkWriteError('SINK_BATCH_INVALID', `${key}: records must be an array`, { topic: b.topic, partition: b.partition });
  for (const r of b.records) {
    const where = { topic: b.topic, partition: b.partition, offset: r.offset };
    if (r.topic !== b.topic || r.partition !== b.partition) throw new SinkWriteError('SINK_BATCH_INVALID', `record ${r.topic}:${r.partition}@${r.offset} is in batch ${key}`, where);
    if (typeof r.offset !== 'bigint') throw new SinkWriteError('SINK_BATCH_INVALID', `${key}: record offset must be a bigint`, where);
    if (prev !== undefined && r.offset <= prev) throw new SinkWriteError('SINK_BATCH_INVALID', `${key}: offsets not strictly increasing (${prev} then ${r.offset})`, where);
    if (typeof b.nextOffset === 'bigint' && r.offset >= b.nextOffset) throw new SinkWriteError('SINK_BATCH_INVALID', `${key}: record offset ${r.offset} >= nextOffset ${b.nextOffset}`, where);
    if (typeof b.expectedOffset === 'bigint' && b.expectedOffset >= 0n && r.offset < b.expectedOffset) throw new SinkWriteError('SINK_BATCH_INVALID', `${key}: record offset ${r.offset} < expectedOffset ${b.expectedOffset}`, where);
    prev = r.offset;
  }
}

function unionColumns(mapped: MappedBatch[]): string[] {
  const cols = new Set<string>();
  for (const mb of mapped) for (const row of mb.rows) for (const c of Object.keys(row)) cols.add(c);
  return [...cols];
}

/**
 * Upsert: PostgreSQL rejects a statement that updates the same key twice ("ON CONFLICT DO UPDATE command cannot
 * affect row a second time"), so keep only the last row of each key in the write (later offset / later batch wins).
 */
function collapseDuplicateKeys(mapped: MappedBatch[], key: string[]): void {
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
