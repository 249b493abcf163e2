/**
 * Typed errors of the SQL sink and SQL offset store, and the classification of driver errors
 * into transient (safe to retry after re-reading the stored offsets) and permanent.
 */
import { causesOf, KafkaEosError } from '../../errors';
import { isTransientMysqlError } from './mysql';

export { SinkConfigError, SinkMappingError, SinkWriteError } from '../errors';
export type { SinkWriteErrorCode } from '../errors';

/**
 * The database driver that knex needs for the configured client is not installed. The drivers are optional
 * peer dependencies of kafka-eos (as they are of knex): install the one named by `packageName`. Never retriable.
 */
export class MissingDriverError extends KafkaEosError {
  /** The npm package to install: `sqlite3` or `pg`. */
  readonly packageName: string;
  constructor(packageName: string, client: string, options: { cause?: unknown } = {}) {
    super('DRIVER_MISSING', `knex client '${client}' needs the npm package ${packageName}, which is not installed: `
      + `run \`npm install ${packageName}\``, options);
    this.packageName = packageName;
  }
}

const TRANSIENT_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  // object_not_in_prerequisite_state: what a connection gets from a database closed to connections (ALLOW_CONNECTIONS
  // false, "database ... does not allow connections", during maintenance): an outage, waited out (issue 24's soak).
  '55000',
  // A refused login (a rotated password, pg_hba.conf changed) while the consumer runs is an outage of the database
  // for this process, not one record's fault: waited out with sink-unavailable reports like a lost connection. At
  // start-up, `kafka-eos run` still refuses a database it cannot log in to (exit 2; sink-factory.ts).
  '28000', // invalid_authorization_specification
  '28P01', // invalid_password
  '53300', // too_many_connections
  '08000', '08001', '08003', '08004', '08006', '08007', // connection exceptions
]);
const TRANSIENT_NODE_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'SQLITE_BUSY', 'SQLITE_LOCKED',
]);
const TRANSIENT_MESSAGES = [
  /SQLITE_BUSY/, /SQLITE_LOCKED/, /Connection terminated/i, /connection error/i, /Timeout acquiring a connection/i,
  // node-postgres's own query_timeout (no code): it stopped waiting, the server may still run (and commit) the statement,
  // so the outcome is unknown (re-read, then retry); a slow row is never the row's fault.
  /^Query read timeout$/,
];

/**
 * True when `err` (or an error in its `cause` chain) is a transient database condition: SQLite busy/locked,
 * PostgreSQL serialization failure, deadlock, shutdown, connection loss or a refused login, MySQL / MariaDB deadlock, lock
 * wait timeout, lost connection or refused login (mysql.ts), socket errors, pool acquisition timeout.
 * Constraint violations, syntax and type errors are permanent (false). Our own KafkaEosErrors use their `retriable` flag.
 */
export function isTransientSqlError(err: unknown): boolean {
  for (const e of causesOf(err)) {
    if (e instanceof KafkaEosError) return e.retriable;
    const o = e as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown };
    if (o.name === 'KnexTimeoutError') return true;
    if (isTransientMysqlError(e)) return true;
    if (typeof o.code === 'string') {
      // A coded driver error is judged by its code only (a message may quote user data).
      if (TRANSIENT_SQLSTATES.has(o.code) || TRANSIENT_NODE_CODES.has(o.code)) return true;
    } else if (typeof o.message === 'string' && TRANSIENT_MESSAGES.some((re) => re.test(o.message as string))) {
      return true;
    }
  }
  return false;
}
