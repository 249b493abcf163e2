/**
 * Encoded sizes of magic-2 records and batches (Kafka's DefaultRecord.sizeInBytes plus the 61-byte batch header),
 * and the split of a partition's records into record batches under a byte limit, as Java's RecordAccumulator
 * closes a batch that is full. KafkaSink's producer uses it so that a batch never exceeds max.message.bytes
 * however small its records are (each record costs at least 7 bytes of framing beyond its key and value).
 */
import { BATCH_HEADER_BYTES, type RecordHeader } from '../../protocol/record-batch';

/** Bytes of a zig-zag varint of `n` (an int32). */
export function varintSize(n: number): number {
  let v = ((n << 1) ^ (n >> 31)) >>> 0;
  let bytes = 1;
  while (v >= 0x80) {
    v >>>= 7;
    bytes += 1;
  }
  return bytes;
}

/** Bytes of a zig-zag varlong of `n` (an int64). */
export function varlongSize(n: bigint): number {
  let v = BigInt.asUintN(64, (n << 1n) ^ (n >> 63n));
  let bytes = 1;
  while (v >= 0x80n) {
    v >>= 7n;
    bytes += 1;
  }
  return bytes;
}

const bytesField = (b: Buffer | null): number => (b === null ? varintSize(-1) : varintSize(b.length) + b.length);

/**
 * A record's bytes in a magic-2 batch, its length prefix included (Kafka's DefaultRecord.sizeInBytes): attributes
 * (1), timestamp delta (varlong), offset delta (varint), key and value (varint length, -1 for null, then the
 * bytes), header count (varint), each header's key and value likewise.
 */
export function recordSizeInBytes(
  offsetDelta: number, timestampDelta: bigint, key: Buffer | null, value: Buffer | null, headers: readonly RecordHeader[],
): number {
  let body = 1 + varlongSize(timestampDelta) + varintSize(offsetDelta) + bytesField(key) + bytesField(value) + varintSize(headers.length);
  for (const h of headers) body += bytesField(Buffer.from(h.key)) + bytesField(h.value);
  return varintSize(body) + body;
}

/** A record of a partition, as the producer encodes it. */
export interface BatchRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
  timestamp?: bigint;
}

/**
 * Splits one partition's records, in order, into record batches of at most `limit` encoded bytes each (batch
 * header included), as encodeBatch lays them out: offset delta = place in the batch, timestamp delta from the
 * batch's first record (a record without a timestamp takes the first's; when the first has none, the batch's is
 * "now", so a later record's own timestamp is counted at the varlong's 10-byte worst case). A record that does not
 * fit even alone gets a batch of its own (the caller has checked it against the topic's limit).
 */
export function splitRecordBatches<R extends BatchRecord>(records: readonly R[], limit: number): { records: R[]; bytes: number }[] {
  const out: { records: R[]; bytes: number }[] = [];
  let cur: { records: R[]; bytes: number } | null = null;
  for (const r of records) {
    for (;;) {
      if (!cur) out.push(cur = { records: [], bytes: BATCH_HEADER_BYTES });
      const first = cur.records[0] ?? r;
      // null: the batch's base timestamp is "now" (its first record has none), unknown here
      const tsDelta = r.timestamp === undefined ? 0n
        : first.timestamp === undefined ? (r === first ? 0n : null) : r.timestamp - first.timestamp;
      const size = tsDelta === null
        ? recordSizeInBytes(cur.records.length, 0n, r.key, r.value, r.headers) + 9 // varlong worst case 10 bytes, 1 counted
        : recordSizeInBytes(cur.records.length, tsDelta, r.key, r.value, r.headers);
      if (cur.records.length > 0 && cur.bytes + size > limit) {
        cur = null;
        continue;
      }
      cur.records.push(r);
      cur.bytes += size;
      break;
    }
  }
  return out;
}
