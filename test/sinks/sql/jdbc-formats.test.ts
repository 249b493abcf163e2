/**
 * Kafka Connect's promise that the format is the converter's business: the same data as a JsonConverter
 * `{schema, payload}` record, an Avro record and a JSON Schema record (Confluent's wire format, through the
 * in-process Schema Registry) makes the same JdbcSink table — the same columns, types, nullability, key and rows.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createConverter, type ConverterConfig } from '../../../src/consumer/converters/converter';
import { SchemaRegistryClient } from '../../../src/consumer/converters/registry-client';
import type { SinkRecord } from '../../../src/records';
import { JdbcSink } from '../../../src/sinks/sql/jdbc-sink';
import { SchemaRegistryServer } from '../../../src/testing/schema-registry/server';
import { openKnex } from './fixtures';

let server: SchemaRegistryServer;
let dir: string;
beforeAll(async () => {
  server = await SchemaRegistryServer.start();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-jdbc-formats-'));
});
afterAll(async () => {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const DATA = [{ sensor: 'a', v: 1, note: null }, { sensor: 'b', v: 2 ** 40, note: 'hot' }];
const FORMATS: { topic: string; config: ConverterConfig; schema?: string; envelope?: (v: Record<string, unknown>) => unknown }[] = [
  { topic: 'fmt_connect_json', config: { type: 'connect-json' }, envelope: (v) => ({ schema: { type: 'struct', optional: false, fields: [
    { field: 'sensor', type: 'string', optional: false }, { field: 'v', type: 'int64', optional: false },
    { field: 'note', type: 'string', optional: true }] }, payload: v }) },
  { topic: 'fmt_avro', config: { type: 'avro' }, schema: JSON.stringify({ type: 'record', name: 'Reading', fields: [
    { name: 'sensor', type: 'string' }, { name: 'v', type: 'long' }, { name: 'note', type: ['null', 'string'], default: null }] }) },
  { topic: 'fmt_json_schema', config: { type: 'json-schema' }, schema: JSON.stringify({ title: 'Reading', type: 'object',
    properties: { sensor: { type: 'string' }, v: { type: 'integer' }, note: { type: 'string' } }, required: ['sensor', 'v'] }) },
];

test('JSON {schema, payload}, Avro and JSON Schema records with the same data make the same table', async () => {
  const registry = new SchemaRegistryClient({ url: server.url });
  const knexConfig = { client: 'sqlite3', connection: { filename: path.join(dir, 'db.sqlite') }, useNullAsDefault: true };
  const sink = new JdbcSink({ knex: knexConfig, autoCreate: true, pkMode: 'record_key', pkFields: ['id'], insertMode: 'upsert' });
  const keys = createConverter({ type: 'string' });
  try {
    await sink.open('g', []);
    for (const f of FORMATS) {
      const values = createConverter(f.config, registry);
      const records: SinkRecord[] = [];
      for (const [i, data] of DATA.entries()) {
        const v = f.config.type === 'json-schema' || f.config.type === 'connect-json'
          ? Object.fromEntries(Object.entries(data).filter(([, x]) => x !== null)) : data;
        const bytes = f.envelope ? Buffer.from(JSON.stringify(f.envelope(v))) : await values.serialize(f.topic, v, { schema: f.schema });
        await values.prepare(f.topic, bytes, false);
        const key = Buffer.from(`k${i}`);
        records.push({ topic: f.topic, partition: 0, offset: BigInt(i), timestamp: 0n, headers: {}, key, value: bytes,
          convertedKey: keys.convert(f.topic, key, true), convertedValue: values.convert(f.topic, bytes, false) });
      }
      expect(await sink.write('g', [{ topic: f.topic, partition: 0, expectedOffset: -1n, nextOffset: 2n, records }]))
        .toEqual({ status: 'committed' });
    }
  } finally {
    await sink.close();
  }
  const knex = openKnex(knexConfig as never);
  try {
    const shape = async (t: string) => (await knex.raw(`PRAGMA table_info("${t}")`) as Record<string, unknown>[])
      .map((c) => [c.name, c.type, c.notnull, c.pk]);
    const rows = async (t: string) => knex(t).select().orderBy('id');
    const [first, ...others] = FORMATS.map((f) => f.topic);
    expect(await shape(first!)).toEqual([['id', 'TEXT', 1, 1], ['sensor', 'TEXT', 1, 0], ['v', 'bigint', 1, 0], ['note', 'TEXT', 0, 0]]);
    expect(await rows(first!)).toEqual([{ id: 'k0', sensor: 'a', v: 1, note: null }, { id: 'k1', sensor: 'b', v: 2 ** 40, note: 'hot' }]);
    for (const t of others) {
      expect({ t, shape: await shape(t) }).toEqual({ t, shape: await shape(first!) });
      expect({ t, rows: await rows(t) }).toEqual({ t, rows: await rows(first!) });
    }
  } finally {
    await knex.destroy();
  }
});
