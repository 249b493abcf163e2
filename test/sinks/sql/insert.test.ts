import type { Knex } from 'knex';
import { createKnex } from '../../../src/sinks/sql/dialect';
import { valuesInsert } from '../../../src/sinks/sql/insert';
import { describeOn, targets, uniqueName } from './fixtures';

for (const target of targets()) describeOn(target)(`VALUES-list inserts on ${target.name}`, () => {
  let k: Knex;
  beforeAll(() => { k = createKnex(target.knexConfig()); });
  afterAll(async () => { await k.destroy(); target.cleanup(); });

  test('more rows in one statement than knex\'s UNION ALL form allowed on SQLite (500)', async () => {
    const table = uniqueName('many');
    await k.schema.createTable(table, (t) => { t.integer('a'); t.text('b'); });
    try {
      const rows = Array.from({ length: 3000 }, (_, i) => ({ a: i, b: `v${i}` }));
      await valuesInsert(k, table, ['a', 'b'], rows);
      const [{ n, s }] = await k(table).select(k.raw('count(*) as n, sum(a) as s'));
      expect([Number(n), Number(s)]).toEqual([3000, (2999 * 3000) / 2]);
    } finally {
      await k.schema.dropTableIfExists(table);
    }
  });

  test('upsert updates non-key columns and leaves the key', async () => {
    const table = uniqueName('up');
    await k.schema.createTable(table, (t) => { t.string('id', 255).primary(); t.integer('n'); });
    try {
      await valuesInsert(k, table, ['id', 'n'], [{ id: 'x', n: 1 }, { id: 'y', n: 2 }], ['id']);
      await valuesInsert(k, table, ['id', 'n'], [{ id: 'x', n: 10 }], ['id']);
      expect(await k(table).select('id', 'n').orderBy('id')).toEqual([{ id: 'x', n: 10 }, { id: 'y', n: 2 }]);
      await valuesInsert(k, table, ['id'], [{ id: 'y' }, { id: 'z' }], ['id']); // key only: DO NOTHING
      expect((await k(table).select('id').orderBy('id')).map((r) => r.id)).toEqual(['x', 'y', 'z']);
    } finally {
      await k.schema.dropTableIfExists(table);
    }
  });

  test('identifiers and values are bound, never spliced into the SQL', async () => {
    const table = uniqueName('q"t;');
    const col = 'c"; DROP TABLE x; --';
    await k.schema.createTable(table, (t) => { t.text(col); });
    try {
      await valuesInsert(k, table, [col], [{ [col]: "'); DROP TABLE y; -- ?" }]);
      expect(await k(table).select(col)).toEqual([{ [col]: "'); DROP TABLE y; -- ?" }]);
    } finally {
      await k.schema.dropTableIfExists(table);
    }
  });
});
