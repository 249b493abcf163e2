/**
 * JdbcSink: Confluent's JDBC sink connector's semantics (`io.confluent.connect.jdbc.JdbcSinkConnector`), exactly once.
 * What `kafka-eos run` makes from a JDBC sink connector config (src/connect/jdbc.ts); usable on its own.
 *
 * - Routing: each topic goes to the table `tableNameFormat` names (`${topic}` replaced by the topic); one write()
 *   covers every table of its batches and the CAS of every partition in ONE transaction (SqlOffsetStore.withOffsets):
 *   all or nothing, fenced as the SQL sink is.
 * - Columns and primary key from the records' schemas by `pkMode` / `pkFields` / `fieldsInclude` (jdbc-columns.ts);
 *   tables created (`autoCreate`) and evolved (`autoEvolve`) before the rows of a new schema (jdbc-table.ts).
 * - `insertMode`: insert (a replay of an insert-mode write after a rewind fails on the key, as Connect's does),
 *   upsert (INSERT ... ON CONFLICT / ON DUPLICATE KEY UPDATE), update (UPDATE ... WHERE key; a missing row is no error).
 * - `deleteEnabled` (pk.mode record_key): a tombstone deletes its key's row in the same transaction; deleting a
 *   missing row is no error. Within one write a key ends in the state of its last record: its row is deleted first
 *   when any of its records is a tombstone, then the records after its last tombstone are written (upsert and
 *   update: the last one). Without `deleteEnabled` a tombstone is a poison record, as in Connect.
 *
 * A row the database refuses on its own is found by replaying the rows one by one (rejection.ts), after the
 * transaction rolled back: a poison record for the consumer's policy, never a half-written batch.
 */
import type { Knex } from 'knex';
import type { ExactlyOnceSink, SeekRequest, WriteResult } from '../../sink-contract';
import type { SinkBatch, SinkRecord, TopicPartition } from '../../records';
import { KafkaEosError } from '../../errors';
import { assertQuestionMarksSafe, createKnex, isKnexInstance, rowsPerStatement, type SqlDialect } from './dialect';
import { SinkConfigError, SinkMappingError, SinkWriteError } from './errors';
import { valuesInsert } from './insert';
import { JdbcColumnCache, jdbcDeleteKey, jdbcRow, type JdbcColumn, type PkMode } from './jdbc-columns';
import { JdbcTable } from './jdbc-table';
import type { Row } from './mapping';
import { DEFAULT_OFFSETS_TABLE, SqlOffsetStore, validateIdentifier, type SqlRetryOptions } from './offset-store';
import { classifyRejection, isSystemicSqlError, refusedWrite, type RowOrigin } from './rejection';
import { RowsRejected, RowWriter } from './row-writer';
import { validateRecords } from './sql-sink';

/** Connect's `insert.mode`. */
export type JdbcInsertMode = 'insert' | 'upsert' | 'update';

/** Options of {@link JdbcSink}, named after the JDBC sink connector's keys (in each comment). */
export interface JdbcSinkConfig {
  /** A knex instance (the caller owns it) or a Knex.Config (the sink owns it): clients sqlite3, pg, mysql2. */
  knex: Knex | Knex.Config;
  /** `table.name.format` (default `${topic}`): `${topic}` is replaced by the record's topic; one plain identifier. */
  tableNameFormat?: string;
  /** `insert.mode` (default insert). upsert and update need a primary key (`pkMode` other than none). */
  insertMode?: JdbcInsertMode;
  /** `pk.mode` (default none). */
  pkMode?: PkMode;
  /** `pk.fields` (default none: the mode's default columns). */
  pkFields?: string[];
  /** `fields.whitelist` / `fields.include` (default: every value field). */
  fieldsInclude?: string[];
  /** `delete.enabled` (default false; needs pkMode record_key): a tombstone deletes its key's row. */
  deleteEnabled?: boolean;
  /** `auto.create` (default false): create a missing table from the first record's schemas. */
  autoCreate?: boolean;
  /** `auto.evolve` (default false): add a column for a new optional field. */
  autoEvolve?: boolean;
  /** The offsets table (default kafka_eos_offsets). */
  offsetsTable?: string;
  /** Rows per INSERT statement (`batch.size`; capped by the dialect's parameter limit). */
  maxRowsPerStatement?: number;
  /** Transient-error retries (`max.retries`, `retry.backoff.ms`). */
  retry?: Partial<SqlRetryOptions>;
}

interface Entry {
  kind: 'write' | 'delete'; row: Row; key: string; columns: readonly JdbcColumn[]; keyColumns: readonly string[]; record: SinkRecord
}

