/**
 * Snappy, LZ4 and Zstandard: codec round trips (including the xerial snappy framing of the Java
 * client and our stored-block zstd frames), and KafkaJS producing and consuming each codec
 * through the mock with the adapters from compression.ts.
 */
import { CompressionCodecs, CompressionTypes, Kafka, logLevel } from 'kafkajs';
import * as snappyjs from 'snappyjs';
import { decompress as fzstd } from 'fzstd';
import { kafkajsCodecs, lz4Codec, snappyCodec, zstdCodec, zstdStoredFrame } from '../../../src/protocol/compression';
import { Compression, decodeBatch, encodeBatch } from '../../../src/protocol/record-batch';
import { MockCluster } from '../../../src/testing/mock-broker';
import { until } from '../../helpers/until';

jest.setTimeout(60000);

const sample = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => `record-${i % 97}-${(i * 7919) % 1000};`).join(''));

describe('codecs', () => {
  test.each([
    ['snappy', snappyCodec], ['lz4', lz4Codec], ['zstd', zstdCodec],
  ] as const)('%s round-trips empty, small and multi-block inputs', (_name, codec) => {
    for (const input of [Buffer.alloc(0), Buffer.from('x'), sample(50), sample(60000)]) {
      expect(codec.decompress(codec.compress(input))).toEqual(input);
    }
  });

  test('snappy decompression reads the xerial framing of the Java client', () => {
    const a = sample(100);
    const b = sample(300);
    const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
    const block = (x: Buffer) => {
      const c = Buffer.from(snappyjs.compress(x));
      const size = Buffer.alloc(4);
      size.writeInt32BE(c.length);
      return Buffer.concat([size, c]);
    };
    expect(snappyCodec.decompress(Buffer.concat([header, block(a), block(b)]))).toEqual(Buffer.concat([a, b]));
    expect(() => snappyCodec.decompress(Buffer.concat([header, Buffer.from([0, 0, 1, 0])]))).toThrow();
  });

  test('stored zstd frames are valid zstd (read by fzstd), across the 128 KiB block limit', () => {
    for (const n of [0, 1, 131072, 131073, 300000]) {
      const input = sample(n).subarray(0, n);
      const frame = zstdStoredFrame(input);
      expect(frame.readUInt32LE(0)).toBe(0xfd2fb528);
      expect(Buffer.from(fzstd(frame))).toEqual(input);
    }
  });

  test('lz4 output is an LZ4 frame (magic 0x184D2204); other input is refused', () => {
    const frame = lz4Codec.compress(sample(1000));
    expect(frame.readUInt32LE(0)).toBe(0x184d2204);
    expect(() => lz4Codec.decompress(Buffer.from('not lz4 at all'))).toThrow();
  });

  test.each([Compression.Snappy, Compression.Lz4, Compression.Zstd])('encodeBatch/decodeBatch with codec %i', (compression) => {
    const batch = encodeBatch({ compression, records: [{ key: 'k1', value: 'v1' }, { key: null, value: sample(2000) }] });
    expect(batch.readInt16BE(21) & 7).toBe(compression);
    const { records } = decodeBatch(batch);
    expect(records.map((r) => r.value?.toString())).toEqual(['v1', sample(2000).toString()]);
  });
});

describe('KafkaJS with the codec adapters', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    Object.assign(CompressionCodecs, kafkajsCodecs);
    cluster = await MockCluster.start({ brokers: 1 });
  });
  afterAll(async () => { await cluster.stop(); });

  test.each([
    ['snappy', CompressionTypes.Snappy, Compression.Snappy],
    ['lz4', CompressionTypes.LZ4, Compression.Lz4],
    ['zstd', CompressionTypes.ZSTD, Compression.Zstd],
    ['gzip', CompressionTypes.GZIP, Compression.Gzip],
  ] as const)('%s: produced, stored compressed, consumed back', async (name, kjsType, ours) => {
    const topic = `codec-${name}`;
    cluster.createTopic(topic, 1);
    const kafka = new Kafka({ clientId: `c-${name}`, brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const values = Array.from({ length: 20 }, (_, i) => `${name}-${i}-${'z'.repeat(i * 10)}`);
    await producer.send({ topic, compression: kjsType, messages: values.map((value, i) => ({ key: `k${i}`, value })) });
    await producer.disconnect();

    const stored = cluster.inspect.batches(topic, 0);
    expect(stored.length).toBeGreaterThan(0);
    for (const b of stored) expect(b.bytes.readInt16BE(21) & 7).toBe(ours);
    expect(stored.flatMap((b) => decodeBatch(b.bytes).records.map((r) => r.value?.toString()))).toEqual(values);

    const consumer = kafka.consumer({ groupId: `g-${name}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => { seen.push(message.value!.toString()); } });
    await until(() => seen.length >= values.length, 'every record', 45000);
    await consumer.disconnect();
    expect(seen).toEqual(values);
  });
});
