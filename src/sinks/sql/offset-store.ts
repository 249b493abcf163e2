/**
 * The SQL offsets table as an {@link OffsetStore}, usable without the SQL sink: {@link SqlOffsetStore.withOffsets}
 * hands the caller a knex transaction in which the compare-and-set of every partition has already succeeded,
 * so the caller's own writes commit together with the new positions, or not at all.
 *
 * Table (name configurable, default `kafka_eos_offsets`): group_id, topic, partition, next_offset BIGINT, updated_at,
 * target (the data table the positions were written for, nullable; added to older tables by an additive migration);
 * primary key (group_id, topic, partition). -1 means "no position stored yet".
 */
import { pRetry } from '../../util/vendored';
import type { Knex } from 'knex';
import { partitionKey, type TopicPartition } from '../../records';
import {
  assertQuestionMarksSafe, bindBigint, createKnex, detectDialect, isKnexInstance, quoteIdentifierFor, toBigint, type SqlDialect,
} from './dialect';
import { ensureOffsetsTable, OFFSETS_TARGET_COLUMN } from './ddl';
import { isTransientSqlError, SinkConfigError, SinkWriteError } from './errors';
import { commitWithReread } from '../lost-ack';
import type { FencedPartition, OffsetAdvance, OffsetStore } from '../offset-store';
import { connectionOf, rawTransaction, runOn, type SqlTx, type TxOpening } from './raw-transaction';
import { SqliteStatementCache } from './sqlite-statements';

/** node-postgres's `escapeLiteral`, loaded on first use (pg is an optional peer dependency). */
let pgEscapeLiteral: ((s: string) => string) | undefined;

/** The offsets table's name when none is given. */
export const DEFAULT_OFFSETS_TABLE = 'kafka_eos_offsets';

/** Retry budget for transient database errors. Delays grow exponentially from minTimeoutMs to maxTimeoutMs (ms). */
export interface SqlRetryOptions {
  /** Retries of a transient database error after the first try (default 5). */
  retries: number;
  /** Delay before the first retry, ms (default 50; doubling). */
  minTimeoutMs: number;
  /** Longest delay between retries, ms (default 2000). */
  maxTimeoutMs: number;
}
/** Retry budget used when none is given: 5 retries, 50 ms doubling up to 2000 ms. */
export const DEFAULT_RETRY: SqlRetryOptions = { retries: 5, minTimeoutMs: 50, maxTimeoutMs: 2000 };

/** Options of {@link SqlOffsetStore}. */
export interface SqlOffsetStoreOptions {
  /** A knex instance (owned by the caller, not destroyed by close()) or a Knex.Config (the store creates and owns it). */
  knex: Knex | Knex.Config;
  /** Offsets table name; default `kafka_eos_offsets`. A single identifier (no dots). */
  table?: string;
  /** Create the table if missing (race-safe). Default true. */
  autoCreate?: boolean;
  retry?: Partial<SqlRetryOptions>;
  /**
   * The data table these positions describe, stored in the `target` column of each position row the
   * store creates, so that a group reused for another table can be told (see {@link SqlOffsetStore.targetsOf}).
   */
  target?: string;
}

/**
 * Result of {@link SqlOffsetStore.withOffsets}. `recovered: true` means a transient error hid the outcome of an
 * attempt, and re-reading showed every position already at its nextOffset: that attempt committed, and the
 * callback's return value was lost with the acknowledgement.
 */
export type WithOffsetsResult<T> =
  | { status: 'committed'; recovered: false; value: T }
  | { status: 'committed'; recovered: true; value: undefined }
  | { status: 'fenced'; fenced: FencedPartition[] };

class Fenced { constructor(readonly partitions: TopicPartition[]) {} }

/** Runs a body in one transaction; `sorted`: the write's advances, in (topic, partition) order. */
type TransactionRunner = <R>(body: (tx: SqlTx) => Promise<R>, sorted: OffsetAdvance[]) => Promise<R>;

