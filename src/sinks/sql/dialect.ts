/**
 * Dialect specifics for SQLite (sqlite3 driver), PostgreSQL (pg driver) and MySQL / MariaDB (mysql2 driver, InnoDB):
 * detection, connection setup, identifier quoting, statement size limits and bigint binding. Everything else goes
 * through the knex query builder.
 */
import { KafkaEosError } from '../../errors';
import { knex as createKnexInstance, type Knex } from 'knex';
import { MissingDriverError, SinkConfigError } from './errors';
import { quoteMysqlIdentifier } from './mysql';

/** The databases the SQL sink writes to; `mysql` is MySQL and MariaDB (InnoDB tables). */
export type SqlDialect = 'sqlite' | 'postgres' | 'mysql';

/** SQLITE_MAX_VARIABLE_NUMBER default since SQLite 3.32. */
export const SQLITE_MAX_VARIABLES = 32766;
/**
 * Default rows per SQLite INSERT. Inserts are VALUES lists (insert.ts), bounded only by the bound-variable limit;
 * knex's own UNION ALL form was capped at 500 terms. See bench/sql-sink.js for the measurements behind the default.
 */
export const SQLITE_DEFAULT_ROWS_PER_INSERT = 1000;
/** The PostgreSQL wire protocol carries at most 65535 bind parameters per statement. */
export const PG_MAX_PARAMETERS = 65535;
/**
 * Default rows per INSERT statement on PostgreSQL. Measured (200k rows x 6 columns, local PG 15, 2 cores):
 * 500-2000 rows/statement are on a plateau (~135k rows/s with 1000-row batches, ~163k with 5000-row batches);
 * 250 is ~15% slower, 5000 is no faster.
 */
