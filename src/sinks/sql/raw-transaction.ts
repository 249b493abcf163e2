/**
 * A transaction on one raw driver connection taken from knex's pool (PostgreSQL, SQLite): `BEGIN`, the caller's
 * statements, `COMMIT`, without knex's transaction machinery (its Transaction object, query runner, events and
 * promise chain cost about as much per write as a few hundred rows; the SQL sink runs one per write).
 *
 * The guarantees are knex.transaction's: one connection for the whole transaction, held from BEGIN to the end;
 * any error (of the body or of COMMIT) is followed by ROLLBACK and rethrown unchanged; a connection whose ROLLBACK
 * fails (the socket is gone, the answer never came) is marked as knex marks a broken connection (`__knex__disposed`),
 * so the pool destroys it instead of handing it out again, still inside a transaction or in an unknown state.
 * A PostgreSQL COMMIT answered `ROLLBACK` (the transaction had failed without the error reaching us) is an error.
 * On SQLite, BEGIN and COMMIT are prepared once per connection (the statement cache), as the writes' INSERTs are.
 */
import type { Knex } from 'knex';
import type { ClientBase } from 'pg';
import type { Database } from 'sqlite3';
import { KafkaEosError } from '../../errors';
import type { SqlDialect } from './dialect';
import { runStatement, type SqliteStatementCache } from './sqlite-statements';
import { runPipelinedWrite, type PipelinedCopy } from './pg-pipelined';

/**
 * The transaction a write runs in: its driver connection, and the knex transaction when it runs in one (MySQL, and
 * {@link SqlOffsetStore.withOffsets} callers); `trx` is undefined on the raw path.
 */
export interface SqlTx {
  readonly dialect: SqlDialect;
  /** The driver's connection (pg Client, sqlite3 Database, mysql2 Connection) the transaction runs on. */
  readonly connection: unknown;
  readonly trx: Knex.Transaction | undefined;
  /**
   * The CAS UPDATEs sent with BEGIN (the opening statements of the raw path) that changed exactly one row; undefined when the
   * CAS was not sent with BEGIN.
   */
  readonly begun?: number;
  /**
   * Set when the write's rows went in the same message as BEGIN (a pipelined write, pg-pipelined.ts): `error` is what
   * the server said of them (undefined: every row was accepted, and the transaction has committed).
   */
  readonly sent?: { readonly error: unknown };
}

/**
 * PostgreSQL: what a raw transaction sends in the same message as its BEGIN: `sql` (seeds and `casCount` CAS UPDATEs,
 * with literals), and, for a pipelined write, the COPY of the rows and the COMMIT (see pg-pipelined.ts).
 */
export interface TxOpening {
  readonly sql: string;
  readonly casCount: number;
  /** The rows, or what they are on the connection the transaction got (undefined: the body sends them itself). */
  readonly copy?: PipelinedCopy | ((connection: unknown) => PipelinedCopy | undefined);
}

interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/** The driver connection of a knex transaction (its own, held for the transaction). */
export function connectionOf(trx: Knex.Transaction): Promise<unknown> {
  return (trx.client as PoolClient).acquireConnection();
}

/**
 * Runs `sql` with positional `params` on a driver connection (`$n` placeholders on PostgreSQL, `?` elsewhere).
 * @returns rows changed (MySQL: matched, as mysql2 connects with CLIENT_FOUND_ROWS). On SQLite the statement is
 * prepared once per connection when `statements` is given.
 */
export async function runOn(
  dialect: SqlDialect, conn: unknown, sql: string, params: unknown[], statements?: SqliteStatementCache,
): Promise<number> {
  if (dialect === 'postgres') {
    const res = await (conn as ClientBase).query({ text: sql, values: params });
    return res.rowCount ?? 0;
  }
  if (dialect === 'mysql') {
    return new Promise<number>((resolve, reject) => {
      (conn as { query(sql: string, p: unknown[], cb: (err: Error | null, r: { affectedRows: number }) => void): void })
        .query(sql, params, (err, r) => { if (err) reject(err); else resolve(r.affectedRows); });
    });
  }
  if (statements) return runStatement(await statements.get(conn as Database, sql), params);
  return new Promise<number>((resolve, reject) => {
    (conn as Database).run(sql, params, function (this: { changes: number }, err: Error | null) {
      if (err) reject(err); else resolve(this.changes);
    });
  });
}

