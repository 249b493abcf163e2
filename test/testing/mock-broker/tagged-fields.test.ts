/**
 * Hand-built flexible frames against a running broker: tagged fields as Kafka's generated readers
 * take them (unknown tags skipped, any order, a repeated tag overwriting), and frames no reader can
 * parse (a tag size or a compact length past the frame, absurd counts) closing their own connection
 * only: the broker keeps answering on new connections.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { ApiVersions } from '../../../src/protocol/messages/data';
import { RawClient } from './raw-client';

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1 }); });
afterAll(async () => { await cluster.stop(); });

const uv = (n: number) => {
  const o: number[] = [];
  while (n > 0x7f) { o.push((n & 0x7f) | 0x80); n >>>= 7; }
  o.push(n);
  return Buffer.from(o);
};
const cstr = (s: string) => Buffer.concat([uv(Buffer.byteLength(s) + 1), Buffer.from(s)]);
const NO_TAGS = uv(0);

/** A request frame: header v2 (client id "raw", then `headerTags`), then `body`. */
function frame(apiKey: number, version: number, headerTags: Buffer, body: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.writeInt16BE(apiKey, 0);
  h.writeInt16BE(version, 2);
  h.writeInt32BE(7, 4);
  const payload = Buffer.concat([h, Buffer.from([0, 3]), Buffer.from('raw'), headerTags, body]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length);
  return Buffer.concat([size, payload]);
}

/** Sends one frame on a new connection: the response's error code (ApiVersions), or 'closed'. */
async function send(bytes: Buffer): Promise<number | 'closed'> {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  try {
    c.write(bytes);
    const f = await c.nextFrame();
    if (f === null) return 'closed';
    expect(f.readInt32BE(0)).toBe(7); // correlation id (ApiVersions answers with header v0)
    return f.readInt16BE(4);
  } finally { c.close(); }
}

const apiVersions = (tags: Buffer, headerTags = NO_TAGS) => frame(18, 3, headerTags, Buffer.concat([cstr('raw'), cstr('1'), tags]));
const tag = (t: number, bytes: number[]) => Buffer.concat([uv(t), uv(bytes.length), Buffer.from(bytes)]);

test.each([
  ['no tags', NO_TAGS],
  ['an unknown tag', Buffer.concat([uv(1), tag(99, [1, 2, 3])])],
  ['unknown tags in descending order', Buffer.concat([uv(2), tag(99, [1]), tag(98, [2])])],
  ['a repeated unknown tag', Buffer.concat([uv(2), tag(99, [1]), tag(99, [2])])],
])('ApiVersions v3 with %s in the body is answered (NONE)', async (_name, tags) => {
  expect(await send(apiVersions(tags))).toBe(0);
});

test('an unknown tag in the request header v2 is skipped', async () => {
  expect(await send(apiVersions(NO_TAGS, Buffer.concat([uv(1), tag(5, [9, 9])])))).toBe(0);
});

/** Fetch v12 up to its topics: replicaId, maxWaitMs, minBytes, maxBytes, isolationLevel, sessionId, sessionEpoch. */
function fetchHead(): Buffer {
  const b = Buffer.alloc(25);
  b.writeInt32BE(-1, 0); b.writeInt32BE(10, 4); b.writeInt32BE(1, 8); b.writeInt32BE(1000, 12);
  b.writeInt8(0, 16); b.writeInt32BE(0, 17); b.writeInt32BE(-1, 21);
  return b;
}

test.each([
  ['a tag whose size runs past the frame', apiVersions(Buffer.concat([uv(1), uv(99), uv(1000), Buffer.from([1])]))],
  ['a body tag count of 2^31-1', apiVersions(uv(0x7fffffff))],
  ['a header tag count of 2^28-1', apiVersions(NO_TAGS, uv(0xfffffff))],
  ['a Fetch v12 topics array of 2^27 entries', frame(1, 12, NO_TAGS, Buffer.concat([fetchHead(), uv(0x7ffffff0)]))],
  ['a Fetch v12 topic name of 2^27 bytes', frame(1, 12, NO_TAGS, Buffer.concat([fetchHead(), uv(2), uv(0x7ffffff0)]))],
])('%s closes that connection only; the broker keeps serving', async (_name, bytes) => {
  expect(await send(bytes)).toBe('closed');
  const c = await RawClient.connect(cluster.bootstrap[0]);
  expect((await c.request(ApiVersions, 3, { clientSoftwareName: 'a', clientSoftwareVersion: '1' })).errorCode).toBe(0);
  c.close();
});
