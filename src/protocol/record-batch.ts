/**
 * Record batches, magic 2 (KIP-98). The broker keeps produced batches as the bytes the client
 * sent, with only the base offset and partition leader epoch rewritten (neither is covered by
 * the CRC), and serves them back unchanged, as Apache Kafka does. Decoding individual records
 * is needed only for timestamp look-ups, inspection and tests.
 *
 * Layout (byte offsets): baseOffset int64 @0, batchLength int32 @8, partitionLeaderEpoch int32
 * @12, magic int8 @16, crc uint32 @17 (CRC-32C of bytes 21..end), attributes int16 @21,
 * lastOffsetDelta int32 @23, baseTimestamp int64 @27, maxTimestamp int64 @35, producerId int64
 * @43, producerEpoch int16 @51, baseSequence int32 @53, recordCount int32 @57, records @61.
 */
import * as zlib from 'node:zlib';
import { crc32c } from './crc32c';
import { MalformedFrameError, Reader, Writer } from './primitives';
import { KafkaEosError } from '../errors';

export const BATCH_HEADER_BYTES = 61;
/** Bytes before batchLength's counted region: baseOffset + batchLength. */
const LOG_OVERHEAD = 12;

export enum Compression { None = 0, Gzip = 1, Snappy = 2, Lz4 = 3, Zstd = 4 }

/** A records blob that fails validation; produce answers CORRUPT_MESSAGE or the error's `kafkaError`. */
export class InvalidRecordsError extends KafkaEosError {
  constructor(
    message: string,
    readonly kafkaError: 'CORRUPT_MESSAGE' | 'UNSUPPORTED_FOR_MESSAGE_FORMAT' | 'INVALID_RECORD' | 'MESSAGE_TOO_LARGE' = 'CORRUPT_MESSAGE',
  ) {
    super('INVALID_RECORDS', message);
  }
}

