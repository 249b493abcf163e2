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
import type { SinkPositionStore, StoredPosition } from './positions';
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
  };
}
