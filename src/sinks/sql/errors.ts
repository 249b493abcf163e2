/**
 * Typed errors of the SQL sink and SQL offset store, and the classification of driver errors
 * into transient (safe to retry after re-reading the stored offsets) and permanent.
 */
import { KafkaEosError } from '../../errors';

/** A configuration value is invalid. `field` names it (dot path, e.g. `mapping.columns.price.type`). Never retriable. */
export class SinkConfigError extends KafkaEosError {
  readonly field: string;
  constructor(field: string, message: string) {
    super('CONFIG_INVALID', `${field}: ${message}`);
    this.field = field;
  }
}

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

/** Codes carried by {@link SinkWriteError}. */
export type SinkWriteErrorCode =
  | 'SINK_WRITE_FAILED'       // the database rejected the write (constraint violation, type error...): rolled back, not retried
  | 'SINK_WRITE_REFUSED'      // the database refuses writes altogether (privilege, missing table, a rule refusing every row): retriable
  | 'SINK_MAPPING_FAILED'     // a record could not be mapped to a row: nothing was sent to the database
  | 'SINK_BATCH_INVALID'      // the batches handed to write() are inconsistent (offsets, duplicates): nothing was sent
  | 'SINK_RETRIES_EXHAUSTED'  // transient errors persisted past the retry budget: outcome unknown, re-open to re-read positions
  | 'SINK_CLOSED';            // write()/open() after close()

/**
 * A write failed and nothing of it is visible (except possibly for SINK_RETRIES_EXHAUSTED, whose outcome is unknown:
 * call open() again to re-read the stored positions before retrying). Where known, `topic`, `partition` and `offset`
 * point at the offending record; for a statement-level failure `offset`/`lastOffset` bound the chunk of rows sent.
 * `recordAtFault` is true only when the record named was proven to be the cause (see rejection.ts and
 * {@link rejectedRecord} in ../sink): a chunk's bounds never make a record a poison record.
 */
export class SinkWriteError extends KafkaEosError {
  readonly topic: string | undefined;
  readonly partition: number | undefined;
  readonly offset: bigint | undefined;
  readonly lastOffset: bigint | undefined;
  readonly recordAtFault: boolean;
  constructor(
    code: SinkWriteErrorCode,
    message: string,
    where: { topic?: string; partition?: number; offset?: bigint; lastOffset?: bigint } = {},
    options: { cause?: unknown; retriable?: boolean; recordAtFault?: boolean } = {},
  ) {
    super(code, message, options);
    this.recordAtFault = options.recordAtFault ?? false;
    this.topic = where.topic;
    this.partition = where.partition;
    this.offset = where.offset;
    this.lastOffset = where.lastOffset;
  }
}

/** A record could not be mapped to a row (bad JSON, missing non-nullable field, wrong type, mapping function threw). */
export class SinkMappingError extends SinkWriteError {
  /** The target column, when the failure is about one column. */
  readonly column: string | undefined;
  constructor(message: string, where: { topic: string; partition: number; offset: bigint; column?: string }, cause?: unknown) {
    super('SINK_MAPPING_FAILED', `${where.topic}:${where.partition}@${where.offset}${where.column === undefined ? '' : ` column ${where.column}`}: ${message}`, where, { cause, recordAtFault: true });
    this.column = where.column;
  }
}

const TRANSIENT_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000', '08001', '08003', '08004', '08006', '08007', // connection exceptions
]);
const TRANSIENT_NODE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'SQLITE_BUSY', 'SQLITE_LOCKED']);
const TRANSIENT_MESSAGES = [/SQLITE_BUSY/, /SQLITE_LOCKED/, /Connection terminated/i, /connection error/i, /Timeout acquiring a connection/i];

/**
 * True when `err` (or an error in its `cause` chain) is a transient database condition: SQLite busy/locked,
 * PostgreSQL serialization failure, deadlock, shutdown or connection loss, socket errors, pool acquisition timeout.
 * Constraint violations, syntax and type errors are permanent (false). Our own KafkaEosErrors use their `retriable` flag.
 */
export function isTransientSqlError(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    if (e instanceof KafkaEosError) return e.retriable;
    const o = e as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown };
    if (o.name === 'KnexTimeoutError') return true;
    if (typeof o.code === 'string') {
      // A coded driver error is judged by its code only (a message may quote user data).
      if (TRANSIENT_SQLSTATES.has(o.code) || TRANSIENT_NODE_CODES.has(o.code)) return true;
    } else if (typeof o.message === 'string' && TRANSIENT_MESSAGES.some((re) => re.test(o.message as string))) {
      return true;
    }
    e = o.cause;
  }
  return false;
}