export const PG_DEFAULT_ROWS_PER_INSERT = 1000;
/** A MySQL prepared statement carries at most 65535 placeholders; client-side escaped text is bounded by max_allowed_packet. */
export const MYSQL_MAX_PARAMETERS = 65535;
/** Default rows per multi-row INSERT on MySQL / MariaDB (bench/sql-sink-mariadb.js). */
export const MYSQL_DEFAULT_ROWS_PER_INSERT = 1000;
/** Default SQLite busy timeout (ms) set on every pooled connection. */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * The dialect of a knex instance; throws {@link SinkConfigError} (field `knex`) for anything but sqlite3, pg and
 * mysql2 (knex's `mysql` client, on the unmaintained `mysql` package, is refused: its driver differs).
 */
export function detectDialect(k: Knex): SqlDialect {
  const client = k.client as { dialect?: unknown; driverName?: unknown };
  const name = client.dialect;
  if (name === 'sqlite3') return 'sqlite';
  if (name === 'postgresql') return 'postgres';
  if (name === 'mysql' && client.driverName === 'mysql2') return 'mysql';
  throw new SinkConfigError('knex', `unsupported knex dialect ${String(name)}: use client 'sqlite3', 'pg' or 'mysql2'`);
}

/** True when `v` looks like a knex instance (a function carrying a `client`) rather than a Knex.Config. */
export function isKnexInstance(v: unknown): v is Knex {
  return typeof v === 'function' && typeof (v as { client?: unknown }).client === 'object';
}

type AfterCreate = (conn: unknown, done: (err: Error | null, conn: unknown) => void) => void;
interface Sqlite3Connection { configure(option: 'busyTimeout', ms: number): void; exec(sql: string, cb: (err: Error | null) => void): void }

/**
 * A pool `afterCreate` hook for sqlite3 connections: sets the busy timeout (ms) and `PRAGMA journal_mode=WAL`,
 * then calls `next` (a user's own hook) if given. WAL lets readers run beside the single writer; the busy timeout
 * makes a writer wait for the lock instead of failing at once when several processes share the file.
 */
export function sqliteAfterCreate(busyTimeoutMs: number = DEFAULT_SQLITE_BUSY_TIMEOUT_MS, next?: AfterCreate): AfterCreate {
  return (conn, done) => {
    const c = conn as Sqlite3Connection;
    c.configure('busyTimeout', busyTimeoutMs);
    c.exec('PRAGMA journal_mode=WAL;', (err) => {
      if (err) return done(err, conn);
      if (next) return next(conn, done);
      done(null, conn);
    });
  };
}

/**
 * An identifier in double quotes, inner quotes doubled (SQL standard; PostgreSQL and SQLite), or in backticks, inner
 * backticks doubled (MySQL / MariaDB), for SQL text built outside knex's `??` bindings (COPY, prepared statements,
 * the offsets CAS). The text is never a placeholder.
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** {@link quoteIdentifier} of `dialect`: backticks on MySQL / MariaDB, double quotes elsewhere. */
export function quoteIdentifierFor(dialect: SqlDialect): (name: string) => string {
  return dialect === 'mysql' ? quoteMysqlIdentifier : quoteIdentifier;
}

/** The npm package knex loads for each supported client name. */
export const DRIVER_PACKAGES: Readonly<Record<string, string>> = {
  sqlite3: 'sqlite3', pg: 'pg', postgres: 'pg', postgresql: 'pg', mysql2: 'mysql2',
};

/**
 * Throws {@link MissingDriverError} naming the package to install when the driver for `client` cannot be
 * resolved (the drivers are optional peer dependencies). `resolve` is `require.resolve` unless given.
 */
export function assertDriverInstalled(client: string, resolve: (id: string) => string = require.resolve): void {
  const packageName = DRIVER_PACKAGES[client];
  if (!packageName) return;
  try {
    resolve(packageName);
  } catch (e) {
    throw new MissingDriverError(packageName, client, { cause: e });
  }
}

type WrapIdentifier = NonNullable<Knex.Config['wrapIdentifier']>;
const ESCAPES_QUESTION_MARKS = Symbol.for('kafka-eos.escapesQuestionMarks');

/**
 * knex on PostgreSQL turns every `?` of the compiled SQL into a `$n` parameter, quoted identifiers
 * included, unless it is escaped as `\?`: this wrapIdentifier escapes it (composed with `user`), so
 * a table or column name containing `?` means what it says.
 */
export function pgWrapIdentifier(user?: WrapIdentifier): WrapIdentifier {
  const hook: WrapIdentifier = (value, origImpl, queryContext) => {
    const escaped = value.replace(/\?/g, '\\?');
    return user ? user(escaped, origImpl, queryContext) : origImpl(escaped);
  };
  (hook as unknown as Record<symbol, boolean>)[ESCAPES_QUESTION_MARKS] = true;
  return hook;
}

/**
 * Whether identifiers containing `?` are safe on `k` (SQLite; PostgreSQL through {@link createKnex}). MySQL never:
 * knex's mysql client formats `?` inside backticks as a value.
 */
export function questionMarksSafe(k: Knex): boolean {
  const dialect = detectDialect(k);
  if (dialect === 'sqlite') return true;
  if (dialect === 'mysql') return false;
  const hook = (k.client as { config?: { wrapIdentifier?: unknown } }).config?.wrapIdentifier as Record<symbol, unknown> | undefined;
  return hook?.[ESCAPES_QUESTION_MARKS] === true;
}

/**
 * Throws SinkConfigError when a name in `names` ([field, name]) contains `?` and `k` would read it as a parameter.
 */
export function assertQuestionMarksSafe(k: Knex, names: [string, string][]): void {
  if (questionMarksSafe(k)) return;
  const bad = names.find(([, n]) => n.includes('?'));
  if (bad) {
    throw new SinkConfigError(bad[0], detectDialect(k) === 'mysql'
      ? `"${bad[1]}" contains '?', which knex on MySQL reads as a parameter: rename it`
      : `"${bad[1]}" contains '?', which knex on PostgreSQL reads as a parameter: pass a Knex.Config `
      + '(or a knex made with createKnex()) so that the sink escapes it, or rename it');
  }
}

/**
 * Creates a knex instance from a Knex.Config. For sqlite3 it installs {@link sqliteAfterCreate} on the pool
 * (composed with any `pool.afterCreate` already given) and sets `useNullAsDefault`;
 * for pg it escapes `?` in identifiers ({@link pgWrapIdentifier}); for mysql2 it sets the connection options the sink
 * relies on ({@link mysqlConnection}). Throws SinkConfigError for other clients, and {@link MissingDriverError} (code
 * DRIVER_MISSING) when the client's driver package (`sqlite3`, `pg`, `mysql2`) is not installed.
 */
export function createKnex(config: Knex.Config, opts: { sqliteBusyTimeoutMs?: number } = {}): Knex {
  const client = typeof config.client === 'string' ? config.client : '';
  assertDriverInstalled(client);
  if (client === 'sqlite3') {
    const userHook = config.pool?.afterCreate as AfterCreate | undefined;
    return createKnexInstance({
      useNullAsDefault: true,
      ...config,
      pool: { ...config.pool, afterCreate: sqliteAfterCreate(opts.sqliteBusyTimeoutMs, userHook) },
    });
  }
  if (client === 'pg' || client === 'postgres' || client === 'postgresql') {
    return createKnexInstance({ ...config, wrapIdentifier: pgWrapIdentifier(config.wrapIdentifier) });
  }
  if (client === 'mysql2') return createKnexInstance({ ...config, connection: mysqlConnection(config.connection) });
  throw new SinkConfigError('knex.client', `unsupported client ${JSON.stringify(config.client)}: use 'sqlite3', 'pg' or 'mysql2'`);
}

/**
 * The mysql2 connection options the sink relies on, under the user's own: a `mysql://` URL is parsed by mysql2;
 * `timezone: 'Z'` (a Date is written and read as UTC, as on PostgreSQL's timestamptz), `supportBigNumbers` and
 * `bigNumberStrings` (BIGINT read back exactly, as text), `charset: 'utf8mb4'` (every Unicode character).
 */
export function mysqlConnection(connection: Knex.Config['connection']): Knex.Config['connection'] {
  const ours = { timezone: 'Z', supportBigNumbers: true, bigNumberStrings: true, charset: 'utf8mb4' };
  if (typeof connection === 'string') return { uri: connection, ...ours } as never;
  if (connection && typeof connection === 'object') return { ...ours, ...connection } as never;
  return connection;
}

/**
 * Rows per INSERT statement: the requested number (or the dialect default) capped by the dialect's limits for
 * `columnCount` bound columns per row. Always >= 1.
 */
export function rowsPerStatement(dialect: SqlDialect, columnCount: number, requested?: number): number {
  const cols = Math.max(1, columnCount);
  const cap = Math.floor(
    (dialect === 'sqlite' ? SQLITE_MAX_VARIABLES : dialect === 'mysql' ? MYSQL_MAX_PARAMETERS : PG_MAX_PARAMETERS) / cols);
  const defaults = { sqlite: SQLITE_DEFAULT_ROWS_PER_INSERT, postgres: PG_DEFAULT_ROWS_PER_INSERT, mysql: MYSQL_DEFAULT_ROWS_PER_INSERT };
  const want = requested ?? defaults[dialect];
  return Math.max(1, Math.min(want, cap));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A bigint as a bind value. The sqlite3 driver silently binds a JS bigint as NULL, and pg cannot serialize one,
 * so: a number when it is exactly representable, else a decimal string (PostgreSQL casts it to BIGINT; SQLite's
 * INTEGER affinity stores it as an exact 64-bit integer).
 */
export function bindBigint(v: bigint): number | string {
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString();
}

/**
 * Converts a BIGINT read back from the driver (pg: decimal string; sqlite3: number, or string when selected with
 * CAST(... AS TEXT)) to a bigint. Throws KafkaEosError INTERNAL_ERROR for anything that is not an exact integer.
 */
export function toBigint(v: unknown, what: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  throw new KafkaEosError('INTERNAL_ERROR', `${what}: expected an integer, got ${typeof v} ${String(v)}`);
}
