/**
 * Avro (avsc) as the avro converter reads it into Connect data: round trips, logical types, exact longs, unions,
 * schema resolution, and hostile bytes and schemas (each refused with an error, never a crash or a wrong value).
 */
import { compileAvro, decimalBytes, decimalString, MAX_EMPTY_ITEMS, MAX_SCHEMA_DEPTH } from '../../../src/consumer/converters/avro';

const rec = (fields: unknown[], name = 'R') => JSON.stringify({ type: 'record', name, namespace: 'ns', fields });
const roundTrip = (schema: string, value: unknown) => { const c = compileAvro(schema); return c.decode(c.encode(value), 0); };

test('primitives, records, arrays, maps, enums and fixed round-trip, with their Connect schema', () => {
  const schema = rec([
    { name: 'i', type: 'int' }, { name: 'l', type: 'long' }, { name: 'f', type: 'float' }, { name: 'd', type: 'double' },
    { name: 'b', type: 'boolean' }, { name: 's', type: 'string' }, { name: 'y', type: 'bytes' },
    { name: 'a', type: { type: 'array', items: 'int' } }, { name: 'm', type: { type: 'map', values: 'string' } },
    { name: 'e', type: { type: 'enum', name: 'Color', symbols: ['RED', 'GREEN'] } },
    { name: 'x', type: { type: 'fixed', name: 'Two', size: 2 } },
    { name: 'n', type: { type: 'record', name: 'Inner', fields: [{ name: 'v', type: 'int' }] } },
  ]);
  const c = compileAvro(schema);
  const value = { i: -7, l: 1234567890123, f: 1.5, d: 2.25, b: true, s: 'é', y: Buffer.from([1]), a: [1, 2], m: { k: 'v' }, e: 'GREEN',
    x: Buffer.from([3, 4]), n: { v: 9 } };
  expect(c.decode(c.encode(value), 0)).toEqual(value);
  expect(c.connect).toMatchObject({ type: 'struct', name: 'ns.R', optional: false });
  expect(c.connect.fields!.map((f) => [f.name, f.schema.type, f.schema.name])).toEqual([
    ['i', 'int32', undefined], ['l', 'int64', undefined], ['f', 'float32', undefined], ['d', 'float64', undefined],
    ['b', 'boolean', undefined],
    ['s', 'string', undefined], ['y', 'bytes', undefined], ['a', 'array', undefined], ['m', 'map', undefined], ['e', 'string', 'ns.Color'],
    ['x', 'bytes', 'ns.Two'], ['n', 'struct', 'ns.Inner']]);
});

/** Java's varint of a long (zigzag, 7 bits a byte): the bytes any other Avro writer produces. */
function javaLong(n: bigint): Buffer {
  let z = BigInt.asUintN(64, (n << 1n) ^ (n >> 63n));
  const out: number[] = [];
  do { let b = Number(z & 0x7fn); z >>= 7n; if (z) b |= 0x80; out.push(b); } while (z);
  return Buffer.from(out);
}

test('longs near ±2^53 are exact both ways (avsc alone reads Java\'s -(2^53 - 1) as +9007199254740990 and writes it wrong)', () => {
  const c = compileAvro(rec([{ name: 'n', type: 'long' }]));
  for (const n of [-(2n ** 53n) + 1n, -(2n ** 52n) - 1n, -(2n ** 52n), -4611686018427387905n, 2n ** 53n - 1n, 2n ** 52n + 1n, -12345n]) {
    const expected = n >= -(2n ** 53n) + 1n && n <= 2n ** 53n - 1n ? Number(n) : n;
    expect(c.decode(javaLong(n), 0)).toEqual({ n: expected });
    expect(c.encode({ n: expected })).toEqual(javaLong(n));
  }
  // The same under a logical type and inside a resolved field.
  const ts = compileAvro(rec([{ name: 't', type: { type: 'long', logicalType: 'timestamp-millis' } }]));
  expect(ts.decode(javaLong(-(2n ** 52n) - 3n), 0)).toEqual({ t: new Date(-(2 ** 52) - 3) });
  const reader = compileAvro(rec([{ name: 'n', type: 'long' }, { name: 'x', type: 'int', default: 1 }]));
  expect(c.decode(javaLong(-(2n ** 53n) + 1n), 0, reader)).toEqual({ n: -(2 ** 53) + 1, x: 1 });
});

