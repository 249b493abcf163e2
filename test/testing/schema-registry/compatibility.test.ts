/**
 * Compatibility as Confluent's registry decides it, per schema type and level, on cases of Confluent's documentation
 * ("Schema Evolution and Compatibility": what each level allows, and the transitive forms), in our own schemas.
 */
import { canonicalSchema, type CompatibilityLevel, incompatibilities, type SchemaInput,
  storedText } from '../../../src/testing/schema-registry/compatibility';
import { jsonSchemaDifferences } from '../../../src/testing/schema-registry/json-schema-compat';
import { protobufDifferences } from '../../../src/testing/schema-registry/protobuf-compat';

const avro = (fields: unknown[]): SchemaInput =>
  ({ schemaType: 'AVRO', references: [], schema: JSON.stringify({ type: 'record', name: 'Order', fields }) });
const json = (doc: unknown): SchemaInput => ({ schemaType: 'JSON', references: [], schema: JSON.stringify(doc) });
const proto = (body: string, pkg = 'shop'): SchemaInput =>
  ({ schemaType: 'PROTOBUF', references: [], schema: `syntax = "proto3";\npackage ${pkg};\n${body}` });

/** Whether `next` may follow `history` (oldest first) under `level`. */
const ok = (level: CompatibilityLevel, next: SchemaInput, ...history: SchemaInput[]) =>
  incompatibilities(level, next, history.map((schema, i) => ({ version: i + 1, schema }))).length === 0;

const ID = { name: 'id', type: 'long' };
const NOTE_OPT = { name: 'note', type: ['null', 'string'], default: null };
const NOTE_REQ = { name: 'note', type: 'string' };

describe('Avro (Avro schema resolution, as AvroCompatibilityChecker)', () => {
  test('BACKWARD: delete fields and add fields with defaults; a new field without a default is refused', () => {
    expect(ok('BACKWARD', avro([ID]), avro([ID, NOTE_REQ]))).toBe(true);
    expect(ok('BACKWARD', avro([ID, NOTE_OPT]), avro([ID]))).toBe(true);
    expect(ok('BACKWARD', avro([ID, NOTE_REQ]), avro([ID]))).toBe(false);
    expect(ok('BACKWARD', avro([{ name: 'id', type: 'long' }]), avro([{ name: 'id', type: 'int' }]))).toBe(true); // int promotes to long
    expect(ok('BACKWARD', avro([{ name: 'id', type: 'int' }]), avro([{ name: 'id', type: 'long' }]))).toBe(false);
  });

  test('FORWARD: add fields and delete fields with defaults; deleting a field without a default is refused', () => {
    expect(ok('FORWARD', avro([ID, NOTE_REQ]), avro([ID]))).toBe(true);
    expect(ok('FORWARD', avro([ID]), avro([ID, NOTE_OPT]))).toBe(true);
    expect(ok('FORWARD', avro([ID]), avro([ID, NOTE_REQ]))).toBe(false);
  });

  test('FULL: only fields with defaults come and go; NONE: anything', () => {
    expect(ok('FULL', avro([ID, NOTE_OPT]), avro([ID]))).toBe(true);
    expect(ok('FULL', avro([ID]), avro([ID, NOTE_OPT]))).toBe(true);
    expect(ok('FULL', avro([ID, NOTE_REQ]), avro([ID]))).toBe(false);
    expect(ok('FULL', avro([ID]), avro([ID, NOTE_REQ]))).toBe(false);
    expect(ok('NONE', avro([{ name: 'x', type: 'boolean' }]), avro([ID]))).toBe(true);
  });

  test('TRANSITIVE forms check every earlier version, the plain forms only the last', () => {
    // v1 {id}, v2 {id, note with a default}, v3 {id, note without one}: v3 reads v2's data, not v1's.
    const history = [avro([ID]), avro([ID, { ...NOTE_REQ, default: 'n/a' }])];
    expect(ok('BACKWARD', avro([ID, NOTE_REQ]), ...history)).toBe(true);
    expect(ok('BACKWARD_TRANSITIVE', avro([ID, NOTE_REQ]), ...history)).toBe(false);
    // v1 {id, note}, v2 {id, note with a default}, v3 {id}: v2 reads v3's data, v1 does not.
    const forward = [avro([ID, NOTE_REQ]), avro([ID, { ...NOTE_REQ, default: 'n/a' }])];
    expect(ok('FORWARD', avro([ID]), ...forward)).toBe(true);
    expect(ok('FORWARD_TRANSITIVE', avro([ID]), ...forward)).toBe(false);
    expect(ok('FULL_TRANSITIVE', avro([ID]), ...forward)).toBe(false);
  });

  test('the reasons name the direction and the version', () => {
    const why = incompatibilities('FULL', avro([ID, NOTE_REQ]), [{ version: 7, schema: avro([ID]) }]);
    expect(why).toEqual([expect.objectContaining({ errorType: 'READER_CANNOT_READ_WRITER', oldVersion: 7 })]);
    expect(incompatibilities('FORWARD', avro([ID]), [{ version: 2, schema: avro([ID, NOTE_REQ]) }]))
      .toEqual([expect.objectContaining({ errorType: 'WRITER_CANNOT_BE_READ', oldVersion: 2 })]);
  });
});