export interface BatchHeader {
  baseOffset: bigint;
  /** Whole batch size in bytes, header included. */
  sizeInBytes: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  compression: Compression;
  isTransactional: boolean;
  isControl: boolean;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

export function readBatchHeader(buf: Buffer, at = 0): BatchHeader {
  if (buf.length - at < BATCH_HEADER_BYTES) throw new InvalidRecordsError(`batch header truncated at ${at}`);
  const batchLength = buf.readInt32BE(at + 8);
  const attributes = buf.readInt16BE(at + 21);
  return {
    baseOffset: buf.readBigInt64BE(at),
    sizeInBytes: batchLength + LOG_OVERHEAD,
    partitionLeaderEpoch: buf.readInt32BE(at + 12),
    magic: buf.readInt8(at + 16),
    crc: buf.readUInt32BE(at + 17),
    attributes,
    compression: (attributes & 0x07) as Compression,
    isTransactional: (attributes & 0x10) !== 0,
    isControl: (attributes & 0x20) !== 0,
    lastOffsetDelta: buf.readInt32BE(at + 23),
    baseTimestamp: buf.readBigInt64BE(at + 27),
    maxTimestamp: buf.readBigInt64BE(at + 35),
    producerId: buf.readBigInt64BE(at + 43),
    producerEpoch: buf.readInt16BE(at + 51),
    baseSequence: buf.readInt32BE(at + 53),
    recordCount: buf.readInt32BE(at + 57),
  };
}

/**
 * Splits a produce request's records blob into batches and validates each: magic 2, a length
 * that fits, a CRC-32C that matches, a known compression codec, a sane record count.
 * `{ content: false }` checks only the framing (magic, lengths), not the CRC and codec: a test's way
 * to store a batch no broker would accept, as a client would see disk corruption.
 * Throws {@link InvalidRecordsError}. Returns views into `records` (no copy).
 */
export function splitBatches(records: Buffer, options: { content?: boolean } = {}): { header: BatchHeader; bytes: Buffer }[] {
  const content = options.content ?? true;
  const out: { header: BatchHeader; bytes: Buffer }[] = [];
  let at = 0;
  while (at < records.length) {
    if (records.length - at < LOG_OVERHEAD + 5) throw new InvalidRecordsError(`trailing ${records.length - at} bytes are not a batch`);
    const batchLength = records.readInt32BE(at + 8);
    const magic = records.readInt8(at + 16);
    if (magic !== 2) {
      throw new InvalidRecordsError(`record batch magic ${magic} is not supported (only 2)`, 'UNSUPPORTED_FOR_MESSAGE_FORMAT');
    }
    const size = batchLength + LOG_OVERHEAD;
    if (batchLength < BATCH_HEADER_BYTES - LOG_OVERHEAD || at + size > records.length) {
      throw new InvalidRecordsError(`batch length ${batchLength} at ${at} does not fit in ${records.length} bytes`);
    }
    const header = readBatchHeader(records, at);
    const actual = crc32c(records, at + 21, at + size);
    if (content && actual !== header.crc) throw new InvalidRecordsError(`CRC mismatch: stored ${header.crc}, computed ${actual}`);
    if (content && header.compression > Compression.Zstd) throw new InvalidRecordsError(`unknown compression codec ${header.compression}`);
    const emptyWithDelta = !header.isControl && header.recordCount === 0 && header.lastOffsetDelta !== 0;
    if (header.recordCount < 0 || header.lastOffsetDelta < 0 || emptyWithDelta) {
      const why = `bad record count ${header.recordCount} / last offset delta ${header.lastOffsetDelta}`;
      throw new InvalidRecordsError(why, 'INVALID_RECORD');
    }
    out.push({ header, bytes: records.subarray(at, at + size) });
    at += size;
  }
  return out;
}

export interface RecordHeader { key: string; value: Buffer | null }

export interface Record {
  offset: bigint;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

export interface DecodedBatch { header: BatchHeader; records: Record[] }

/**
 * A compression codec. `decompress` never produces, nor allocates, more than `maxBytes` (bytes; it
 * throws {@link DecompressedTooLargeError} first, from the sizes the compressed headers declare when
 * the format has them, so a bomb costs no memory). Without `maxBytes` it is unbounded (tests, tools).
 */
export type Codec = { compress(b: Buffer): Buffer; decompress(b: Buffer, maxBytes?: number): Buffer };

/**
 * A compressed batch whose records would exceed the decompression bound (a mock limit, see
 * {@link DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES}); Produce answers MESSAGE_TOO_LARGE.
 */
export class DecompressedTooLargeError extends InvalidRecordsError {
  constructor(codec: string, limit: number, declared?: number) {
    const size = declared === undefined ? 'more than' : declared;
    super(`${codec} batch decompresses to ${size} bytes, over the mock's bound of ${limit}`, 'MESSAGE_TOO_LARGE');
  }
}

/**
 * The most bytes one record batch may decompress to (32 MiB): Kafka streams decompression and has
 * no such bound, the mock decompresses a batch whole, so it refuses larger ones (a decompression
 * bomb) instead of holding them in memory. Configurable per cluster (`maxDecompressedBatchBytes`).
 */
export const DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES = 32 * 1024 * 1024;

function gunzipBounded(b: Buffer, maxBytes?: number): Buffer {
  if (maxBytes === undefined) return zlib.gunzipSync(b);
  try {
    return zlib.gunzipSync(b, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new DecompressedTooLargeError('Gzip', maxBytes);
    throw e;
  }
}

/** Codecs by compression id. Gzip is built in; others are registered by `compression.ts`. */
export const codecs = new Map<Compression, Codec>([
  [Compression.Gzip, { compress: (b) => zlib.gzipSync(b), decompress: gunzipBounded }],
]);

function codecFor(c: Compression): Codec {
  const codec = codecs.get(c);
  if (!codec) throw new InvalidRecordsError(`compression codec ${Compression[c] ?? c} is not available`, 'CORRUPT_MESSAGE');
  return codec;
}

/**
 * Decompresses `data` with codec `c`, never past `maxBytes` (bytes; see {@link Codec}). Throws
 * InvalidRecordsError: MESSAGE_TOO_LARGE past the bound, CORRUPT_MESSAGE for an unavailable codec or
 * data the codec cannot read. Record batches (magic 2) and old compressed message sets both use it.
 */
export function decompress(c: Compression, data: Buffer, maxBytes?: number): Buffer {
  try {
    return codecFor(c).decompress(data, maxBytes);
  } catch (e) {
    if (e instanceof InvalidRecordsError) throw e;
    throw new InvalidRecordsError(`cannot decompress ${Compression[c]} batch: ${(e as Error).message}`);
  }
}

/** The records section of a batch, decompressed (bounded by `maxBytes`). Throws InvalidRecordsError. */
export function batchBody(bytes: Buffer, header: BatchHeader, maxBytes?: number): Buffer {
  const body = bytes.subarray(BATCH_HEADER_BYTES, header.sizeInBytes);
  return header.compression === Compression.None ? body : decompress(header.compression, body, maxBytes);
}

/**
 * Like {@link batchBody}, but gzip is inflated on libuv's thread pool (zlib's async API) and the
 * other codecs run after yielding to the event loop once, so that other connections are served
 * between the batches of one large request.
 */
export async function batchBodyAsync(bytes: Buffer, header: BatchHeader, maxBytes: number): Promise<Buffer> {
  if (header.compression !== Compression.Gzip || codecs.get(Compression.Gzip)?.decompress !== gunzipBounded) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return batchBody(bytes, header, maxBytes);
  }
  const body = bytes.subarray(BATCH_HEADER_BYTES, header.sizeInBytes);
  return new Promise<Buffer>((resolve, reject) => {
    zlib.gunzip(body, { maxOutputLength: Math.max(1, maxBytes) }, (err, out) => {
      if (!err) resolve(out);
      else if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') reject(new DecompressedTooLargeError('Gzip', maxBytes));
      else reject(new InvalidRecordsError(`cannot decompress Gzip batch: ${err.message}`));
    });
  });
}

/**
 * Decodes every record of one batch (decompressing when needed, never past `maxBytes`, default
 * {@link DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES}). Throws InvalidRecordsError.
 */
export function decodeBatch(bytes: Buffer, maxBytes = DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES): DecodedBatch {
  const header = readBatchHeader(bytes);
  return { header, records: readRecords(header, batchBody(bytes, header, maxBytes), true) as Record[] };
}

/**
 * Checks a batch's CRC-32C (bytes 21 to its end), as Java's consumer does with `check.crcs` (the default:
 * `DefaultRecordBatch.ensureValid`) before reading a fetched batch. Throws InvalidRecordsError (CORRUPT_MESSAGE)
 * naming both checksums.
 */
export function verifyBatchCrc(bytes: Buffer, header: BatchHeader): void {
  const actual = crc32c(bytes, 21, header.sizeInBytes);
  if (actual !== header.crc) throw new InvalidRecordsError(`CRC mismatch: stored ${header.crc}, computed ${actual}`);
}

/** A bounds-checked cursor over a records section (zig-zag varints inline: this is the consumer's hot path). */
class RecordCursor {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  private byte(): number {
    if (this.pos >= this.buf.length) throw new MalformedFrameError(`record data ends at ${this.pos}`);
    return this.buf[this.pos++];
  }

