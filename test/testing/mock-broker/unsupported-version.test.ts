/**
 * Requests above a handler's maximum version: ApiVersions gets a v0 response with
 * UNSUPPORTED_VERSION and the supported ranges (KIP-511); any other API closes the connection,
 * as Kafka 4's SocketServer does (parseRequestHeader throws InvalidRequestException for a version
 * that is not enabled, and the processor logs "Closing socket ... because of error" and closes it).
 * Never silently: the event log records the refusal with the API, the version and the served range,
 * and the request-version log counts it as not served. Other connections are unaffected.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { createRegistry } from '../../../src/testing/mock-broker/handlers';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { frameRequest } from '../../../src/protocol/frame';
import { Reader } from '../../../src/protocol/primitives';
import { decodeResponse } from '../../../src/protocol/schema';
import { ApiVersions, Metadata, Produce } from '../../../src/protocol/messages/data';
import * as zlib from 'node:zlib';
import { decodeBatch } from '../../../src/protocol/record-batch';
import { RawClient } from './raw-client';

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1 }); });
afterAll(async () => { await cluster.stop(); });

const registry = createRegistry();

test('ApiVersions above v4 is answered with a v0 UNSUPPORTED_VERSION response listing every range', async () => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  // A v9 request: flexible header and a body the broker must not try to read.
  c.write(frameRequest({ apiKey: 18, apiVersion: 9, correlationId: 77, clientId: 'future' }, true,
    (w) => w.raw(Buffer.from([1, 2, 3, 4, 5]))));
  const frame = await c.nextFrame();
  expect(frame).not.toBeNull();
  const r = new Reader(frame!);
  expect(r.int32()).toBe(77);
  const res = decodeResponse(ApiVersions, 0, r); // header v0, body v0
  expect(r.remaining).toBe(0);
  expect(res.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
  const advertised =
    new Map(res.apiKeys.map((k: { apiKey: number; minVersion: number; maxVersion: number }) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  expect(advertised.get(18)).toEqual([0, 4]);
  for (const h of registry.values()) expect(advertised.get(h.schema.apiKey)).toEqual([h.minVersion, h.maxVersion]);
  // The connection stays usable: a supported ApiVersions follows.
  const ok = await c.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  expect(ok.errorCode).toBe(0);
  c.close();
});

// Every served API but ApiVersions (EndTxn v5 among them: unstable in Kafka 4.0, so served by neither).
const others = [...registry.values()].filter((h) => h.schema !== ApiVersions).map((h) => [h.schema.name, h.schema] as const);

test.each(others)('%s above its maximum version closes only that connection', async (_name, schema) => {
  const max = registry.get(schema.apiKey)!.maxVersion;
  const bystander = await RawClient.connect(cluster.bootstrap[0]);
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const clientId = `too-new-${schema.name}`;
  c.write(frameRequest({ apiKey: schema.apiKey, apiVersion: max + 1, correlationId: 5, clientId }, true, (w) => w.uvarint(1).uvarint(0)));
  await c.waitClosed();
  expect(await c.nextFrame()).toBeNull(); // no response was written
  const why = `${schema.name} v${max + 1} is not supported (v${registry.get(schema.apiKey)!.minVersion}-v${max})`;
  expect(cluster.events.entries({ type: 'connection-rejected' }).map((e) => e.data.reason)).toContain(why);
  expect(cluster.requestVersions.list(clientId))
    .toEqual([expect.objectContaining({ apiKey: schema.apiKey, version: max + 1, served: false, count: 1 })]);
  const res =
    await bystander.request(Metadata, 8, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  expect(res.brokers).toHaveLength(1);
  bystander.close();
});

test('a request below a handler\'s minimum version also closes the connection', async () => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const min = registry.get(9)!.minVersion; // OffsetFetch v0 (ZooKeeper offsets) is not served
  expect(min).toBe(1);
  c.write(frameRequest({ apiKey: 9, apiVersion: 0, correlationId: 1, clientId: 'x' }, false, (w) => w.nullableString('g', false).int32(0)));
  await c.waitClosed();
});

/** A magic-0 or -1 message with a correct CRC-32 (KIP-32 layout). */
function oldMessage(magic: 0 | 1, offset: bigint, key: string | null, value: string, timestamp = 1234n, attributes = 0): Buffer {
  const k = key === null ? null : Buffer.from(key);
  const v = Buffer.from(value);
  const body = Buffer.alloc(1 + 1 + (magic === 1 ? 8 : 0) + 4 + (k?.length ?? 0) + 4 + v.length);
  let p = 0;
  p = body.writeInt8(magic, p);
  p = body.writeInt8(attributes, p);
  if (magic === 1) p = body.writeBigInt64BE(timestamp, p);
  p = body.writeInt32BE(k ? k.length : -1, p);
  if (k) p += k.copy(body, p);
  p = body.writeInt32BE(v.length, p);
  v.copy(body, p);
  const head = Buffer.alloc(16);
  head.writeBigInt64BE(offset, 0);
  head.writeInt32BE(4 + body.length, 8);
  head.writeUInt32BE(zlib.crc32(body), 12);
  return Buffer.concat([head, body]);
}

