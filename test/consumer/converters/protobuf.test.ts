/** Protobuf (protobufjs) as the protobuf converter reads it into Connect data, as Confluent's ProtobufData does. */
import * as protobuf from 'protobufjs';
import { compileProtobuf } from '../../../src/consumer/converters/protobuf';

const ORDER = `syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
message Order {
  int64 id = 1; uint64 big = 2; google.protobuf.Timestamp at = 3; google.protobuf.StringValue note = 4;
  enum Status { NEW = 0; DONE = 1; }
  Status status = 5; repeated string tags = 6; map<string, int32> counts = 7;
  oneof pay { string card = 8; int32 cash = 9; }
  optional int32 maybe = 10; bytes raw = 11; Line line = 12;
  message Line { string sku = 1; }
  sint32 s = 13; fixed64 f = 14; double d = 15; float fl = 16; bool b = 17; uint32 u = 18;
}
message Other { string x = 1; }`;

const shape = (s: { fields?: { name: string; schema: { type: string; optional: boolean; logical?: string } }[] }) =>
  Object.fromEntries(s.fields!.map((f) =>
    [f.name, `${f.schema.type}${f.schema.optional ? '?' : ''}${f.schema.logical ? `/${f.schema.logical}` : ''}`]));

test('Connect schemas as ProtobufData builds them: int64/uint32/uint64 → int64, enum → string, messages optional, wrappers, Timestamp',
  () => {
  const order = compileProtobuf(ORDER).message([0]);
  expect(order.name).toBe('shop.Order');
  expect(shape(order.connect)).toEqual({
    id: 'int64', big: 'int64', at: 'int64?/timestamp', note: 'string?', status: 'string', tags: 'array', counts: 'map', card: 'string?',
    cash: 'int32?', maybe: 'int32?', raw: 'bytes', line: 'struct?', s: 'int32', f: 'int64', d: 'float64', fl: 'float32', b: 'boolean',
    u: 'int64',
  });
});

test('round trip: 64-bit integers exact (bigint beyond 2^53), Timestamp as a Date, absent fields as their default or null', () => {
  const order = compileProtobuf(ORDER).message([0]);
  const bytes = order.encode({ id: 2n ** 60n, big: 2n ** 64n - 1n, at: new Date(1700000000123), note: 'hi', status: 'DONE', tags: ['a'],
    counts: { a: 1 }, cash: 3, raw: Buffer.from([1, 2]), line: { sku: 'x' }, s: -5, f: 5, d: 1.5, fl: 0.5, b: true, u: 4294967295 });
  expect(order.decode(Buffer.concat([Buffer.alloc(3), bytes]), 3)).toEqual({
    id: 2n ** 60n, big: 2n ** 64n - 1n, at: new Date(1700000000123), note: 'hi', status: 'DONE', tags: ['a'], counts: { a: 1 }, card: null,
    cash: 3, maybe: null, raw: Buffer.from([1, 2]), line: { sku: 'x' }, s: -5, f: 5, d: 1.5, fl: 0.5, b: true, u: 4294967295,
  });
  expect(order.decode(Buffer.alloc(0), 0)).toEqual({
    id: 0, big: 0, at: null, note: null, status: 'NEW', tags: [], counts: {}, card: null, cash: null, maybe: null, raw: Buffer.alloc(0),
    line: null, s: 0, f: 0, d: 0, fl: 0, b: false, u: 0,
  });
});

test('message indexes name the message: [0] the first, [1] the second, [0, 0] the first nested; a bad path is the record\'s fault', () => {
  const file = compileProtobuf(ORDER);
  expect(file.firstMessage).toBe('shop.Order');
  expect(file.message([1]).name).toBe('shop.Other');
  expect(file.message([0, 0]).name).toBe('shop.Order.Line');
  expect(file.message([0, 0]).indexes).toEqual([0, 0]);
  for (const bad of [[2], [0, 1], [1, 0]]) {
    expect(() => file.message(bad))
      .toThrow(expect.objectContaining({ code: 'RECORD_CONVERSION_FAILED', message: expect.stringMatching(/name no message/) }));
  }
});

test('an enum number the schema does not name reads as Java names it (UNKNOWN_ENUM_VALUE_<Enum>_<n>), a string like the others', () => {
  const order = compileProtobuf(ORDER).message([0]);
  expect(order.decode(Buffer.from([0x28, 0x07]), 0).status).toBe('UNKNOWN_ENUM_VALUE_Status_7');
});

test('a Timestamp outside a Date\'s range does not decode (never an Invalid Date); bytes that are not the message do not decode', () => {
  const order = compileProtobuf(ORDER).message([0]);
  const ts =
    protobuf.Root.fromJSON((protobuf.common as unknown as { get(n: string): protobuf.INamespace }).get('google/protobuf/timestamp.proto'))
    .lookupType('google.protobuf.Timestamp');
  const far = Buffer.from(ts.encode(ts.fromObject({ seconds: '9000000000000', nanos: 0 })).finish());
  const field3 = Buffer.concat([Buffer.from([0x1a, far.length]), far]);
  expect(() => order.decode(field3, 0)).toThrow(/Timestamp field at \(9000000000000 s\) is outside the range of a date/);
  const near = Buffer.from(ts.encode(ts.fromObject({ seconds: '-8000000000000', nanos: 0 })).finish());
  expect(order.decode(Buffer.concat([Buffer.from([0x1a, near.length]), near]), 0).at).toEqual(new Date(-8e15));
  expect(() => order.decode(Buffer.from([0xff, 0xff, 0xff]), 0)).toThrow();
});

test('a field named __proto__ (protobufjs would drop its value) makes the schema SCHEMA_INVALID, not data lost silently', () => {
  expect(() => compileProtobuf('syntax = "proto3"; message M { In i = 1; message In { string __proto__ = 1; } }').message([0]))
    .toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID', message: expect.stringMatching(/field __proto__/) }));
});

test('imports: references by name, Google\'s well-known types without one; anything else, recursion and no message are SCHEMA_INVALID',
  () => {
  const refs = new Map([['dep.proto', 'syntax = "proto3"; package dep; message B { int32 x = 1; }']]);
  const a = compileProtobuf('syntax = "proto3"; import "dep.proto"; message A { dep.B b = 1; }', refs).message([0]);
  expect(a.connect.fields![0]!.schema).toMatchObject({ type: 'struct', optional: true, name: 'dep.B' });
  expect(a.decode(Buffer.from([0x0a, 0x02, 0x08, 0x07]), 0)).toEqual({ b: { x: 7 } });
  const invalid = (text: string) => expect(() => compileProtobuf(text)).toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID' }));
  invalid('syntax = "proto3"; import "other.proto"; message N { int32 a = 1; }');
  invalid('not proto at all');
  invalid('syntax = "proto3"; enum E { A = 0; }');
  expect(() => compileProtobuf('syntax = "proto3"; message N { N next = 1; }').message([0])).toThrow(/recursive Protobuf message/);
});

test('proto2: required and optional fields, defaults of absent fields', () => {
  const p = compileProtobuf('syntax = "proto2"; message P { optional int32 a = 1 [default = 7]; required string b = 2; }').message([0]);
  expect(p.decode(p.encode({ b: 'x' }), 0)).toEqual({ a: 7, b: 'x' });
  expect(p.connect.fields!.map((f) => f.schema.type)).toEqual(['int32', 'string']);
});
