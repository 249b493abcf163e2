/**
 * How rows reach the database inside the sink's offset transaction (the CAS has already succeeded on `trx`):
 *
 * - PostgreSQL, insert and kafka-key modes: one `COPY ... FROM STDIN` on the transaction's own connection.
 * - PostgreSQL, upsert (and kafka-key after a replay conflict): COPY into a session-local temporary table
 *   (`ON COMMIT DELETE ROWS`, created once per connection and column set, rebuilt after any failure), then one
 *   `INSERT ... SELECT ... ON CONFLICT (key) DO UPDATE` from it.
 * - SQLite: multi-row `INSERT ... VALUES` statements prepared once per connection, table, column set and row
 *   count, and reused across transactions (see {@link SqliteStatementCache}); full chunks share one statement,
 *   a tail is split into power-of-two row counts so at most a handful of statements exist per column set.
 * - MySQL / MariaDB: multi-row `INSERT ... VALUES` (upsert: `ON DUPLICATE KEY UPDATE`) of up to rowsPerStatement rows
 *   on the transaction's mysql2 connection, escaped client-side: one round trip per chunk, no prepare
 *   (bench/sql-sink-mariadb.js measures it against `LOAD DATA LOCAL INFILE` of the same rows).
 *
 * A failed chunk is reported through `onRejected(first, count, err)` (row indexes of the chunk); the caller
 * turns it into SINK_WRITE_FAILED and locates the row exactly with its row-by-row path.
 */
import { KafkaEosError } from '../../errors';
import type { Knex } from 'knex';
import type { ClientBase } from 'pg';
import type { Database } from 'sqlite3';
import { copyRows, copySql, copyText, copyValues, encodeCopyRows, encodeCopyValues } from './copy';
import { quoteIdentifier, type SqlDialect } from './dialect';
import { isTransientSqlError } from './errors';
import { runStatement, SqliteStatementCache } from './sqlite-statements';
import { mysqlInsertSql, mysqlQuery, type MysqlConnection } from './mysql';
import type { Row } from './mapping';
import { connectionOf, type SqlTx } from './raw-transaction';
import type { CopyChunks } from './pg-pipelined';
import { SinkMappingError } from '../errors';

/**
 * The rows of a write as one flat array of bind values, row after row, each in the target's column order (a
 * declarative mapping's `toValues`, mapping.ts): what the bulk paths read, without a row object per record.
 */
export interface FlatRows {
  readonly values: readonly unknown[];
  /** Rows held (values.length / columns). */
  readonly count: number;
}

/**
 * PostgreSQL: the rows of a write as COPY text-format lines in the target's column order (a declarative mapping's
 * `toCopyText`, mapping.ts), encoded on demand in chunks of whole lines, each sent as one COPY data message: a
 * pipelined write (pg-pipelined.ts) encodes each chunk while the server takes in the one before; the COPY of separate
 * statements encodes every chunk to bytes before it starts.
 */
export interface CopyTextRows {
  readonly copyText: CopyChunks;
  /** Rows (lines) held. */
  readonly count: number;
}

/** Row objects, or the same rows as one {@link FlatRows} array, or as {@link CopyTextRows} (PostgreSQL only). */
export type RowSet = readonly Row[] | FlatRows | CopyTextRows;

/** Whether `rows` is a {@link FlatRows}. */
const isFlat = (rows: RowSet): rows is FlatRows => 'values' in rows && !Array.isArray(rows);
const isCopyText = (rows: RowSet): rows is CopyTextRows => 'copyText' in rows;
const rowCount = (rows: RowSet): number => (Array.isArray(rows) ? rows.length : (rows as FlatRows | CopyTextRows).count);

/** Where the rows go and how conflicts are handled. */
export interface RowTarget {
  table: string;
  columns: string[];
  /** ON CONFLICT target (upsert, kafka-key), or undefined for a plain insert. */
  conflictKey: string[] | undefined;
}

/** Thrown by the write path for a non-transient database error on rows `[first, first + count)`. */
export class RowsRejected extends KafkaEosError {
  constructor(readonly first: number, readonly count: number, override readonly cause: unknown) {
    super('SINK_WRITE_FAILED', (cause as Error)?.message ?? String(cause), { cause });
  }
}

