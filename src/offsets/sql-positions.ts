/**
 * Operator access to the SQL offsets table (see {@link SqlOffsetStore}): list a group's stored
 * positions, and overwrite them unconditionally. Used by `kafka-eos offsets describe|reset`; the
 * consumer itself only ever moves a position by compare-and-set.
 *
 * An overwrite while a consumer owns the partition is safe for the data: that consumer's next
 * compare-and-set expects the old position, fails, and the consumer re-reads the stored position
 * (it is fenced), but it can replay or skip records by design, which is the point of a reset.
 */
import { KafkaEosError } from '../errors';
import type { Knex } from 'knex';
import { partitionKey } from '../records';
import { bindBigint, toBigint } from '../sinks/sql/dialect';
import type { Rewind, SinkPositionStore, StoredPosition } from './positions';
import type { SqlOffsetStore } from '../sinks/sql/offset-store';

export type { StoredPosition } from './positions';

/**
 * Every position stored for `groupId`, ordered by topic then partition. An absent offsets table
 * reads as no positions (the group never wrote through the sink).
 */
export async function listStoredPositions(store: SqlOffsetStore, groupId: string): Promise<StoredPosition[]> {
  if (!(await store.knex.schema.hasTable(store.table))) return [];
  const q = store.knex;
  const rows: { topic: string; partition: number | string; next_offset: unknown }[] = await q(store.table)
    .select('topic', 'partition', q.raw('CAST(?? AS TEXT) AS ??', ['next_offset', 'next_offset']))
    .where('group_id', groupId)
    .orderBy([{ column: 'topic' }, { column: 'partition' }]);
  return rows.map((r) => ({ topic: r.topic, partition: Number(r.partition), nextOffset: toBigint(r.next_offset,
    `${store.table}.next_offset`) }));
}

/**
 * Sets the stored position of each partition (insert or overwrite) in one transaction.
 * Positions must be ≥ 0. Creates the offsets table if the store is allowed to.
 * @throws RangeError for a negative position; database errors as knex raises them.
 */
export async function overwriteStoredPositions(store: SqlOffsetStore, groupId: string, positions: StoredPosition[]): Promise<void> {
  for (const p of positions) {
    if (p.nextOffset < 0n) {
      throw new KafkaEosError('INVALID_ARGUMENT', `${partitionKey(p)}: a stored position must be ≥ 0, got ${p.nextOffset}`);
    }
  }
  await store.ensureTable();
  await store.knex.transaction(async (trx: Knex.Transaction) => {
    for (const p of positions) {
      await trx(store.table)
        .insert({ group_id: groupId, topic: p.topic, partition: p.partition, next_offset: bindBigint(p.nextOffset) })
        .onConflict(['group_id', 'topic', 'partition'])
        .merge({ next_offset: bindBigint(p.nextOffset), updated_at: trx.fn.now() });
    }
  });
}

/**
 * The SQL offsets table as a {@link SinkPositionStore} for `kafka-eos offsets`: lists with
 * {@link listStoredPositions} (filtered to `topics` when given), overwrites with
 * {@link overwriteStoredPositions}; every offset can be stored as asked (no `align`).
 */
export function sqlPositionStore(store: SqlOffsetStore): SinkPositionStore {
  return {
    label: `the sink's offsets table ${store.table}`,
    list: async (groupId, topics) => (await listStoredPositions(store, groupId)).filter((p) => !topics?.length || topics.includes(p.topic)),
    overwrite: (groupId, positions) => overwriteStoredPositions(store, groupId, positions),
    replayWarnings: (groupId, rewinds) => insertReplayWarnings(store, groupId, rewinds),
  };
}

/**
 * Whether `table` has a primary key or a unique index (SQLite, PostgreSQL); undefined for another database or a
 * table that does not exist. The SQL sink's `insert` mode makes its tables without one; `upsert` and `kafka-key`
 * need one (their replays overwrite rows).
 */
export async function hasUniqueKey(knex: Knex, table: string): Promise<boolean | undefined> {
  const client = String((knex.client as { config?: { client?: unknown } }).config?.client ?? '');
  if (!(await knex.schema.hasTable(table))) return undefined;
  if (client === 'sqlite3') {
    const columns: { pk: number }[] = await knex.raw('PRAGMA table_info(??)', [table]);
    const indexes: { unique: number }[] = await knex.raw('PRAGMA index_list(??)', [table]);
    return columns.some((c) => c.pk > 0) || indexes.some((i) => i.unique === 1);
  }
  if (client === 'pg' || client === 'postgres' || client === 'postgresql') {
    const name = table.split('.').at(-1)!;
    const { rows } = await knex.raw('SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname = ? '
      + 'AND pg_table_is_visible(c.oid) AND (i.indisunique OR i.indisprimary) LIMIT 1', [name]) as { rows: unknown[] };
    return rows.length > 0;
  }
  return undefined;
}

/**
 * The warnings of a reset that replays records into the group's data tables (the offsets table's `target`
 * column names them): a table without a primary or unique key is written in `insert` mode, and the replay inserts
 * the records from the new positions a second time (docs/replay.md). A table with a key (`upsert`, `kafka-key`)
 * gets no warning; an unknown table (no `target` column, another database) a conditional one.
 */
export async function insertReplayWarnings(store: SqlOffsetStore, groupId: string, rewinds: Rewind[]): Promise<string[]> {
  if (rewinds.length === 0) return [];
  const records = rewinds.reduce((n, r) => n + (r.from - r.to), 0n);
  const what = `up to ${records} record(s) from the new positions`;
  const fix = 'delete those rows first (by kafka_topic/kafka_partition/kafka_offset when the table has them), or replay into a '
    + 'new table (docs/replay.md)';
  const generic = (table: string) => `the replay writes ${what} again: into a table the sink writes in mode insert${table} they `
    + `are inserted a second time (duplicates; upsert and kafka-key overwrite them): ${fix}`;
  const targets = await store.targetsOf(groupId);
  if (targets.length === 0) return [generic('')];
  const out: string[] = [];
  for (const table of targets) {
    const keyed = await hasUniqueKey(store.knex, table);
    if (keyed === false) {
      out.push(`table ${table} has no primary or unique key, so the sink writes it in mode insert: the replay inserts ${what} `
        + `again (duplicates): ${fix}`);
    } else if (keyed === undefined) out.push(generic(` (${table})`));
  }
  return out;
}
