/**
 * `kafka-eos run` at-least-once / at-most-once writes row by row: with `mapping.fromSchema` it creates and checks the
 * table as the exactly-once sink does, and treats tombstones by behaviorOnNullValues.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { plainRecordWriter } from '../../../src/cli/connector/plain-writer';
import { compileAvro } from '../../../src/consumer/converters/avro';
import type { SinkRecord } from '../../../src/records';

let dir: string;
let knex: Knex;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-plain-'));
  knex = knexFactory({ client: 'sqlite3', connection: { filename: path.join(dir, 'db.sqlite') }, useNullAsDefault: true });
});
afterEach(async () => { await knex.destroy(); rmSync(dir, { recursive: true, force: true }); });

const V1 = compileAvro(JSON.stringify({
  type: 'record', name: 'R', fields: [{ name: 'id', type: 'long' }, { name: 'name', type: ['null', 'string'] }] }));
const V2 =
  compileAvro(JSON.stringify({ type: 'record', name: 'R', fields: [{ name: 'id', type: 'long' }, { name: 'extra', type: 'int' }] }));
const rec = (offset: number, value: unknown, codec = V1): SinkRecord => ({
  topic: 't', partition: 0, offset: BigInt(offset), key: null, value: value === null ? null : Buffer.from('x'), timestamp: 0n, headers: {},
  convertedValue: { schema: value === null ? null : codec.connect, value, schemaId: codec === V1 ? 1 : 2 },
});

test('fromSchema with autoCreate: the first record creates the table from its schema; rows go in one by one; tombstones write nothing',
  async () => {
  const write = plainRecordWriter(knex, { knex, table: 'readings', mode: 'insert', autoCreate: true, mapping: { fromSchema: true } });
  await write(rec(0, { id: 1, name: 'a' }));
  await write(rec(1, null));
  await write(rec(2, { id: 2, name: null }));
  expect(await knex('readings').select('id', 'name', 'kafka_offset').orderBy('id')).toEqual([
    { id: 1, name: 'a', kafka_offset: 0 }, { id: 2, name: null, kafka_offset: 2 }]);
  const columns = await knex('readings').columnInfo();
  expect(columns.name!.nullable).toBe(true);
  expect(columns.id!.nullable).toBe(false);
  // A later schema with a field the table lacks: named with its column, as the exactly-once sink names it.
  await expect(write(rec(3, { id: 3, extra: 1 }, V2))).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED', column: 'extra',
    message: expect.stringMatching(/table readings has no column extra for schema field value.extra \(schema id 2\)/) });
});

test('behaviorOnNullValues fail: a tombstone is a poison record; without autoCreate a missing table is said so, not created', async () => {
  const write = plainRecordWriter(knex, { knex, table: 'strict', mode: 'insert', autoCreate: true, mapping: { fromSchema: true },
    behaviorOnNullValues: 'fail' });
  await expect(write(rec(0, null))).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED', offset: 0n });
  const noCreate = plainRecordWriter(knex, { knex, table: 'absent', mode: 'insert', mapping: { fromSchema: true } });
  await expect(write(rec(1, { id: 1, name: 'x' }))).resolves.toBeUndefined();
  await expect(noCreate(rec(2, { id: 2, name: 'y' }))).rejects.toThrow();
  expect(await knex.schema.hasTable('absent')).toBe(false);
});
