/**
 * The test Schema Registry's REST API over HTTP: each endpoint Confluent's clients use, with Confluent's error codes
 * (40401 subject, 40402 version, 40403 schema, 40404-40407 deletes, 40408 config, 42201 schema, 42202 version,
 * 42203 level, 42206 referenced, 409 incompatible), content type and faults; hostile requests never end the process.
 */
import * as net from 'node:net';
import { SchemaRegistryServer } from '../../../src/testing/schema-registry/server';

let s: SchemaRegistryServer;
beforeEach(async () => { s = await SchemaRegistryServer.start({ maxBodyBytes: 1 << 20 }); });
afterEach(() => s.stop());

async function call(method: string, path: string, body?: unknown,
  raw?: string): Promise<{ status: number; body: unknown; type: string | null }> {
  const res = await fetch(`${s.url}${path}`, { method, headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), type: res.headers.get('content-type') };
}
const error = (status: number, code: number) => expect.objectContaining({ status, body: expect.objectContaining({ error_code: code }) });

const V1 = JSON.stringify({ type: 'record', name: 'R', fields: [{ name: 'a', type: 'int' }] });
const V2 = JSON.stringify({ type: 'record', name: 'R', fields: [{ name: 'a', type: 'int' }, { name: 'b', type: 'int', default: 0 }] });
const BAD = JSON.stringify({ type: 'record', name: 'R', fields: [{ name: 'c', type: 'int' }] });

test('register, ids, lookup and versions: one id per schema across subjects, whitespace not mattering; Confluent\'s shapes', async () => {
  expect(await call('POST', '/subjects/s1/versions', { schema: V1 }))
    .toEqual({ status: 200, body: { id: 1 }, type: 'application/vnd.schemaregistry.v1+json' });
  expect((await call('POST', '/subjects/s1/versions', { schema: V1.replace(/,/g, ' , ') })).body).toEqual({ id: 1 });
  expect((await call('POST', '/subjects/s2/versions', { schema: V1 })).body).toEqual({ id: 1 });
  expect((await call('POST', '/subjects/s1/versions', { schema: V2 })).body).toEqual({ id: 2 });
  expect((await call('GET', '/schemas/ids/1')).body).toEqual({ schema: V1 });
  expect((await call('GET', '/schemas/ids/1/schema')).body).toEqual(JSON.parse(V1));
  expect((await call('GET', '/schemas/ids/1/versions')).body).toEqual([{ subject: 's1', version: 1 }, { subject: 's2', version: 1 }]);
  expect((await call('GET', '/schemas/ids/1/subjects')).body).toEqual(['s1', 's2']);
  expect((await call('GET', '/schemas/types')).body).toEqual(['JSON', 'PROTOBUF', 'AVRO']);
  expect((await call('POST', '/subjects/s1', { schema: V2 })).body).toEqual({ subject: 's1', version: 2, id: 2, schema: V2 });
  expect(await call('POST', '/subjects/s1', { schema: JSON.stringify({ type: 'record', name: 'Other', fields: [] }) }))
    .toEqual(error(404, 40403));
  expect(await call('POST', '/subjects/nope', { schema: V1 })).toEqual(error(404, 40401));
  expect((await call('GET', '/subjects')).body).toEqual(['s1', 's2']);
  expect((await call('GET', '/subjects?subjectPrefix=s2')).body).toEqual(['s2']);
  expect((await call('GET', '/subjects/s1/versions')).body).toEqual([1, 2]);
  for (const v of ['latest', '-1', '2'])
    expect((await call('GET', `/subjects/s1/versions/${v}`)).body).toMatchObject({ version: 2, id: 2 });
  expect((await call('GET', '/subjects/s1/versions/1/schema')).body).toEqual(JSON.parse(V1));
  expect(await call('GET', '/subjects/s1/versions/3')).toEqual(error(404, 40402));
  for (const v of ['0', 'abc', '2147483648']) expect(await call('GET', `/subjects/s1/versions/${v}`)).toEqual(error(422, 42202));
  expect(await call('GET', '/subjects/nope/versions')).toEqual(error(404, 40401));
  expect(await call('GET', '/schemas/ids/99')).toEqual(error(404, 40403));
  expect(await call('GET', '/schemas/ids/x')).toEqual(error(404, 40403));
  expect((await call('GET', '/mode')).body).toEqual({ mode: 'READWRITE' });
});