/** Writes a transaction's rows by the dialect's bulk path (see the module comment); one per SqlSink. */
export class RowWriter {
  private readonly statements: SqliteStatementCache | undefined;
  /**
   * pg connections known to hold a committed stage table: stage name → the {@link stageEpochs} value it was built in
   * (temporary tables live as long as their session).
   */
  private readonly stages = new WeakMap<object, Map<string, number>>();
  /**
   * Per stage name, bumped on any failure of the staged path: every connection's copy is then rebuilt (dropped and
   * created again) on its next use, so a stage never keeps a column type the target table no longer has (ALTER COLUMN).
   */
  private readonly stageEpochs = new Map<string, number>();
  /** SQLite INSERT texts by table, column set and row count (building a 1000-tuple text costs as much as hashing it). */
  private readonly insertSql = new Map<string, string>();
  /** The parameters of a SQLite INSERT, reused (see sqliteInsert). */
  private readonly sqliteParams: unknown[] = [];

  /**
   * @param rowsPerStatement SQLite rows per full statement (already capped by the variable limit).
   * @param statements SQLite: a statement cache to share (the offset store's), else the writer makes its own.
   */
  constructor(
    knex: Knex, private readonly dialect: SqlDialect, private readonly rowsPerStatement: (columns: number) => number,
    statements?: SqliteStatementCache,
  ) {
    this.statements = dialect === 'sqlite' ? statements ?? new SqliteStatementCache(knex) : undefined;
  }

  /**
   * Writes `rows` in the transaction `on` (a knex transaction, or a {@link SqlTx}: the statements run on its driver
   * connection either way). `staged` (PostgreSQL) forces the temporary-table path even without a conflict key.
   * @returns a commit hook: call it once the transaction has committed (records stage tables as created).
   * @throws RowsRejected for a database rejection; transient errors unchanged.
   */
  async write(on: Knex.Transaction | SqlTx, target: RowTarget, rows: RowSet, staged: boolean): Promise<() => void> {
    const count = rowCount(rows);
    if (count === 0) return () => undefined;
    const conn = typeof on === 'function' ? await connectionOf(on) : on.connection;
    if (this.dialect === 'sqlite') {
      await this.sqliteInsert(conn as Database, target, rows);
      return () => undefined;
    }
    if (this.dialect === 'mysql') {
      await this.mysqlInsert(conn as MysqlConnection, target, rows);
      return () => undefined;
    }
    const client = conn as ClientBase;
    const sent = typeof on === 'function' ? undefined : on.sent;
    if (sent) {
      // A pipelined write (pg-pipelined.ts): the rows went with BEGIN; only the server's verdict on them is left (a
      // staged one that failed has its stage forgotten by the sink, which hears of every failure of a staged write).
      if (sent.error !== undefined) await guard(0, count, () => Promise.reject(sent.error));
      return () => undefined;
    }
    if (!staged) {
      // insert, and kafka-key: the coordinates are unique per record, so COPY straight in; a replay conflict makes
      // the caller retry the whole transaction with staged = true.
      await guard(0, count, () => copy(client, target.table, target.columns, rows));
      return () => undefined;
    }
    return this.stagedUpsert(client, target, rows);
  }

  /** Finalizes prepared statements (SQLite). */
  close(): Promise<void> {
    return this.statements?.close() ?? Promise.resolve();
  }

  /**
   * PostgreSQL, staged path: the COPY into the stage table and the statement moving its rows, for a pipelined write
   * (pg-pipelined.ts) on `conn`; undefined when `conn` does not hold the stage at the current epoch (the write then goes
   * by separate statements, which build it).
   */
  stagedCopy(conn: unknown, target: RowTarget): { copySql: string; after: { sql: string; statements: number } } | undefined {
    const stage = stageName(target.table, target.columns);
    if (this.stages.get(conn as object)?.get(stage) !== (this.stageEpochs.get(stage) ?? 0)) return undefined;
    return { copySql: copySql(stage, target.columns), after: { sql: moveSql(target, stage), statements: 1 } };
  }

