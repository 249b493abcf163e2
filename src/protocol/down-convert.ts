/**
 * Down-conversion for old fetchers: Fetch v0-v3 responses carry message sets of magic 0 (v0, v1)
 * or magic 1 (v2, v3), which cannot hold record batches. Kafka's broker converts the stored
 * magic-2 batches on the fly (`message.downconversion.enable`, KIP-283), and so does the mock:
 * each record becomes one uncompressed message with its absolute offset, key and value; record
 * headers are dropped (the old formats have none), control batches are left out, and transactional
 * records are served as they are (these versions know no isolation level).
 *
 * Message layout (KIP-32): offset int64, size int32, crc uint32 (CRC-32 of the rest), magic int8,
 * attributes int8 (bit 3: LogAppendTime, magic 1), timestamp int64 (magic 1 only), key bytes,
 * value bytes.
 */
import * as zlib from 'node:zlib';
import { decodeBatch } from './record-batch';

/** Message attributes bit 3 (magic 1): the timestamp is the broker's LogAppendTime (KIP-32). */
export const TIMESTAMP_TYPE_LOG_APPEND = 0x08;

/** The magic of the message sets a Fetch of `version` carries: 0 for v0-v1, 1 for v2-v3, 2 from v4 on. */
export function fetchMagic(version: number): 0 | 1 | 2 {
  return version < 2 ? 0 : version < 4 ? 1 : 2;
}

/**
 * Converts magic-2 batches (whole ones, as the log reads them) into a magic-0 or -1 message set.
 * Decompression is bounded by `maxDecompressedBytes` per batch. Throws InvalidRecordsError.
 */
export function downConvert(batches: Buffer, magic: 0 | 1, maxDecompressedBytes?: number): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at + 12 <= batches.length) {
    const size = batches.readInt32BE(at + 8) + 12;
    if (at + size > batches.length) break;
    const { header, records } = decodeBatch(batches.subarray(at, at + size), maxDecompressedBytes);
    at += size;
    if (header.isControl) continue;
    const logAppendTime = (header.attributes & TIMESTAMP_TYPE_LOG_APPEND) !== 0;
    for (const r of records) {
      const key = r.key;
      const value = r.value;
      const bodyLen = 1 + 1 + (magic === 1 ? 8 : 0) + 4 + (key?.length ?? 0) + 4 + (value?.length ?? 0);
      const m = Buffer.alloc(12 + 4 + bodyLen);
      m.writeBigInt64BE(r.offset, 0);
      m.writeInt32BE(4 + bodyLen, 8);
      let p = 16;
      m.writeInt8(magic, p++);
      m.writeInt8(magic === 1 && logAppendTime ? TIMESTAMP_TYPE_LOG_APPEND : 0, p++);
      if (magic === 1) {
        m.writeBigInt64BE(logAppendTime ? header.maxTimestamp : r.timestamp, p);
        p += 8;
      }
      for (const field of [key, value]) {
        m.writeInt32BE(field ? field.length : -1, p);
        p += 4;
        if (field) p += field.copy(m, p);
      }
      m.writeUInt32BE(zlib.crc32(m.subarray(16)), 12);
      out.push(m);
    }
  }
  return Buffer.concat(out);
}