test('long: a number while exact, a bigint beyond 2^53, both for the name "long" and the object {"type": "long"}', () => {
  for (const type of ['long', { type: 'long' }]) {
    const schema = rec([{ name: 'n', type }]);
    expect(roundTrip(schema, { n: 2 ** 53 - 1 })).toEqual({ n: 2 ** 53 - 1 });
    expect(roundTrip(schema, { n: 2n ** 62n })).toEqual({ n: 2n ** 62n });
    expect(roundTrip(schema, { n: 2n ** 63n - 1n })).toEqual({ n: 2n ** 63n - 1n });
    expect(roundTrip(schema, { n: -(2n ** 63n) })).toEqual({ n: -(2n ** 63n) });
    expect(roundTrip(schema, { n: -(2 ** 53) + 1 })).toEqual({ n: -(2 ** 53) + 1 });
  }
  // Inside arrays, maps and unions too (the exact path re-reads the whole record).
  const nested = rec([{ name: 'a', type: { type: 'array', items: 'long' } }, { name: 'u', type: ['null', 'long'] }]);
  expect(roundTrip(nested, { a: [1, 2n ** 60n], u: 2n ** 55n })).toEqual({ a: [1, 2n ** 60n], u: 2n ** 55n });
});

test('logical types as Confluent\'s AvroData reads them: decimal (bytes, fixed), date, timestamp-millis, time-millis; ' +
  'unknown ones as their type', () => {
  const schema = rec([
    { name: 'dec', type: { type: 'bytes', logicalType: 'decimal', precision: 9, scale: 2 } },
    { name: 'fix', type: { type: 'fixed', name: 'F', size: 4, logicalType: 'decimal', precision: 9, scale: 3 } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'tod', type: { type: 'int', logicalType: 'time-millis' } },
    { name: 'us', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'id', type: { type: 'string', logicalType: 'uuid' } },
  ]);
  const c = compileAvro(schema);
  const v = { dec: '-123.45', fix: '-1.005', day: new Date('2024-02-29T00:00:00Z'), at: new Date(1700000000123), tod: 3600000,
    us: 1700000000123456, id: '0f8fad5b-d9cb-469f-a165-70867728950e' };
  expect(c.decode(c.encode(v), 0)).toEqual(v);
  expect(Object.fromEntries(c.connect.fields!.map((f) => [f.name, [f.schema.type, f.schema.logical, f.schema.scale]]))).toEqual({
    dec: ['bytes', 'decimal', 2], fix: ['bytes', 'decimal', 3], day: ['int32', 'date', undefined], at: ['int64', 'timestamp', undefined],
    tod: ['int32', 'time', undefined], us: ['int64', undefined, undefined], id: ['string', undefined, undefined] });
});

test('decimals of large scale and precision stay exact; too many digits after the point are refused when encoding', () => {
  const schema = rec([{ name: 'x', type: { type: 'bytes', logicalType: 'decimal', precision: 80, scale: 60 } }]);
  const tiny = `-0.${'0'.repeat(59)}1`;
  const huge = `${'9'.repeat(20)}.${'1'.repeat(60)}`;
  expect(roundTrip(schema, { x: tiny })).toEqual({ x: tiny });
  expect(roundTrip(schema, { x: huge })).toEqual({ x: huge });
  expect(() => compileAvro(schema).encode({ x: `1.${'0'.repeat(60)}1` })).toThrow(/more than 60 digits after the point/);
  expect(decimalString(Buffer.from([0xff]), 0)).toBe('-1');
  expect(decimalString(Buffer.from([0x00, 0x80]), 1)).toBe('12.8');
  expect(decimalString(Buffer.alloc(0), 2)).toBe('0.00');
  expect([...decimalBytes('-1', 0)]).toEqual([0xff]);
  expect([...decimalBytes('128', 0)]).toEqual([0x00, 0x80]);
  expect(() => decimalBytes('1e5', 0)).toThrow(/not a decimal/);
});

test('a decimal with invalid attributes reads as its underlying type, as the Avro spec says (never a wrong number)', () => {
  const bytes = Buffer.from([0x04, 0x01, 0x00]); // bytes 0x0100 (256)
  for (const attrs of [{ precision: 4, scale: -2 }, { precision: 2, scale: 4 }, { precision: 0, scale: 0 }, { scale: 1 },
    { precision: 3.5, scale: 1 }]) {
    const c = compileAvro(JSON.stringify({ type: 'bytes', logicalType: 'decimal', ...attrs }));
    expect(c.connect).toEqual({ type: 'bytes', optional: false });
    expect(c.decode(bytes, 0)).toEqual(Buffer.from([1, 0]));
  }
  // A fixed of 2 bytes holds at most 4 decimal digits (2^15 - 1): precision 9 is invalid.
  const f = compileAvro(JSON.stringify({ type: 'fixed', name: 'F', size: 2, logicalType: 'decimal', precision: 9, scale: 2 }));
  expect(f.connect).toEqual({ type: 'bytes', optional: false, name: 'F' });
});

