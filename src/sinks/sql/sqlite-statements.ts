/**
 * Prepared statements on raw sqlite3 connections, kept across transactions. Preparing a multi-row INSERT of
 * thousands of parameters costs about as much as running it, so each statement is prepared once per
 * connection and SQL text (the SQL names the table, column set and row count) and reused.
 *
 * Statements must be finalized before their connection closes (sqlite3_close refuses with SQLITE_BUSY
 * otherwise), so the cache finalizes a connection's statements when the knex pool is about to destroy it
 * (tarn's synchronous `destroyRequest` event: node-sqlite3 queues the finalize ahead of the close), and
 * every statement on {@link SqliteStatementCache.close}.
 */
import type { Knex } from 'knex';
import type { Database, Statement } from 'sqlite3';

interface PoolEvents {
  on(event: 'destroyRequest', fn: (eventId: number, resource: unknown) => void): unknown;
  removeListener(event: 'destroyRequest', fn: (eventId: number, resource: unknown) => void): unknown;
}

/** Statements kept per connection; the least recently used beyond this is finalized. */
export const MAX_STATEMENTS_PER_CONNECTION = 32;

/** Prepared sqlite3 statements per connection and SQL text, finalized with their connection (see the module comment). */
export class SqliteStatementCache {
  private readonly byConnection = new Map<Database, Map<string, Promise<Statement>>>();
  private pool: PoolEvents | undefined;
  private readonly onDestroy = (_id: number, resource: unknown): void => { this.forget(resource as Database); };

  constructor(private readonly knex: Knex) {}

  /** The statement for `sql` on `db`, prepared on first use. @throws the sqlite3 error of a failed prepare (not cached). */
  get(db: Database, sql: string): Promise<Statement> {
    let stmts = this.byConnection.get(db);
    if (!stmts) {
      this.watchPool();
      stmts = new Map();
      this.byConnection.set(db, stmts);
    }
    const hit = stmts.get(sql);
    if (hit) {
      stmts.delete(sql);
      stmts.set(sql, hit); // most recently used last
      return hit;
    }
    const prepared = new Promise<Statement>((resolve, reject) => {
      const stmt: Statement = db.prepare(sql, (err: Error | null) => (err ? reject(err) : resolve(stmt)));
    });
    stmts.set(sql, prepared);
    prepared.catch(() => { if (stmts.get(sql) === prepared) stmts.delete(sql); });
    if (stmts.size > MAX_STATEMENTS_PER_CONNECTION) {
      const [oldest, p] = stmts.entries().next().value as [string, Promise<Statement>];
      stmts.delete(oldest);
      p.then((s) => s.finalize(), () => undefined);
    }
    return prepared;
  }

  /** Finalizes (queues the finalize of) every statement of `db`. */
  forget(db: Database): void {
    const stmts = this.byConnection.get(db);
    if (!stmts) return;
    this.byConnection.delete(db);
    for (const p of stmts.values()) p.then((s) => s.finalize(), () => undefined);
  }

  /** Finalizes every statement and stops watching the pool. Resolves when all are finalized. */
  async close(): Promise<void> {
    const all = [...this.byConnection.values()].flatMap((m) => [...m.values()]);
    this.byConnection.clear();
    this.pool?.removeListener('destroyRequest', this.onDestroy);
    this.pool = undefined;
    await Promise.all(all.map((p) => p.then(
      (s) => new Promise<void>((resolve) => { s.finalize(() => resolve()); }),
      () => undefined,
    )));
  }

  private watchPool(): void {
    if (this.pool) return;
    const pool = (this.knex.client as { pool?: PoolEvents | null }).pool;
    if (!pool || typeof pool.on !== 'function') return;
    this.pool = pool;
    pool.on('destroyRequest', this.onDestroy);
  }
}

/** Runs a prepared statement with positional parameters. @returns rows changed. */
export function runStatement(stmt: Statement, params: unknown[]): Promise<number> {
  return new Promise((resolve, reject) => {
    stmt.run(params, function (this: { changes: number }, err: Error | null) {
      if (err) reject(err); else resolve(this.changes);
    });
  });
}