  /** Forgets the stage of `target` on every connection (each rebuilds it on its next staged write). */
  forgetStage(target: RowTarget): void {
    const stage = stageName(target.table, target.columns);
    this.stageEpochs.set(stage, (this.stageEpochs.get(stage) ?? 0) + 1);
  }

  private async stagedUpsert(client: ClientBase, target: RowTarget, rows: RowSet): Promise<() => void> {
    const stage = stageName(target.table, target.columns);
    const epoch = this.stageEpochs.get(stage) ?? 0;
    const created = this.stages.get(client)?.get(stage) === epoch;
    const cols = target.columns.map(quoteIdentifier).join(', ');
    try {
      return await guard(0, rowCount(rows), async () => {
        if (!created) {
          // Rebuilt from the target's current columns: a stage left by an earlier epoch may hold stale types.
          await client.query(`DROP TABLE IF EXISTS pg_temp.${quoteIdentifier(stage)}`);
          await client.query(`CREATE TEMPORARY TABLE ${quoteIdentifier(stage)} ON COMMIT DELETE ROWS`
            + ` AS SELECT ${cols} FROM ${quoteIdentifier(target.table)} WITH NO DATA`);
        }
        await copy(client, stage, target.columns, rows);
        await client.query(moveSql(target, stage));
        return () => {
          if (created || (this.stageEpochs.get(stage) ?? 0) !== epoch) return;
          const known = this.stages.get(client) ?? new Map<string, number>();
          known.set(stage, epoch);
          this.stages.set(client, known);
        };
      });
    } catch (err) {
      // Any failure (a stale stage type, a dropped stage, a refused row): forget the stage on every connection.
      this.stageEpochs.set(stage, epoch + 1);
      throw err;
    }
  }

  private sqliteInsertSql(target: RowTarget, n: number): string {
    const key = `${n}\u0000${target.table}\u0000${target.columns.join('\u0000')}`;
    let sql = this.insertSql.get(key);
    if (sql === undefined) {
      const { columns } = target;
      sql = `INSERT INTO ${quoteIdentifier(target.table)} (${columns.map(quoteIdentifier).join(', ')}) VALUES ${tuples(columns.length, n)}`
        + (target.conflictKey ? ` ${onConflict(target)}` : '');
      if (this.insertSql.size >= 256) this.insertSql.clear();
      this.insertSql.set(key, sql);
    }
    return sql;
  }

  private async mysqlInsert(conn: MysqlConnection, target: RowTarget, rows: RowSet): Promise<void> {
    const { columns } = target;
    const full = this.rowsPerStatement(columns.length);
    const count = rowCount(rows);
    for (let i = 0; i < count; i += full) {
      const n = Math.min(full, count - i);
      const key = `${n}\u0000${target.table}\u0000${columns.join('\u0000')}\u0000${target.conflictKey?.join('\u0000') ?? ''}`;
      let sql = this.insertSql.get(key);
      if (sql === undefined) {
        sql = mysqlInsertSql(target.table, columns, n, target.conflictKey);
        if (this.insertSql.size >= 256) this.insertSql.clear();
        this.insertSql.set(key, sql);
      }
      const params = new Array<unknown>(n * columns.length);
      fillParams(params, rows, columns, i, n);
      await guard(i, n, () => mysqlQuery(conn, sql, params));
    }
  }

  private async sqliteInsert(db: Database, target: RowTarget, rows: RowSet): Promise<void> {
    const { columns } = target;
    const full = this.rowsPerStatement(columns.length);
    const count = rowCount(rows);
    let i = 0;
    while (i < count) {
      const left = count - i;
      const n = left >= full ? full : 2 ** Math.floor(Math.log2(left));
      const sql = this.sqliteInsertSql(target, n);
      const at = i;
      await guard(at, n, async () => {
        const stmt = await this.statements!.get(db, sql);
        // Filled and bound in one synchronous step: node-sqlite3 copies the parameters when run() is called, so
        // one array serves every statement of this writer (no other write can fill it in between).
        const params = this.sqliteParams;
        params.length = n * columns.length;
        fillParams(params, rows, columns, at, n);
        return runStatement(stmt, params);
      });
      i += n;
    }
  }
}