test('dates and timestamps outside a JavaScript Date\'s range do not decode (the record\'s fault), never an Invalid Date', () => {
  const logical = compileAvro(rec([{ name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'd', type: { type: 'int', logicalType: 'date' } }]));
  const plain = compileAvro(rec([{ name: 'at', type: 'long' }, { name: 'd', type: 'int' }]));
  expect(logical.decode(plain.encode({ at: 8.64e15, d: 100000000 }), 0)).toEqual({ at: new Date(8.64e15), d: new Date(8.64e15) });
  expect(() => logical.decode(plain.encode({ at: 8.64e15 + 1, d: 0 }), 0))
    .toThrow(/timestamp-millis 8640000000000001 is outside the range of a date/);
  expect(() => logical.decode(plain.encode({ at: 2n ** 62n, d: 0 }), 0))
    .toThrow(/timestamp-millis 4611686018427387904 is outside the range/);
  expect(() => logical.decode(plain.encode({ at: -(2 ** 53) + 1, d: 0 }), 0)).toThrow(/timestamp-millis -9007199254740991 is outside/);
  expect(() => logical.decode(plain.encode({ at: 0, d: -2147483648 }), 0)).toThrow(/date -2147483648 \(days\) is outside the range/);
});

test('unions: null and one type is that type, optional; several types are a Connect struct io.confluent.connect.avro.Union', () => {
  const c = compileAvro(rec([{ name: 'o', type: ['null', 'string'], default: null }, { name: 'u', type: ['null', 'int', 'string'] }]));
  expect(c.connect.fields![0]!.schema).toEqual({ type: 'string', optional: true });
  expect(c.connect.fields![1]!.schema).toMatchObject({ type: 'struct', optional: true, name: 'io.confluent.connect.avro.Union',
    fields: [{ name: 'int', schema: { type: 'int32', optional: true } }, { name: 'string', schema: { type: 'string', optional: true } }] });
  expect(c.decode(c.encode({ o: null, u: { string: 'x' } }), 0)).toEqual({ o: null, u: { string: 'x' } });
  expect(c.decode(c.encode({ o: 'y', u: null }), 0)).toEqual({ o: 'y', u: null });
});

test('schema resolution: a reader schema reads a writer\'s data (added field with default, removed field skipped)', () => {
  const writer = compileAvro(rec([{ name: 'a', type: 'int' }, { name: 'gone', type: { type: 'array', items: 'long' } }]));
  const reader = compileAvro(rec([{ name: 'a', type: 'long' }, { name: 'added', type: 'string', default: 'd' }]));
  expect(writer.decode(writer.encode({ a: 1, gone: [2n ** 60n] }), 0, reader)).toEqual({ a: 1, added: 'd' });
  const incompatible = compileAvro(rec([{ name: 'b', type: 'int' }]));
  expect(() => writer.resolve(incompatible)).toThrow();
  expect(() => writer.resolve(reader)).not.toThrow();
});

test('bytes that do not decode: truncated, trailing bytes, a bad union branch, a string longer than the record', () => {
  const c = compileAvro(rec([{ name: 's', type: 'string' }, { name: 'u', type: ['null', 'int'] }]));
  const ok = c.encode({ s: 'abc', u: 1 });
  expect(() => c.decode(ok.subarray(0, ok.length - 1), 0)).toThrow(/truncated Avro data/);
  expect(() => c.decode(Buffer.concat([ok, Buffer.from([0])]), 0)).toThrow(/1 bytes left after the Avro value/);
  expect(() => c.decode(Buffer.from([0x02, 0x61, 0x0a]), 0)).toThrow(/invalid union index/);
  expect(() => c.decode(Buffer.from([0xfe, 0xff, 0xff, 0xff, 0x0f]), 0)).toThrow(/truncated/);
  // Past the end avsc reads garbage; a logical type refusing it first must not hide that the bytes are short.
  const ts = compileAvro(rec([{ name: 's', type: 'string' }, { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } }]));
  expect(() => ts.decode(Buffer.from([0x02, 0x61]), 0)).toThrow(/^truncated Avro data$/);
});

