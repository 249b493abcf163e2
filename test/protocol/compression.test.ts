/** The codecs' decoders refuse malformed input with INVALID_RECORDS (typed), never a plain Error. */
import { lz4Codec, snappyCodec, zstdCodec } from '../../src/protocol/compression';
import { Compression, decompress, InvalidRecordsError } from '../../src/protocol/record-batch';

test.each([
  ['snappy', snappyCodec, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
  ['lz4', lz4Codec, Buffer.from('not an lz4 frame')],
  ['zstd', zstdCodec, Buffer.from('not a zstd frame')],
])('%s: bytes that are no frame are INVALID_RECORDS', (_name, codec, bytes) => {
  expect(() => codec.decompress(bytes)).toThrow(expect.objectContaining({ code: 'INVALID_RECORDS' }));
});

test('decompress names the codec and keeps the batch-level error type', () => {
  expect(() => decompress(Compression.Lz4, Buffer.from('garbage!'))).toThrow(InvalidRecordsError);
  expect(() => decompress(Compression.Lz4, Buffer.from('garbage!'))).toThrow(/cannot decompress Lz4 batch: not an LZ4 frame/);
});

test.each([['snappy', snappyCodec], ['lz4', lz4Codec], ['zstd', zstdCodec]])('%s round-trips', (_name, codec) => {
  const data = Buffer.from('kafka-eos '.repeat(500));
  expect(codec.decompress(codec.compress(data))).toEqual(data);
});