test('invalid schemas 42201 (Avro, JSON Schema by its meta-schema, Protobuf), incompatible ones 409 naming the rule', async () => {
  expect(await call('POST', '/subjects/x/versions', { schema: '{"type": "nope"}' })).toEqual(error(422, 42201));
  expect(await call('POST', '/subjects/x/versions', { schemaType: 'JSON', schema: '{"type": "frob"}' })).toEqual(error(422, 42201));
  expect(await call('POST', '/subjects/x/versions', { schemaType: 'JSON', schema: '{"properties": {"a": null}}' }))
    .toEqual(error(422, 42201));
  expect(await call('POST', '/subjects/x/versions', { schemaType: 'JSON', schema: '{"$ref": "#/definitions/none"}' }))
    .toEqual(error(422, 42201));
  expect(await call('POST', '/subjects/x/versions', { schemaType: 'JSON', schema: '[1]' })).toEqual(error(422, 42201));
  expect(await call('POST', '/subjects/x/versions', { schemaType: 'PROTOBUF', schema: 'message {' })).toEqual(error(422, 42201));
  expect(await call('POST', '/subjects/x/versions',
    { schemaType: 'PROTOBUF', schema: 'syntax = "proto3"; import "x.proto"; message A {}' }))
    .toEqual(error(422, 42201));
  expect(await call('POST', '/subjects/x/versions', { schemaType: 'XML', schema: '<a/>' })).toEqual(error(422, 42201));
  expect(await call('POST', '/subjects/x/versions', {})).toEqual(error(422, 42201));
  expect(await call('POST', '/subjects/x/versions', undefined, '{not json')).toEqual(error(400, 400));
  await call('POST', '/subjects/c/versions', { schema: V1 });
  const refused = await call('POST', '/subjects/c/versions', { schema: BAD });
  expect(refused).toEqual(error(409, 409));
  expect((refused.body as { message: string }).message)
    .toMatch(/incompatible with an earlier schema for subject "c".*READER_CANNOT_READ_WRITER/);
  await call('POST', '/subjects/j/versions', { schemaType: 'JSON', schema: '{"type": "object", "properties": {"a": {"type": "string"}}}' });
  const json = await call('POST', '/subjects/j/versions',
    { schemaType: 'JSON', schema: '{"type": "object", "properties": {"a": {"type": "integer"}}}' });
  expect((json.body as { message: string }).message).toMatch(/TYPE_CHANGED at #\/properties\/a/);
  const mixed = await call('POST', '/subjects/j/versions', { schema: V1 });
  expect((mixed.body as { message: string }).message).toMatch(/different schema type/);
});

test('compatibility endpoints: against a version or the level\'s versions, verbose messages; levels per subject and global', async () => {
  await call('POST', '/subjects/c/versions', { schema: V1 });
  expect((await call('POST', '/compatibility/subjects/c/versions/latest', { schema: V2 })).body).toEqual({ is_compatible: true });
  expect((await call('POST', '/compatibility/subjects/c/versions/1?verbose=true', { schema: BAD })).body).toEqual({ is_compatible: false,
    messages: [expect.stringMatching(/^READER_CANNOT_READ_WRITER: /)] });
  expect((await call('POST', '/compatibility/subjects/c/versions', { schema: BAD })).body).toEqual({ is_compatible: false });
  expect((await call('POST', '/compatibility/subjects/none/versions', { schema: BAD })).body).toEqual({ is_compatible: true });
  expect(await call('POST', '/compatibility/subjects/none/versions/1', { schema: BAD })).toEqual(error(404, 40401));
  expect((await call('GET', '/config')).body).toEqual({ compatibilityLevel: 'BACKWARD' });
  expect((await call('PUT', '/config/c', { compatibility: 'none' })).body).toEqual({ compatibility: 'NONE' });
  expect((await call('GET', '/config/c')).body).toEqual({ compatibilityLevel: 'NONE' });
  expect((await call('POST', '/subjects/c/versions', { schema: BAD })).body).toEqual({ id: 2 });
  expect(await call('GET', '/config/other')).toEqual(error(404, 40408));
  expect((await call('GET', '/config/other?defaultToGlobal=true')).body).toEqual({ compatibilityLevel: 'BACKWARD' });
  expect((await call('DELETE', '/config/c')).body).toEqual({ compatibilityLevel: 'NONE' });
  expect(await call('PUT', '/config', { compatibility: 'SIDEWAYS' })).toEqual(error(422, 42203));
  expect((await call('PUT', '/config', { compatibility: 'FULL_TRANSITIVE' })).body).toEqual({ compatibility: 'FULL_TRANSITIVE' });
});

test('deletes: soft, then permanent; the codes for each wrong order; a referenced version stays; a forgotten id is 40403', async () => {
  await call('POST', '/subjects/d/versions', { schema: V1 });
  await call('PUT', '/config/d', { compatibility: 'NONE' });
  await call('POST', '/subjects/d/versions', { schema: BAD });
  expect(await call('DELETE', '/subjects/d/versions/1?permanent=true')).toEqual(error(404, 40407));
  expect((await call('DELETE', '/subjects/d/versions/1')).body).toBe(1);
  expect(await call('DELETE', '/subjects/d/versions/1')).toEqual(error(404, 40406));
  expect((await call('GET', '/subjects/d/versions')).body).toEqual([2]);
  expect((await call('GET', '/subjects/d/versions?deleted=true')).body).toEqual([1, 2]);
  expect((await call('GET', '/schemas/ids/1')).status).toBe(200); // soft-deleted: still readable by id
  expect((await call('DELETE', '/subjects/d/versions/1?permanent=true')).body).toBe(1);
  expect(await call('GET', '/schemas/ids/1')).toEqual(error(404, 40403)); // no version holds it any more
  expect(await call('DELETE', '/subjects/d?permanent=true')).toEqual(error(404, 40405));
  expect((await call('DELETE', '/subjects/d')).body).toEqual([2]);
  expect(await call('DELETE', '/subjects/d')).toEqual(error(404, 40404));
  expect((await call('GET', '/subjects?deleted=true')).body).toEqual(['d']);
  expect((await call('DELETE', '/subjects/d?permanent=true')).body).toEqual([2]);
  expect(await call('DELETE', '/subjects/d')).toEqual(error(404, 40401));
  // A version another schema references cannot be deleted.
  await call('POST', '/subjects/addr/versions', { schema: JSON.stringify({ type: 'record', name: 'A', namespace: 'n', fields: [] }) });
  await call('POST', '/subjects/o/versions',
    { schema: JSON.stringify({ type: 'record', name: 'O', namespace: 'n', fields: [{ name: 'a', type: 'n.A' }] }),
    references: [{ name: 'n.A', subject: 'addr', version: 1 }] });
  expect((await call('GET', '/subjects/addr/versions/1/referencedby')).body).toEqual([expect.any(Number)]);
  expect(await call('DELETE', '/subjects/addr/versions/1')).toEqual(error(422, 42206));
  expect(await call('POST', '/subjects/o2/versions', { schema: '"int"', references: [{ name: 'x', subject: 'none', version: 1 }] }))
    .toEqual(error(422, 42201));
});

test('faults: the next requests answer the status injected, with Confluent\'s error body; then the server answers again', async () => {
  s.inject({ status: 503, times: 2, pathContains: '/schemas/ids' });
  s.inject({ status: 500 });
  expect(await call('GET', '/schemas/ids/1')).toEqual(error(503, 50003));
  expect(await call('GET', '/subjects')).toEqual(error(500, 50001));
  expect(await call('GET', '/schemas/ids/1')).toEqual(error(503, 50003));
  expect(await call('GET', '/schemas/ids/1')).toEqual(error(404, 40403));
  expect(s.requests.map((r) => r.status)).toEqual([503, 500, 503, 404]);
});

test('hostile requests are answered and the server keeps serving: bad percent-encoding, a huge body, a broken-off body, unknown routes',
  async () => {
  expect(await call('GET', '/subjects/%ZZ/versions')).toEqual(error(400, 400));
  expect(await call('POST', '/subjects/big/versions', undefined, JSON.stringify({ schema: 'x'.repeat(2 << 20) }))).toEqual(error(413, 413));
  expect(await call('GET', '/nothing/here')).toEqual(error(404, 404));
  expect(await call('PATCH', '/subjects')).toEqual(error(405, 405));
  // A client that announces a body and goes away mid-way.
  await new Promise<void>((resolve) => {
    const sock = net.connect(s.port, '127.0.0.1', () => {
      sock.write('POST /subjects/x/versions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"schema":');
      setTimeout(() => { sock.destroy(); resolve(); }, 50);
    });
  });
  expect((await call('GET', '/subjects')).status).toBe(200);
  expect((await call('GET', '/subjects/__proto__/versions'))).toEqual(error(404, 40401));
  expect((await call('POST', '/subjects/__proto__/versions', { schema: V1 })).body).toEqual({ id: 1 });
  expect((await call('GET', '/subjects')).body).toEqual(['__proto__']);
});
