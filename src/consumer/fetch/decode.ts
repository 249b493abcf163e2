/**
 * One partition's records from a Fetch response, as the consumer hands them on: Java's `CompletedFetch` in
 * words. The record-batch decoder of the protocol layer does the bytes (src/protocol/record-batch.ts, the codecs
 * of src/protocol/compression.ts); this module adds what a consumer must do with fetched batches:
 * - every batch's CRC-32C is checked before it is read (Java's `check.crcs`, on by default);
 * - a batch whose codec id Kafka does not define (5-7) is UNSUPPORTED_COMPRESSION; a batch that does not decompress
 *   or parse, or fails its CRC, is RECORD_BATCH_CORRUPT: both name the partition and fetch offset, neither is a
 *   poison record (the same bytes come back on every fetch);
 * - records before the fetch offset (the head of a batch the fetch started inside) are dropped;
 * - read_committed (KIP-98): control batches are never records, and a transactional batch of a producer whose
 *   transaction the fetch response lists as aborted is skipped until that producer's abort marker;
 * - LOG_APPEND_TIME batches give every record the batch's max timestamp;
 * - the next offset is the last complete batch's last offset + 1, whatever it held (control records, aborted data):
 *   never a count of records. A trailing partial batch (the response's size limit cut it) is left for the next fetch.
 * Keys, values and header values are views into the response (no copy per record).
 */
import {
  BATCH_HEADER_BYTES, BatchHeader, batchBody, Compression, InvalidRecordsError, readBatchHeader, readRecords, readRecordsWith,
  Record as BatchRecord, RecordMaker, verifyBatchCrc,
} from '../../protocol/record-batch';
import type { SinkRecord, TopicPartition } from '../../records';
import { MAX_DECOMPRESSED_BATCH_BYTES } from '../codecs';
import { BatchLocation, CorruptRecordBatchError, UnsupportedCompressionError } from '../errors';

/** Bytes before batchLength's counted region: baseOffset + batchLength. */
const LOG_OVERHEAD = 12;
/** The smallest batchLength of any message format (a v0 message's overhead): below it the length is corrupt. */
const MIN_BATCH_LENGTH = 14;
const TIMESTAMP_LOG_APPEND = 0x08;
const CONTROL_ABORT = 0;

/** An aborted transaction of a Fetch response (read_committed): its producer and first offset. */
export interface AbortedTransaction { producerId: bigint; firstOffset: bigint }

/** What one partition of one fetch response yields. */
export interface DecodedRecords {
  /** The records at or after the fetch offset, control records and aborted data removed. */
  records: SinkRecord[];
  /** Where the next fetch starts: the last complete batch's last offset + 1, or the fetch offset if none was complete. */
  nextOffset: bigint;
}

const codecName = (c: number): string => Compression[c] ?? `codec ${c}`;