/** A write the database refused, carried out of the rolled-back transaction to be classified (rejection.ts). */
class Refused { constructor(readonly table: string, readonly rows: Row[], readonly origins: RowOrigin[],
  readonly conflictKey: string[] | undefined, readonly cause: unknown) {} }

const TOPIC = /\$\{topic\}/g;

/** The JDBC sink (see the module comment). One write() is one transaction over every table. */
export class JdbcSink implements ExactlyOnceSink {
  readonly atomicAcrossPartitions = true;
  /** The offsets table. */
  readonly offsets: SqlOffsetStore;
  readonly knex: Knex;
  private readonly dialect: SqlDialect;
  private readonly ownsKnex: boolean;
  private readonly writer: RowWriter;
  private readonly cache: JdbcColumnCache;
  private readonly tables = new Map<string, JdbcTable>();
  private readonly format: string;
  private readonly insertMode: JdbcInsertMode;
  private readonly pkMode: PkMode;
  private readonly deleteEnabled: boolean;
  private readonly pkFields: string[];
  private closed = false;

  /** Validates the options (Connect's rules between them) before connecting. @throws SinkConfigError naming the option */
  constructor(private readonly config: JdbcSinkConfig) {
    this.format = config.tableNameFormat ?? '${topic}';
    this.insertMode = config.insertMode ?? 'insert';
    this.pkMode = config.pkMode ?? 'none';
    this.pkFields = config.pkFields ?? [];
    this.deleteEnabled = config.deleteEnabled ?? false;
    validateJdbcSinkConfig(config);
    this.ownsKnex = !isKnexInstance(config.knex);
    this.knex = isKnexInstance(config.knex) ? config.knex : createKnex(config.knex);
    try {
      this.offsets = new SqlOffsetStore({ knex: this.knex, table: config.offsetsTable ?? DEFAULT_OFFSETS_TABLE, retry: config.retry,
        target: this.format });
      assertQuestionMarksSafe(this.knex, [['tableNameFormat', this.format]]);
    } catch (err) {
      if (this.ownsKnex) void this.knex.destroy();
      throw err;
    }
    this.dialect = this.offsets.dialect;
    this.cache = new JdbcColumnCache({ pkMode: this.pkMode, pkFields: this.pkFields, fieldsInclude: config.fieldsInclude ?? [] });
    this.writer = new RowWriter(this.knex, this.dialect, (n) => rowsPerStatement(this.dialect, n, config.maxRowsPerStatement));
  }

  /** The table a topic's records go to. @throws SinkConfigError when the name is no plain identifier, or the offsets table */
  tableFor(topic: string): string {
    return jdbcTableName(this.format, topic, this.offsets.table);
  }

  /**
   * Checks the table name of every partition's topic (a `topics.regex` subscription learns its topics here, at the
   * assignment), then creates the offsets table if missing, seeds and reads the positions. Data tables are made on
   * their first record. @throws SinkConfigError (CONFIG_INVALID, not retriable) naming the topic whose table name is refused
   */
  async open(groupId: string, partitions: TopicPartition[]): Promise<Map<string, bigint>> {
    this.assertOpen();
    for (const topic of new Set(partitions.map((p) => p.topic))) this.tableFor(topic);
    return this.offsets.load(groupId, partitions);
  }

