/**
 * Decompression bombs: a compressed batch whose records would decompress past the cluster's bound
 * (`maxDecompressedBatchBytes`, default 32 MiB) is refused with MESSAGE_TOO_LARGE and never appended;
 * a compressed batch whose records do not parse is CORRUPT_MESSAGE (Kafka's LogValidator checks them
 * on produce too). The bombs are built without ever holding their decompressed bytes in this process.
 */
import * as zlib from 'node:zlib';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { ListOffsets, Produce } from '../../../src/protocol/messages/data';
import { Compression, DecompressedTooLargeError, decodeBatch, encodeBatch } from '../../../src/protocol/record-batch';
import { lz4Codec, snappyCodec, zstdCodec } from '../../../src/protocol/compression';
import { crc32c } from '../../../src/protocol/crc32c';
import { RawClient } from './raw-client';

const MiB = 1024 * 1024;

/** A valid magic-2 batch header around an arbitrary (already compressed) records section. */
function batchAround(payload: Buffer, compression: Compression, recordCount = 1): Buffer {
  const head = encodeBatch({ records: [{ value: 'x' }] }).subarray(0, 61);
  const out = Buffer.concat([head, payload]);
  out.writeInt32BE(out.length - 12, 8);
  out.writeInt16BE(compression, 21);
  out.writeInt32BE(recordCount - 1, 23);
  out.writeInt32BE(recordCount, 57);
  out.writeUInt32BE(crc32c(out, 21), 17);
  return out;
}

/** `members` gzip members of 1 MiB of zeros each: gunzip reads them as one stream. */
function gzipBomb(members: number): Buffer {
  const one = zlib.gzipSync(Buffer.alloc(MiB));
  return Buffer.concat(Array.from({ length: members }, () => one));
}

/** A zstd frame of `total` bytes of zeros made of RLE blocks (4 bytes per 128 KiB), with or without a content size. */
function zstdBomb(total: number, declare: boolean): Buffer {
  const header = declare ? Buffer.alloc(9) : Buffer.alloc(6);
  header.writeUInt32LE(0xfd2fb528, 0);
  if (declare) {
    header.writeUInt8(0b1010_0000, 4); // 4-byte content size, single segment
    header.writeUInt32LE(total, 5);
  } else {
    header.writeUInt8(0, 4);
    header.writeUInt8(0x58, 5); // window descriptor
  }
  const blocks = Math.ceil(total / 131072);
  const parts = [header];
  for (let i = 0; i < blocks; i++) {
    const b = Buffer.alloc(4);
    b.writeUIntLE((131072 << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0), 0, 3);
    parts.push(b);
  }
  return Buffer.concat(parts);
}