/** The SQL offsets table (see the module comment); methods throw SinkWriteError / SinkConfigError. */
export class SqlOffsetStore implements OffsetStore<Knex.Transaction> {
  readonly knex: Knex;
  readonly table: string;
  readonly dialect: SqlDialect;
  private readonly ownsKnex: boolean;
  private readonly autoCreate: boolean;
  private readonly retry: SqlRetryOptions;
  private ready: Promise<void> | undefined;
  private casSqlText: Record<SqlDialect, string> | undefined;
  private readonly target: string | undefined;
  private targetColumn: Promise<boolean> | undefined;
  /** Resolved {@link hasTargetColumn}, for seeding inside a transaction (never queried there: SQLite has one connection). */
  private targetColumnKnown: boolean | undefined;
  /**
   * SQLite: statements prepared once per connection (BEGIN, COMMIT, the CAS), shared with the SQL sink's row writer;
   * finalized by {@link close} (or when knex's pool destroys their connection).
   */
  readonly sqliteStatements: SqliteStatementCache | undefined;

  /** Throws {@link SinkConfigError} for an unsupported dialect, a bad table name or retry options. */
  constructor(opts: SqlOffsetStoreOptions) {
    this.table = validateIdentifier(opts.table ?? DEFAULT_OFFSETS_TABLE, 'offsetsTable');
    this.autoCreate = opts.autoCreate ?? true;
    this.retry = validateRetry(opts.retry);
    this.ownsKnex = !isKnexInstance(opts.knex);
    this.knex = isKnexInstance(opts.knex) ? opts.knex : createKnex(opts.knex);
    this.dialect = detectDialect(this.knex);
    this.target = opts.target;
    assertQuestionMarksSafe(this.knex, [['offsetsTable', this.table]]);
    this.sqliteStatements = this.dialect === 'sqlite' ? new SqliteStatementCache(this.knex) : undefined;
  }

  /** Creates the offsets table if missing (once per store; race-safe across processes). */
  ensureTable(): Promise<void> {
    if (!this.autoCreate) return Promise.resolve();
    this.ready ??= ensureOffsetsTable(this.knex, this.table).catch((err: unknown) => { this.ready = undefined; throw err; });
    return this.ready;
  }

  /** Whether the table has the `target` column (tables made before it and never migrated do not). */
  private hasTargetColumn(): Promise<boolean> {
    this.targetColumn ??= this.knex.schema.hasColumn(this.table, OFFSETS_TARGET_COLUMN)
      .then((has) => { this.targetColumnKnown = has; return has; })
      .catch((err: unknown) => { this.targetColumn = undefined; throw err; });
    return this.targetColumn;
  }

  /** A new position row of `groupId` (next_offset -1), with the target table when there is a column for it. */
  private seedRows(groupId: string, partitions: TopicPartition[]): Record<string, unknown>[] {
    const withTarget = this.target !== undefined && this.targetColumnKnown === true;
    return partitions.map((tp) => ({
      group_id: groupId, topic: tp.topic, partition: tp.partition, next_offset: -1,
      ...(withTarget ? { [OFFSETS_TARGET_COLUMN]: this.target } : {}),
    }));
  }

  /**
   * The data tables the stored positions of `groupId` were written for (distinct `target` values, NULLs
   * left out; empty when the table has no `target` column).
   */
  async targetsOf(groupId: string): Promise<string[]> {
    await this.ensureTable();
    if (!(await this.hasTargetColumn())) return [];
    const rows: { t: string }[] = await this.knex(this.table).distinct({ t: OFFSETS_TARGET_COLUMN })
      .where('group_id', groupId).whereNotNull(OFFSETS_TARGET_COLUMN);
    return rows.map((r) => r.t).sort();
  }

  /** Seeds absent rows with -1 (insert-if-absent) and reads the positions. Key `${topic}:${partition}`, -1n = none. */
  async load(groupId: string, partitions: TopicPartition[]): Promise<Map<string, bigint>> {
    await this.ensureTable();
    const unique = dedupe(partitions);
    if (this.target !== undefined) await this.hasTargetColumn();
    const rows = this.seedRows(groupId, unique);
    return this.retrying(async () => {
      for (let i = 0; i < rows.length; i += 400) {
        await this.knex(this.table).insert(rows.slice(i, i + 400)).onConflict(['group_id', 'topic', 'partition']).ignore();
      }
      return this.read(groupId, unique);
    });
  }

