/**
 * consumer/codecs.ts: what registerKafkaJsCodecs puts into KafkaJS's CompressionCodecs table, what it
 * leaves alone, and the typed errors of unreadable batches.
 */
import * as kafkajs from 'kafkajs';
import { KAFKAJS_CODECS, MAX_DECOMPRESSED_BATCH_BYTES, registerKafkaJsCodecs } from '../../src/consumer/codecs';
import { CorruptRecordBatchError, UnsupportedCompressionError } from '../../src/consumer/errors';
import { lz4Codec, nativeZstdCompress, snappyCodec, zstdCodec } from '../../src/protocol/compression';

type Table = Record<number, (() => { compress(e: { buffer: Buffer }): Promise<Buffer>; decompress(b: Buffer): Promise<Buffer> }) |
  undefined>;

/** A fresh table as KafkaJS 2.2.4 ships it: gzip, and stubs that throw KafkaJSNotImplemented. */
function kafkaJsDefaults(): Table {
  const stub = (name: string) => () => { throw new kafkajs.KafkaJSNonRetriableError(name) as never; };
  const notImplemented = (name: string) => () => {
    const e = new Error(`${name} compression not implemented`);
    e.name = 'KafkaJSNotImplemented';
    throw e;
  };
  return { 1: stub('gzip') as never, 2: notImplemented('Snappy'), 3: notImplemented('LZ4'), 4: notImplemented('ZSTD') };
}

const payload = Buffer.from(Array.from({ length: 400 }, (_, i) => `record-${i % 17}`).join(','));

describe('registerKafkaJsCodecs', () => {
  test('loading the consumer registers snappy, lz4 and zstd in kafkajs itself', async () => {
    const table = kafkajs.CompressionCodecs as unknown as Table;
    expect(() => table[4]!()).toThrow('ZSTD compression not implemented');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded here, after the check above
    require('../../src/consumer/group-consumer');
    for (const [type, codec] of [[2, snappyCodec], [3, lz4Codec], [4, zstdCodec]] as const) {
      const decoded = await table[type]!().decompress(codec.compress(payload));
      expect(decoded.equals(payload)).toBe(true);
    }
  });

  test('replaces KafkaJS stubs, installs refusing codecs for ids 5-7, and is idempotent', () => {
    const table = kafkaJsDefaults();
    const gzip = table[1];
    expect(registerKafkaJsCodecs(table)).toEqual(['snappy', 'lz4', 'zstd']);
    expect(table[1]).toBe(gzip);
    expect(table[2]).toBe(KAFKAJS_CODECS[2]);
    expect(table[3]).toBe(KAFKAJS_CODECS[3]);
    expect(table[4]).toBe(KAFKAJS_CODECS[4]);
    for (const id of [5, 6, 7]) expect(typeof table[id]).toBe('function');
    expect(registerKafkaJsCodecs(table)).toEqual([]);
  });

  test("keeps a codec the user registered (e.g. kafkajs-snappy) in its slot", () => {
    const table = kafkaJsDefaults();
    const theirs = () => ({ compress: async () => Buffer.alloc(0), decompress: async () => Buffer.from('theirs') });
    table[2] = theirs;
    expect(registerKafkaJsCodecs(table)).toEqual(['lz4', 'zstd']);
    expect(table[2]).toBe(theirs);
  });

  test('a batch with codec id 5, 6 or 7 is refused with UNSUPPORTED_COMPRESSION naming the id', async () => {
    const table = kafkaJsDefaults();
    registerKafkaJsCodecs(table);
    for (const id of [5, 6, 7]) {
      const err = await table[id]!().decompress(Buffer.from('x')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsupportedCompressionError);
      expect(err).toMatchObject({ code: 'UNSUPPORTED_COMPRESSION', codec: id, retriable: false });
      expect((err as Error).message).toContain(`codec id ${id}`);
      expect((err as Error).message).toMatch(/^cannot read a batch compressed with/);
      const produced = await table[id]!().compress({ buffer: Buffer.from('x') }).catch((e: unknown) => e);
      expect(produced).toMatchObject({ code: 'UNSUPPORTED_COMPRESSION', codec: id, operation: 'write' });
      expect((produced as Error).message).toMatch(new RegExp(`^cannot compress a batch with ${id} to produce it`));
    }
  });

  test('at() names the partition and fetch offset in the message', () => {
    const err = new UnsupportedCompressionError(6, 'not defined').at({ topic: 'orders', partition: 3, fetchOffset: '42' });
    expect(err.message).toContain('orders:3, fetched at offset 42');
    expect(err.location).toEqual({ topic: 'orders', partition: 3, fetchOffset: '42' });
  });
});

describe('the registered codecs', () => {
  test.each([[2, 'snappy', snappyCodec], [3, 'lz4', lz4Codec]] as const)('%s (%s) round-trips through KafkaJS\'s interface',
    async (id, _name, codec) => {
    const impl = KAFKAJS_CODECS[id]();
    const compressed = await impl.compress({ buffer: payload });
    expect(compressed.length).toBeLessThan(payload.length);
    expect((await impl.decompress(compressed)).equals(payload)).toBe(true);
    expect(codec.decompress(compressed).equals(payload)).toBe(true);
  });

  test('snappy reads the xerial framing the Java client writes', async () => {
    const block = snappyCodec.compress(payload);
    const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
    const size = Buffer.alloc(4);
    size.writeInt32BE(block.length);
    const framed = Buffer.concat([header, size, block]);
    expect((await KAFKAJS_CODECS[2]().decompress(framed)).equals(payload)).toBe(true);
  });

  test('zstd decompresses on every Node.js; compresses only with node:zlib zstd, else refuses by code', async () => {
    const impl = KAFKAJS_CODECS[4]();
    expect((await impl.decompress(zstdCodec.compress(payload))).equals(payload)).toBe(true);
    if (nativeZstdCompress) {
      const compressed = await impl.compress({ buffer: payload });
      expect(compressed.length).toBeLessThan(payload.length);
      expect((await impl.decompress(compressed)).equals(payload)).toBe(true);
    } else {
      const err = await impl.compress({ buffer: payload }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'UNSUPPORTED_COMPRESSION', codec: 'zstd', operation: 'write' });
      expect((err as Error).message).toMatch(/^cannot compress a batch with zstd to produce it: .*Node\.js 22\.15/);
      expect((err as Error).message).not.toContain('cannot read');
    }
  });

  test.each([[2, 'snappy'], [3, 'lz4'], [4, 'zstd']] as const)('corrupt %s data is RECORD_BATCH_CORRUPT, not a crash of another kind',
    async (id, name) => {
    const err = await KAFKAJS_CODECS[id]().decompress(Buffer.from('definitely not compressed data')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptRecordBatchError);
    expect(err).toMatchObject({ code: 'RECORD_BATCH_CORRUPT', codec: name, retriable: false });
  });

  test('a zstd frame declaring more than MAX_DECOMPRESSED_BATCH_BYTES is refused before allocating', async () => {
    // A single-segment frame header declaring 2^31 bytes (8-byte content size), then one empty last raw block.
    const frame = Buffer.alloc(4 + 1 + 8 + 3);
    frame.writeUInt32LE(0xfd2fb528, 0);
    frame.writeUInt8(0b11_1_00_0_00, 4);
    frame.writeBigUInt64LE(BigInt(MAX_DECOMPRESSED_BATCH_BYTES) * 8n, 5);
    frame.writeUIntLE(1, 13, 3);
    const err = await KAFKAJS_CODECS[4]().decompress(frame).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'RECORD_BATCH_CORRUPT', codec: 'zstd' });
  });
});