/** Fills `params` with the values of rows `[from, from + n)` in `columns` order (a missing value is NULL). */
function fillParams(params: unknown[], rows: RowSet, columns: readonly string[], from: number, n: number): void {
  const width = columns.length;
  if (isCopyText(rows)) throw new KafkaEosError('INTERNAL_ERROR', 'COPY text rows reached a statement path');
  if (isFlat(rows)) {
    const { values } = rows;
    const base = from * width;
    for (let p = 0, end = n * width; p < end; p++) params[p] = values[base + p] ?? null;
    return;
  }
  let p = 0;
  for (let r = from; r < from + n; r++) {
    const row = (rows as readonly Row[])[r]!;
    for (let c = 0; c < width; c++) params[p++] = row[columns[c]!] ?? null;
  }
}

/** COPY of row objects, flat values or encoded lines (copy.ts). */
function copy(client: ClientBase, table: string, columns: readonly string[], rows: RowSet): Promise<void> {
  if (isCopyText(rows)) {
    // Every chunk encoded before the COPY starts: an encoder's error (a mapping failure) then leaves no COPY open.
    const chunks: Buffer[] = [];
    for (let k = 0; k < rows.copyText.chunks; k++) chunks.push(Buffer.from(rows.copyText.chunk(k), 'utf8'));
    return copyText(client, table, columns, chunks);
  }
  if (isFlat(rows)) return copyValues(client, table, columns, rows.values, rows.count);
  return copyRows(client, table, columns, rows as readonly Row[]);
}

/** Runs `fn`; a non-transient error becomes RowsRejected for rows [first, first + count) (a mapping failure stays itself). */
async function guard<T>(first: number, count: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isTransientSqlError(err) || err instanceof SinkMappingError) throw err;
    throw new RowsRejected(first, count, err);
  }
}

function tuples(columns: number, rows: number): string {
  const one = `(${new Array<string>(columns).fill('?').join(', ')})`;
  return new Array<string>(rows).fill(one).join(', ');
}

/** The staged path's move: `INSERT INTO target (cols) SELECT cols FROM stage ON CONFLICT ...`. */
function moveSql(target: RowTarget, stage: string): string {
  const cols = target.columns.map(quoteIdentifier).join(', ');
  return `INSERT INTO ${quoteIdentifier(target.table)} (${cols}) SELECT ${cols} FROM ${quoteIdentifier(stage)} ${onConflict(target)}`;
}

/**
 * The rows of a write as COPY text chunks of `per` rows (a pipelined write encodes each as it sends it): COPY text
 * lines already (a declarative mapping's, one chunk per range the mapper made), flat values or row objects.
 */
export function copyChunksOf(rows: RowSet, columns: readonly string[], per: number): CopyChunks {
  if (isCopyText(rows)) return rows.copyText;
  const count = rowCount(rows);
  const chunks = Math.ceil(count / per);
  if (isFlat(rows)) return { chunks, chunk: (k) => encodeCopyValues(rows.values, columns.length, k * per, Math.min(count, (k + 1) * per)) };
  return { chunks, chunk: (k) => encodeCopyRows(rows as readonly Row[], columns, k * per, Math.min(count, (k + 1) * per)) };
}

/** `ON CONFLICT (key) DO UPDATE SET c = excluded.c ...`, or `DO NOTHING` when every column is in the key. */
function onConflict(target: RowTarget): string {
  const key = target.conflictKey ?? [];
  const update = target.columns.filter((c) => !key.includes(c));
  const head = `ON CONFLICT (${key.map(quoteIdentifier).join(', ')}) DO`;
  if (update.length === 0) return `${head} NOTHING`;
  return `${head} UPDATE SET ${update.map((c) => `${quoteIdentifier(c)} = excluded.${quoteIdentifier(c)}`).join(', ')}`;
}

/** A temporary table name for (table, columns): a 32-bit FNV-1a hash keeps it short (63-byte limit). */
function stageName(table: string, columns: string[]): string {
  let h = 0x811c9dc5;
  for (const ch of `${table}\u0000${columns.join('\u0000')}`) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `kafka_eos_stage_${h.toString(16).padStart(8, '0')}`;
}
