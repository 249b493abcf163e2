/**
 * The offsets table stores the target (data) table with the positions (issue 9, item 10): new
 * rows carry it, an offsets table made before the column is migrated additively (old rows keep
 * NULL and still work), and targetsOf() reads which tables a group's positions were written for.
 */
import type { Knex } from 'knex';
import { SqlOffsetStore } from '../../../src/sinks/sql/offset-store';
import { SqlSink } from '../../../src/sinks/sql';
import { batch, openKnex, describeOn, targets, uniqueName } from './fixtures';

for (const target of targets()) {
  describeOn(target)(target.name, () => {
    let k: Knex;
    const tables: string[] = [];
    beforeAll(() => { k = openKnex(target.knexConfig()); });
    afterAll(async () => {
      for (const t of tables) await k.schema.dropTableIfExists(t).catch(() => undefined);
      await k.destroy();
      target.cleanup();
    });

    test('positions carry their target table; another table sharing the group is told', async () => {
      const offsetsTable = uniqueName('off');
      const ta = uniqueName('ta');
      const tb = uniqueName('tb');
      tables.push(offsetsTable, ta, tb);
      const mapping = { columns: { id: { type: 'string' as const }, n: { type: 'bigint' as const } } };
      const a = new SqlSink({ knex: k, table: ta, offsetsTable, mode: 'insert', autoCreate: true, mapping });
      await a.open('g', [{ topic: 't', partition: 0 }]);
      expect(await a.write('g', [batch('t', 1, -1n, 0n, 2n)])).toEqual({ status: 'committed' }); // seeded by the CAS
      expect(await a.offsets.targetsOf('g')).toEqual([ta]);
      expect(await a.otherTargets('g')).toEqual([]);
      const b = new SqlSink({ knex: k, table: tb, offsetsTable, mode: 'insert', autoCreate: true, mapping });
      expect(await b.otherTargets('g')).toEqual([ta]);
      expect(await b.otherTargets('another-group')).toEqual([]);
      const rows = await k(offsetsTable).select('partition', 'target').orderBy('partition');
      expect(rows.map((r: { target: string }) => r.target)).toEqual([ta, ta]);
    });

    test('an offsets table from before the target column is migrated additively; its rows keep working', async () => {
      const offsetsTable = uniqueName('legacy');
      tables.push(offsetsTable);
      await k.schema.createTable(offsetsTable, (t) => {
        t.string('group_id', 255).notNullable(); t.string('topic', 255).notNullable(); t.integer('partition').notNullable();
        t.bigInteger('next_offset').notNullable(); t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(k.fn.now());
        t.primary(['group_id', 'topic', 'partition']);
      });
      await k(offsetsTable).insert({ group_id: 'g', topic: 't', partition: 0, next_offset: 7 });
      const store = new SqlOffsetStore({ knex: k, table: offsetsTable, target: 'rows' });
      const pos = await store.load('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
      expect([pos.get('t:0'), pos.get('t:1')]).toEqual([7n, -1n]);
      expect(await k.schema.hasColumn(offsetsTable, 'target')).toBe(true);
      const rows = await k(offsetsTable).select('partition', 'target').orderBy('partition');
      expect(rows.map((r: { target: string | null }) => r.target)).toEqual([null, 'rows']);
      expect(await store.compareAndSet(undefined, 'g', { topic: 't', partition: 0 }, 7n, 9n)).toBe(true);
      // A store without autoCreate on a table lacking the column still works (the target is not written).
      const old = uniqueName('legacy2');
      tables.push(old);
      await k.schema.createTable(old, (t) => {
        t.string('group_id', 255); t.string('topic', 255); t.integer('partition'); t.bigInteger('next_offset');
        t.timestamp('updated_at').defaultTo(k.fn.now());
        t.primary(['group_id', 'topic', 'partition']);
      });
      const plain = new SqlOffsetStore({ knex: k, table: old, target: 'rows', autoCreate: false });
      expect((await plain.load('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(-1n);
      expect(await plain.targetsOf('g')).toEqual([]);
    });
  });
}