function headersOf(list: BatchRecord['headers']): SinkRecord['headers'] {
  const out: Record<string, unknown> = {};
  // Repeated keys become arrays, as KafkaJS gives them (what users of this SDK always had).
  for (const { key, value } of list) {
    const had = out[key];
    out[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return out as SinkRecord['headers'];
}

/** What {@link toSinkRecord} needs of its partition and batch. */
interface MakeContext { topic: string; partition: number; fetchOffset: bigint; logAppendTime: bigint | null }

/** A fetched record as the consumer hands it on; records before the fetch offset are dropped. */
const toSinkRecord: RecordMaker<MakeContext, SinkRecord> = (ctx, offset, timestamp, key, value, headers) => {
  if (offset < ctx.fetchOffset) return undefined;
  return {
    topic: ctx.topic, partition: ctx.partition, offset, key, value,
    timestamp: ctx.logAppendTime ?? timestamp, headers: headers.length > 0 ? headersOf(headers) : {},
  };
};

/** Whether a control batch is an abort marker (its one record's key: int16 version, int16 type). */
function isAbortMarker(bytes: Buffer, header: BatchHeader): boolean {
  const records = readRecords(header, batchBody(bytes, header), true, false) as BatchRecord[];
  const key = records[0]?.key;
  return key !== null && key !== undefined && key.length >= 4 && key.readInt16BE(2) === CONTROL_ABORT;
}

/**
 * Decodes one partition's `records` fetched from `fetchOffset` (see the module comment).
 * @param aborted the response's aborted transactions (read_committed), or null.
 * @throws UnsupportedCompressionError, CorruptRecordBatchError (both naming the partition and fetch offset).
 */
export function decodeFetchedRecords(
  tp: TopicPartition, fetchOffset: bigint, records: Buffer | null, aborted: readonly AbortedTransaction[] | null,
): DecodedRecords {
  const out: SinkRecord[] = [];
  let nextOffset = fetchOffset;
  if (!records) return { records: out, nextOffset };
  const location: BatchLocation = { topic: tp.topic, partition: tp.partition, fetchOffset: fetchOffset.toString() };
  const pending = aborted ? [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0)) : [];
  const abortedProducers = new Set<bigint>();
  let at = 0;
  while (at + LOG_OVERHEAD + 5 <= records.length) {
    const batchLength = records.readInt32BE(at + 8);
    // Shorter than any record (Java's ByteBufferLogInputStream: under LegacyRecord.RECORD_OVERHEAD_V0, 14 bytes):
    // corrupt, checked before the partial-batch test as Java does (a negative length would never be whole).
    if (batchLength < MIN_BATCH_LENGTH) {
      throw new CorruptRecordBatchError('short', `batch length ${batchLength} at byte ${at}`, location, 'read');
    }
    const size = batchLength + LOG_OVERHEAD;
    if (at + size > records.length) break; // a partial batch at the end: the next fetch gets it whole
    const bytes = records.subarray(at, at + size);
    at += size;
    const magic = bytes.readInt8(16);
    if (magic !== 2) {
      throw new CorruptRecordBatchError(`magic ${magic}`, 'message format v0/v1 (Kafka before 0.11) is not read', location, 'read');
    }
    if (size < BATCH_HEADER_BYTES) throw new CorruptRecordBatchError('short', `batch of ${size} bytes`, location, 'read');
    const header = readBatchHeader(bytes);
    const lastOffset = header.baseOffset + BigInt(header.lastOffsetDelta);
    try {
      verifyBatchCrc(bytes, header);
    } catch (e) {
      throw new CorruptRecordBatchError(codecName(header.compression), `${(e as Error).message} (check.crcs)`, location, 'read');
    }
    if (header.compression > Compression.Zstd) {
      throw new UnsupportedCompressionError(header.compression, `codec id ${header.compression} is not defined by Kafka`, location);
    }
    if (lastOffset + 1n > nextOffset) nextOffset = lastOffset + 1n;
    if (lastOffset < fetchOffset) continue;
    while (pending.length > 0 && pending[0].firstOffset <= lastOffset) abortedProducers.add(pending.shift()!.producerId);
    if (header.isControl) {
      if (header.isTransactional && abortedProducers.has(header.producerId) && readAbort(bytes, header, location)) {
        abortedProducers.delete(header.producerId);
      }
      continue;
    }
    if (header.isTransactional && abortedProducers.has(header.producerId)) continue;
    let body: Buffer;
    try {
      body = batchBody(bytes, header, MAX_DECOMPRESSED_BATCH_BYTES);
    } catch (e) {
      throw new CorruptRecordBatchError(codecName(header.compression), (e as Error).message, location);
    }
    // LOG_APPEND_TIME batches give every record the batch's max timestamp.
    const logAppendTime = (header.attributes & TIMESTAMP_LOG_APPEND) !== 0 ? header.maxTimestamp : null;
    const ctx: MakeContext = { topic: tp.topic, partition: tp.partition, fetchOffset, logAppendTime };
    try {
      readRecordsWith(header, body, false, ctx, toSinkRecord, out);
    } catch (e) {
      throw new CorruptRecordBatchError(codecName(header.compression), (e as Error).message, location, 'read');
    }
  }
  return { records: out, nextOffset };
}

function readAbort(bytes: Buffer, header: BatchHeader, location: BatchLocation): boolean {
  try {
    return isAbortMarker(bytes, header);
  } catch (e) {
    if (e instanceof InvalidRecordsError) throw new CorruptRecordBatchError('control', e.message, location, 'read');
    throw e;
  }
}
