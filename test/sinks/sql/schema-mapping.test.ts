/** The SQL sink's `mapping: { fromSchema }`: rows from converted records' schemas, values converted per column, failures named. */
import { compileAvro } from '../../../src/consumer/converters/avro';
import type { SinkRecord } from '../../../src/records';
import { compileSchemaMapping, compileSinkMapping } from '../../../src/sinks/sql/schema-mapping';

const ORDER = compileAvro(JSON.stringify({ type: 'record', name: 'Order', fields: [
  { name: 'id', type: 'long' }, { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 9, scale: 2 } },
  { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } }, { name: 'ok', type: 'boolean' }, { name: 'raw', type: 'bytes' },
  { name: 'note', type: ['null', 'string'], default: null },
  { name: 'to', type: { type: 'record', name: 'A', fields: [{ name: 'city', type: 'string' }] } }] }));
const rec = (value: Record<string, unknown>, headers: SinkRecord['headers'] = {}): SinkRecord => ({ topic: 't', partition: 0, offset: 9n,
  key: null, value: Buffer.from('x'), timestamp: 0n, headers, convertedValue: { schema: ORDER.connect, value, schemaId: 4 } });
const V = { id: 2n ** 60n, amount: '12.34', at: new Date(1700000000000), ok: true, raw: Buffer.from([1]), note: null,
  to: { city: 'Zürich' } };

test('rows per dialect: bigint exact, decimal text, timestamps (ISO on SQLite), booleans (0/1 on SQLite), bytes, json, coordinates', () => {
  const sqlite = compileSchemaMapping({ fromSchema: true }, 'sqlite', true);
  expect(sqlite.toRow(rec(V))).toEqual({ kafka_topic: 't', kafka_partition: 0, kafka_offset: 9, id: '1152921504606846976', amount: '12.34',
    at: '2023-11-14T22:13:20.000Z', ok: 1, raw: Buffer.from([1]), note: null, to: '{"city":"Zürich"}' });
  const pg = compileSchemaMapping({ fromSchema: { flatten: '_' } }, 'postgres', false);
  expect(pg.toRow(rec(V))).toMatchObject({ at: new Date(1700000000000), ok: true, to_city: 'Zürich' });
  expect(pg.columnsOf(rec(V)).map((c) => [c.name, c.type, c.nullable])).toEqual([['id', 'bigint', false], ['amount', 'numeric', false],
    ['at', 'timestamp', false], ['ok', 'boolean', false], ['raw', 'bytes', false], ['note', 'string', true], ['to_city', 'string', false]]);
});

test('failures name the record, the column and the schema field: a missing required value, no value schema, a clash of names', () => {
  const m = compileSchemaMapping({ fromSchema: true }, 'sqlite', true);
  expect(() => m.toRow(rec({ ...V, id: null }))).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column: 'id',
    message: 't:0@9 column id: missing value for non-nullable column (schema field value.id)' }));
  expect(() => m.toRow({ ...rec(V), convertedValue: { schema: null, value: {} } })).toThrow(/the value has no schema/);
  const clash = compileAvro(JSON.stringify({ type: 'record', name: 'C', fields: [{ name: 'kafka_offset', type: 'long' }] }));
  const r: SinkRecord = { ...rec(V), convertedValue: { schema: clash.connect, value: { kafka_offset: 1 }, schemaId: 5 } };
  expect(() => m.toRow(r)).toThrow(
    /value.kafka_offset and the Kafka coordinates \(includeKafkaCoordinates\) would both be column kafka_offset/);
  expect(compileSchemaMapping({ fromSchema: true }, 'sqlite', false).toRow(r)).toEqual({ kafka_offset: 1 });
});

test('PostgreSQL cannot hold U+0000 in text or jsonb: refused as the record\'s fault at mapping (SQLite keeps it)', () => {
  const pg = compileSchemaMapping({ fromSchema: true }, 'postgres', false);
  expect(() => pg.toRow(rec({ ...V, note: 'a\u0000b' }))).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column: 'note',
    message: expect.stringMatching(/cannot hold the character U\+0000 \(schema field value.note\)/) }));
  expect(() => pg.toRow(rec({ ...V, to: { city: '\u0000' } }))).toThrow(expect.objectContaining({ column: 'to' }));
  expect(pg.toRow(rec({ ...V, note: 'a\\u0000b' })).note).toBe('a\\u0000b'); // a backslash and "u0000" are text like any other
  expect(compileSchemaMapping({ fromSchema: true }, 'sqlite', false).toRow(rec({ ...V, note: 'a\u0000b' })).note).toBe('a\u0000b');
});

test('headers as columns: text; a header whose bytes are not UTF-8 is refused naming it (declared mappings too), never stored as U+FFFD',
  () => {
  const m = compileSchemaMapping({ fromSchema: { headers: { trace: 'trace_id' } } }, 'sqlite', false);
  expect(m.toRow(rec(V, { trace: Buffer.from('t-1') })).trace_id).toBe('t-1');
  expect(m.toRow(rec(V)).trace_id).toBeNull();
  expect(() => m.toRow(rec(V, { trace: Buffer.from([0xc3, 0x28]) })))
    .toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column: 'trace_id',
    message: expect.stringMatching(/header trace is not UTF-8 text/) }));
  const declared = compileSinkMapping({ columns: { t: { type: 'string', path: '$headers.trace', nullable: true } } }, 'sqlite', false);
  expect(() => declared.toRow(rec(V, { trace: Buffer.from([0xff]) }))).toThrow(/header trace is not UTF-8 text/);
});

test('column sets are computed once per schema pair, and again for another schema', () => {
  const m = compileSchemaMapping({ fromSchema: true }, 'sqlite', false);
  const a = m.columnsOf(rec(V));
  expect(m.columnsOf(rec(V))).toBe(a);
  const other = compileAvro(JSON.stringify({ type: 'record', name: 'O', fields: [{ name: 'x', type: 'int' }] }));
  expect(m.columnsOf({ ...rec(V), convertedValue: { schema: other.connect, value: { x: 1 }, schemaId: 6 } })
    .map((c) => c.name)).toEqual(['x']);
});
