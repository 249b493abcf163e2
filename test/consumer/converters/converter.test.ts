/**
 * The converters end to end against the in-process Schema Registry: serialize() and convert() round trips for every
 * format, subject name strategies, useLatestVersion, references, and the failures each names (with their codes).
 */
import { createConverter, parseJson } from '../../../src/consumer/converters/converter';
import { SchemaRegistryClient } from '../../../src/consumer/converters/registry-client';
import { frame } from '../../../src/consumer/converters/wire-format';
import { SchemaRegistryServer } from '../../../src/testing/schema-registry/server';

let server: SchemaRegistryServer;
let client: SchemaRegistryClient;
beforeAll(async () => { server = await SchemaRegistryServer.start(); });
afterAll(() => server.stop());
beforeEach(() => { client = new SchemaRegistryClient({ url: server.url }); });

/** prepare() then convert(), as the converting strategy calls them. */
async function convert(c: ReturnType<typeof createConverter>, topic: string, bytes: Buffer, isKey = false) {
  await c.prepare(topic, bytes, isKey);
  return c.convert(topic, bytes, isKey);
}

const AVRO = JSON.stringify({ type: 'record', name: 'Reading', namespace: 'iot',
  fields: [{ name: 'sensor', type: 'string' }, { name: 'v', type: 'long' }] });
const PROTO = 'syntax = "proto3";\npackage iot;\nmessage Reading { string sensor = 1; int64 v = 2; }\nmessage Alarm { string why = 1; }\n';
const JSON_SCHEMA = JSON.stringify({ title: 'Reading', type: 'object', properties: { sensor: { type: 'string' }, v: { type: 'integer' } },
  required: ['sensor', 'v'] });

test('string, bytes, json and connect-json (schemas.enable on and off), and null as null for each', async () => {
  const text = createConverter({ type: 'string' });
  expect(text.convert('t', Buffer.from('héllo'), false)).toEqual({ schema: { type: 'string', optional: true }, value: 'héllo' });
  // Connect's StringConverter decodes malformed UTF-8 to U+FFFD too (new String(bytes, UTF_8)).
  expect(text.convert('t', Buffer.from([0x61, 0xff]), false).value).toBe('a\ufffd');
  expect(createConverter({ type: 'bytes' }).convert('t', Buffer.from([0, 255]), false).value).toEqual(Buffer.from([0, 255]));
  expect(createConverter({ type: 'json' }).convert('t', Buffer.from('{"a":[1]}'), false)).toEqual({ schema: null, value: { a: [1] } });
  const envelope = Buffer.from(JSON.stringify({ schema: { type: 'struct', fields: [{ field: 'a', type: 'int32' }] }, payload: { a: 1 } }));
  expect(createConverter({ type: 'connect-json' }).convert('t', envelope, false)).toEqual({
    schema: { type: 'struct', optional: false, fields: [{ name: 'a', schema: { type: 'int32', optional: false } }] }, value: { a: 1 } });
  expect(createConverter({ type: 'connect-json' }).convert('t', Buffer.from('{"schema":null,"payload":[1]}'), false))
    .toEqual({ schema: null, value: [1] });
  expect(createConverter({ type: 'connect-json', schemasEnable: false }).convert('t', envelope, false).schema).toBeNull();
  expect(() => createConverter({ type: 'connect-json' }).convert('t', Buffer.from('{"a":1}'), false))
    .toThrow(/without the \{"schema", "payload"\} envelope/);
  for (const type of ['string', 'bytes', 'json', 'connect-json'] as const) {
    expect(createConverter({ type }).convert('t', null, false)).toEqual({ schema: null, value: null });
  }
});

