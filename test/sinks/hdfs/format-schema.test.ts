/**
 * The HDFS formats shaped by records' schemas: Avro container files with the value only (as kafka-connect-hdfs's
 * AvroRecordWriterProvider writes them), CSV columns of the value, the Kafka coordinates the same way in every
 * format, and every record encoded when staged (a value that does not fit is its record's fault then, never at commit).
 */
import { Readable } from 'node:stream';
import * as avro from 'avsc';
import { compileAvro } from '../../../src/consumer/converters/avro';
import type { RecordSchema, SinkRecord } from '../../../src/records';
import { avroSchemaOf } from '../../../src/sinks/hdfs/format-schema';
import { Format, type Row } from '../../../src/sinks/hdfs/format';

const ORDER = JSON.stringify({ type: 'record', name: 'Order', namespace: 'shop', fields: [
  { name: 'id', type: 'long' }, { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 9, scale: 2 } },
  { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } }, { name: 'note', type: ['null', 'string'], default: null },
  { name: 'to', type: { type: 'record', name: 'Address', fields: [{ name: 'city', type: 'string' }] } }] });
const order = compileAvro(ORDER);

let offset = 0n;
function rec(value: unknown, schema: RecordSchema | null = order.connect, key?: unknown): SinkRecord {
  const r: SinkRecord = { topic: 'orders', partition: 2, offset: offset++, key: null, value: value === null ? null : Buffer.from('x'),
    timestamp: 1700000000000n + offset, headers: {}, convertedValue: { schema: value === null ? null : schema, value, schemaId: 1 } };
  if (key !== undefined) r.convertedKey = {
    schema: { type: 'struct', optional: false, fields: [{ name: 'k', schema: { type: 'string', optional: false } }] }, value: key,
  };
  return r;
}
const v = (id: number, note: string | null = null) =>
  ({ id, amount: '12.34', at: new Date(1700000000000 + id), note, to: { city: `c${id}` } });

/** Reads an Avro container file with avsc's own block decoder: its writer schema and records. */
async function readAvro(file: Buffer): Promise<{ schema: avro.Schema; records: unknown[] }> {
  const decoder = new avro.streams.BlockDecoder({ parseHook: (s: avro.Schema) => avro.Type.forSchema(s, { wrapUnions: 'auto' }) });
  let schema: avro.Schema | undefined;
  decoder.on('metadata', (type: avro.Type) => { schema = type.schema(); });
  const records: unknown[] = [];
  await new Promise<void>((resolve, reject) => {
    Readable.from([file]).pipe(decoder).on('data', (x: unknown) => records.push(x)).on('end', resolve).on('error', reject);
  });
  return { schema: schema!, records };
}

test('avro: the value only, with its registry schema back (names, logical types, optional fields); tombstones left out; '
  + 'deflate', async () => {
  for (const codec of ['null', 'deflate'] as const) {
    const f = new Format({ type: 'avro', codec }, false);
    const rows = [rec(v(1), order.connect, 'k'), rec(null), rec(v(2, 'n'))].map((r) => f.toRow(r));
    const { schema, records } = await readAvro(f.encode(rows));
    expect((schema as { name: string }).name).toBe('shop.Order');
    expect((schema as { fields: { name: string }[] }).fields.map((x) => x.name)).toEqual(['id', 'amount', 'at', 'note', 'to']);
    expect(records.map((x) => JSON.parse(JSON.stringify(x)))).toEqual([
      { id: 1, amount: expect.anything(), at: 1700000000001, note: null, to: { city: 'c1' } },
      { id: 2, amount: expect.anything(), at: 1700000000002, note: 'n', to: { city: 'c2' } }]);
  }
});

test('avro: a primitive value is written as itself, as Connect unwraps NonRecordContainer', async () => {
  const f = new Format({ type: 'avro' }, false);
  const { schema, records } = await readAvro(f.encode([f.toRow(rec('hello', { type: 'string', optional: false }))]));
  expect(schema).toBe('string');
  expect(records).toEqual(['hello']);
});