describe('JSON Schema (Confluent\'s content models, strict)', () => {
  const open = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    json({ type: 'object', properties: props, ...extra });
  const closed = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    json({ type: 'object', properties: props, additionalProperties: false, ...extra });
  const S = { type: 'string' };
  const I = { type: 'integer' };

  test('open content model: adding a property breaks BACKWARD (old data may hold anything under that name), removing is fine', () => {
    expect(ok('BACKWARD', open({ a: S, b: I }), open({ a: S }))).toBe(false);
    expect(ok('BACKWARD', open({ a: S }), open({ a: S, b: I }))).toBe(true);
    expect(ok('BACKWARD', open({ a: S, b: {} }), open({ a: S }))).toBe(true); // an empty schema accepts anything
  });

  test('closed content model: adding an optional property is fine, a required one without a default is not; removing breaks it', () => {
    expect(ok('BACKWARD', closed({ a: S, b: I }), closed({ a: S }))).toBe(true);
    expect(ok('BACKWARD', closed({ a: S, b: I }, { required: ['b'] }), closed({ a: S }))).toBe(false);
    expect(ok('BACKWARD', closed({ a: S, b: { ...I, default: 0 } }, { required: ['b'] }), closed({ a: S }))).toBe(true);
    expect(ok('BACKWARD', closed({ a: S }), closed({ a: S, b: I }))).toBe(false);
    expect(ok('FORWARD', closed({ a: S }), closed({ a: S, b: I }))).toBe(true); // forward: the other way round
  });

  test('partially open content model: a property added or removed must agree with the patternProperties or additionalProperties schema',
    () => {
    const partial = (props: Record<string, unknown>) =>
      json({ type: 'object', properties: props, patternProperties: { '^n_': I }, additionalProperties: false });
    expect(ok('BACKWARD', partial({ a: S, n_count: I }), partial({ a: S }))).toBe(true);
    expect(ok('BACKWARD', partial({ a: S, n_count: S }), partial({ a: S }))).toBe(false);
    expect(ok('BACKWARD', partial({ a: S }), partial({ a: S, n_count: I }))).toBe(true);
  });

  test('types, bounds, required, enums, unions and combinations', () => {
    expect(ok('BACKWARD', json(S), json(I))).toBe(false);
    expect(ok('BACKWARD', json({ type: 'number' }), json(I))).toBe(true);
    expect(ok('BACKWARD', json(I), json({ type: 'number' }))).toBe(false);
    expect(ok('BACKWARD', json({ ...S, maxLength: 10 }), json({ ...S, maxLength: 5 }))).toBe(true);
    expect(ok('BACKWARD', json({ ...S, maxLength: 5 }), json({ ...S, maxLength: 10 }))).toBe(false);
    expect(ok('BACKWARD', json({ ...S, pattern: '^a' }), json(S))).toBe(false);
    expect(ok('BACKWARD', open({ a: S }, { required: [] }), open({ a: S }, { required: ['a'] }))).toBe(true);
    expect(ok('BACKWARD', open({ a: S }, { required: ['a'] }), open({ a: S }))).toBe(false);
    expect(ok('BACKWARD', json({ enum: ['a', 'b'] }), json({ enum: ['a'] }))).toBe(true);
    expect(ok('BACKWARD', json({ enum: ['a'] }), json({ enum: ['a', 'b'] }))).toBe(false);
    expect(ok('BACKWARD', json({ type: ['string', 'null'] }), json(S))).toBe(true);
    expect(ok('BACKWARD', json(S), json({ type: ['string', 'null'] }))).toBe(false);
    expect(ok('BACKWARD', json({ oneOf: [S, I] }), json(S))).toBe(true);
    expect(ok('BACKWARD', json({ allOf: [S] }), json({ allOf: [S, { maxLength: 3 }] }))).toBe(true);
    expect(ok('BACKWARD', json({ anyOf: [S, I] }), json({ oneOf: [S, I] }))).toBe(true);
    expect(ok('BACKWARD', json({ oneOf: [S, I] }), json({ anyOf: [S, I] }))).toBe(false);
    expect(ok('BACKWARD', json({ type: 'array', items: I }), json({ type: 'array', items: S }))).toBe(false);
    expect(ok('BACKWARD', json({ type: 'array', items: S, uniqueItems: true }), json({ type: 'array', items: S }))).toBe(false);
  });

  test('$refs are followed (local and to references); a recursive schema is compared without looping', () => {
    const ref = json({ type: 'object', properties: { a: { $ref: '#/definitions/A' } }, definitions: { A: S } });
    expect(ok('FULL', ref, open({ a: S }))).toBe(true);
    const tree = (t: string) => ({ type: 'object', properties: { v: { type: t }, kids: { type: 'array', items: { $ref: '#' } } } });
    expect(jsonSchemaDifferences(tree('string'), tree('string'))).toEqual([]);
    expect(jsonSchemaDifferences(tree('string'), tree('integer')).map((d) => d.type)).toContain('TYPE_CHANGED');
    const withRef: SchemaInput = { schemaType: 'JSON', schema: JSON.stringify({ $ref: 'addr.json' }),
      references: [{ name: 'addr.json', schema: JSON.stringify({ type: 'object', properties: { c: S } }) }] };
    expect(ok('FULL', withRef, open({ c: S }))).toBe(true);
    expect(ok('BACKWARD', withRef, open({ c: I }))).toBe(false);
  });

  test('the differences are Confluent\'s types and paths', () => {
    expect(jsonSchemaDifferences({ type: 'object', properties: { a: S } }, { type: 'object', properties: { a: S, b: I } }))
      .toEqual([{ type: 'OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL', path: '#/properties/b' }]);
    expect(jsonSchemaDifferences({ allOf: [S, { enum: ['red'] }] }, { allOf: [{ enum: ['red', 'blue'] }, S] }))
      .toEqual([{ type: 'ENUM_ARRAY_EXTENDED', path: '#/allOf/1/enum' }]);
  });
});

