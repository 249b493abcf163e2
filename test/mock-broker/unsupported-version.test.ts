/**
 * Requests above a handler's maximum version: ApiVersions gets a v0 response with
 * UNSUPPORTED_VERSION and the supported ranges (KIP-511); any other API closes the connection,
 * as Kafka's SocketServer does. Other connections are unaffected.
 */
import { MockCluster } from '../../src/mock-broker';
import { createRegistry } from '../../src/mock-broker/handlers';
import { ErrorCode } from '../../src/mock-broker/protocol/error-codes';
import { frameRequest } from '../../src/mock-broker/protocol/frame';
import { Reader } from '../../src/mock-broker/protocol/primitives';
import { decodeResponse } from '../../src/mock-broker/protocol/schema';
import { ApiVersions, Metadata, Produce } from '../../src/mock-broker/protocol/messages/data';
import { DescribeGroups, ListGroups } from '../../src/mock-broker/protocol/messages/admin';
import { RawClient } from './raw-client';

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1 }); });
afterAll(async () => { await cluster.stop(); });

const registry = createRegistry();

test('ApiVersions above v3 is answered with a v0 UNSUPPORTED_VERSION response listing every range', async () => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  // A v9 request: flexible header and a body the broker must not try to read.
  c.write(frameRequest({ apiKey: 18, apiVersion: 9, correlationId: 77, clientId: 'future' }, true, (w) => w.raw(Buffer.from([1, 2, 3, 4, 5]))));
  const frame = await c.nextFrame();
  expect(frame).not.toBeNull();
  const r = new Reader(frame!);
  expect(r.int32()).toBe(77);
  const res = decodeResponse(ApiVersions, 0, r); // header v0, body v0
  expect(r.remaining).toBe(0);
  expect(res.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
  const advertised = new Map(res.apiKeys.map((k: { apiKey: number; minVersion: number; maxVersion: number }) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  expect(advertised.get(18)).toEqual([0, 3]);
  for (const h of registry.values()) expect(advertised.get(h.schema.apiKey)).toEqual([h.minVersion, h.maxVersion]);
  // The connection stays usable: a supported ApiVersions follows.
  const ok = await c.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  expect(ok.errorCode).toBe(0);
  c.close();
});

test.each([
  ['Metadata', Metadata], ['ListGroups', ListGroups], ['DescribeGroups', DescribeGroups],
] as const)('%s above its maximum version closes only that connection', async (_name, schema) => {
  const max = registry.get(schema.apiKey)!.maxVersion;
  const bystander = await RawClient.connect(cluster.bootstrap[0]);
  const c = await RawClient.connect(cluster.bootstrap[0]);
  c.write(frameRequest({ apiKey: schema.apiKey, apiVersion: max + 1, correlationId: 5, clientId: 'x' }, true, (w) => w.uvarint(1).uvarint(0)));
  await c.waitClosed();
  expect(await c.nextFrame()).toBeNull(); // no response was written
  const res = await bystander.request(Metadata, 8, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
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

test('Produce v0-v2 is advertised (librdkafka gates compression on it) but old message formats are refused, not stored', async () => {
  cluster.createTopic('old-format', 1);
  const c = await RawClient.connect(cluster.bootstrap[0]);
  // A magic-1 message set: offset, size, crc, magic 1, attributes, timestamp, key, value.
  const msg = Buffer.alloc(8 + 4 + 4 + 1 + 1 + 8 + 4 + 4 + 1);
  msg.writeInt32BE(msg.length - 12, 8);
  msg.writeInt8(1, 16);
  msg.writeInt32BE(-1, 26);
  msg.writeInt32BE(1, 30);
  for (const v of [0, 1, 2]) {
    const res = await c.request(Produce, v, { acks: 1, timeoutMs: 1000, topicData: [{ name: 'old-format', partitionData: [{ index: 0, records: msg }] }] });
    expect(res.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT);
  }
  expect(cluster.partitions('old-format')[0].highWatermark).toBe(0);
  c.close();
});
