/**
 * The SQL sink's transaction on a raw driver connection (raw-transaction.ts): rolled back on any error, a connection
 * whose ROLLBACK fails is never handed out again, a PostgreSQL COMMIT answered ROLLBACK is an error.
 */
import type { Knex } from 'knex';
import type { ClientBase } from 'pg';
import { rawTransaction, runOn } from '../../../src/sinks/sql/raw-transaction';
import { SqliteStatementCache } from '../../../src/sinks/sql/sqlite-statements';
import { describeOn, dropTables, openKnex, targets, uniqueName } from './fixtures';

const [sqlite, postgres] = targets();

for (const target of [sqlite!, postgres!]) describeOn(target)(`raw transactions on ${target.name}`, () => {
  const dialect = target.name as 'sqlite' | 'postgres';
  let k: Knex;
  let statements: SqliteStatementCache | undefined;
  const table = uniqueName('raw');
  const q = (i: number) => (dialect === 'postgres' ? `$${i}` : '?');
  const insert = (conn: unknown, v: number) => runOn(dialect, conn, `INSERT INTO "${table}" (v) VALUES (${q(1)})`, [v], statements);
  const values = async () => (await k(table).select('v').orderBy('v')).map((r: { v: unknown }) => Number(r.v));
  const pool = () => k.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<unknown> };
  /** PostgreSQL: whether the connection is inside a transaction block (SAVEPOINT is refused outside one, 25P01). */
  const inTransaction = (conn: unknown): Promise<boolean> => (conn as ClientBase).query('SAVEPOINT probe')
    .then(async () => { await (conn as ClientBase).query('ROLLBACK TO SAVEPOINT probe'); return true; }, () => false);

  beforeAll(async () => {
    k = openKnex({ ...target.knexConfig(), pool: { min: 0, max: 1 } });
    statements = dialect === 'sqlite' ? new SqliteStatementCache(k) : undefined;
    await k.schema.createTable(table, (t) => { t.integer('v'); });
  });
  afterAll(async () => {
    if (k) {
      await statements?.close();
      await dropTables(k, table);
      await k.destroy();
    }
    target.cleanup();
  });
  beforeEach(async () => { await k(table).delete(); });

  test('commits the body\'s statements and releases the connection', async () => {
    expect(await rawTransaction(k, dialect, statements, async (tx) => { await insert(tx.connection, 1); return 'done'; })).toBe('done');
    expect(await values()).toEqual([1]);
  });

  test('an error of the body rolls everything back and is rethrown unchanged; the connection is reused, outside any transaction',
    async () => {
    let used: unknown;
    const boom = Object.assign(new Error('could not serialize access'), { code: '40001' });
    await expect(rawTransaction(k, dialect, statements, async (tx) => {
      used = tx.connection;
      await insert(tx.connection, 1);
      throw boom;
    })).rejects.toBe(boom);
    expect(await values()).toEqual([]);
    const next = await pool().acquireConnection();
    try {
      expect(next).toBe(used);
      if (dialect === 'postgres') expect(await inTransaction(next)).toBe(false);
    } finally {
      await pool().releaseConnection(next);
    }
    // the connection still works for the next transaction (on SQLite, a BEGIN inside an open transaction would fail)
    await rawTransaction(k, dialect, statements, async (tx) => { await insert(tx.connection, 2); });
    expect(await values()).toEqual([2]);
  });

  test('COMMIT and ROLLBACK both fail (the answer never came): the connection is destroyed, never handed out again', async () => {
    let used: unknown;
    let restore = (): void => undefined;
    const lost = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    await expect(rawTransaction(k, dialect, statements, async (tx) => {
      used = tx.connection;
      await insert(tx.connection, 1);
      // From here on the connection answers nothing: COMMIT and ROLLBACK fail before reaching the server.
      if (dialect === 'postgres') {
        const c = tx.connection as { query: (...a: unknown[]) => unknown };
        const real = c.query.bind(c);
        c.query = (sql: unknown, ...rest: unknown[]) => (sql === 'COMMIT' || sql === 'ROLLBACK' ?
          Promise.reject(lost) : real(sql, ...rest));
      } else {
        const stmts = statements!;
        const real = stmts.get.bind(stmts);
        stmts.get = (db, sql) => (sql === 'COMMIT' || sql === 'ROLLBACK' ? Promise.reject(lost) : real(db, sql));
        restore = () => { stmts.get = real; };
      }
    })).rejects.toBe(lost);
    restore();
    const next = await pool().acquireConnection();
    try {
      expect(next).not.toBe(used);
      expect((used as { __knex__disposed?: unknown }).__knex__disposed).toBeDefined();
    } finally {
      await pool().releaseConnection(next);
    }
    // Destroying the connection ended its transaction: the row never committed.
    expect(await values()).toEqual([]);
  });

  test('a failed COMMIT whose ROLLBACK works leaves the connection usable and nothing written', async () => {
    let used: unknown;
    const refused = Object.assign(new Error('could not serialize access'), { code: '40001' });
    await expect(rawTransaction(k, dialect, statements, async (tx) => {
      used = tx.connection;
      await insert(tx.connection, 1);
      if (dialect === 'postgres') {
        const c = tx.connection as { query: (...a: unknown[]) => unknown };
        const real = c.query.bind(c);
        c.query = (sql: unknown, ...rest: unknown[]) => {
          if (sql !== 'COMMIT') return real(sql, ...rest);
          c.query = real;
          return Promise.reject(refused);
        };
      } else {
        const stmts = statements!;
        const real = stmts.get.bind(stmts);
        stmts.get = (db, sql) => {
          if (sql !== 'COMMIT') return real(db, sql);
          stmts.get = real;
          return Promise.reject(refused);
        };
      }
    })).rejects.toBe(refused);
    expect(await values()).toEqual([]);
    const next = await pool().acquireConnection();
    try {
      expect(next).toBe(used);
      expect((used as { __knex__disposed?: unknown }).__knex__disposed).toBeUndefined();
      if (dialect === 'postgres') expect(await inTransaction(next)).toBe(false);
    } finally {
      await pool().releaseConnection(next);
    }
    await rawTransaction(k, dialect, statements, async (tx) => { await insert(tx.connection, 3); });
    expect(await values()).toEqual([3]);
  });

  if (dialect === 'postgres') {
    test('a COMMIT answered ROLLBACK (an error swallowed inside the transaction) is an error, nothing written', async () => {
      await expect(rawTransaction(k, dialect, statements, async (tx) => {
        await insert(tx.connection, 1);
        await (tx.connection as ClientBase).query('SELECT 1/0').catch(() => undefined); // the transaction is now aborted
      })).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringContaining('answered ROLLBACK') });
      expect(await values()).toEqual([]);
      await rawTransaction(k, dialect, statements, async (tx) => { await insert(tx.connection, 4); });
      expect(await values()).toEqual([4]);
    });
  }
});