describe('Protobuf (Confluent\'s rules, fields matched by number)', () => {
  const ORDER = 'message Order {\n  int64 id = 1;\n  string note = 2;\n}\n';

  test('compatible both ways: adding or removing a field, renaming one, a wire-compatible type; a message may be added, not removed',
    () => {
    for (const level of ['BACKWARD', 'FORWARD', 'FULL'] as const) {
      expect(ok(level, proto('message Order { int64 id = 1; string note = 2; bool paid = 3; }'), proto(ORDER))).toBe(true);
      expect(ok(level, proto('message Order { int64 id = 1; }'), proto(ORDER))).toBe(true);
      expect(ok(level, proto('message Order { int64 id = 1; string remark = 2; }'), proto(ORDER))).toBe(true);
      expect(ok(level, proto('message Order { int32 id = 1; bytes note = 2; }'), proto(ORDER))).toBe(true);
    }
    // A new message: BACKWARD; FORWARD reads the other way round, where the message is removed.
    const more = proto(`${ORDER}message Line { string sku = 1; }\nenum E { A = 0; }`);
    expect(ok('BACKWARD', more, proto(ORDER))).toBe(true);
    expect(ok('FORWARD', more, proto(ORDER))).toBe(false);
    expect(ok('BACKWARD', proto(ORDER), more)).toBe(false);
    expect(ok('FORWARD', proto(ORDER), more)).toBe(true);
  });

  test('incompatible: another kind or group of type, a message removed, the package changed, a required field, fields into one oneof',
    () => {
    expect(ok('BACKWARD', proto('message Order { string id = 1; string note = 2; }'), proto(ORDER))).toBe(false);
    expect(ok('BACKWARD', proto('message Order { sint64 id = 1; string note = 2; }'), proto(ORDER))).toBe(false);
    expect(ok('BACKWARD', proto('message Order { Line id = 1; string note = 2; } message Line {}'), proto(ORDER))).toBe(false);
    expect(ok('BACKWARD', proto('message Other { int64 id = 1; }'), proto(ORDER))).toBe(false);
    expect(ok('BACKWARD', proto(ORDER, 'store'), proto(ORDER))).toBe(false);
    expect(ok('BACKWARD', proto('message Order { oneof o { int64 id = 1; string note = 2; } }'), proto(ORDER))).toBe(false);
    expect(ok('BACKWARD', proto('message Order { int64 id = 1; oneof o { string note = 2; } }'), proto(ORDER))).toBe(true);
    const p2 = (body: string): SchemaInput => ({ schemaType: 'PROTOBUF', references: [], schema: `syntax = "proto2";\n${body}` });
    expect(ok('BACKWARD', p2('message M { optional int32 a = 1; required int32 b = 2; }'), p2('message M { optional int32 a = 1; }')))
      .toBe(false);
    expect(ok('BACKWARD', p2('message M { repeated int32 a = 1; }'), p2('message M { optional int32 a = 1; }'))).toBe(false);
    expect(ok('BACKWARD', p2('message M { repeated string a = 1; }'), p2('message M { optional string a = 1; }'))).toBe(true);
  });

  test('a referenced message is compared through the field that uses it', () => {
    const ref = (x: string): SchemaInput =>
      ({ schemaType: 'PROTOBUF', schema: 'syntax = "proto3"; import "addr.proto"; message O { geo.Addr a = 1; }',
      references: [{ name: 'addr.proto', schema: `syntax = "proto3"; package geo; message Addr { ${x} city = 1; }` }] });
    expect(ok('BACKWARD', ref('string'), ref('string'))).toBe(true);
    expect(ok('BACKWARD', ref('int32'), ref('string'))).toBe(false);
    expect(protobufDifferences(ref('string'), ref('int32')).map((d) => `${d.type} ${d.path}`))
      .toEqual(['FIELD_SCALAR_KIND_CHANGED #/Addr/1', 'FIELD_NAMED_TYPE_CHANGED #/O/1']);
  });

  test('schemas of another type are incompatible (Confluent compares within one type)', () => {
    expect(incompatibilities('BACKWARD', proto(ORDER), [{ version: 1, schema: json({ type: 'object' }) }]))
      .toEqual([expect.objectContaining({
        errorType: 'SCHEMA_TYPE_CHANGED', description: expect.stringMatching(/different schema type/) })]);
    expect(ok('NONE', proto(ORDER), json({ type: 'object' }))).toBe(true);
  });
});

