/**
 * MySQL / MariaDB specifics of the SQL sink (mysql2 driver, InnoDB tables): the multi-row INSERT and its upsert
 * form, and the driver's error numbers sorted into transient, systemic (no row can cause it) and unique violation,
 * as errors.ts and rejection.ts do for PostgreSQL's SQLSTATEs and SQLite's codes.
 *
 * Upserts are `INSERT ... ON DUPLICATE KEY UPDATE c = VALUES(c)`: MariaDB (every version) and MySQL read
 * `VALUES(c)` (MySQL 8.0.20+ deprecates it in favour of a row alias, which MariaDB lacks). Unlike PostgreSQL's
 * ON CONFLICT, one statement may update a key twice; the sink still collapses a write's rows to the last per key.
 */
/** A MySQL / MariaDB identifier in backticks, inner backticks doubled. */
export function quoteMysqlIdentifier(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}
const quote = quoteMysqlIdentifier;

/** A mysql2 error: `errno` is the server's error number (ER_*), `code` its name or a Node.js socket code. */
interface MysqlError { errno?: unknown; code?: unknown; sqlState?: unknown; sqlMessage?: unknown; fatal?: unknown }

/** Server errors worth retrying after a re-read: deadlock, lock wait timeout, too many connections, shutdown, refused login. */
const TRANSIENT_ERRNOS = new Set([
  1205, // ER_LOCK_WAIT_TIMEOUT
  1213, // ER_LOCK_DEADLOCK
  1040, // ER_CON_COUNT_ERROR
  1053, // ER_SERVER_SHUTDOWN
  1927, // ER_CONNECTION_KILLED (MariaDB)
  2006, // CR_SERVER_GONE_ERROR
  2013, // CR_SERVER_LOST
  1045, // ER_ACCESS_DENIED_ERROR: a refused login while running is an outage for this process (as PostgreSQL's 28P01)
  4031, // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8)
]);
/** mysql2's own codes for a connection that broke. */
const TRANSIENT_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CLIENT_INTERACTION_TIMEOUT']);

/**
 * Errors no row can cause: a missing table or column, a privilege, a read-only server, a full disk or table.
 * (rejection.ts: never a poison record.)
 */
const SYSTEMIC_ERRNOS = new Set([
  1146, // ER_NO_SUCH_TABLE
  1054, // ER_BAD_FIELD_ERROR
  1142, // ER_TABLEACCESS_DENIED_ERROR
  1143, // ER_COLUMNACCESS_DENIED_ERROR
  1044, // ER_DBACCESS_DENIED_ERROR
  1227, // ER_SPECIFIC_ACCESS_DENIED_ERROR
  1290, // ER_OPTION_PREVENTS_STATEMENT (read_only)
  1836, // ER_READ_ONLY_MODE
  1792, // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
  1114, // ER_RECORD_FILE_FULL
  1021, // ER_DISK_FULL
  1030, // ER_GET_ERRNO (storage engine error)
  1036, // ER_OPEN_AS_READONLY
  1049, // ER_BAD_DB_ERROR
  1064, // ER_PARSE_ERROR: our statement, not a row
  1109, // ER_UNKNOWN_TABLE
]);

function asMysql(e: unknown): MysqlError | undefined {
  if (e === null || typeof e !== 'object') return undefined;
  const o = e as MysqlError;
  // sqlite3's errors carry a numeric errno too: only mysql2's have a sqlMessage, or an ER_ / PROTOCOL_ code.
  return typeof o.sqlMessage === 'string' || (typeof o.code === 'string' && /^(ER_|PROTOCOL_)/.test(o.code)) ? o : undefined;
}

/** True for a mysql2 error that is transient (see {@link TRANSIENT_ERRNOS}). */
export function isTransientMysqlError(e: unknown): boolean {
  const m = asMysql(e);
  if (!m) return false;
  return (typeof m.errno === 'number' && TRANSIENT_ERRNOS.has(m.errno)) || (typeof m.code === 'string' && TRANSIENT_CODES.has(m.code));
}

/** True for a mysql2 error no row can cause (see {@link SYSTEMIC_ERRNOS}); undefined when `e` is no mysql2 error. */
export function isSystemicMysqlError(e: unknown): boolean | undefined {
  const m = asMysql(e);
  if (!m) return undefined;
  return typeof m.errno === 'number' && SYSTEMIC_ERRNOS.has(m.errno);
}

/** True for ER_DUP_ENTRY (1062): a row with that key exists. */
export function isMysqlDuplicateKey(e: unknown): boolean {
  return asMysql(e)?.errno === 1062;
}

/**
 * `ON DUPLICATE KEY UPDATE c = VALUES(c), ...` for the columns outside `key`; when every column is in the key, a
 * no-op assignment of the first key column (MySQL has no DO NOTHING; INSERT IGNORE would also hide other errors).
 */
export function onDuplicateKey(columns: readonly string[], key: readonly string[]): string {
  const update = columns.filter((c) => !key.includes(c));
  const set = (update.length > 0 ? update : [key[0]!]).map((c) => `${quote(c)} = VALUES(${quote(c)})`);
  return `ON DUPLICATE KEY UPDATE ${set.join(', ')}`;
}

/** `INSERT INTO t (cols) VALUES (?, ...), ... [ON DUPLICATE KEY UPDATE ...]` for `rows` rows. */
export function mysqlInsertSql(
  table: string, columns: readonly string[], rows: number, conflictKey: readonly string[] | undefined,
): string {
  const one = `(${new Array<string>(columns.length).fill('?').join(', ')})`;
  return `INSERT INTO ${quote(table)} (${columns.map((c) => quote(c)).join(', ')}) VALUES `
    + new Array<string>(rows).fill(one).join(', ')
    + (conflictKey && conflictKey.length > 0 ? ` ${onDuplicateKey(columns, conflictKey)}` : '');
}

/** A mysql2 connection's callback `query` (what knex's acquireConnection hands out). */
export interface MysqlConnection {
  query(sql: string, values: unknown[], cb: (err: Error | null, result: { affectedRows: number }) => void): void;
}

/** Runs `sql` with `values` on `conn` (client-side escaped, one round trip). @returns affected rows */
export function mysqlQuery(conn: MysqlConnection, sql: string, values: unknown[]): Promise<number> {
  return new Promise((resolve, reject) => {
    conn.query(sql, values, (err, r) => { if (err) reject(err); else resolve(r.affectedRows); });
  });
}