/** Marks a connection broken the way knex's own drivers do: the pool's validation destroys it on the next acquire. */
function dispose(conn: unknown, why: unknown): void {
  (conn as { __knex__disposed?: unknown }).__knex__disposed = why instanceof Error ? why.message : String(why);
}

/**
 * Runs `body` in one transaction on a connection acquired from `knex`'s pool (see the module comment), then releases
 * the connection. `opening` (PostgreSQL): statements sent in the same message as BEGIN (simple-query protocol, one
 * round trip for all), the CAS UPDATEs among them that changed one row handed to the body as {@link SqlTx.begun};
 * with `opening.copy`, the rows and the COMMIT go in that message too (pg-pipelined.ts), and the body learns the rows'
 * fate from {@link SqlTx.sent}.
 * @returns the body's value once COMMIT has succeeded.
 * @throws the error of BEGIN, the opening statements, the body or COMMIT, after ROLLBACK (the connection disposed of
 *   if ROLLBACK failed too); an encoder's error of a pipelined write, unchanged.
 */
export async function rawTransaction<T>(
  knex: Knex, dialect: 'postgres' | 'sqlite', statements: SqliteStatementCache | undefined, body: (tx: SqlTx) => Promise<T>,
  opening?: TxOpening,
): Promise<T> {
  const client = knex.client as PoolClient;
  const conn = await client.acquireConnection();
  const exec = dialect === 'postgres'
    ? (sql: string) => (conn as ClientBase).query(sql).then((r) => r.command)
    : (sql: string) => runOn('sqlite', conn, sql, [], statements).then(() => sql);
  try {
    let begun: number | undefined;
    let value: T;
    try {
      const copy = typeof opening?.copy === 'function' ? opening.copy(conn) : opening?.copy;
      if (opening && copy && dialect === 'postgres') {
        const out = await runPipelinedWrite(conn as ClientBase, opening.sql, opening.casCount, copy);
        const e = out.error;
        if (e && (e.stage === 'client' || e.stage === 'statements')) throw e.cause;
        const sent = { error: e?.stage === 'copy' ? e.cause : undefined };
        value = await body({ dialect, connection: conn, trx: undefined, begun: out.casMatched, sent });
        if (e) throw e.cause; // the COMMIT failed (a refused row or a failed CAS has made the body throw already)
        if (!out.committed) throw new KafkaEosError('INTERNAL_ERROR', 'COMMIT was answered ROLLBACK: the transaction had failed');
        return value;
      }
      if (opening !== undefined && dialect === 'postgres') {
        type Result = { command: string; rowCount: number | null };
        const results = await (conn as ClientBase).query(`BEGIN; ${opening.sql}`) as unknown as Result[];
        begun = results.filter((r) => r.command === 'UPDATE' && r.rowCount === 1).length;
      } else {
        await exec('BEGIN');
      }
      value = await body({ dialect, connection: conn, trx: undefined, begun });
      const done = await exec('COMMIT');
      if (done === 'ROLLBACK') throw new KafkaEosError('INTERNAL_ERROR', 'COMMIT was answered ROLLBACK: the transaction had failed');
    } catch (err) {
      try {
        await exec('ROLLBACK');
      } catch (rollbackError) {
        // SQLite ends a transaction by itself on some errors (SQLITE_FULL, SQLITE_IOERR...): nothing left to roll back.
        const nothingOpen = dialect === 'sqlite' && /no transaction is active/.test((rollbackError as Error)?.message ?? '');
        if (!nothingOpen) dispose(conn, rollbackError);
      }
      throw err;
    }
    return value;
  } finally {
    await client.releaseConnection(conn);
  }
}