const produce = (topic: string, records: Buffer) =>
  ({ transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const partitionOf = (res: Record<string, any>) => res.responses[0].partitionResponses[0];

describe('codecs never decompress past the bound', () => {
  test.each([
    ['zstd with a declared content size', () => zstdBomb(400 * MiB, true), zstdCodec.decompress],
    ['zstd without one', () => zstdBomb(400 * MiB, false), zstdCodec.decompress],
    ['snappy', () => Buffer.from(snappy.compress(Buffer.alloc(8 * MiB))), snappyCodec.decompress],
    ['lz4', () => Buffer.from(lz4.compress(Buffer.alloc(8 * MiB))), lz4Codec.decompress],
  ] as const)('%s: a bomb throws DecompressedTooLargeError', (_name, make, decompress) => {
    const bomb = make();
    expect(() => decompress(bomb, MiB)).toThrow(DecompressedTooLargeError);
    // Under the bound the same codec still works.
    expect(decompress(bomb, 512 * MiB).length).toBeGreaterThan(MiB);
  });

  test('a zstd frame that declares less than its blocks produce stops at the declared size', () => {
    const lying = zstdBomb(400 * MiB, true);
    lying.writeUInt32LE(MiB, 5);
    expect(zstdCodec.decompress(lying, 2 * MiB).length).toBeLessThanOrEqual(MiB);
  });

  test('decodeBatch (ListOffsets by timestamp, inspection) is bounded too', () => {
    const batch = batchAround(gzipBomb(64), Compression.Gzip);
    expect(() => decodeBatch(batch, 4 * MiB)).toThrow(DecompressedTooLargeError);
  });
});

describe('produce refuses decompression bombs', () => {
  let cluster: MockCluster;
  beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1 }); });
  afterAll(async () => { await cluster.stop(); });

  test.each([
    ['gzip (400 members of 1 MiB of zeros)', () => batchAround(gzipBomb(400), Compression.Gzip)],
    ['zstd (400 MiB of RLE blocks, content size declared)', () => batchAround(zstdBomb(400 * MiB, true), Compression.Zstd)],
    ['zstd (400 MiB of RLE blocks, no content size)', () => batchAround(zstdBomb(400 * MiB, false), Compression.Zstd)],
  ] as const)('%s is MESSAGE_TOO_LARGE at the default 32 MiB bound, and nothing is appended', async (_name, make) => {
    const topic = `bomb-${Math.random().toString(36).slice(2)}`;
    cluster.createTopic(topic, 1);
    const bomb = make();
    expect(bomb.length).toBeLessThan(MiB);
    const c = await RawClient.connect(cluster.bootstrap[0]);
    const rssBefore = process.memoryUsage().rss;
    const res = partitionOf(await c.request(Produce, 8, produce(topic, bomb)));
    expect(res.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(res.errorMessage).toMatch(/bound of 33554432/);
    expect(cluster.partitions(topic)[0].highWatermark).toBe(0);
    // The 400 MiB were never materialised (generous margin: the bound itself is 32 MiB).
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * MiB);
    c.close();
  });

  test('ListOffsets by timestamp after a refused bomb answers at once (the bomb is not in the log)', async () => {
    cluster.createTopic('bomb-then-list', 1);
    const c = await RawClient.connect(cluster.bootstrap[0]);
    await c.request(Produce, 8, produce('bomb-then-list', batchAround(gzipBomb(100), Compression.Gzip)));
    const ok = partitionOf(await c.request(Produce, 8,
      produce('bomb-then-list', encodeBatch({ records: [{ value: 'v', timestamp: 5000n }], compression: Compression.Gzip }))));
    expect(ok.errorCode).toBe(0);
    const res = await c.request(ListOffsets, 5, { replicaId: -1, isolationLevel: 0,
      topics: [{ name: 'bomb-then-list', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: 1000n }] }] });
    expect(res.topics[0].partitions[0]).toMatchObject({ errorCode: 0, offset: 0n, timestamp: 5000n });
    c.close();
  });

  test('a compressed batch whose records do not parse is CORRUPT_MESSAGE', async () => {
    cluster.createTopic('garbage', 1);
    const c = await RawClient.connect(cluster.bootstrap[0]);
    const garbage = batchAround(zlib.gzipSync(Buffer.from([0x7f, 0x7f, 0x7f, 0x01, 0x02])), Compression.Gzip);
    const res = partitionOf(await c.request(Produce, 8, produce('garbage', garbage)));
    expect(res.errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    const fewer = batchAround(zlib.gzipSync(Buffer.alloc(0)), Compression.Gzip, 3); // says 3 records, has none
    expect(partitionOf(await c.request(Produce, 8, produce('garbage', fewer))).errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(cluster.partitions('garbage')[0].highWatermark).toBe(0);
    c.close();
  });

  test('pipelined requests of one connection append in request order even when the first is compressed', async () => {
    cluster.createTopic('order', 1);
    const c = await RawClient.connect(cluster.bootstrap[0]);
    const records = Array.from({ length: 2000 }, (_, i) => ({ value: `compressed-${i}`.repeat(20) }));
    c.write(c.frame(Produce, 8, produce('order', encodeBatch({ records, compression: Compression.Gzip })), 901));
    c.write(c.frame(Produce, 8, produce('order', encodeBatch({ records: [{ value: 'plain' }] })), 902));
    await c.nextFrame();
    await c.nextFrame();
    expect(cluster.partitions('order')[0].highWatermark).toBe(2001);
    const [first, second] = cluster.inspect.batches('order', 0);
    expect(first.baseOffset).toBe(0);
    expect(second.baseOffset).toBe(2000);
    expect(decodeBatch(second.bytes).records[0].value?.toString()).toBe('plain');
    c.close();
  });
});

describe('a smaller configured bound', () => {
  let cluster: MockCluster;
  beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1, maxDecompressedBatchBytes: MiB }); });
  afterAll(async () => { await cluster.stop(); });

  test.each([
    ['Gzip', Compression.Gzip], ['Snappy', Compression.Snappy], ['Lz4', Compression.Lz4], ['Zstd', Compression.Zstd],
  ] as const)('%s: 2 MiB of records is refused, 100 KiB accepted', async (name, compression) => {
    const topic = `bound-${name}`;
    cluster.createTopic(topic, 1);
    const c = await RawClient.connect(cluster.bootstrap[0]);
    const big = encodeBatch({ records: Array.from({ length: 32 }, () => ({ value: Buffer.alloc(64 * 1024, 7) })), compression });
    expect(partitionOf(await c.request(Produce, 8, produce(topic, big))).errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    const small = encodeBatch({ records: Array.from({ length: 10 }, () => ({ value: Buffer.alloc(10 * 1024, 7) })), compression });
    expect(partitionOf(await c.request(Produce, 8, produce(topic, small)))).toMatchObject({ errorCode: 0, baseOffset: 0n });
    expect(cluster.partitions(topic)[0].highWatermark).toBe(10);
    c.close();
  });
});