test('canonical forms: Avro whitespace and key order do not matter; a base64 Protobuf descriptor is stored as .proto text', () => {
  expect(canonicalSchema({ schemaType: 'AVRO', references: [], schema: '{"name":"R","type":"record","fields":[]}' }))
    .toBe(canonicalSchema({ schemaType: 'AVRO', references: [], schema: '{ "type": "record", "name": "R", "fields": [ ] }' }));
  const text = 'syntax = "proto3";\nmessage M { int32 a = 1; }';
  expect(storedText({ schemaType: 'PROTOBUF', references: [], schema: text })).toBe(text);
  // FileDescriptorProto { name: "m.proto", message_type: [{ name: "M", field: [{ name: "a", number: 1, label: OPTIONAL, type: INT32 }] }],
  // syntax: "proto3" }, as Python's ProtobufSerializer sends it.
  const descriptor = Buffer.from('0a076d2e70726f746f22110a014d120c0a0161180120012805520161620670726f746f33', 'hex').toString('base64');
  expect(storedText({ schemaType: 'PROTOBUF', references: [], schema: descriptor }))
    .toBe('syntax = "proto3";\n\nmessage M {\n  int32 a = 1;\n}\n');
});

test('Avro logical types are part of a schema: a decimal and plain bytes are two schemas (two ids), resolution by the underlying types',
  () => {
  const dec = avro([{ name: 'a', type: { type: 'bytes', logicalType: 'decimal', precision: 9, scale: 2 } }]);
  const bytes = avro([{ name: 'a', type: 'bytes' }]);
  expect(canonicalSchema(dec)).not.toBe(canonicalSchema(bytes));
  expect(canonicalSchema(dec)).toContain('"logicalType":"decimal","precision":9,"scale":2');
  expect(canonicalSchema(avro([{ name: 'a', type: { scale: 2, precision: 9, logicalType: 'decimal', type: 'bytes' } }])))
    .toBe(canonicalSchema(dec));
  expect(ok('FULL', dec, bytes)).toBe(true);
  expect(ok('BACKWARD', avro([{ name: 'a', type: { type: 'long', logicalType: 'timestamp-millis' } }]),
    avro([{ name: 'a', type: 'int' }]))).toBe(true);
  expect(ok('BACKWARD', avro([{ name: 'a', type: { type: 'int', logicalType: 'date' } }]), avro([{ name: 'a', type: 'string' }])))
    .toBe(false);
});
