/**
 * JdbcSink (Kafka Connect's JDBC sink semantics, exactly once) on SQLite, PostgreSQL and MariaDB: routing by
 * table.name.format with every table and offset in one transaction, pk.mode record_key (struct and primitive keys),
 * record_value and kafka, insert modes, deletes on tombstones, auto.create and auto.evolve, and what it refuses.
 */
import type { Knex } from 'knex';
import type { RecordSchema, SinkBatch, SinkRecord } from '../../../src/records';
import { JdbcSink, type JdbcSinkConfig } from '../../../src/sinks/sql/jdbc-sink';
import { columnFamily, fitsColumn } from '../../../src/sinks/sql/jdbc-table';
import { describeOn, openKnex, targets, uniqueName } from './fixtures';

const s = (type: RecordSchema['type'], optional = false): RecordSchema => ({ type, optional });
const struct = (fields: Record<string, RecordSchema>, optional = false): RecordSchema =>
  ({ type: 'struct', optional, fields: Object.entries(fields).map(([name, schema]) => ({ name, schema })) });

const KEY = struct({ id: s('int32') });
const V1 = struct({ id: s('int32'), name: s('string') });
const V2 = struct({ id: s('int32'), name: s('string'), email: s('string', true) });

function rec(topic: string, offset: number, key: Record<string, unknown> | null, value: Record<string, unknown> | null,
  valueSchema: RecordSchema = V1, keySchema: RecordSchema = KEY): SinkRecord {
  return {
    topic, partition: 0, offset: BigInt(offset), timestamp: 1_700_000_000_000n, headers: {},
    key: key === null ? null : Buffer.from(JSON.stringify(key)), value: value === null ? null : Buffer.from(JSON.stringify(value)),
    convertedKey: key === null ? undefined : { schema: keySchema, value: key },
    convertedValue: { schema: value === null ? null : valueSchema, value },
  };
}

const batchOf = (topic: string, expected: bigint, records: SinkRecord[]): SinkBatch =>
  ({ topic, partition: 0, expectedOffset: expected, nextOffset: records.length ? records.at(-1)!.offset + 1n : expected, records });

test('column families: the type names of each database', () => {
  expect(['integer', 'int', 'bigint', 'int4'].map(columnFamily)).toEqual(['int', 'int', 'int', 'int']);
  expect(['text', 'character varying', 'varchar(255)', 'longtext'].map(columnFamily)).toEqual(['string', 'string', 'string', 'string']);
  expect(fitsColumn('string', 'integer')).toBe(false);
  expect(fitsColumn('integer', 'bigint')).toBe(true);
  expect(fitsColumn('boolean', 'tinyint')).toBe(true);
  expect(fitsColumn('json', 'longtext')).toBe(true);
  expect(fitsColumn('timestamp', 'some_custom_type')).toBe(true);
});

