/**
 * Snappy, LZ4 and Zstandard for record batches, registered into record-batch.ts's `codecs` map
 * when this module is imported (gzip is built in there). The broker stores and serves batches as
 * the producer sent them; decompression is for ListOffsets by timestamp, inspection and tests.
 *
 * - Snappy: raw snappy blocks (what librdkafka and KafkaJS codecs write). Decompression also
 *   reads the xerial framing the Java client writes (magic \x82SNAPPY\0, then size-prefixed
 *   blocks). Library: snappyjs (pure JS).
 * - LZ4: the LZ4 frame format with a correct header checksum (Kafka ≥ 0.10, KIP-57).
 *   Library: lz4js (pure JS).
 * - Zstandard: decompression by fzstd (pure JS). Compression uses node:zlib's zstd when the
 *   Node version has it (22.15+), else writes a valid zstd frame of raw (stored) blocks: any zstd
 *   decoder reads it, it is just not smaller. Tests and the mock need the format, not the ratio.
 *
 * `kafkajsCodecs` adapts these to KafkaJS's codec interface, so a test can make KafkaJS
 * produce and consume snappy, lz4 and zstd:
 * ```ts
 * import { CompressionCodecs } from 'kafkajs';
 * Object.assign(CompressionCodecs, kafkajsCodecs);
 * ```
 */
import * as zlib from 'node:zlib';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';
import { decompress as zstdDecompress } from 'fzstd';
import { Codec, codecs, Compression } from './record-batch';

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
/** Magic (8) + version (4) + compatible version (4). */
const XERIAL_HEADER_BYTES = 16;

function snappyDecompress(b: Buffer): Buffer {
  if (b.length >= XERIAL_HEADER_BYTES && b.subarray(0, 8).equals(XERIAL_MAGIC)) {
    const parts: Buffer[] = [];
    let at = XERIAL_HEADER_BYTES;
    while (at < b.length) {
      if (at + 4 > b.length) throw new Error('truncated xerial snappy block size');
      const size = b.readInt32BE(at);
      at += 4;
      if (size < 0 || at + size > b.length) throw new Error(`xerial snappy block of ${size} bytes does not fit`);
      parts.push(Buffer.from(snappy.uncompress(b.subarray(at, at + size))));
      at += size;
    }
    return Buffer.concat(parts);
  }
  return Buffer.from(snappy.uncompress(b));
}

export const snappyCodec: Codec = {
  compress: (b) => Buffer.from(snappy.compress(b)),
  decompress: snappyDecompress,
};

export const lz4Codec: Codec = {
  compress: (b) => Buffer.from(lz4.compress(b)),
  decompress: (b) => {
    if (b.length < 7 || b.readUInt32LE(0) !== 0x184d2204) throw new Error('not an LZ4 frame');
    return Buffer.from(lz4.decompress(b));
  },
};

const ZSTD_MAGIC = 0xfd2fb528;
const ZSTD_MAX_BLOCK = 128 * 1024;

/** A zstd frame of raw blocks (RFC 8878 §3.1): single segment, 4-byte content size, no checksum. */
export function zstdStoredFrame(b: Buffer): Buffer {
  const blocks = Math.max(1, Math.ceil(b.length / ZSTD_MAX_BLOCK));
  const out = Buffer.alloc(4 + 1 + 4 + blocks * 3 + b.length);
  out.writeUInt32LE(ZSTD_MAGIC, 0);
  out.writeUInt8(0b10_1_00_0_00, 4); // FCS field 4 bytes, single segment, no checksum, no dictionary
  out.writeUInt32LE(b.length, 5);
  let at = 9;
  for (let i = 0; i < blocks; i++) {
    const chunk = b.subarray(i * ZSTD_MAX_BLOCK, Math.min(b.length, (i + 1) * ZSTD_MAX_BLOCK));
    const last = i === blocks - 1 ? 1 : 0;
    const header = (chunk.length << 3) | (0 << 1) | last; // block type 0 = raw
    out.writeUIntLE(header, at, 3);
    chunk.copy(out, at + 3);
    at += 3 + chunk.length;
  }
  return out;
}

type ZlibWithZstd = typeof zlib & { zstdCompressSync?: (b: Buffer) => Buffer };
const nativeZstd = (zlib as ZlibWithZstd).zstdCompressSync;

export const zstdCodec: Codec = {
  compress: (b) => (nativeZstd ? nativeZstd(b) : zstdStoredFrame(b)),
  decompress: (b) => Buffer.from(zstdDecompress(b)),
};

codecs.set(Compression.Snappy, snappyCodec);
codecs.set(Compression.Lz4, lz4Codec);
codecs.set(Compression.Zstd, zstdCodec);

/** KafkaJS's codec interface: a factory returning async compress(encoder) / decompress(buffer). */
export interface KafkaJsCodec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

function adapt(codec: Codec): () => KafkaJsCodec {
  const impl: KafkaJsCodec = {
    compress: async (encoder) => codec.compress(encoder.buffer),
    decompress: async (buffer) => codec.decompress(buffer),
  };
  return () => impl;
}

/**
 * KafkaJS codecs by KafkaJS CompressionTypes id (Snappy 2, LZ4 3, ZSTD 4). Install with
 * `Object.assign(CompressionCodecs, kafkajsCodecs)` (CompressionCodecs from 'kafkajs').
 */
export const kafkajsCodecs: Record<2 | 3 | 4, () => KafkaJsCodec> = {
  [Compression.Snappy]: adapt(snappyCodec),
  [Compression.Lz4]: adapt(lz4Codec),
  [Compression.Zstd]: adapt(zstdCodec),
};
