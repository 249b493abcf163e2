/** Columns from converted records' schemas (shared by the SQL and HDFS sinks), as Connect's JDBC sink derives a table. */
import type { RecordSchema, SinkRecord } from '../../src/records';
import { assertDistinctColumns, jsonOfData, kindOf, schemaColumns, schemaKey } from '../../src/sinks/schema-columns';

const f = (name: string, schema: Partial<RecordSchema> & { type: RecordSchema['type'] }) =>
  ({ name, schema: { optional: false, ...schema } as RecordSchema });
const VALUE: RecordSchema = { type: 'struct', optional: false, name: 'Order', fields: [
  f('id', { type: 'int64' }), f('amount', { type: 'bytes', logical: 'decimal', scale: 2 }),
  f('at', { type: 'int64', logical: 'timestamp' }),
  f('note', { type: 'string', optional: true }),
  f('to', { type: 'struct', optional: true, fields: [f('city', { type: 'string' }), f('geo', { type: 'struct',
    fields: [f('lat', { type: 'float64' })] })] }), f('tags', { type: 'array', items: { type: 'string', optional: false } }),
  f('u',
    { type: 'struct', name: 'io.confluent.connect.avro.Union', optional: true, fields: [f('int', { type: 'int32', optional: true })] }),
] };
const rec = (value: unknown, key?: { schema: RecordSchema; value: unknown }): SinkRecord =>
  ({ topic: 't', partition: 1, offset: 5n, key: null,
  value: Buffer.from('x'), timestamp: 0n, headers: { trace: Buffer.from('abc'), bin: Buffer.from([0xff, 0]) },
  convertedValue: { schema: VALUE, value, schemaId: 3 }, ...(key ? { convertedKey: key } : {}) });
const V = { id: 1, amount: '1.50', at: new Date(0), note: null, to: { city: 'x', geo: { lat: 1.5 } }, tags: ['a'], u: { int: 3 } };

test('value fields in schema order; a nested struct is one json column, or flattened with a separator (a Union struct never is)', () => {
  const nested = schemaColumns(rec(V));
  expect(nested.map((c) => [c.name, c.kind, c.nullable, c.source])).toEqual([
    ['id', 'bigint', false, 'value.id'], ['amount', 'numeric', false, 'value.amount'], ['at', 'timestamp', false, 'value.at'],
    ['note', 'string', true, 'value.note'], ['to', 'json', true, 'value.to'], ['tags', 'json', false, 'value.tags'],
    ['u', 'json', true, 'value.u']]);
  const flat = schemaColumns(rec(V), { flatten: '_' });
  expect(flat.map((c) => [c.name, c.nullable])).toEqual([['id', false], ['amount', false], ['at', false], ['note', true],
    ['to_city', true], ['to_geo_lat', true], ['tags', false], ['u', true]]); // fields of an optional struct are nullable
  expect(flat.find((c) => c.name === 'to_geo_lat')!.read(rec(V))).toBe(1.5);
  expect(flat.find((c) => c.name === 'to_city')!.read(rec({ ...V, to: null }))).toBeNull();
});

test('keys: a primitive key is one column (keyColumn), a struct key its fields (keyPrefix); headers as text columns', () => {
  const prim = schemaColumns(rec(V, { schema: { type: 'string', optional: false }, value: 'k1' }),
    { keyColumn: 'order_key', headers: { trace: 'trace_id' } });
  expect(prim.map((c) => c.name)).toEqual(['order_key', 'id', 'amount', 'at', 'note', 'to', 'tags', 'u', 'trace_id']);
  expect(prim[0]!.read(rec(V, { schema: { type: 'string', optional: false }, value: 'k1' }))).toBe('k1');
  expect(prim.at(-1)!.read(rec(V))).toBe('abc');
  const structKey =
    { schema: { type: 'struct', optional: false, fields: [f('region', { type: 'string' })] } as RecordSchema, value: { region: 'eu' } };
  expect(schemaColumns(rec(V, structKey), { keyPrefix: 'k_' })[0]).toMatchObject({ name: 'k_region', source: 'key.region' });
  expect(schemaColumns({ ...rec(V), convertedValue: { schema: null, value: null } })).toEqual([]);
});

test('columns sharing a name are refused naming both sources: key and value fields, flattened names, the sink\'s own columns', () => {
  const idKey = { schema: { type: 'struct', optional: false, fields: [f('id', { type: 'int64' })] } as RecordSchema, value: { id: 1 } };
  const r = rec(V, idKey);
  expect(() => assertDistinctColumns(schemaColumns(r), r)).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column: 'id',
    message: expect.stringMatching(/value.id and key.id would both be column id \(set keyPrefix\)/) }));
  expect(() => assertDistinctColumns(schemaColumns(r, { keyPrefix: 'key_' }), r)).not.toThrow();
  const clash: RecordSchema = { type: 'struct', optional: false,
    fields: [f('a_b', { type: 'int32' }), f('a', { type: 'struct', fields: [f('b', { type: 'int32' })] })] };
  const r2: SinkRecord = { ...rec(V), convertedValue: { schema: clash, value: { a_b: 1, a: { b: 2 } } } };
  expect(() => assertDistinctColumns(schemaColumns(r2, { flatten: '_' }), r2)).toThrow(/value.a.b and value.a_b would both be column a_b/);
  const coordinate: RecordSchema = { type: 'struct', optional: false, fields: [f('kafka_offset', { type: 'int64' })] };
  const r3: SinkRecord = { ...rec(V), convertedValue: { schema: coordinate, value: { kafka_offset: 1 } } };
  expect(() => assertDistinctColumns(schemaColumns(r3), r3, ['kafka_topic', 'kafka_offset'])).toThrow(/the Kafka coordinates/);
});

test('kinds of Connect types; JSON text of data: bigints exact, bytes base64, dates ISO; schema keys by id or shape', () => {
  expect(['int8', 'int32', 'int64', 'float32', 'boolean', 'string', 'bytes', 'array', 'map', 'struct']
    .map((type) => kindOf({ type, optional: false } as RecordSchema)))
    .toEqual(['integer', 'integer', 'bigint', 'float', 'boolean', 'string', 'bytes', 'json', 'json', 'json']);
  expect(kindOf({ type: 'string', optional: false, name: 'json' })).toBe('json');
  expect(kindOf({ type: 'int32', optional: false, logical: 'date' })).toBe('timestamp');
  expect(jsonOfData({ a: 2n ** 64n, b: 5n, c: Buffer.from([1, 2]), d: new Date(0) }))
    .toBe('{"a":"18446744073709551616","b":5,"c":"AQI=","d":"1970-01-01T00:00:00.000Z"}');
  expect(schemaKey(rec(V))).toBe('-|#3');
  expect(schemaKey({ ...rec(V), convertedValue: { schema: { type: 'string', optional: true }, value: 'x' } }))
    .toBe('-|{"type":"string","optional":true}');
});