test('JSON that is not UTF-8 is refused as Jackson refuses it (the record\'s fault), never read with U+FFFD', async () => {
  expect(() => parseJson(Buffer.from([0x22, 0xff, 0x22]))).toThrow(expect.objectContaining({ code: 'RECORD_CONVERSION_FAILED',
    message: 'not JSON: the bytes are not UTF-8 text' }));
  expect(() => createConverter({ type: 'connect-json' }).convert('t', Buffer.from([0x7b, 0xc3]), false)).toThrow(/not UTF-8/);
  const c = createConverter({ type: 'json-schema' }, client);
  const good = await c.serialize('utf8', { sensor: 'a', v: 1 }, { schema: JSON_SCHEMA });
  const bad = Buffer.concat([good.subarray(0, 5), Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])]);
  await expect(convert(c, 'utf8', bad)).rejects.toThrow(/not UTF-8/);
});

test.each([['avro', AVRO], ['protobuf', PROTO], ['json-schema', JSON_SCHEMA]] as const)(
  '%s: serialize registers under <topic>-value (or -key), convert reads it back with its Connect schema and id', async (type, schema) => {
    const c = createConverter({ type }, client);
    const topic = `rt-${type}`;
    const bytes = await c.serialize(topic, { sensor: 's1', v: 42 }, { schema });
    const got = await convert(c, topic, bytes);
    expect(got.value).toEqual({ sensor: 's1', v: 42 });
    expect(got.schema).toMatchObject({ type: 'struct' });
    expect(got.schemaId).toBe(bytes.readInt32BE(1));
    expect(server.store.subjectNames(false)).toContain(`${topic}-value`);
    await c.serialize(topic, { sensor: 'k', v: 1 }, { schema, isKey: true });
    expect(server.store.subjectNames(false)).toContain(`${topic}-key`);
  });

test('subject name strategies: RecordName (<record>), TopicRecordName (<topic>-<record>), autoRegisterSchemas false looks up', async () => {
  await createConverter({ type: 'avro', subjectNameStrategy: 'RecordName' }, client)
    .serialize('sn', { sensor: 'a', v: 1 }, { schema: AVRO });
  await createConverter({ type: 'protobuf', subjectNameStrategy: 'TopicRecordName' }, client)
    .serialize('sn', { sensor: 'a', v: 1 }, { schema: PROTO });
  await createConverter({ type: 'json-schema', subjectNameStrategy: 'RecordName' }, client)
    .serialize('sn', { sensor: 'a', v: 1 }, { schema: JSON_SCHEMA });
  expect(server.store.subjectNames(false)).toEqual(expect.arrayContaining(['iot.Reading', 'sn-iot.Reading', 'Reading']));
  const lookupOnly = createConverter({ type: 'avro', autoRegisterSchemas: false }, client);
  await expect(lookupOnly.serialize('never-registered', { sensor: 'a', v: 1 }, { schema: AVRO }))
    .rejects.toMatchObject({ code: 'SCHEMA_REGISTRY_REQUEST_FAILED', errorCode: 40401 });
  await createConverter({ type: 'avro' }, client).serialize('registered', { sensor: 'a', v: 1 }, { schema: AVRO });
  expect((await lookupOnly.serialize('registered', { sensor: 'b', v: 2 }, { schema: AVRO })).readInt32BE(1))
    .toBe(server.store.lookup('registered-value', { schema: AVRO }, false).id);
  await expect(createConverter({ type: 'avro', subjectNameStrategy: 'RecordName' }, client).serialize('p', 5, { schema: '"long"' }))
    .rejects.toMatchObject({ code: 'CONFIG_INVALID' });
});

