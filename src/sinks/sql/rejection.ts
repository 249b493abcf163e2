/**
 * Classifies a write the database refused: one record's fault (a poison record, handled by the
 * consumer's poison policy) or the database refusing writes altogether (a sink failure: the
 * consumer waits and retries, as for an outage). Kept apart from the write path so that any
 * insert strategy (VALUES lists, COPY, prepared statements) calls the same rule.
 *
 * The rule: a record is at fault only when the database rejects that row on its own and
 * accepts the other rows of the same write. It is proven by replaying the rows one at a time,
 * each in its own savepoint, inside a transaction that is always rolled back; the final proof
 * is the consumer's next write, which commits the rest without it (if that write is refused
 * too, the rule runs again). The database refuses writes altogether (never a record's fault) when:
 * - the error is of a class no row can cause (privilege revoked, table or column missing,
 *   read-only database, disk full, I/O error: PostgreSQL SQLSTATE classes 42, 25, 53, 57, 58,
 *   0A, 28, 3D, 3F, XX; SQLite READONLY, FULL, IOERR, CORRUPT, PERM, AUTH, CANTOPEN, NOTADB,
 *   "no such table/column"; MySQL / MariaDB error numbers in mysql.ts);
 * - no row of the write is accepted on its own (a CHECK constraint or trigger refusing every
 *   insert; a write of one row that is refused cannot be proven to be that row's fault, so it
 *   waits until more records arrive to compare it with, or the database accepts it);
 * - every row is accepted on its own although the write failed (the condition passed).
 * A run of rows refused with the same cause is not systemic by itself (issue 9 follow-up): when
 * any row of the write is accepted, the refused rows are each their record's fault (the first is
 * blamed, the consumer's next write tests the others), so a poison policy always gets to apply.
 */
import type { Knex } from 'knex';
import { isTransientSqlError, SinkWriteError } from './errors';
import { causesOf, KafkaEosError } from '../../errors';
import { isMysqlDuplicateKey, isSystemicMysqlError } from './mysql';

/** A row of a failed write and the record it came from. */
export interface RowOrigin { topic: string; partition: number; offset: bigint }

/** Inserts one row (inside the savepoint given). Must use the same statement shape as the write path. */
export type InsertOne = (trx: Knex.Transaction, index: number) => Promise<unknown>;

const SYSTEMIC_SQLSTATE_CLASSES = new Set(['42', '25', '53', '57', '58', '0A', '28', '3D', '3F', 'XX', '08']);
const SYSTEMIC_SQLITE_CODES = new Set(['SQLITE_READONLY', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CORRUPT', 'SQLITE_PERM', 'SQLITE_AUTH',
  'SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_NOMEM', 'SQLITE_SCHEMA']);
const SYSTEMIC_SQLITE_MESSAGES = [/no such table/i, /no such column/i, /has no column named/i, /readonly database/i, /disk I\/O error/i];

/** The driver error inside `err` (the first object in the cause chain with a string `code`), or `err`. */
function driverError(err: unknown): { code?: string; message?: string; constraint?: string } {
  const driver = causesOf(err).find((e) => typeof (e as { code?: unknown }).code === 'string' && !(e instanceof SinkWriteError));
  return (driver ?? err ?? {}) as never;
}

/**
 * True when the driver error inside `err` is PostgreSQL's unique_violation (SQLSTATE 23505): a kafka-key COPY met
 * rows already stored (a replay after the offsets were rewound), so the write goes again through the staged upsert.
 */
export function isUniqueViolation(err: unknown): boolean {
  const d = driverError(err);
  return d.code === '23505' || isMysqlDuplicateKey(d);
}

/**
 * True when no single row can have caused `err`: the database refuses writes to this table
 * altogether (see the classes in the module comment). Constraint, data and trigger errors are
 * false: for those, only a replay can tell.
 */
