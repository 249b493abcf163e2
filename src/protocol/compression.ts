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
 * Bounds (a decompression bomb costs neither memory nor much time): before decompressing, each codec
 * reads the sizes its format declares — snappy's length preamble (per xerial block), the LZ4 frame's
 * block sizes (a compressed block yields at most the frame's block maximum, and 255 bytes per byte), zstd's frame content
 * size or block headers (at most 128 KiB a block) — and throws DecompressedTooLargeError when they
 * exceed the caller's `maxBytes`. Output that outgrows the declared sizes is cut there.
 *
 * `kafkajsCodecs` adapts these to KafkaJS's codec interface for tests that need KafkaJS to produce
 * zstd on any Node.js (stored zstd frames where node:zlib has no zstd). The SDK registers its own
 * KafkaJS codecs when `kafka-eos` is imported (consumer/codecs.ts), which refuse to produce zstd
 * rather than send stored frames.
 */
import { KafkaEosError } from '../errors';
import * as zlib from 'node:zlib';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';
import { Decompress as ZstdStream, decompress as zstdDecompress } from 'fzstd';
import { Codec, codecs, Compression, DecompressedTooLargeError } from './record-batch';

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
/** Magic (8) + version (4) + compatible version (4). */
const XERIAL_HEADER_BYTES = 16;

/** Snappy's uncompressed-length preamble (a uvarint at the start of a raw block). */
function snappyLength(b: Buffer, at: number, end: number): number {
  let value = 0;
  for (let i = 0, shift = 0; i < 5 && at + i < end; i++, shift += 7) {
    const byte = b[at + i];
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return value;
  }
  throw new KafkaEosError('INVALID_RECORDS', 'bad snappy length preamble');
}

function snappyDecompress(b: Buffer, maxBytes = Infinity): Buffer {
  if (b.length >= XERIAL_HEADER_BYTES && b.subarray(0, 8).equals(XERIAL_MAGIC)) {
    const blocks: Buffer[] = [];
    let at = XERIAL_HEADER_BYTES;
    let declared = 0;
    while (at < b.length) {
      if (at + 4 > b.length) throw new KafkaEosError('INVALID_RECORDS', 'truncated xerial snappy block size');
      const size = b.readInt32BE(at);
      at += 4;
      if (size < 0 || at + size > b.length) throw new KafkaEosError('INVALID_RECORDS', `xerial snappy block of ${size} bytes does not fit`);
      declared += snappyLength(b, at, at + size);
      if (declared > maxBytes) throw new DecompressedTooLargeError('Snappy', maxBytes, declared);
      blocks.push(b.subarray(at, at + size));
      at += size;
    }
    return Buffer.concat(blocks.map((block) => Buffer.from(snappy.uncompress(block))));
  }
  const declared = snappyLength(b, 0, b.length);
  if (declared > maxBytes) throw new DecompressedTooLargeError('Snappy', maxBytes, declared);
  return Buffer.from(snappy.uncompress(b));
}

export const snappyCodec: Codec = {
  compress: (b) => Buffer.from(snappy.compress(b)),
  decompress: snappyDecompress,
};

const LZ4_MAGIC = 0x184d2204;
/** LZ4 frame block maximum sizes by the BD byte's 3-bit id (4..7). */
const LZ4_BLOCK_MAX: Record<number, number> = { 4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20 };

/** The most bytes an LZ4 frame can decompress to: stored blocks count as themselves, compressed ones by size and block maximum. */
function lz4Bound(b: Buffer): number {
  if (b.length < 7 || b.readUInt32LE(0) !== LZ4_MAGIC) throw new KafkaEosError('INVALID_RECORDS', 'not an LZ4 frame');
  const flags = b[4];
  const blockMax = LZ4_BLOCK_MAX[(b[5] >> 4) & 0x07];
  if (blockMax === undefined) throw new KafkaEosError('INVALID_RECORDS', `bad LZ4 block size id ${(b[5] >> 4) & 0x07}`);
  let at = 6 + (flags & 0x08 ? 8 : 0) + (flags & 0x01 ? 4 : 0) + 1;
  let bound = 0;
  for (;;) {
    if (at + 4 > b.length) throw new KafkaEosError('INVALID_RECORDS', 'truncated LZ4 frame');
    const word = b.readUInt32LE(at);
    at += 4;
    if (word === 0) return bound;
    const size = word & 0x7fffffff;
    // A compressed block yields at most the block maximum, and at most 255 bytes per input byte (LZ4's best ratio).
    bound += word & 0x80000000 ? size : Math.min(blockMax, size * 255 + 64);
    at += size + (flags & 0x10 ? 4 : 0);
  }
}

export const lz4Codec: Codec = {
  compress: (b) => Buffer.from(lz4.compress(b)),
  decompress: (b, maxBytes = Infinity) => {
    const bound = lz4Bound(b);
    if (bound > maxBytes) throw new DecompressedTooLargeError('LZ4', maxBytes, bound);
    return Buffer.from(lz4.decompress(b, bound));
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
/** node:zlib's zstd compressor (Node.js 22.15+), or undefined on older Node.js. */
export const nativeZstdCompress: ((b: Buffer) => Buffer) | undefined = nativeZstd ? (b) => nativeZstd(b) : undefined;
const ZSTD_SKIPPABLE = 0x184d2a50;
const ZSTD_BLOCK_MAX = 128 * 1024;

/**
 * Walks zstd frames (RFC 8878 §3.1): the sum of their content sizes when every frame declares one,
 * else null; throws when an upper bound (declared sizes, or 128 KiB per block) already exceeds `maxBytes`.
 */
function zstdDeclared(b: Buffer, maxBytes: number): number | null {
  let at = 0;
  let declared: number | null = 0;
  let bound = 0;
  while (at < b.length) {
    if (at + 8 > b.length) throw new KafkaEosError('INVALID_RECORDS', 'truncated zstd frame');
    const magic = b.readUInt32LE(at);
    if ((magic & 0xfffffff0) === ZSTD_SKIPPABLE >>> 0) {
      at += 8 + b.readUInt32LE(at + 4);
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw new KafkaEosError('INVALID_RECORDS', 'not a zstd frame');
    const fhd = b[at + 4];
    const single = (fhd & 0x20) !== 0;
    const fcsBytes = [single ? 1 : 0, 2, 4, 8][fhd >> 6];
    let h = at + 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 0x03];
    let frameSize: number | null = null;
    if (fcsBytes > 0) {
      if (h + fcsBytes > b.length) throw new KafkaEosError('INVALID_RECORDS', 'truncated zstd frame header');
      frameSize = fcsBytes === 8 ? Number(b.readBigUInt64LE(h)) : b.readUIntLE(h, fcsBytes) + (fcsBytes === 2 ? 256 : 0);
      h += fcsBytes;
    }
    let blocksBound = 0;
    for (let last = 0; !last;) {
      if (h + 3 > b.length) throw new KafkaEosError('INVALID_RECORDS', 'truncated zstd block header');
      const word = b.readUIntLE(h, 3);
      last = word & 1;
      const type = (word >> 1) & 3;
      const size = word >>> 3;
      if (type === 3) throw new KafkaEosError('INVALID_RECORDS', 'reserved zstd block type');
      blocksBound += type === 2 ? ZSTD_BLOCK_MAX : size;
      h += 3 + (type === 1 ? 1 : size);
    }
    if (fhd & 0x04) h += 4; // content checksum
    bound += frameSize === null ? blocksBound : Math.min(frameSize, blocksBound);
    if (bound > maxBytes) throw new DecompressedTooLargeError('Zstd', maxBytes, frameSize ?? undefined);
    declared = declared === null || frameSize === null ? null : declared + frameSize;
    at = h;
  }
  return declared;
}

function zstdDecompressBounded(b: Buffer, maxBytes = Infinity): Buffer {
  // With content sizes declared, fzstd's one-shot decoder allocates exactly them (and stops there).
  if (zstdDeclared(b, maxBytes) !== null) return Buffer.from(zstdDecompress(b));
  // Without, its streaming decoder hands out each block, so the total is counted as it grows.
  const parts: Uint8Array[] = [];
  let total = 0;
  const stream = new ZstdStream((chunk) => {
    total += chunk.length;
    if (total > maxBytes) throw new DecompressedTooLargeError('Zstd', maxBytes);
    parts.push(chunk);
  });
  stream.push(b, true);
  return Buffer.concat(parts, total);
}

export const zstdCodec: Codec = {
  compress: (b) => (nativeZstd ? nativeZstd(b) : zstdStoredFrame(b)),
  decompress: zstdDecompressBounded,
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