  /** Runs an idempotent `fn` with the store's retry budget for transient errors. */
  private async retrying<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await pRetry(fn, this.pRetryOptions());
    } catch (err) {
      throw this.exhausted(err);
    }
  }

  private pRetryOptions() {
    return {
      retries: this.retry.retries,
      minTimeout: this.retry.minTimeoutMs,
      maxTimeout: this.retry.maxTimeoutMs,
      factor: 2,
      randomize: true,
      shouldRetry: ({ error }: { error: Error }) => isTransientSqlError(error),
    };
  }

  private exhausted(err: unknown): unknown {
    if (isTransientSqlError(err) && !(err instanceof SinkWriteError)) {
      return new SinkWriteError(
        'SINK_RETRIES_EXHAUSTED',
        `transient database errors persisted after ${this.retry.retries} retries; the outcome is unknown:`
          + ` re-read positions before retrying (${(err as Error).message})`,
        {},
        { cause: err, retriable: true },
      );
    }
    return err;
  }

  /**
   * Moves one stored position by compare-and-set, with no data (ExactlyOnceSink.seek of the SQL sinks): `expected`
   * → `offset`, forward or back. Transient errors are retried (the CAS is tried again only after the position is
   * re-read: a lost acknowledgement reads back as `offset`, committed).
   * @returns committed, or fenced with the stored offset re-read.
   * @throws SinkWriteError SINK_BATCH_INVALID (offset < 0, expected < -1), SINK_RETRIES_EXHAUSTED (retriable).
   */
  async seek(groupId: string, tp: TopicPartition, expected: bigint, offset: bigint): Promise<
    { status: 'committed' } | { status: 'fenced'; fenced: FencedPartition[] }> {
    if (typeof offset !== 'bigint' || offset < 0n || typeof expected !== 'bigint' || expected < -1n) {
      throw new SinkWriteError('SINK_BATCH_INVALID', `${partitionKey(tp)}: cannot move the position from ${expected} to ${offset}`,
        { topic: tp.topic, partition: tp.partition });
    }
    const key = partitionKey(tp);
    const where = { topic: tp.topic, partition: tp.partition };
    let tried = false;
    return this.retrying(async () => {
      if (tried) {
        const now = (await this.read(groupId, [tp])).get(key) ?? -1n;
        if (now === offset) return { status: 'committed' as const };
        if (now !== expected) return { status: 'fenced' as const, fenced: [{ ...where, storedOffset: now }] };
      }
      tried = true;
      if (await this.compareAndSet(undefined, groupId, tp, expected, offset)) return { status: 'committed' as const };
      const stored = (await this.read(groupId, [tp])).get(key) ?? -1n;
      return { status: 'fenced' as const, fenced: [{ ...where, storedOffset: stored }] };
    });
  }

  /** Reads positions without seeding; absent rows read as -1n. Uses `q` (e.g. a transaction) when given. */
  async read(groupId: string, partitions: TopicPartition[], q: Knex | Knex.Transaction = this.knex): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>();
    for (const tp of partitions) out.set(partitionKey(tp), -1n);
    const topics = [...new Set(partitions.map((tp) => tp.topic))];
    if (topics.length === 0) return out;
    // CAST to text: sqlite3 returns a 64-bit integer as a (lossy) JS number (MySQL's name for text here is CHAR).
    const text = this.dialect === 'mysql' ? 'CHAR' : 'TEXT';
    const rows: { topic: string; partition: number | string; next_offset: unknown }[] = await q(this.table)
      .select('topic', 'partition', q.raw(`CAST(?? AS ${text}) AS ??`, ['next_offset', 'next_offset']))
      .where('group_id', groupId)
      .whereIn('topic', topics);
    for (const r of rows) {
      const key = partitionKey({ topic: r.topic, partition: Number(r.partition) });
      if (out.has(key)) out.set(key, toBigint(r.next_offset, `${this.table}.next_offset`));
    }
    return out;
  }

  /**
   * CAS of one position (see {@link OffsetStore.compareAndSet}). With expected -1n an absent row is first seeded
   * with -1 (insert-if-absent), so a writer that skipped load() is fenced exactly like one that did not.
   */
  async compareAndSet(
    trx: Knex.Transaction | undefined, groupId: string, tp: TopicPartition, expected: bigint, next: bigint,
  ): Promise<boolean> {
    if (trx) return this.cas(await this.knexTx(trx), groupId, tp, expected, next);
    await this.ensureTable();
    if (this.target !== undefined && this.targetColumnKnown === undefined) await this.hasTargetColumn().catch(() => false);
    return this.transact((tx) => this.cas(tx, groupId, tp, expected, next));
  }

  /** A knex transaction as a {@link SqlTx}. */
  private async knexTx(trx: Knex.Transaction): Promise<SqlTx> {
    return { dialect: this.dialect, connection: await connectionOf(trx), trx };
  }

  /**
   * Runs `body` in one transaction: on PostgreSQL and SQLite on a raw driver connection (raw-transaction.ts: BEGIN,
   * body, COMMIT; ROLLBACK on any error; a connection whose ROLLBACK fails is never reused), on MySQL / MariaDB in a
   * knex transaction. @returns the body's value once committed. @throws the body's or COMMIT's error, rolled back.
   */
  transact<T>(body: (tx: SqlTx) => Promise<T>, opening?: TxOpening): Promise<T> {
    if (this.dialect === 'mysql') return this.knex.transaction(async (trx) => body(await this.knexTx(trx)));
    return rawTransaction(this.knex, this.dialect, this.sqliteStatements, body, opening);
  }

  /**
   * PostgreSQL: the CAS of every advance as SQL text sent with BEGIN in one message (the opening of a raw transaction),
   * which saves a round trip per write (and with a pipelined COPY, pg-pipelined.ts, makes the write one message): for
   * each advance in (topic, partition) order, a seed `INSERT ... ON CONFLICT DO NOTHING` when it expects -1 (as
   * {@link cas}), then its `UPDATE ... WHERE ... AND next_offset = expected`. Values as literals: the offsets and
   * partitions are integers written as digits, the group id, topics and target quoted by node-postgres's `escapeLiteral`
   * (quotes doubled; right whatever `standard_conforming_strings` says). Not for a string holding U+0000 (PostgreSQL
   * text cannot hold it; the parameterised CAS reports it as the driver does), nor a backslash: under a client-only
   * client_encoding (GBK, BIG5, SJIS...) the UTF-8 bytes sent can make a 0x5C the second byte of a character,
   * swallowing one backslash of an escaped pair and leaving `\'` (refused, or with backslash_quote on, the rest of
   * the name read as SQL). A quote byte is never a second byte in any encoding, so a name without a backslash is
   * safe. @returns undefined when the CAS must run as statements of their own.
   */
  private casOpening(groupId: string, sorted: OffsetAdvance[]): { sql: string; casCount: number } | undefined {
    if (this.dialect !== 'postgres' || sorted.length === 0 || unsafeLiteral(groupId)) return undefined;
    const seedsTarget = this.target !== undefined && this.targetColumnKnown === true;
    if (seedsTarget && unsafeLiteral(this.target!)) return undefined;
    if (sorted.some((a) => unsafeLiteral(a.topic))) return undefined;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    pgEscapeLiteral ??= (require('pg/lib/utils') as { escapeLiteral: (s: string) => string }).escapeLiteral;
    const lit = pgEscapeLiteral;
    const q = quoteIdentifierFor('postgres');
    const group = lit(groupId);
    const statements: string[] = [];
    for (const a of sorted) {
      if (a.expectedOffset === -1n) {
        const targetColumn = seedsTarget ? `, ${q(OFFSETS_TARGET_COLUMN)}` : '';
        statements.push(`INSERT INTO ${q(this.table)} (group_id, topic, ${q('partition')}, next_offset${targetColumn})`
          + ` VALUES (${group}, ${lit(a.topic)}, ${a.partition}, -1${seedsTarget ? `, ${lit(this.target!)}` : ''})`
          + ` ON CONFLICT (group_id, topic, ${q('partition')}) DO NOTHING`);
      }
      statements.push(`UPDATE ${q(this.table)} SET next_offset = ${a.nextOffset.toString()}, updated_at = CURRENT_TIMESTAMP`
        + ` WHERE group_id = ${group} AND topic = ${lit(a.topic)} AND ${q('partition')} = ${a.partition}`
        + ` AND next_offset = ${a.expectedOffset.toString()}`);
    }
    return { sql: statements.join('; '), casCount: sorted.length };
  }

  private async cas(tx: SqlTx, groupId: string, tp: TopicPartition, expected: bigint, next: bigint): Promise<boolean> {
    if (expected === -1n) await this.seed(tx, this.seedRows(groupId, [tp]));
    return (await this.casUpdate(tx, [bindBigint(next), groupId, tp.topic, tp.partition, bindBigint(expected)])) === 1;
  }

  /** Inserts position rows that are absent (insert-if-absent) on the transaction's connection. */
  private async seed(tx: SqlTx, rows: Record<string, unknown>[]): Promise<void> {
    const q = this.knex(this.table).insert(rows).onConflict(['group_id', 'topic', 'partition']).ignore().toSQL().toNative();
    await runOn(this.dialect, tx.connection, q.sql, [...q.bindings]);
  }

  /**
   * The one-partition CAS UPDATE, on the transaction's own driver connection (it runs once per write, so the
   * query builder's cost shows; SQLite: prepared once per connection): `UPDATE t SET next_offset = ?, updated_at =
   * CURRENT_TIMESTAMP WHERE group_id = ? AND topic = ? AND partition = ? AND next_offset = ?`. @returns rows changed
   * (MySQL: matched, as mysql2 connects with CLIENT_FOUND_ROWS). PostgreSQL: an unnamed statement, never a named
   * (prepared) one, which PgBouncer's transaction pooling before 1.21 would hand to another server connection.
   */
  private casUpdate(tx: SqlTx, params: unknown[]): Promise<number> {
    return runOn(this.dialect, tx.connection, this.casSql[this.dialect], params, this.sqliteStatements);
  }

  /** The CAS UPDATE text for each dialect (the table name quoted, never a placeholder: it may contain '?'). */
  private get casSql(): Record<SqlDialect, string> {
    if (this.casSqlText) return this.casSqlText;
    const sql = (d: SqlDialect, p: (i: number) => string) =>
      `UPDATE ${quoteIdentifierFor(d)(this.table)} SET next_offset = ${p(1)}, updated_at = CURRENT_TIMESTAMP`
        + ` WHERE group_id = ${p(2)} AND topic = ${p(3)} AND ${quoteIdentifierFor(d)('partition')} = ${p(4)} AND next_offset = ${p(5)}`;
    this.casSqlText = { sqlite: sql('sqlite', () => '?'), postgres: sql('postgres', (i) => `$${i}`), mysql: sql('mysql', () => '?') };
    return this.casSqlText;
  }

  /**
   * The CAS of every advance in one statement (one round trip, whatever the partition count):
   * `UPDATE ... SET next_offset = CASE ... END WHERE group_id = ? AND ((topic, partition,
   * next_offset) matches an expected position) ...`. True when every row matched. Rows expected
   * at -1 are first seeded insert-if-absent, as in {@link cas}.
   */
  private async casAll(tx: SqlTx, groupId: string, sorted: OffsetAdvance[]): Promise<boolean> {
    if (tx.begun !== undefined) return tx.begun === sorted.length; // the CAS went with BEGIN (casOpening)
    if (sorted.length === 1) {
      const a = sorted[0];
      return this.cas(tx, groupId, a, a.expectedOffset, a.nextOffset);
    }
    const seeds = this.seedRows(groupId, sorted.filter((a) => a.expectedOffset === -1n));
    if (seeds.length > 0) await this.seed(tx, seeds);
    const cast = { postgres: 'BIGINT', sqlite: 'INTEGER', mysql: 'SIGNED' }[this.dialect];
    const cases = sorted.map(() => `WHEN ?? = ? AND ?? = ? THEN CAST(? AS ${cast})`).join(' ');
    const bindings = sorted.flatMap((a) => ['topic', a.topic, 'partition', a.partition, bindBigint(a.nextOffset)]);
    const update = this.knex(this.table)
      .where('group_id', groupId)
      .andWhere((w) => {
        for (const a of sorted) w.orWhere({ topic: a.topic, partition: a.partition, next_offset: bindBigint(a.expectedOffset) });
      })
      .update({ next_offset: this.knex.raw(`CASE ${cases} END`, bindings), updated_at: this.knex.fn.now() })
      .toSQL().toNative();
    // Built by the query builder, run on the transaction's own connection (a knex transaction's or the raw path's).
    return (await runOn(this.dialect, tx.connection, update.sql, [...update.bindings])) === sorted.length;
  }

  /**
   * Runs `work(trx)` in one transaction with the CAS of every advance (done first, in (topic, partition) order so
   * concurrent grouped writers lock rows in the same order). If any CAS matches 0 rows, `work` is not called,
   * everything rolls back, and the result lists the fenced partitions with their stored offsets.
   * Transient errors (see isTransientSqlError) are retried; before each retry the positions are re-read, and if all
   * already equal their nextOffset (the COMMIT landed, the acknowledgement was lost) the result is committed with
   * `recovered: true` without running `work` again.
   * @throws SinkWriteError SINK_BATCH_INVALID for inconsistent advances; SINK_RETRIES_EXHAUSTED (retriable, outcome
   *   unknown) when transient errors outlast the retry budget; an error thrown by `work` is rethrown unchanged
   *   (after rollback) unless it is transient, in which case the attempt is retried.
   */
  async withOffsets<T>(
    groupId: string, advances: OffsetAdvance[], work: (trx: Knex.Transaction) => Promise<T>,
  ): Promise<WithOffsetsResult<T>> {
    const inKnex = <R>(body: (tx: SqlTx) => Promise<R>) => this.knex.transaction(async (trx) => body(await this.knexTx(trx)));
    return this.withOffsetsIn(groupId, advances, inKnex, (tx) => work(tx.trx!));
  }

  /**
   * {@link withOffsets} with `work` given the transaction's driver connection ({@link SqlTx}): on PostgreSQL and SQLite
   * the transaction runs on a raw connection ({@link transact}), without knex's transaction machinery (what the SQL
   * sink does once per write). Same guarantees, results and errors as withOffsets. `copy` (PostgreSQL): the write's
   * rows (or, given the connection the transaction got, the rows or undefined), sent with BEGIN and the CAS in one
   * message when the CAS can go there (pg-pipelined.ts); `work` then finds {@link SqlTx.sent} set, else it must send
   * the rows itself.
   * @throws also the error a pipelined write's encoder threw (`copy.rows.chunk`), unchanged, rolled back.
   */
  withOffsetsOn<T>(
    groupId: string, advances: OffsetAdvance[], work: (tx: SqlTx) => Promise<T>, copy?: TxOpening['copy'],
  ): Promise<WithOffsetsResult<T>> {
    return this.withOffsetsIn(groupId, advances, (body, sorted) => {
      const opening = this.casOpening(groupId, sorted);
      return this.transact(body, opening && copy ? { ...opening, copy } : opening);
    }, work);
  }

  private async withOffsetsIn<T>(
    groupId: string, advances: OffsetAdvance[], transaction: TransactionRunner,
    work: (tx: SqlTx) => Promise<T>,
  ): Promise<WithOffsetsResult<T>> {
    validateAdvances(advances);
    const sorted = [...advances].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    await this.ensureTable();
    if (this.target !== undefined && this.targetColumnKnown === undefined) await this.hasTargetColumn().catch(() => false);
    try {
      // Before a retry: positions already at nextOffset mean the COMMIT landed and only its answer was lost.
      // Anything else is retried: the attempt's own CAS then tells a fenced write from one that did not land.
      const r = await commitWithReread(() => this.attempt(groupId, sorted, transaction, work), {
        reread: async () => {
          const stored = await this.read(groupId, sorted);
          return sorted.every((a) => stored.get(partitionKey(a)) === a.nextOffset) ? { outcome: 'landed' } : { outcome: 'not-landed' };
        },
        mayHaveHappened: isTransientSqlError,
        retry: this.retry,
      });
      return r.outcome === 'done' ? r.value : { status: 'committed', recovered: true, value: undefined };
    } catch (err) {
      throw this.exhausted(err);
    }
  }

  private async attempt<T>(
    groupId: string, sorted: OffsetAdvance[], transaction: TransactionRunner,
    work: (tx: SqlTx) => Promise<T>,
  ): Promise<WithOffsetsResult<T>> {
    let value: T;
    try {
      value = await transaction(async (tx) => {
        if (!(await this.casAll(tx, groupId, sorted))) throw new Fenced(sorted.map((a) => ({ topic: a.topic, partition: a.partition })));
        return work(tx);
      }, sorted);
    } catch (err) {
      if (!(err instanceof Fenced)) throw err;
      // Rolled back: a partition whose stored offset is still the expected one was not the cause.
      const stored = await this.read(groupId, err.partitions);
      const expected = new Map(sorted.map((a) => [partitionKey(a), a.expectedOffset]));
      const fenced = err.partitions.filter((tp) => stored.get(partitionKey(tp)) !== expected.get(partitionKey(tp)));
      const list = fenced.length > 0 ? fenced : err.partitions;
      return { status: 'fenced', fenced: list.map((tp) => ({ ...tp, storedOffset: stored.get(partitionKey(tp)) ?? -1n })) };
    }
    return { status: 'committed', recovered: false, value };
  }

  /** Finalizes the store's SQLite statements; destroys the knex instance if the store created it. Idempotent. */
  async close(): Promise<void> {
    await this.sqliteStatements?.close();
    if (this.ownsKnex) await this.knex.destroy();
  }
}