export function isSystemicSqlError(err: unknown): boolean {
  const d = driverError(err);
  const mysql = isSystemicMysqlError(d);
  if (mysql !== undefined) return mysql;
  const code = d.code ?? '';
  if (/^[0-9A-Z]{5}$/.test(code)) return SYSTEMIC_SQLSTATE_CLASSES.has(code.slice(0, 2));
  if (SYSTEMIC_SQLITE_CODES.has(code)) return true;
  const message = typeof d.message === 'string' ? d.message : '';
  return (code === 'SQLITE_ERROR' || code === '') && SYSTEMIC_SQLITE_MESSAGES.some((re) => re.test(message));
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The error for a write the database refused as a whole: retriable (the consumer keeps its
 * partitions, emits `sink-unavailable` and tries again), names no record.
 */
export function refusedWrite(reason: string, cause: unknown): SinkWriteError {
  return new SinkWriteError('SINK_WRITE_REFUSED', `the database refused the write (${reason}): a sink failure, not a poison record; `
    + `retrying until it accepts rows again: ${describe(cause)}`, {}, { cause, retriable: true });
}

/**
 * Decides whose fault the refused write `error` is, replaying its `origins.length` rows with
 * `insertOne` in a transaction that is always rolled back.
 * @returns a SinkWriteError SINK_WRITE_FAILED naming the record at fault (`recordAtFault` true,
 *   not retriable), or SINK_WRITE_REFUSED (retriable, no record named) for a refusal of the
 *   database's own.
 * @throws KafkaEosError SINK_UNAVAILABLE (retriable, the driver's error as `cause`) when the replay meets a transient
 *   error (connection lost, busy, a timeout): the caller's consumer waits it out and writes again, as for an outage.
 */
export async function classifyRejection(knex: Knex, origins: RowOrigin[], insertOne: InsertOne, error: unknown): Promise<SinkWriteError> {
  if (isSystemicSqlError(error)) return refusedWrite('an error no row can cause', error);
  const ROLLBACK = Symbol('rollback');
  let verdict: SinkWriteError | undefined;
  try {
    await knex.transaction(async (trx) => {
      verdict = await replay(trx, origins, insertOne);
      throw ROLLBACK;
    });
  } catch (err) {
    if (err !== ROLLBACK) {
      if (isTransientSqlError(err)) {
        // Lost, busy or timed out while replaying: nothing is known of the rows yet (the write itself rolled back).
        throw new KafkaEosError('SINK_UNAVAILABLE', 'the database became unavailable while the refused write was replayed row '
          + `by row to find the record at fault (nothing was written; retrying): ${describe(err)}`, { retriable: true, cause: err });
      }
      return refusedWrite('the rows could not be replayed one by one', err);
    }
  }
  return verdict ?? refusedWrite('every row was accepted on its own', error);
}

async function replay(trx: Knex.Transaction, origins: RowOrigin[], insertOne: InsertOne): Promise<SinkWriteError | undefined> {
  let accepted = false;
  let first: { index: number; error: unknown } | undefined;
  for (let i = 0; i < origins.length; i++) {
    let refusal: unknown;
    try {
      await trx.transaction((sp) => insertOne(sp, i));
    } catch (err) {
      if (isTransientSqlError(err)) throw err;
      refusal = err ?? new Error('rejected');
    }
    if (refusal === undefined) {
      accepted = true;
      if (first) break; // a refused row, and a row after it accepted: enough to decide
      continue;
    }
    if (isSystemicSqlError(refusal)) return refusedWrite('an error no row can cause', refusal);
    // Keep replaying past any run of refusals: only a write with no row accepted is the database's.
    first ??= { index: i, error: refusal };
  }
  if (!first) return undefined;
  if (!accepted) {
    const reason = origins.length === 1
      ? 'its only row was refused, with no other row to tell the record from the table' : 'every row was refused';
    return refusedWrite(reason, first.error);
  }
  const o = origins[first.index]!;
  return new SinkWriteError('SINK_WRITE_FAILED', `${o.topic}:${o.partition}@${o.offset} rejected: ${describe(first.error)}`, {
    topic: o.topic, partition: o.partition, offset: o.offset, lastOffset: o.offset,
  }, { cause: first.error, recordAtFault: true });
}