test('includeKafkaCoordinates: the same four in every format, before the value\'s fields; a primitive is nested under value', async () => {
  const r1 = rec(v(7));
  const a = new Format({ type: 'avro' }, true);
  const file = await readAvro(a.encode([a.toRow(r1)]));
  expect((file.schema as { fields: { name: string }[] }).fields.map((x) => x.name)).toEqual([
    '_topic', '_partition', '_offset', '_timestamp',
    'id', 'amount', 'at', 'note', 'to']);
  expect(file.records[0]).toMatchObject({
    _topic: 'orders', _partition: 2, _offset: Number(r1.offset), _timestamp: Number(r1.timestamp), id: 7,
  });
  const p = await readAvro(a.encode([a.toRow(rec(5, { type: 'int32', optional: false }))]));
  expect((p.schema as { name: string }).name).toBe('KafkaRecord');
  expect(p.records[0]).toMatchObject({ _topic: 'orders', _partition: 2, value: 5 });
  const csv = new Format({ type: 'csv' }, true);
  const r2 = rec(v(8), order.connect, 'key');
  const lines = csv.encode([csv.toRow(r2)]).toString().split('\r\n');
  expect(lines[0]).toBe('_topic,_partition,_offset,_timestamp,id,amount,at,note,to_city'); // no key columns: the value only
  expect(lines[1]).toBe(
    `orders,2,${r2.offset},${new Date(Number(r2.timestamp)).toISOString()},8,12.34,${new Date(1700000000008).toISOString()},,c8`);
  const plain = new Format({ type: 'csv' }, false);
  expect(plain.encode([plain.toRow(rec(v(9)))]).toString().split('\r\n')[0]).toBe('id,amount,at,note,to_city');
});

test('a value field named like a coordinate is refused at staging when the coordinates are on, naming the field', () => {
  const schema: RecordSchema = {
    type: 'struct', optional: false, fields: [{ name: '_offset', schema: { type: 'int64', optional: false } }],
  };
  for (const type of ['avro', 'csv', 'parquet'] as const) {
    expect(() => new Format({ type }, true).toRow(rec({ _offset: 1 }, schema)))
      .toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column: '_offset' }));
    expect(() => new Format({ type }, false).toRow(rec({ _offset: 1 }, schema))).not.toThrow();
  }
});

test('a value that does not fit its schema (JSON Schema without validation: 1.5 for an integer) is refused when staged, '
  + 'not at commit', () => {
  const schema: RecordSchema = { type: 'struct', optional: false, fields: [{ name: 'n', schema: { type: 'int64', optional: false } }] };
  for (const type of ['avro', 'csv', 'parquet'] as const) {
    const f = new Format({ type }, false);
    const rows: Row[] = [f.toRow(rec({ n: 1 }, schema))];
    expect(() => f.toRow(rec({ n: 1.5 }, schema))).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED' }));
    expect(() => f.encode(rows)).not.toThrow();
  }
  // A record without a value schema is refused at staging too.
  expect(() => new Format({ type: 'avro' }, false).toRow(rec({ a: 1 }, null))).toThrow(/the value has no schema/);
});

test('avroSchemaOf: Connect schemas back to Avro (AvroData.fromConnectSchema): optional as ["null", T], unions, logical types, '
  + 'names', () => {
  const s: RecordSchema = { type: 'struct', optional: false, name: 'a.B', fields: [
    { name: 'i8', schema: { type: 'int8', optional: false } }, { name: 'f', schema: { type: 'float32', optional: true } },
    { name: 'd', schema: { type: 'bytes', optional: false, logical: 'decimal', scale: 3 } },
    { name: 'day', schema: { type: 'int32', optional: false, logical: 'date' } },
    { name: 't', schema: { type: 'int32', optional: false, logical: 'time' } },
    { name: 'arr', schema: { type: 'array', optional: false, items: { type: 'string', optional: true } } },
    { name: 'u', schema: { type: 'struct', optional: true, name: 'io.confluent.connect.avro.Union', fields: [
      { name: 'int', schema: { type: 'int32', optional: true } }, { name: 'string', schema: { type: 'string', optional: true } }] } },
    { name: 'anon', schema: { type: 'struct', optional: false, fields: [{ name: 'x', schema: { type: 'boolean', optional: false } }] } },
  ] };
  expect(avroSchemaOf(s)).toEqual({ type: 'record', name: 'B', namespace: 'a', fields: [
    { name: 'i8', type: 'int' }, { name: 'f', type: ['null', 'float'], default: null },
    { name: 'd', type: { type: 'bytes', logicalType: 'decimal', precision: 38, scale: 3 } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } }, { name: 't', type: { type: 'int', logicalType: 'time-millis' } },
    { name: 'arr', type: { type: 'array', items: ['null', 'string'] } }, { name: 'u', type: ['null', 'int', 'string'], default: null },
    { name: 'anon', type: { type: 'record', name: 'ConnectDefault1', fields: [{ name: 'x', type: 'boolean' }] } }] });
  // What Avro gives, Avro gets back.
  expect(compileAvro(JSON.stringify(avroSchemaOf(order.connect))).connect).toEqual(order.connect);
});