/** A string the inlined CAS must not carry as a literal (U+0000, or a backslash: see casOpening). */
function unsafeLiteral(s: string): boolean {
  return s.includes('\0') || s.includes('\\');
}

function dedupe(partitions: TopicPartition[]): TopicPartition[] {
  const seen = new Map<string, TopicPartition>();
  for (const tp of partitions) seen.set(partitionKey(tp), { topic: tp.topic, partition: tp.partition });
  return [...seen.values()];
}

/** Throws SinkWriteError SINK_BATCH_INVALID: a partition twice, expectedOffset < -1, nextOffset < max(0, expectedOffset). */
export function validateAdvances(advances: OffsetAdvance[]): void {
  const seen = new Set<string>();
  for (const a of advances) {
    const where = { topic: a.topic, partition: a.partition };
    const key = partitionKey(a);
    if (typeof a.topic !== 'string' || a.topic === '' || !Number.isInteger(a.partition) || a.partition < 0) {
      throw new SinkWriteError('SINK_BATCH_INVALID', `invalid topic/partition ${key}`, where);
    }
    if (seen.has(key)) throw new SinkWriteError('SINK_BATCH_INVALID', `partition ${key} appears twice in one write`, where);
    seen.add(key);
    if (typeof a.expectedOffset !== 'bigint' || typeof a.nextOffset !== 'bigint') {
      throw new SinkWriteError('SINK_BATCH_INVALID', `${key}: expectedOffset and nextOffset must be bigint`, where);
    }
    if (a.expectedOffset < -1n) throw new SinkWriteError('SINK_BATCH_INVALID', `${key}: expectedOffset ${a.expectedOffset} < -1`, where);
    if (a.nextOffset < 0n || a.nextOffset < a.expectedOffset) {
      throw new SinkWriteError(
        'SINK_BATCH_INVALID', `${key}: nextOffset ${a.nextOffset} is before expectedOffset ${a.expectedOffset}`, where,
      );
    }
  }
}