for (const target of targets()) describeOn(target)(`JdbcSink on ${target.name}`, () => {
  let k: Knex;
  let cfg: Knex.Config; // one database for the sinks and the checks (each SQLite config is a new file)
  const made: string[] = [];
  beforeAll(() => { cfg = target.knexConfig(); k = openKnex(cfg); });
  afterAll(async () => {
    for (const t of made) await k.schema.dropTableIfExists(t);
    await k.destroy();
    target.cleanup();
  });

  const sink = (prefix: string, extra: Partial<JdbcSinkConfig> = {}) => {
    const p = uniqueName(prefix).slice(0, 40);
    made.push(`${p}_a`, `${p}_b`, `${p}_offsets`);
    return { p, sink: new JdbcSink({ knex: cfg, tableNameFormat: `${p}_\${topic}`, offsetsTable: `${p}_offsets`,
      autoCreate: true, autoEvolve: true, insertMode: 'upsert', pkMode: 'record_key', deleteEnabled: true, ...extra }) };
  };
  const rows = async (table: string) => (await k(table).select('*').orderBy('id')).map((r: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(r).map(([c, v]) => [c, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v])));

  test('two topics into two tables in one transaction; upserts by key; a tombstone deletes; the last record of a key wins', async () => {
    const { p, sink: j } = sink('jr');
    try {
      await j.open('g', [{ topic: 'a', partition: 0 }, { topic: 'b', partition: 0 }]);
      expect(await j.write('g', [
        batchOf('a', -1n, [rec('a', 0, { id: 1 }, { id: 1, name: 'one' }), rec('a', 1, { id: 2 }, { id: 2, name: 'two' }),
          rec('a', 2, { id: 1 }, { id: 1, name: 'uno' })]),
        batchOf('b', -1n, [rec('b', 0, { id: 7 }, { id: 7, name: 'seven' })]),
      ])).toEqual({ status: 'committed' });
      expect(await rows(`${p}_a`)).toEqual([{ id: 1, name: 'uno' }, { id: 2, name: 'two' }]);
      expect(await rows(`${p}_b`)).toEqual([{ id: 7, name: 'seven' }]);
      // An upsert then a delete of key 2, a delete then an upsert of key 1, a delete of a row that never existed.
      expect(await j.write('g', [batchOf('a', 3n, [
        rec('a', 3, { id: 2 }, { id: 2, name: 'deux' }), rec('a', 4, { id: 2 }, null),
        rec('a', 5, { id: 1 }, null), rec('a', 6, { id: 1 }, { id: 1, name: 'un' }),
        rec('a', 7, { id: 99 }, null),
      ])])).toEqual({ status: 'committed' });
      expect(await rows(`${p}_a`)).toEqual([{ id: 1, name: 'un' }]);
      const stored = await j.offsets.read('g', [{ topic: 'a', partition: 0 }, { topic: 'b', partition: 0 }]);
      expect([stored.get('a:0'), stored.get('b:0')]).toEqual([8n, 1n]);
      // A stale writer (expects 3 on a, stored 8) is fenced: nothing of either table changes.
      expect(await j.write('g', [batchOf('b', 1n, [rec('b', 1, { id: 8 }, { id: 8, name: 'eight' })]),
        batchOf('a', 3n, [rec('a', 3, { id: 5 }, { id: 5, name: 'five' })])])).toMatchObject({ status: 'fenced' });
      expect(await rows(`${p}_b`)).toEqual([{ id: 7, name: 'seven' }]);
      expect(await rows(`${p}_a`)).toEqual([{ id: 1, name: 'un' }]);
    } finally {
      await j.close();
    }
  });

  test('auto.evolve: a new optional field adds a nullable column between two records of one write; required fields and type changes ' +
    'are refused', async () => {
    const { p, sink: j } = sink('je');
    try {
      await j.open('g', [{ topic: 'a', partition: 0 }]);
      expect(await j.write('g', [batchOf('a', -1n, [rec('a', 0, { id: 1 }, { id: 1, name: 'one' }),
        rec('a', 1, { id: 2 }, { id: 2, name: 'two', email: 'b@x' }, V2), rec('a', 2, { id: 3 }, { id: 3, name: 'three' })])]))
        .toEqual({ status: 'committed' });
      expect(await rows(`${p}_a`)).toEqual([{ id: 1, name: 'one', email: null }, { id: 2, name: 'two', email: 'b@x' },
        { id: 3, name: 'three', email: null }]);
      const required = struct({ id: s('int32'), name: s('string'), age: s('int32') });
      await expect(j.write('g', [batchOf('a', 3n, [rec('a', 3, { id: 4 }, { id: 4, name: 'x', age: 4 }, required)])]))
        .rejects.toMatchObject({ code: 'SCHEMA_EVOLUTION_REFUSED', column: 'age', field: 'value.age' });
      const retyped = struct({ id: s('int32'), name: s('int64') });
      await expect(j.write('g', [batchOf('a', 3n, [rec('a', 3, { id: 4 }, { id: 4, name: 4 }, retyped)])]))
        .rejects.toMatchObject({ code: 'SCHEMA_EVOLUTION_REFUSED', column: 'name' });
      expect((await j.offsets.read('g', [{ topic: 'a', partition: 0 }])).get('a:0')).toBe(3n);
    } finally {
      await j.close();
    }
    const { sink: off } = sink('jn', { autoEvolve: false });
    try {
      await off.open('g', []);
      await off.write('g', [batchOf('a', -1n, [rec('a', 0, { id: 1 }, { id: 1, name: 'one' })])]);
      await expect(off.write('g', [batchOf('a', 1n, [rec('a', 1, { id: 2 }, { id: 2, name: 'two', email: 'e' }, V2)])]))
        .rejects.toMatchObject({ code: 'SCHEMA_EVOLUTION_REFUSED', message: expect.stringContaining('auto.evolve is false') });
    } finally {
      await off.close();
    }
  });

  test('primitive keys, pk.mode kafka and record_value, insert and update modes; a tombstone without delete.enabled is a poison record',
    async () => {
    const { p, sink: prim } = sink('jp', { pkFields: ['id'] });
    try {
      const key = s('string');
      await prim.write('g', [batchOf('a', -1n, [rec('a', 0, 'k1' as never, { name: 'one' }, struct({ name: s('string') }), key),
        rec('a', 1, 'k1' as never, { name: 'uno' }, struct({ name: s('string') }), key)])]);
      expect(await rows(`${p}_a`)).toEqual([{ id: 'k1', name: 'uno' }]);
    } finally {
      await prim.close();
    }
    const { p: p2, sink: kafka } = sink('jk', { pkMode: 'kafka', insertMode: 'insert', deleteEnabled: false });
    try {
      await kafka.write('g', [batchOf('a', -1n, [rec('a', 0, null, { id: 1, name: 'one' }), rec('a', 1, null, { id: 1, name: 'one' })])]);
      const got = await k(`${p2}_a`).select('*').orderBy('__connect_offset');
      expect(got.map((r: Record<string, unknown>) => [r.__connect_topic, Number(r.__connect_partition),
        Number(r.__connect_offset), r.name]))
        .toEqual([['a', 0, 0, 'one'], ['a', 0, 1, 'one']]);
      const err = await kafka.write('g', [batchOf('a', 2n, [rec('a', 2, null, null)])]).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'SINK_MAPPING_FAILED', recordAtFault: true, offset: 2n });
    } finally {
      await kafka.close();
    }
    const { p: p3, sink: upd } = sink('ju', { pkMode: 'record_value', pkFields: ['id'], insertMode: 'update', deleteEnabled: false,
      fieldsInclude: ['name'] });
    try {
      await k.schema.createTable(`${p3}_a`, (t) => { t.integer('id').primary(); t.text('name'); });
      await k(`${p3}_a`).insert({ id: 1, name: 'one' });
      await upd.write('g', [batchOf('a', -1n, [rec('a', 0, null, { id: 1, name: 'uno', email: 'dropped' }, V2),
        rec('a', 1, null, { id: 5, name: 'missing row: no error' }, V2)])]);
      expect(await rows(`${p3}_a`)).toEqual([{ id: 1, name: 'uno' }]);
    } finally {
      await upd.close();
    }
  });

  test('refuses what Connect refuses, naming the option', () => {
    const knex = { client: 'sqlite3', connection: { filename: ':memory:' } };
    expect(() => new JdbcSink({ knex, insertMode: 'upsert' })).toThrow(expect.objectContaining({ field: 'pkMode' }));
    expect(() => new JdbcSink({ knex, deleteEnabled: true, pkMode: 'kafka' })).toThrow(expect.objectContaining({ field: 'deleteEnabled' }));
    expect(() => new JdbcSink({ knex, tableNameFormat: 'app.${topic}' })).toThrow(expect.objectContaining({ field: 'tableNameFormat' }));
    expect(() => new JdbcSink({ knex, tableNameFormat: 'Kafka_Eos_Offsets' })).toThrow(expect.objectContaining({ field: 'tableNameFormat',
      message: expect.stringMatching(/"Kafka_Eos_Offsets" is the sink's offsets table/) }));
  });

  test('open() refuses a topic whose table name is refused (topics.regex learns its topics at the assignment), before any position is read',
    async () => {
    const { p, sink: s } = sink('jdbc_open');
    try {
      const refused = (topic: string) => s.open('g', [{ topic: 'fine', partition: 0 }, { topic, partition: 1 }]).then(() => 'opened',
        (e: { code: string; message: string }) => `${e.code} ${e.message}`);
      expect(await refused('eu.payments')).toMatch(/^CONFIG_INVALID tableNameFormat \(for topic eu\.payments\): .*contains '\.'/);
      expect(await refused('offsets')).toMatch(new RegExp(`^CONFIG_INVALID tableNameFormat \\(for topic offsets\\): "${p}_offsets" is the `
        + "sink's offsets table"));
      expect(await k.schema.hasTable(`${p}_offsets`)).toBe(false); // refused before the offsets table was made
      expect((await s.open('g', [{ topic: 'fine', partition: 0 }])).size).toBe(1);
    } finally {
      await s.close();
    }
  });
});
