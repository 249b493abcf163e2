/** Kafka Connect's JsonConverter envelope (schemas.enable=true): schemas in Connect's JSON spelling and payloads read against them. */
import { connectSchemaFromJson, connectValue, MAX_DEPTH } from '../../../src/consumer/converters/connect-json';

const DECIMAL = 'org.apache.kafka.connect.data.Decimal';

test('schemas: struct fields, arrays, maps (values), optional, names and the logical types Decimal, Date, Time, Timestamp', () => {
  const s = connectSchemaFromJson({ type: 'struct', name: 'Order', fields: [
    { field: 'id', type: 'int64' }, { field: 'tags', type: 'array', items: { type: 'string' }, optional: true },
    { field: 'm', type: 'map', keys: { type: 'string' }, values: { type: 'int32' } },
    { field: 'amount', type: 'bytes', name: DECIMAL, parameters: { scale: '2' } },
    { field: 'day', type: 'int32', name: 'org.apache.kafka.connect.data.Date' },
    { field: 'tod', type: 'int32', name: 'org.apache.kafka.connect.data.Time' },
    { field: 'at', type: 'int64', name: 'org.apache.kafka.connect.data.Timestamp', optional: true },
  ] });
  expect(s).toMatchObject({ type: 'struct', name: 'Order', optional: false });
  expect(s.fields!.map((f) => [f.name, f.schema.type, f.schema.optional, f.schema.logical, f.schema.scale])).toEqual([
    ['id', 'int64', false, undefined, undefined], ['tags', 'array', true, undefined, undefined], ['m', 'map', false, undefined, undefined],
    ['amount', 'bytes', false, 'decimal', 2], ['day', 'int32', false, 'date', undefined], ['tod', 'int32', false, 'time', undefined],
    ['at', 'int64', true, 'timestamp', undefined]]);
  expect(connectValue(s, { id: 9, tags: null, m: { a: 1 }, amount: Buffer.from([0x30, 0x39]).toString('base64'), day: 19782, tod: 1000,
    at: 1700000000123 })).toEqual({ id: 9, tags: null, m: { a: 1 }, amount: '123.45', day: new Date('2024-02-29T00:00:00Z'), tod: 1000,
    at: new Date(1700000000123) });
});

test('payloads that do not fit: wrong types, null for a required field, integers out of their type\'s range, dates out of a Date\'s',
  () => {
  const t = (type: string, extra: Record<string, unknown> = {}) => connectSchemaFromJson({ type, ...extra });
  expect(() => connectValue(t('int32'), 1.5)).toThrow('payload: expected an integer, got 1.5');
  expect(() => connectValue(t('int8'), 128)).toThrow('expected an int8 (-128 to 127), got 128');
  expect(connectValue(t('int8'), -128)).toBe(-128);
  expect(() => connectValue(t('int16'), 40000)).toThrow(/int16/);
  expect(() => connectValue(t('int32'), 2 ** 31)).toThrow(/int32/);
  expect(connectValue(t('int64'), 2 ** 40)).toBe(2 ** 40);
  expect(() => connectValue(t('string'), null)).toThrow('payload is null but its schema is not optional');
  expect(() => connectValue(t('boolean'), 'true')).toThrow(/expected a boolean/);
  expect(() => connectValue(t('float64'), 'NaN')).toThrow(/expected a number/);
  expect(() => connectValue(t('int64', { name: 'org.apache.kafka.connect.data.Timestamp' }), 1e17)).toThrow(/within a date's range/);
  expect(() => connectValue(t('int32', { name: 'org.apache.kafka.connect.data.Date' }), 2e8)).toThrow(/within a date's range/);
  expect(() => connectValue(connectSchemaFromJson({ type: 'struct', fields: [{ field: 'a', type: 'array', items: { type: 'int32' } }] }),
    { a: [1, 'x'] })).toThrow('payload.a[1]: expected an integer');
});

test('schemas that are not Connect schemas are refused, naming where: unknown types, missing fields or values, bad scale, depth', () => {
  expect(() => connectSchemaFromJson({ type: 'uuid' })).toThrow('schema.type "uuid" is not a Connect schema type');
  expect(() => connectSchemaFromJson({ type: 'struct' })).toThrow('schema.fields is missing');
  expect(() => connectSchemaFromJson({ type: 'struct', fields: [{ type: 'int32' }] })).toThrow('schema.fields[0].field is missing');
  expect(() => connectSchemaFromJson({ type: 'map', keys: { type: 'string' } })).toThrow('schema.values is not an object');
  expect(() => connectSchemaFromJson({ type: 'bytes', name: DECIMAL, parameters: { scale: 'two' } })).toThrow(/scale is not an integer/);
  let deep: unknown = { type: 'string' };
  for (let i = 0; i <= MAX_DEPTH; i++) deep = { type: 'array', items: deep };
  expect(() => connectSchemaFromJson(deep)).toThrow(/deeper than 256/);
});

test('a struct field or map key named __proto__ stays data; a field absent from the payload is null, never read from the prototype', () => {
  const s = connectSchemaFromJson({
    type: 'struct', fields: [{ field: '__proto__', type: 'string' }, { field: 'toString', type: 'string', optional: true },
    { field: 'm', type: 'map', values: { type: 'int32' } }] });
  const v = connectValue(s, JSON.parse('{"__proto__": "x", "m": {"__proto__": 1}}')) as Record<string, unknown>;
  expect(Object.getOwnPropertyDescriptor(v, '__proto__')?.value).toBe('x');
  expect(v.toString).toBeNull();
  expect(Object.keys(v.m as object)).toEqual(['__proto__']);
});