  /** Zig-zag varint of at most 5 bytes (an int32). */
  varint(): number {
    // Fast path: one byte (lengths under 64, deltas, counts) or two (lengths under 8192), in int32 arithmetic.
    const buf = this.buf;
    const pos = this.pos;
    if (pos + 1 < buf.length) {
      const b0 = buf[pos]!;
      if (b0 < 0x80) { this.pos = pos + 1; return (b0 >>> 1) ^ -(b0 & 1); }
      const b1 = buf[pos + 1]!;
      if (b1 < 0x80) { this.pos = pos + 2; const u = (b0 & 0x7f) | (b1 << 7); return (u >>> 1) ^ -(u & 1); }
    }
    let b = this.byte();
    let u = b & 0x7f;
    for (let shift = 7; b & 0x80; shift += 7) {
      if (shift > 28) throw new MalformedFrameError('varint longer than 5 bytes');
      b = this.byte();
      u += (b & 0x7f) * 2 ** shift;
    }
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  /**
   * Zig-zag varlong as a number while it has at most 7 bytes (the zig-zag value is then < 2^49, exact in a double),
   * else as a bigint: an 8-byte value can pass 2^53, where a double drops the low bit that carries the sign (a delta
   * near -2^53, as KafkaJS writes when a batch's first timestamp is far from the others, read as a positive one).
   */
  varlong(): number | bigint {
    const start = this.pos;
    let b = this.byte();
    let u = b & 0x7f;
    for (let shift = 7; b & 0x80; shift += 7) {
      if (shift > 42) {
        this.pos = start;
        return this.bigVarlong();
      }
      b = this.byte();
      u += (b & 0x7f) * 2 ** shift;
    }
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  private bigVarlong(): bigint {
    let value = 0n;
    for (let i = 0, shift = 0n; i < 10; i++, shift += 7n) {
      const b = this.byte();
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return (value >> 1n) ^ -(value & 1n);
    }
    throw new MalformedFrameError('varlong longer than 10 bytes');
  }

  /** `n` bytes as a view (or a copy), or null for -1. */
  bytes(n: number, copy: boolean): Buffer | null {
    if (n === -1) return null;
    if (n < -1 || this.pos + n > this.buf.length) throw new MalformedFrameError(`${n} bytes do not fit at ${this.pos}`);
    const view = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return copy ? Buffer.from(view) : view;
  }
}

/** The headers of a record without any (shared, frozen: a {@link RecordMaker} must not keep it as a record's own list). */
const NO_HEADERS: RecordHeader[] = Object.freeze([]) as unknown as RecordHeader[];

/**
 * Builds one record of {@link readRecordsWith} from its fields (`ctx` is the caller's, passed through so the maker
 * needs no closure per batch); `undefined` skips the record. `headers` is a shared empty list when the record has
 * none: copy it before keeping it.
 */
export type RecordMaker<C, T> = (
  ctx: C, offset: bigint, timestamp: bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[],
) => T | undefined;

/**
 * Reads `header.recordCount` records from a (decompressed) records section and checks that they use
 * it exactly, as Kafka's LogValidator does on produce ("Found invalid record structure"). With `make`
 * null the records are only validated and counted; else each is built by `make` and pushed to `out` (no
 * intermediate object per record: the consumer's fetch path builds its own records here). Keys, values and
 * header values are copies, or with `copy` false views into `body`. Returns the record count.
 * @throws InvalidRecordsError
 */
export function readRecordsWith<C, T>(
  header: BatchHeader, body: Buffer, copy: boolean, ctx: C, make: RecordMaker<C, T> | null, out: T[],
): number {
  const c = new RecordCursor(body);
  try {
    for (let i = 0; i < header.recordCount; i++) {
      const length = c.varint();
      const end = c.pos + length;
      c.pos += 1; // attributes, unused
      const timestampDelta = c.varlong();
      const offsetDelta = c.varint();
      const key = c.bytes(c.varint(), copy);
      const value = c.bytes(c.varint(), copy);
      const headerCount = c.varint();
      if (headerCount < 0) throw new MalformedFrameError(`record ${i} has ${headerCount} headers`);
      let headers = NO_HEADERS;
      if (headerCount > 0) headers = [];
      for (let h = 0; h < headerCount; h++) {
        const hkey = c.bytes(c.varint(), false);
        if (hkey === null) throw new MalformedFrameError(`record ${i} has a null header key`);
        const hvalue = c.bytes(c.varint(), copy);
        if (make) headers.push({ key: hkey.toString('utf8'), value: hvalue });
      }
      if (c.pos !== end) throw new MalformedFrameError(`record ${i} length ${length} disagrees with its fields`);
      if (make) {
        const r = make(ctx, header.baseOffset + BigInt(offsetDelta), header.baseTimestamp + BigInt(timestampDelta), key, value, headers);
        if (r !== undefined) out.push(r);
      }
    }
  } catch (e) {
    if (e instanceof MalformedFrameError || e instanceof RangeError) throw new InvalidRecordsError(`bad record: ${e.message}`);
    throw e;
  }
  if (c.pos !== body.length) throw new InvalidRecordsError(`${body.length - c.pos} bytes follow the batch's ${header.recordCount} records`);
  return header.recordCount;
}

const toRecord: RecordMaker<null, Record> = (_, offset, timestamp, key, value, headers) =>
  ({ offset, timestamp, key, value, headers: headers === NO_HEADERS ? [] : headers });

/**
 * Reads `header.recordCount` records from a (decompressed) records section and checks that they use
 * it exactly, as Kafka's LogValidator does on produce ("Found invalid record structure"). With
 * `keep` false the records are only validated and counted. Keys, values and header values are copies,
 * or with `copy` false views into `body`. Throws InvalidRecordsError. (See {@link readRecordsWith}.)
 */
export function readRecords(header: BatchHeader, body: Buffer, keep: boolean, copy = true): Record[] | number {
  const records: Record[] = [];
  const n = readRecordsWith(header, body, copy, null, keep ? toRecord : null, records);
  return keep ? records : n;
}

/** Decodes every batch of a records blob (as served by Fetch). */
export function decodeBatches(records: Buffer | null): DecodedBatch[] {
  if (!records) return [];
  const out: DecodedBatch[] = [];
  let at = 0;
  while (at + LOG_OVERHEAD <= records.length) {
    const size = records.readInt32BE(at + 8) + LOG_OVERHEAD;
    if (at + size > records.length) break; // a partial trailing batch is allowed in fetch responses
    out.push(decodeBatch(records.subarray(at, at + size)));
    at += size;
  }
  return out;
}

export interface BatchInput {
  baseOffset?: bigint;
  records: {
    key?: Buffer | string | null; value: Buffer | string | null; timestamp?: bigint; headers?: RecordHeader[]; offsetDelta?: number;
  }[];
  compression?: Compression;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  isTransactional?: boolean;
  isControl?: boolean;
  partitionLeaderEpoch?: number;
}

function toBuf(v: Buffer | string | null | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? Buffer.from(v) : v;
}

/** Encodes one magic-2 batch with a correct CRC (used for control records, tools and tests). */
export function encodeBatch(input: BatchInput): Buffer {
  const now = BigInt(Date.now());
  const recs = input.records;
  const baseTimestamp = recs.length ? recs[0].timestamp ?? now : now;
  let maxTimestamp = baseTimestamp;
  const body = new Writer(1024);
  recs.forEach((rec, i) => {
    const ts = rec.timestamp ?? baseTimestamp;
    if (ts > maxTimestamp) maxTimestamp = ts;
    const w = new Writer(64);
    w.int8(0).varlong(ts - baseTimestamp).varint(rec.offsetDelta ?? i);
    const key = toBuf(rec.key);
    if (key === null) w.varint(-1); else w.varint(key.length).raw(key);
    const value = toBuf(rec.value);
    if (value === null) w.varint(-1); else w.varint(value.length).raw(value);
    const headers = rec.headers ?? [];
    w.varint(headers.length);
    for (const h of headers) {
      const k = Buffer.from(h.key);
      w.varint(k.length).raw(k);
      if (h.value === null) w.varint(-1); else w.varint(h.value.length).raw(h.value);
    }
    const rb = w.toBuffer();
    body.varint(rb.length).raw(rb);
  });
  const compression = input.compression ?? Compression.None;
  let payload = body.toBuffer();
  if (compression !== Compression.None) payload = codecFor(compression).compress(payload);
  // reduce, not Math.max(...): a batch of a few hundred thousand records would overflow the call stack.
  const lastOffsetDelta = recs.reduce((m, r, i) => Math.max(m, r.offsetDelta ?? i), 0);
  const attributes = compression | (input.isTransactional ? 0x10 : 0) | (input.isControl ? 0x20 : 0);
  const out = Buffer.alloc(BATCH_HEADER_BYTES + payload.length);
  out.writeBigInt64BE(input.baseOffset ?? 0n, 0);
  out.writeInt32BE(out.length - LOG_OVERHEAD, 8);
  out.writeInt32BE(input.partitionLeaderEpoch ?? 0, 12);
  out.writeInt8(2, 16);
  out.writeInt16BE(attributes, 21);
  out.writeInt32BE(lastOffsetDelta, 23);
  out.writeBigInt64BE(baseTimestamp, 27);
  out.writeBigInt64BE(maxTimestamp, 35);
  out.writeBigInt64BE(input.producerId ?? -1n, 43);
  out.writeInt16BE(input.producerEpoch ?? -1, 51);
  out.writeInt32BE(input.baseSequence ?? -1, 53);
  out.writeInt32BE(recs.length, 57);
  payload.copy(out, BATCH_HEADER_BYTES);
  out.writeUInt32BE(crc32c(out, 21), 17);
  return out;
}