/**
 * Checks a table or column name: a non-empty string without '.', NUL, ' as ' (knex's alias syntax), or more
 * than 63 bytes (PostgreSQL silently truncates longer names). Quotes, semicolons and spaces are fine: knex quotes every identifier.
 * @throws SinkConfigError naming `field`.
 */
export function validateIdentifier(name: unknown, field: string): string {
  if (typeof name !== 'string' || name.length === 0) throw new SinkConfigError(field, 'must be a non-empty string');
  if (name.includes('.')) {
    throw new SinkConfigError(
      field,
      `"${name}" contains '.', which knex reads as a schema separator; use a plain name (set the PostgreSQL search_path for a schema)`,
    );
  }
  if (name.includes('\0')) throw new SinkConfigError(field, 'must not contain NUL');
  // knex reads `a as b` in an identifier as an alias: the name would silently become `a`.
  if (/\sas\s/i.test(name)) {
    throw new SinkConfigError(
      field, `"${name}" contains ' as ', which knex reads as an alias (a different table or column than asked); rename it`,
    );
  }
  if (Buffer.byteLength(name, 'utf8') > 63) throw new SinkConfigError(field, `"${name}" is longer than 63 bytes`);
  return name;
}

function validateRetry(r: Partial<SqlRetryOptions> | undefined): SqlRetryOptions {
  const out = { ...DEFAULT_RETRY, ...r };
  for (const k of ['retries', 'minTimeoutMs', 'maxTimeoutMs'] as const) {
    if (!Number.isInteger(out[k]) || out[k] < 0) {
      throw new SinkConfigError(`retry.${k}`, `must be a non-negative integer, got ${String(out[k])}`);
    }
  }
  if (out.maxTimeoutMs < out.minTimeoutMs) throw new SinkConfigError('retry.maxTimeoutMs', 'must be >= retry.minTimeoutMs');
  return out;
}