test('Protobuf: message indexes pick the message, [0] as the single byte 0; useDeprecatedFormat reads Python 1.7\'s unsigned indexes',
  async () => {
  const c = createConverter({ type: 'protobuf' }, client);
  const first = await c.serialize('pi', { sensor: 'a', v: 1 }, { schema: PROTO });
  expect(first[5]).toBe(0);
  const id = first.readInt32BE(1);
  const alarm = Buffer.from([0x0a, 0x01, 0x78]); // Alarm { why: "x" }
  expect((await convert(c, 'pi', frame(id, alarm, Buffer.from([2, 2])))).value).toEqual({ why: 'x' });
  const deprecated = createConverter({ type: 'protobuf', useDeprecatedFormat: true }, client);
  expect((await convert(deprecated, 'pi', frame(id, alarm, Buffer.from([1, 1])))).value).toEqual({ why: 'x' });
  await expect(convert(c, 'pi', frame(id, alarm, Buffer.from([1, 1])))).rejects.toMatchObject({ code: 'RECORD_CONVERSION_FAILED' });
  await expect(convert(c, 'pi', frame(id, alarm, Buffer.from([2, 4])))).rejects.toThrow(/message indexes \[2\] name no message/);
});

test('failures carry codes: an unknown id SCHEMA_NOT_FOUND, an id of another type, bytes that do not decode, not the wire format',
  async () => {
  const avro = createConverter({ type: 'avro' }, client);
  await expect(convert(avro, 't', frame(999999, Buffer.from([2])))).rejects.toMatchObject({ code: 'SCHEMA_NOT_FOUND' });
  const protoBytes = await createConverter({ type: 'protobuf' }, client).serialize('other', { sensor: 'a', v: 1 }, { schema: PROTO });
  await expect(convert(avro, 'other', protoBytes)).rejects.toMatchObject({ code: 'RECORD_CONVERSION_FAILED',
    message: expect.stringMatching(/is a PROTOBUF schema, not AVRO/) });
  const ok = await avro.serialize('trunc', { sensor: 'abc', v: 1 }, { schema: AVRO });
  await avro.prepare('trunc', ok, false);
  expect(() => avro.convert('trunc', ok.subarray(0, ok.length - 1), false))
    .toThrow(expect.objectContaining({ code: 'RECORD_CONVERSION_FAILED',
    message: expect.stringMatching(/schema id \d+: the bytes do not decode as avro: truncated/) }));
  expect(() => avro.prepare('t', Buffer.from('plain'), false)).toThrow(expect.objectContaining({ code: 'RECORD_CONVERSION_FAILED' }));
  expect(() => createConverter({ type: 'avro' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  expect(() => createConverter({ type: 'xml' } as never)).toThrow(/unknown converter "xml"/);
});

test('useLatestVersion reads every record with the subject\'s latest version; a latest that cannot read it is SCHEMA_INCOMPATIBLE',
  async () => {
  const v1 = JSON.stringify({ type: 'record', name: 'P', fields: [{ name: 'a', type: 'int' }] });
  const v2 =
    JSON.stringify({ type: 'record', name: 'P', fields: [{ name: 'a', type: 'int' }, { name: 'b', type: 'string', default: 'B' }] });
  const writer = createConverter({ type: 'avro' }, client);
  const old = await writer.serialize('latest', { a: 1 }, { schema: v1 });
  await writer.serialize('latest', { a: 2, b: 'x' }, { schema: v2 });
  const reader = createConverter({ type: 'avro', useLatestVersion: true }, client);
  expect(await convert(reader, 'latest', old))
    .toMatchObject({ value: { a: 1, b: 'B' }, schema: { fields: [{ name: 'a' }, { name: 'b' }] } });
  // With compatibility NONE, a latest version that cannot read v1's data: systemic (the record reads with its own schema).
  server.store.setConfig('clash-value', 'NONE');
  const first = await writer.serialize('clash', { a: 1 }, { schema: v1 });
  await writer.serialize('clash', { c: true },
    { schema: JSON.stringify({ type: 'record', name: 'P', fields: [{ name: 'c', type: 'boolean' }] }) });
  const r2 = createConverter({ type: 'avro', useLatestVersion: true }, new SchemaRegistryClient({ url: server.url }));
  await expect(convert(r2, 'clash', first)).rejects.toMatchObject({ code: 'SCHEMA_INCOMPATIBLE',
    message:
      expect.stringMatching(/latest version of subject clash-value \(schema id \d+\) cannot read data written with schema id \d+/) });
});

test('a schema deleted between produce and consume: soft deleted it still reads; permanently deleted a new consumer gets SCHEMA_NOT_FOUND',
  async () => {
  const schema = JSON.stringify({ type: 'record', name: 'Gone', fields: [{ name: 'x', type: 'int' }] });
  const bytes = await createConverter({ type: 'avro' }, client).serialize('gone', { x: 1 }, { schema });
  const cached = createConverter({ type: 'avro' }, client);
  expect((await convert(cached, 'gone', bytes)).value).toEqual({ x: 1 });
  server.store.deleteSubject('gone-value', false);
  expect((await convert(createConverter({ type: 'avro' }, new SchemaRegistryClient({ url: server.url })), 'gone', bytes)).value)
    .toEqual({ x: 1 });
  server.store.deleteSubject('gone-value', true);
  await expect(convert(createConverter({ type: 'avro' }, new SchemaRegistryClient({ url: server.url })), 'gone', bytes))
    .rejects.toMatchObject({ code: 'SCHEMA_NOT_FOUND' });
  expect(cached.convert('gone', bytes, false).value).toEqual({ x: 1 }); // an id names one schema forever: the cache stands
});

test('references: an Avro named type and a Protobuf import registered under their own subjects', async () => {
  const address = JSON.stringify({ type: 'record', name: 'Address', namespace: 'shop', fields: [{ name: 'city', type: 'string' }] });
  server.store.register('address', { schema: address });
  const order = JSON.stringify({ type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'to', type: 'shop.Address' }] });
  const orderId =
    server.store.register('orders-value', { schema: order, references: [{ name: 'shop.Address', subject: 'address', version: 1 }] });
  const avroBytes = frame(orderId, Buffer.from([0x02, 0x78]));
  expect((await convert(createConverter({ type: 'avro' }, client), 'orders', avroBytes)).value).toEqual({ to: { city: 'x' } });
  server.store.register('dep.proto', { schemaType: 'PROTOBUF', schema: 'syntax = "proto3"; package dep; message B { int32 x = 1; }' });
  const protoId =
    server.store.register('pa-value', { schemaType: 'PROTOBUF', schema: 'syntax = "proto3"; import "dep.proto"; message A { dep.B b = 1; }',
    references: [{ name: 'dep.proto', subject: 'dep.proto', version: 1 }] });
  expect((await convert(createConverter({ type: 'protobuf' }, client), 'pa',
    frame(protoId, Buffer.from([0x0a, 0x02, 0x08, 0x07]), Buffer.from([0]))))
    .value).toEqual({ b: { x: 7 } });
});

test('json-schema validate: a payload its schema refuses is the record\'s fault; versions sharing a $id both compile', async () => {
  const v1 = JSON.stringify({ $id: 'https://example.com/p.json', type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] });
  const v2 =
    JSON.stringify({ $id: 'https://example.com/p.json', type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } },
    required: ['a'] });
  const plain = createConverter({ type: 'json-schema' }, client);
  server.store.setConfig('same-id-value', 'NONE'); // a property added to an open content model is not BACKWARD (Confluent's rules)
  const one = await plain.serialize('same-id', { a: 1 }, { schema: v1 });
  const two = await plain.serialize('same-id', { a: 2, b: 'x' }, { schema: v2 });
  const validating = createConverter({ type: 'json-schema', validate: true }, client);
  expect((await convert(validating, 'same-id', one)).value).toEqual({ a: 1 });
  expect((await convert(validating, 'same-id', two)).value).toEqual({ a: 2, b: 'x' });
  const bad = frame(one.readInt32BE(1), Buffer.from('{"a":"not a number"}'));
  await expect(convert(validating, 'same-id', bad)).rejects.toMatchObject({ code: 'RECORD_CONVERSION_FAILED',
    message: expect.stringMatching(/does not match its JSON Schema: data\/a must be integer/) });
  expect((await convert(plain, 'same-id', bad)).value).toEqual({ a: 'not a number' });
});
