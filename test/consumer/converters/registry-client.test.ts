/**
 * The Schema Registry client against a scripted HTTP server: what it caches, and whose fault each answer is
 * (SCHEMA_NOT_FOUND for the record, SCHEMA_REGISTRY_UNAVAILABLE to wait out, SCHEMA_REGISTRY_REQUEST_FAILED to stop).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SchemaRegistryClient, subjectName } from '../../../src/consumer/converters/registry-client';

type Reply = { status: number; body: string; delayMs?: number; contentType?: string };
let replies: ((req: http.IncomingMessage) => Reply) = () => ({ status: 200, body: '{}' });
const seen: { method: string; url: string; auth?: string; body: string }[] = [];
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body: Buffer.concat(chunks).toString() });
      const r = replies(req);
      const send = () => {
        res.writeHead(r.status, { 'content-type': r.contentType ?? 'application/vnd.schemaregistry.v1+json' }); res.end(r.body);
      };
      if (r.delayMs) setTimeout(send, r.delayMs); else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => { server.closeAllConnections(); await new Promise((r) => server.close(r)); });
beforeEach(() => { seen.length = 0; });

const json = (status: number, body: unknown): Reply => ({ status, body: JSON.stringify(body) });

test('subject name strategies (Confluent\'s TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy)', () => {
  expect(subjectName('TopicName', 'orders', false)).toBe('orders-value');
  expect(subjectName('TopicName', 'orders', true)).toBe('orders-key');
  expect(subjectName('RecordName', 'orders', false, 'shop.Order')).toBe('shop.Order');
  expect(subjectName('TopicRecordName', 'orders', true, 'shop.Order')).toBe('orders-shop.Order');
  expect(() => subjectName('RecordName', 'orders', false)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
});

test('schemas by id are fetched once (concurrent callers share the request) and kept; a failed fetch is not kept', async () => {
  let n = 0;
  replies = () => (++n === 1 ? json(503, { error_code: 50003, message: 'down' })
    : json(200, { schemaType: 'PROTOBUF', schema: 'syntax = "proto3";', references: [{ name: 'a.proto', subject: 'a', version: 1 }] }));
  const c = new SchemaRegistryClient({ url, basicAuth: { username: 'u', password: 'p:w' } });
  await expect(c.schemaById(7)).rejects.toMatchObject({ code: 'SCHEMA_REGISTRY_UNAVAILABLE', status: 503, retriable: true });
  const [a, b] = await Promise.all([c.schemaById(7), c.schemaById(7)]);
  expect(a).toEqual({ schema: 'syntax = "proto3";', schemaType: 'PROTOBUF', references: [{ name: 'a.proto', subject: 'a', version: 1 }] });
  expect(b).toBe(a);
  await c.schemaById(7);
  expect(seen.map((s) => s.url)).toEqual(['/schemas/ids/7', '/schemas/ids/7']);
  expect(seen[0]!.auth).toBe(`Basic ${Buffer.from('u:p:w').toString('base64')}`);
  expect(c.cachedId(7)).toBe(true);
});

test('a subject\'s latest version is cached for latestCacheTtlMs; numbered versions are not cached', async () => {
  replies = (req) =>
    json(200, { subject: 's', version: 3, id: 12, schema: '"int"', ...(req.url!.includes('latest') ? {} : { version: 2 }) });
  const c = new SchemaRegistryClient({ url, latestCacheTtlMs: 60000 });
  expect(await c.subjectVersion('s')).toEqual({ subject: 's', version: 3, id: 12, schema: '"int"', schemaType: 'AVRO', references: [] });
  await c.subjectVersion('s', 'latest');
  await c.subjectVersion('s', 2);
  await c.subjectVersion('s', 2);
  expect(seen.map((s) => s.url)).toEqual(['/subjects/s/versions/latest', '/subjects/s/versions/2', '/subjects/s/versions/2']);
  const short = new SchemaRegistryClient({ url, latestCacheTtlMs: 0 });
  await short.subjectVersion('s');
  await short.subjectVersion('s');
  expect(seen.filter((s) => s.url.endsWith('latest'))).toHaveLength(3);
});

test('register: the same schema twice is one request; the body is Confluent\'s (schemaType omitted for Avro, references when any)',
  async () => {
  replies = () => json(200, { id: 5 });
  const c = new SchemaRegistryClient({ url });
  expect(await c.register('a/b', { schema: '"int"', schemaType: 'AVRO', references: [] })).toBe(5);
  expect(await c.register('a/b', { schema: '"int"', schemaType: 'AVRO', references: [] })).toBe(5);
  await c.register('a/b', { schema: 'syntax="proto3";', schemaType: 'PROTOBUF', references: [{ name: 'x', subject: 'y', version: 1 }] });
  expect(seen.map((s) => [s.method, s.url, JSON.parse(s.body)])).toEqual([
    ['POST', '/subjects/a%2Fb/versions', { schema: '"int"' }],
    ['POST', '/subjects/a%2Fb/versions',
      { schema: 'syntax="proto3";', schemaType: 'PROTOBUF', references: [{ name: 'x', subject: 'y', version: 1 }] }]]);
  replies = () => json(200, { ID: 5 });
  await expect(c.register('other', { schema: '"long"', schemaType: 'AVRO', references: [] }))
    .rejects.toMatchObject({ code: 'SCHEMA_REGISTRY_UNAVAILABLE' });
});

test.each([
  ['404 40403: the id is unknown, the record\'s fault', 'SCHEMA_NOT_FOUND',
    json(404, { error_code: 40403, message: 'Schema 9 not found' })],
  ['500', 'SCHEMA_REGISTRY_UNAVAILABLE', json(500, { error_code: 50001, message: 'store' })],
  ['502 with an HTML page', 'SCHEMA_REGISTRY_UNAVAILABLE', { status: 502, body: '<html>bad gateway</html>', contentType: 'text/html' }],
  ['408', 'SCHEMA_REGISTRY_UNAVAILABLE', json(408, {})],
  ['429', 'SCHEMA_REGISTRY_UNAVAILABLE', json(429, { error_code: 42900, message: 'slow down' })],
  ['200 with a body that is not JSON (a proxy\'s page)', 'SCHEMA_REGISTRY_UNAVAILABLE',
    { status: 200, body: '<html>hello</html>', contentType: 'text/html' }],
  ['200 with JSON that is not a schema', 'SCHEMA_REGISTRY_UNAVAILABLE', json(200, { schema: 5 })],
  ['200 empty', 'SCHEMA_REGISTRY_UNAVAILABLE', { status: 200, body: '' }],
  ['401', 'SCHEMA_REGISTRY_REQUEST_FAILED', json(401, { error_code: 401, message: 'Unauthorized' })],
  ['403', 'SCHEMA_REGISTRY_REQUEST_FAILED', json(403, { error_code: 40301, message: 'Forbidden' })],
  ['404 without the registry\'s error body (the URL is not a registry\'s)', 'SCHEMA_REGISTRY_REQUEST_FAILED',
    { status: 404, body: 'Not Found', contentType: 'text/plain' }],
  ['404 with another error code', 'SCHEMA_REGISTRY_REQUEST_FAILED', json(404, { error_code: 40401, message: 'Subject not found' })],
] as [string, string, Reply][])('GET /schemas/ids answering %s → %s', async (_what, code, reply) => {
  replies = () => reply;
  const err = await new SchemaRegistryClient({ url }).schemaById(9).catch((e: unknown) => e);
  expect(err).toMatchObject({ code, retriable: code === 'SCHEMA_REGISTRY_UNAVAILABLE' });
  expect((err as Error).message).toContain(url.replace(/\/$/, ''));
});

test('a registry that answers too slowly, or not at all, is unavailable (retriable) after requestTimeoutMs', async () => {
  replies = () => ({ ...json(200, { schema: '"int"' }), delayMs: 1000 });
  const t0 = Date.now();
  await expect(new SchemaRegistryClient({ url, requestTimeoutMs: 100 }).schemaById(1)).rejects.toMatchObject({
    code: 'SCHEMA_REGISTRY_UNAVAILABLE', message: expect.stringMatching(/cannot be reached \(schema id 1\)/) });
  expect(Date.now() - t0).toBeLessThan(900);
  await expect(new SchemaRegistryClient({ url: 'http://127.0.0.1:1' }).schemaById(1))
    .rejects.toMatchObject({ code: 'SCHEMA_REGISTRY_UNAVAILABLE' });
});

test('an unknown schemaType is passed on as given (the converter names it), never read as Avro', async () => {
  replies = () => json(200, { schemaType: 'XML', schema: '<x/>' });
  expect((await new SchemaRegistryClient({ url }).schemaById(3)).schemaType).toBe('XML');
});
