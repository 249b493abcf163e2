/**
 * Up-conversion for old producers: Produce v0-v2 carry message sets of magic 0 or 1 (KIP-32), which
 * Kafka's broker converts to the log's magic-2 format on append (LogValidator), and so does the
 * mock: each message (inner messages of a compressed wrapper included) becomes one record of a
 * single uncompressed magic-2 batch with the same keys, values and timestamps (magic 0 has none:
 * -1, as Kafka's NO_TIMESTAMP). Each message's CRC-32 is checked; wrappers are decompressed within
 * the cluster's bound. Throws InvalidRecordsError (CORRUPT_MESSAGE, MESSAGE_TOO_LARGE).
 *
 * Message layout: offset int64, size int32, crc uint32 (CRC-32 of the rest), magic int8,
 * attributes int8 (bits 0-2 codec; bit 3 LogAppendTime, magic 1), timestamp int64 (magic 1 only),
 * key bytes, value bytes.
 */
import * as zlib from 'node:zlib';
import { Compression, decompress, encodeBatch, InvalidRecordsError } from './record-batch';
import { TIMESTAMP_TYPE_LOG_APPEND } from './down-convert';

type OldRecord = { key: Buffer | null; value: Buffer | null; timestamp: bigint };

function readBytes(b: Buffer, at: number): [Buffer | null, number] {
  if (at + 4 > b.length) throw new InvalidRecordsError('message truncated');
  const len = b.readInt32BE(at);
  if (len < 0) return [null, at + 4];
  if (at + 4 + len > b.length) throw new InvalidRecordsError(`message field of ${len} bytes does not fit`);
  return [b.subarray(at + 4, at + 4 + len), at + 4 + len];
}

function readMessageSet(set: Buffer, maxBytes: number, out: OldRecord[], depth: number): void {
  let at = 0;
  while (at + 12 <= set.length) {
    const size = set.readInt32BE(at + 8);
    if (size < 14 || at + 12 + size > set.length) {
      if (depth > 0 && at + 12 + size > set.length) throw new InvalidRecordsError('truncated inner message');
      throw new InvalidRecordsError(`message size ${size} at ${at} does not fit in ${set.length} bytes`);
    }
    const m = set.subarray(at + 12, at + 12 + size);
    at += 12 + size;
    if (m.readUInt32BE(0) !== zlib.crc32(m.subarray(4))) throw new InvalidRecordsError('message CRC mismatch');
    const magic = m.readInt8(4);
    if (magic !== 0 && magic !== 1) throw new InvalidRecordsError(`message magic ${magic} in a v0-v2 message set`);
    const attributes = m.readInt8(5);
    let p = 6;
    const timestamp = magic === 1 ? m.readBigInt64BE(p) : -1n;
    if (magic === 1) p += 8;
    const [key, next] = readBytes(m, p);
    const [value] = readBytes(m, next);
    const codec = attributes & 0x07;
    if (codec === 0) {
      out.push({ key: key && Buffer.from(key), value: value && Buffer.from(value), timestamp });
      continue;
    }
    if (depth > 0) throw new InvalidRecordsError('nested compressed message');
    if (value === null) throw new InvalidRecordsError(`compressed message with codec ${codec} has no value`);
    const before = out.length;
    readMessageSet(decompress(codec as Compression, value, maxBytes), maxBytes, out, depth + 1);
    // A LogAppendTime wrapper (bit 3) stamps its inner messages with its own timestamp.
    if (magic === 1 && (attributes & TIMESTAMP_TYPE_LOG_APPEND) !== 0) {
      for (let i = before; i < out.length; i++) out[i].timestamp = timestamp;
    }
  }
}

/** Converts a magic-0/1 message set into one uncompressed magic-2 batch. */
export function upConvert(set: Buffer, maxDecompressedBytes: number): Buffer {
  const records: OldRecord[] = [];
  readMessageSet(set, maxDecompressedBytes, records, 0);
  if (records.length === 0) throw new InvalidRecordsError('empty message set');
  return encodeBatch({ records: records.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp })) });
}
