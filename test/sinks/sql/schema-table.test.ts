/** The table of a fromSchema sink: created from the first record's schemas, checked against each new schema, tombstones handled first. */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { compileAvro } from '../../../src/consumer/converters/avro';
import type { SinkBatch, SinkRecord } from '../../../src/records';
import { compileSchemaMapping } from '../../../src/sinks/sql/schema-mapping';
import { SchemaTable, tombstonesHandled } from '../../../src/sinks/sql/schema-table';

let dir: string;
let knex: Knex;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-schema-table-'));
  knex = knexFactory({ client: 'sqlite3', connection: { filename: path.join(dir, 'db.sqlite') }, useNullAsDefault: true });
});
afterEach(async () => { await knex.destroy(); rmSync(dir, { recursive: true, force: true }); });

const V1 = compileAvro(JSON.stringify({ type: 'record', name: 'R', fields: [{ name: 'id', type: 'long' },
  { name: 'n', type: ['null', 'double'] }] }));
const V2 = compileAvro(JSON.stringify({ type: 'record', name: 'R', fields: [{ name: 'id', type: 'long' },
  { name: 'tag', type: 'string' }] }));
const rec = (offset: number, value: unknown, codec = V1, id = 1): SinkRecord => ({ topic: 't', partition: 0, offset: BigInt(offset),
  key: null, value: value === null ? null : Buffer.from('x'), timestamp: 0n, headers: {},
  convertedValue: { schema: value === null ? null : codec.connect, value, schemaId: id } });
const write = (...records: SinkRecord[]): { batch: SinkBatch }[] =>
  [{ batch: { topic: 't', partition: 0, expectedOffset: -1n, nextOffset: 99n, records } }];

test('autoCreate: the table from the first schema (types, nullability, coordinates, primary key); a later schema checked, its missing ' +
  'column named', async () => {
  const mapping = compileSchemaMapping({ fromSchema: true }, 'sqlite', true);
  const table = new SchemaTable(knex, 'r', mapping, { autoCreate: true, includeKafkaCoordinates: true, primaryKey: ['id'] });
  await table.prepare(write(rec(0, { id: 1, n: null }), rec(1, { id: 2, n: 1.5 })));
  const info = await knex('r').columnInfo();
  expect(Object.keys(info)).toEqual(['kafka_topic', 'kafka_partition', 'kafka_offset', 'id', 'n']);
  expect([info.id!.nullable, info.n!.nullable]).toEqual([false, true]);
  await expect(table.prepare(write(rec(2, { id: 3, tag: 'x' }, V2, 2))))
    .rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED', column: 'tag', offset: 2n,
    message: expect.stringMatching(/table r has no column tag for schema field value.tag \(schema id 2\): add the column \(string\)/) });
  // After an ALTER TABLE the same schema goes in: the columns are read again when one is missing.
  await knex.schema.alterTable('r', (t) => { t.text('tag'); });
  await expect(table.prepare(write(rec(2, { id: 3, tag: 'x' }, V2, 2)))).resolves.toBeUndefined();
});

test('without autoCreate an existing table is checked; tombstones are ignored (their offsets covered) or refused', async () => {
  await knex.schema.createTable('pre', (t) => { t.bigInteger('id'); });
  const table = new SchemaTable(knex, 'pre', compileSchemaMapping({ fromSchema: true }, 'sqlite', false),
    { autoCreate: false, includeKafkaCoordinates: false, primaryKey: undefined });
  await expect(table.prepare(write(rec(0, { id: 1, n: 2 })))).rejects.toMatchObject({ column: 'n' });
  const records = [rec(0, { id: 1, n: 2 }), rec(1, null), rec(2, { id: 2, n: 3 })];
  expect(tombstonesHandled(records, 'ignore').map((r) => r.offset)).toEqual([0n, 2n]);
  expect(() => tombstonesHandled(records, 'fail')).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', offset: 1n }));
  expect(tombstonesHandled([records[0]!], 'fail')).toEqual([records[0]]);
});

test('decimals stay exact on SQLite: a TEXT column (SQLite\'s NUMERIC affinity would store 0.1000…01 as the REAL 0.1)', async () => {
  const dec = compileAvro(JSON.stringify({ type: 'record', name: 'D',
    fields: [{ name: 'x', type: { type: 'bytes', logicalType: 'decimal', precision: 40, scale: 21 } }] }));
  const mapping = compileSchemaMapping({ fromSchema: true }, 'sqlite', false);
  const r = rec(0, { x: '0.100000000000000000001' }, dec, 9);
  await new SchemaTable(knex, 'd', mapping, { autoCreate: true, includeKafkaCoordinates: false, primaryKey: undefined }).prepare(write(r));
  await knex('d').insert(mapping.toRow(r));
  await knex('d').insert(mapping.toRow(rec(1, { x: '-1.000000000000000000001' }, dec, 9)));
  expect((await knex('d').select('x')).map((x) => x.x)).toEqual(['0.100000000000000000001', '-1.000000000000000000001']);
});
