/**
 * The demo never drops a table it does not own (issue 9, item 2): names are checked before any
 * DDL, an offsets table is never dropped, and only tables recorded as created by the demo are.
 */
import type { Knex } from 'knex';
import { DEMO_MARKER_TABLE, DemoTableError, dropOwnDemoTable, markDemoTable, validateDemoTable } from '../../../src/cli/demo/tables';
import { ensureOffsetsTable } from '../../../src/sinks/sql/ddl';
import { openKnex, describeOn, targets, uniqueName } from '../../sinks/sql/fixtures';

test('names are validated before any DDL: the offsets table, schema-qualified names and the marker table are refused', () => {
  for (const bad of ['kafka_eos_offsets', 'KAFKA_EOS_OFFSETS', 'public.kafka_eos_offsets', DEMO_MARKER_TABLE, '', 'x'.repeat(64)]) {
    expect(() => validateDemoTable(bad, 'kafka_eos_offsets')).toThrow(DemoTableError);
  }
  expect(() => validateDemoTable('kafka_eos_offsets', 'kafka_eos_offsets')).toThrow(/never drops an offsets table/);
  expect(validateDemoTable('flights', 'kafka_eos_offsets')).toBe('flights');
  expect(validateDemoTable('vols "été"; --', 'kafka_eos_offsets')).toBe('vols "été"; --');
});

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

    test('a table the demo did not create is refused and left intact', async () => {
      const table = uniqueName('victim');
      tables.push(table);
      await k.schema.createTable(table, (t) => { t.integer('id'); });
      await k(table).insert([{ id: 1 }, { id: 2 }]);
      await expect(dropOwnDemoTable(k, table))
        .rejects.toMatchObject({ code: 'DEMO_TABLE_REFUSED', message: expect.stringMatching(/not created by kafka-eos demo/) });
      expect((await k(table).select('id')).length).toBe(2);
    });

    test('an offsets table under another name is never dropped, even if recorded as the demo\'s', async () => {
      const table = uniqueName('offsets_like');
      tables.push(table);
      await ensureOffsetsTable(k, table);
      await k(table).insert({ group_id: 'g', topic: 't', partition: 0, next_offset: 42 });
      await dropOwnDemoTable(k, uniqueName('absent')); // creates the marker table
      await markDemoTable(k, table);
      await expect(dropOwnDemoTable(k, table))
        .rejects.toMatchObject({ code: 'DEMO_TABLE_REFUSED', message: expect.stringMatching(/offsets table/) });
      expect(Number((await k(table).first('next_offset'))!.next_offset)).toBe(42);
      await k(DEMO_MARKER_TABLE).where({ name: table }).delete();
    });

    test('a table the demo created is dropped on the next run; an absent one is fine', async () => {
      const table = uniqueName('demo_own');
      tables.push(table);
      await dropOwnDemoTable(k, table);
      await k.schema.createTable(table, (t) => { t.integer('id'); });
      await markDemoTable(k, table);
      await dropOwnDemoTable(k, table);
      expect(await k.schema.hasTable(table)).toBe(false);
      // A table recreated by someone else under a name the demo once used is not the demo's.
      await k.schema.createTable(table, (t) => { t.integer('id'); });
      await expect(dropOwnDemoTable(k, table)).rejects.toMatchObject({ code: 'DEMO_TABLE_REFUSED' });
      expect(await k.schema.hasTable(table)).toBe(true);
    });
  });
}