  /**
   * Maps every record, makes the tables fit their schemas, then in one transaction: the CAS of every partition, the
   * deletes and rows of every table.
   * @throws SinkMappingError (a record the mode cannot map; a tombstone without deleteEnabled); SchemaEvolutionError;
   *   SinkConfigError (a topic's table name is no identifier); SinkWriteError as SqlSink.write
   */
  async write(groupId: string, batches: SinkBatch[]): Promise<WriteResult> {
    this.assertOpen();
    for (const b of batches) validateRecords(b);
    const plan = this.plan(batches);
    for (const [name, entries] of plan) await this.prepare(name, entries);
    try {
      const result = await this.offsets.withOffsets(groupId, batches, async (trx) => {
        for (const [name, entries] of plan) await this.apply(trx, name, entries);
      });
      return result.status === 'fenced' ? { status: 'fenced', fenced: result.fenced } : { status: 'committed' };
    } catch (err) {
      if (err instanceof Refused) {
        throw await classifyRejection(this.knex, err.origins, (trx, i) => valuesInsert(trx, err.table, Object.keys(err.rows[i]!),
          [err.rows[i]!], err.conflictKey), err.cause);
      }
      if (!(err instanceof KafkaEosError) && isSystemicSqlError(err)) throw refusedWrite('an error no row can cause', err);
      throw err;
    }
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

  /** Destroys the knex instance if the sink made it. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer.close();
    if (this.ownsKnex) await this.knex.destroy();
  }

  private assertOpen(): void {
    if (this.closed) throw new SinkWriteError('SINK_CLOSED', 'the sink is closed');
  }

  /** Every record as a write or a delete of its table, in order. */
  private plan(batches: SinkBatch[]): Map<string, Entry[]> {
    const plan = new Map<string, Entry[]>();
    for (const b of batches) {
      const table = b.records.length > 0 ? this.tableFor(b.topic) : '';
      for (const r of b.records) {
        let entry: Entry;
        if (r.value === null) {
          if (!this.deleteEnabled) {
            throw new SinkMappingError(`a tombstone (null value), and delete.enabled is false with pk.mode ${this.pkMode}: the JDBC sink `
              + 'writes records with a struct value (Kafka Connect fails on it too)',
              { topic: r.topic, partition: r.partition, offset: r.offset });
          }
          const keyCols = jdbcDeleteKey(r, { pkMode: this.pkMode, pkFields: this.pkFields, fieldsInclude: [] });
          const row = jdbcRow(r, keyCols, this.dialect);
          entry = { kind: 'delete', row, key: keyString(row, keyCols.map((c) => c.name)), columns: keyCols,
            keyColumns: keyCols.map((c) => c.name), record: r };
        } else {
          const { columns, keyColumns } = this.cache.of(r);
          const row = jdbcRow(r, columns, this.dialect);
          entry = { kind: 'write', row, key: keyString(row, keyColumns), columns, keyColumns, record: r };
        }
        let list = plan.get(table);
        if (!list) plan.set(table, list = []);
        list.push(entry);
      }
    }
    return plan;
  }

  /** Creates / evolves / checks `name` for each new column set of its writes, in record order. */
  private async prepare(name: string, entries: Entry[]): Promise<void> {
    let table = this.tables.get(name);
    if (!table) this.tables.set(name, table = new JdbcTable(this.knex, name, this.dialect,
      { autoCreate: this.config.autoCreate ?? false, autoEvolve: this.config.autoEvolve ?? false }));
    let last: readonly JdbcColumn[] | undefined;
    for (const e of entries) {
      if (e.kind !== 'write' || e.columns === last) continue;
      last = e.columns;
      await table.prepare(e.columns, e.keyColumns, e.record);
    }
  }

  /** The deletes, then the writes of one table, on `trx` (see the module comment for the order). */
  private async apply(trx: Knex.Transaction, table: string, entries: Entry[]): Promise<void> {
    const keyColumns = entries[0]!.keyColumns;
    let writes: Entry[];
    if (keyColumns.length === 0) writes = entries;
    else {
      const lastDelete = new Map<string, number>();
      const lastWrite = new Map<string, number>();
      entries.forEach((e, i) => (e.kind === 'delete' ? lastDelete : lastWrite).set(e.key, i));
      const deletes = entries.filter((e, i) => e.kind === 'delete' && lastDelete.get(e.key) === i);
      if (deletes.length > 0 && await this.tableExists(trx, table)) await this.deleteRows(trx, table, keyColumns, deletes);
      writes = entries.filter((e, i) => e.kind === 'write' && i > (lastDelete.get(e.key) ?? -1)
        && (this.insertMode === 'insert' || lastWrite.get(e.key) === i));
    }
    // One statement shape per column set (rows of an older schema set only their own columns, as Connect's buffers do).
    const groups = new Map<readonly JdbcColumn[], Entry[]>();
    for (const w of writes) {
      const g = groups.get(w.columns);
      if (g) g.push(w); else groups.set(w.columns, [w]);
    }
    for (const [columns, group] of groups) {
      const names = columns.map((c) => c.name);
      const rows = group.map((g) => g.row);
      if (this.insertMode === 'update') {
        const set = names.filter((n) => !keyColumns.includes(n));
        for (const row of rows) {
          if (set.length === 0) continue;
          await trx(table).where(Object.fromEntries(keyColumns.map((k) => [k, row[k]])) as never)
            .update(Object.fromEntries(set.map((n) => [n, row[n] ?? null])) as never);
        }
        continue;
      }
      const conflictKey = this.insertMode === 'upsert' ? [...keyColumns] : undefined;
      try {
        await this.writer.write(trx, { table, columns: names, conflictKey }, rows,
          conflictKey !== undefined && this.dialect === 'postgres');
      } catch (err) {
        if (!(err instanceof RowsRejected)) throw err;
        throw new Refused(table, rows,
          group.map((g) => ({ topic: g.record.topic, partition: g.record.partition, offset: g.record.offset })),
          conflictKey, err.cause);
      }
    }
  }

  private async tableExists(trx: Knex.Transaction, table: string): Promise<boolean> {
    return this.tables.has(table) && await trx.schema.hasTable(table);
  }

  /** `DELETE FROM t WHERE (key) IN (...)`, 500 keys a statement; a missing row is no error. */
  private async deleteRows(trx: Knex.Transaction, table: string, keyColumns: readonly string[], deletes: Entry[]): Promise<void> {
    for (let i = 0; i < deletes.length; i += 500) {
      const chunk = deletes.slice(i, i + 500);
      if (keyColumns.length === 1) {
        const k = keyColumns[0]!;
        await trx(table).whereIn(k, chunk.map((d) => d.row[k] as never)).delete();
      } else {
        await trx(table).whereIn([...keyColumns], chunk.map((d) => keyColumns.map((k) => d.row[k]) as never)).delete();
      }
    }
  }
}

/** A key's identity within a write. */
function keyString(row: Row, keyColumns: readonly string[]): string {
  return keyColumns.length === 0 ? '' : JSON.stringify(keyColumns.map((k) => {
    const v = row[k];
    return Buffer.isBuffer(v) ? v.toString('base64') : v instanceof Date ? v.getTime() : v;
  }));
}

/**
 * Connect's rules between the options: upsert and update need a primary key; delete.enabled needs pk.mode record_key;
 * pk.fields of pk.mode kafka are three names. @throws SinkConfigError naming the option
 */
export function validateJdbcSinkConfig(c: JdbcSinkConfig): void {
  const mode = c.insertMode ?? 'insert';
  const pk = c.pkMode ?? 'none';
  if (!['insert', 'upsert', 'update'].includes(mode)) throw new SinkConfigError('insertMode',
    `must be insert, upsert or update, got ${mode}`);
  if (!['none', 'kafka', 'record_key', 'record_value'].includes(pk)) {
    throw new SinkConfigError('pkMode', `must be none, kafka, record_key or record_value, got ${pk}`);
  }
  if (mode !== 'insert' && pk === 'none') throw new SinkConfigError('pkMode', `insert mode ${mode} needs a primary key: set pk.mode`);
  if (c.deleteEnabled && pk !== 'record_key') throw new SinkConfigError('deleteEnabled', 'deletes need pk.mode=record_key');
  if (pk === 'kafka' && (c.pkFields?.length ?? 0) !== 0 && c.pkFields!.length !== 3) {
    throw new SinkConfigError('pkFields', 'pk.mode kafka takes three names (topic, partition, offset columns) or none');
  }
  if (pk === 'none' && (c.pkFields?.length ?? 0) > 0) throw new SinkConfigError('pkFields', 'only applies with a pk.mode other than none');
  for (const f of [...(c.pkFields ?? []), ...(c.fieldsInclude ?? [])]) validateIdentifier(f, 'pkFields');
  const format = c.tableNameFormat ?? '${topic}';
  validateIdentifier(format.replace(TOPIC, 'topic'), 'tableNameFormat');
  // A format without ${topic} names one table for every topic: it must not be the offsets table either.
  if (!format.includes('${topic}')) jdbcTableName(format, '', c.offsetsTable ?? DEFAULT_OFFSETS_TABLE);
}

/**
 * The table `format` (`table.name.format`) names for `topic`: `${topic}` replaced by it, one plain identifier
 * ({@link validateIdentifier}: no '.', at most 63 bytes, ...) that is not the sink's offsets table `offsetsTable`
 * (compared without case: SQLite and MySQL on case-insensitive file systems fold it). Called for every subscribed topic
 * before anything connects (`kafka-eos run`), at the assignment (JdbcSink.open) and per write.
 * @throws SinkConfigError with field `tableNameFormat (for topic <topic>)` (`tableNameFormat` for the topic '')
 */
export function jdbcTableName(format: string, topic: string, offsetsTable: string = DEFAULT_OFFSETS_TABLE): string {
  const field = topic === '' ? 'tableNameFormat' : `tableNameFormat (for topic ${topic})`;
  const name = validateIdentifier(format.replace(TOPIC, () => topic), field);
  if (name.toLowerCase() === offsetsTable.toLowerCase()) {
    throw new SinkConfigError(field, `"${name}" is the sink's offsets table (${offsetsTable}), where the positions of every group live: `
      + 'rows cannot go there; choose another table.name.format (or another offsets table)');
  }
  return name;
}