test('a few bytes cannot make the decoder allocate or loop for billions of items (arrays, maps, skipped and resolved fields)', () => {
  const huge = Buffer.from([0xfe, 0xff, 0xff, 0xff, 0x0f]); // a block of 2^31 - 1 items
  const ints = compileAvro(JSON.stringify({ type: 'array', items: 'int' }));
  expect(() => ints.decode(Buffer.concat([huge, Buffer.from([2, 0])]), 0))
    .toThrow(/a block of 2147483647 items cannot fit in the 2 bytes left/);
  const nulls = compileAvro(JSON.stringify({ type: 'array', items: 'null' }));
  expect(() => nulls.decode(Buffer.concat([huge, Buffer.from([0])]), 0)).toThrow(new RegExp(`at most ${MAX_EMPTY_ITEMS}`));
  // Blocks that add up past the cap, each small.
  const blocks = Buffer.concat([...Array.from({ length: 17 }, () => Buffer.from([0x80, 0x80, 0x08])), Buffer.from([0])]); // 17 × 65536
  expect(() => nulls.decode(blocks, 0)).toThrow(/1114112 items that encode in zero bytes/);
  const empty = compileAvro(JSON.stringify({ type: 'array', items: { type: 'record', name: 'E', fields: [] } }));
  expect(() => empty.decode(Buffer.concat([huge, Buffer.from([0])]), 0)).toThrow(/zero bytes/);
  const map = compileAvro(JSON.stringify({ type: 'map', values: 'null' }));
  expect(() => map.decode(Buffer.concat([huge, Buffer.from([0])]), 0)).toThrow(/cannot fit/);
  expect(nulls.decode(Buffer.from([0x06, 0]), 0)).toEqual([null, null, null]);
  // A field the reader drops is skipped, and a field it keeps is resolved: both are bounded as well.
  const writer = compileAvro(rec([{ name: 'gone', type: { type: 'array', items: 'null' } }, { name: 'b', type: 'int' }]));
  const dropping = compileAvro(rec([{ name: 'b', type: 'int' }]));
  const keeping = compileAvro(rec([{ name: 'gone', type: { type: 'array', items: 'null' } }, { name: 'b', type: 'int' },
    { name: 'c', type: 'int', default: 0 }]));
  const bad = Buffer.concat([huge, Buffer.from([0, 2])]);
  expect(() => writer.decode(bad, 0, dropping)).toThrow(/zero bytes/);
  expect(() => writer.decode(bad, 0, keeping)).toThrow(/zero bytes/);
  expect(writer.decode(writer.encode({ gone: [null], b: 1 }), 0, keeping)).toEqual({ gone: [null], b: 1, c: 0 });
});

test('a map key "__proto__" is kept as a key, not taken as the object\'s prototype', () => {
  const c = compileAvro(JSON.stringify({ type: 'map', values: 'int' }));
  const v = c.decode(c.encode(JSON.parse('{"__proto__": 5, "a": 1}')), 0) as Record<string, unknown>;
  expect(Object.keys(v)).toEqual(['__proto__', 'a']);
  expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
});

test('schemas we cannot show as Connect data are SCHEMA_INVALID: recursive records, nesting deeper than the limit, not Avro', () => {
  expect(() => compileAvro(rec([{ name: 'next', type: ['null', 'ns.R'] }]))).toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID',
    message: expect.stringMatching(/recursive Avro record ns.R/) }));
  let deep: unknown = 'int';
  for (let i = 0; i <= MAX_SCHEMA_DEPTH; i++) deep = { type: 'array', items: deep };
  expect(() => compileAvro(JSON.stringify(deep)))
    .toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID', message: expect.stringMatching(/deeper than 256/) }));
  expect(() => compileAvro('{"type": "record"')).toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID' }));
  expect(() => compileAvro('{"type": "nope"}')).toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID' }));
});

test('named types of references are known to the schema that uses them', () => {
  const address = JSON.stringify({ type: 'record', name: 'Address', namespace: 'shop', fields: [{ name: 'city', type: 'string' }] });
  const order = JSON.stringify({ type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'to', type: 'shop.Address' }] });
  const c = compileAvro(order, [address]);
  expect(c.decode(c.encode({ to: { city: 'x' } }), 0)).toEqual({ to: { city: 'x' } });
  expect(() => compileAvro(order)).toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID' }));
});