test('Produce v0-v2 message sets (magic 0 and 1, plain or in a gzip wrapper) are up-converted to magic 2 and stored', async () => {
  cluster.createTopic('old-format', 1);
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const sets: [number, Buffer][] = [
    [0, oldMessage(0, 0n, 'k0', 'v0')],
    [1, Buffer.concat([oldMessage(1, 0n, 'k1', 'v1', 1000n), oldMessage(1, 1n, null, 'v2', 1001n)])],
    [2, Buffer.alloc(0)],
  ];
  // v2: a gzip wrapper (attributes 1) whose value is a compressed set of two magic-1 messages.
  sets[2][1] = (() => {
    const inner = zlib.gzipSync(Buffer.concat([oldMessage(1, 0n, 'k3', 'v3', 2000n), oldMessage(1, 1n, 'k4', 'v4', 2001n)]));
    const body = Buffer.alloc(1 + 1 + 8 + 4 + 4 + inner.length);
    body.writeInt8(1, 0); body.writeInt8(1, 1); body.writeBigInt64BE(2001n, 2); body.writeInt32BE(-1, 10);
      body.writeInt32BE(inner.length, 14);
    inner.copy(body, 18);
    const head = Buffer.alloc(16);
    head.writeBigInt64BE(1n, 0); head.writeInt32BE(4 + body.length, 8); head.writeUInt32BE(zlib.crc32(body), 12);
    return Buffer.concat([head, body]);
  })();
  for (const [v, records] of sets) {
    const res = await c.request(Produce, v,
      { acks: 1, timeoutMs: 1000, topicData: [{ name: 'old-format', partitionData: [{ index: 0, records }] }] });
    expect(res.responses[0].partitionResponses[0].errorCode).toBe(0);
  }
  const stored = cluster.inspect.batches('old-format', 0).flatMap((b) => decodeBatch(b.bytes).records);
  expect(stored.map((r) => [r.offset, r.key?.toString() ?? null, r.value?.toString(), r.timestamp])).toEqual([
    [0n, 'k0', 'v0', -1n], [1n, 'k1', 'v1', 1000n], [2n, null, 'v2', 1001n], [3n, 'k3', 'v3', 2000n], [4n, 'k4', 'v4', 2001n],
  ]);
  // A message whose CRC does not match is CORRUPT_MESSAGE, and nothing is appended.
  const bad = oldMessage(1, 0n, 'k', 'v');
  bad[bad.length - 1] ^= 0xff;
  const res = await c.request(Produce, 2,
    { acks: 1, timeoutMs: 1000, topicData: [{ name: 'old-format', partitionData: [{ index: 0, records: bad }] }] });
  expect(res.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
  expect(cluster.partitions('old-format')[0].highWatermark).toBe(5);
  c.close();
});
