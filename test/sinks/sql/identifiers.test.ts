/**
 * Identifiers (issue 9, item 7): knex reads ` as ` inside a name as an alias (`victim as v`
 * would create or write `victim`), so such names are refused by name; names with quotes, `;`,
 * `?` and unicode mean what they say and keep working end to end.
 */
import type { Knex } from 'knex';
import { SqlSink } from '../../../src/sinks/sql';
import { knex as plainKnex } from 'knex';
import { createKnex } from '../../../src/sinks/sql/dialect';
import { batch, describeOn, targets, uniqueName } from './fixtures';

const mapping = (col: string) => ({ columns: { [col]: { path: 'id', type: 'string' as const }, n: { type: 'bigint' as const } } });

test.each([
  ['table', { table: 'victim as v' }],
  ['table', { table: 'victim AS v' }],
  ['offsetsTable', { offsetsTable: 'offsets\tas\to' }],
  ['mapping.columns.id as x', { mapping: mapping('id as x') }],
  ['upsertKey[0]', { mode: 'upsert', upsertKey: ['k as j'], mapping: { columns: { k: { path: 'id', type: 'string' as const } } } }],
])('a name with " as " is refused (%s)', (field, override) => {
  const config = { knex: { client: 'sqlite3', connection: { filename: ':memory:' } }, table: 't', mode: 'insert' as const,
    mapping: mapping('id'), ...override };
  expect(() => new SqlSink(config as never))
    .toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field, message: expect.stringMatching(/alias/) }));
});

for (const target of targets()) {
  describeOn(target)(target.name, () => {
    let k: Knex;
    let cfg: Knex.Config;
    const tables: string[] = [];
    beforeAll(() => { cfg = target.knexConfig(); k = createKnex(cfg); });
    afterAll(async () => {
      for (const t of tables) await k.schema.dropTableIfExists(t).catch(() => undefined);
      await k.destroy();
      target.cleanup();
    });

    // mysql2 formats every '?' of a statement as a value, backticks or not: MySQL names with '?' are refused (below).
    const q = target.name === 'mysql' ? '' : '?';
    test('names with quotes, ;, ? and unicode (and "as" inside a word) are written where they say', async () => {
      const table = `vols "été\`"; ${q}${uniqueName('').slice(0, 30)} gas`;
      const offsetsTable = `décalages ${q} ;${uniqueName('').slice(0, 30)}`;
      const column = `prix ${q} "€"; \`basalt`;
      tables.push(table, offsetsTable);
      // The sink's own knex (from a Knex.Config) escapes '?' on PostgreSQL; so does createKnex(), used for k.
      const s = new SqlSink({ knex: cfg, table, offsetsTable, mode: 'insert', autoCreate: true, mapping: mapping(column) });
      expect(await s.write('g', [batch('t', 0, -1n, 0n, 3n)])).toEqual({ status: 'committed' });
      const rows = await k(table).select(column).orderBy(column);
      expect(rows.map((r: Record<string, string>) => r[column])).toEqual(['t-0-0', 't-0-1', 't-0-2']);
      expect((await s.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(3n);
      await s.close();
    });

    if (target.name === 'mysql') {
      test("a name with '?' gets a named refusal on MySQL, not a broken query", () => {
        expect(() => new SqlSink({ knex: cfg, table: 'a?b', mode: 'insert', mapping: mapping('id') }))
          .toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: 'table' }));
        expect(() => new SqlSink({ knex: cfg, table: 'ab', offsetsTable: 'o?', mode: 'insert', mapping: mapping('id') }))
          .toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: 'offsetsTable' }));
      });
    }

    if (target.name === 'postgres') {
      test("a user's own pg knex (which would read '?' as a parameter) gets a named refusal, not a broken query", async () => {
        const own = plainKnex(target.knexConfig());
        try {
          expect(() => new SqlSink({ knex: own, table: 'a?b', mode: 'insert', mapping: mapping('id') }))
            .toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: 'table' }));
          expect(() => new SqlSink({ knex: own, table: 'ab', offsetsTable: 'o?', mode: 'insert', mapping: mapping('id') }))
            .toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: 'offsetsTable' }));
        } finally {
          await own.destroy();
        }
      });
    }
  });
}
