/**
 * One partition's records from a Fetch response: CRC-32C checked before reading, records before the fetch offset
 * dropped, read_committed filtering of control batches and aborted transactions, the next offset from the last
 * complete batch (never a record count), LOG_APPEND_TIME, repeated header keys, unreadable batches named.
 */
import { Compression, encodeBatch } from '../../../src/protocol/record-batch';
import '../../../src/protocol/compression';
import { crc32c } from '../../../src/protocol/crc32c';
import { decodeFetchedRecords } from '../../../src/consumer/fetch/decode';
import { CorruptRecordBatchError, UnsupportedCompressionError } from '../../../src/consumer/errors';

const tp = { topic: 't', partition: 3 };
const values = (rs: { value: Buffer | null }[]) => rs.map((r) => r.value?.toString());
const marker = (baseOffset: bigint, producerId: bigint, type: 0 | 1) => {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(type, 2);
  return encodeBatch({ baseOffset, producerId, isTransactional: true, isControl: true, records: [{ key, value: Buffer.alloc(6) }] });
};

describe('decodeFetchedRecords', () => {
  test('records at or after the fetch offset; the next offset is the last complete batch\'s end', () => {
    const a = encodeBatch({ baseOffset: 0n, records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    const b = encodeBatch({ baseOffset: 3n, compression: Compression.Lz4, records: [{ value: 'd' }, { value: 'e' }] });
    const partial = encodeBatch({ baseOffset: 5n, records: [{ value: 'f' }] }).subarray(0, 40);
    const out = decodeFetchedRecords(tp, 1n, Buffer.concat([a, b, partial]), null);
    expect(values(out.records)).toEqual(['b', 'c', 'd', 'e']);
    expect(out.records.map((r) => r.offset)).toEqual([1n, 2n, 3n, 4n]);
    expect(out.records[0]).toMatchObject({ topic: 't', partition: 3 });
    expect(out.nextOffset).toBe(5n);
  });

  test('offsets with gaps (compaction) advance by the batch\'s last offset delta, not by a count', () => {
    const compacted = encodeBatch({ baseOffset: 10n, records: [{ value: 'x', offsetDelta: 0 }, { value: 'y', offsetDelta: 7 }] });
    const out = decodeFetchedRecords(tp, 10n, compacted, null);
    expect(out.records.map((r) => r.offset)).toEqual([10n, 17n]);
    expect(out.nextOffset).toBe(18n);
  });

  test('nothing fetched: no records, the position stays', () => {
    expect(decodeFetchedRecords(tp, 42n, null, null)).toEqual({ records: [], nextOffset: 42n });
    expect(decodeFetchedRecords(tp, 42n, Buffer.alloc(0), null)).toEqual({ records: [], nextOffset: 42n });
  });

  test('read_committed: an aborted transaction is skipped up to its marker; a committed one is read; markers are no records', () => {
    const aborted = encodeBatch({ baseOffset: 0n, producerId: 7n, producerEpoch: 0, isTransactional: true, records: [{ value: 'gone' }] });
    const committed = encodeBatch({ baseOffset: 2n, producerId: 8n, producerEpoch: 0, isTransactional: true,
      records: [{ value: 'kept' }] });
    const later = encodeBatch({ baseOffset: 5n, producerId: 7n, producerEpoch: 0, isTransactional: true,
      records: [{ value: 'next txn' }] });
    const blob = Buffer.concat([aborted, marker(1n, 7n, 0), committed, marker(3n, 8n, 1),
      encodeBatch({ baseOffset: 4n, records: [{ value: 'plain' }] }), later, marker(6n, 7n, 1)]);
    const out = decodeFetchedRecords(tp, 0n, blob, [{ producerId: 7n, firstOffset: 0n }]);
    expect(values(out.records)).toEqual(['kept', 'plain', 'next txn']);
    expect(out.nextOffset).toBe(7n);
  });

  test('only control records: no records, but the position moves over them', () => {
    const out = decodeFetchedRecords(tp, 9n, marker(9n, 1n, 1), null);
    expect(out).toEqual({ records: [], nextOffset: 10n });
  });

  test('LOG_APPEND_TIME gives every record the batch\'s max timestamp; repeated header keys become arrays', () => {
    const batch = encodeBatch({
      baseOffset: 0n,
      records: [{ value: 'v', timestamp: 1000n, headers: [{ key: 'h', value: Buffer.from('1') }, { key: 'h', value: Buffer.from('2') }] }],
    });
    const out = decodeFetchedRecords(tp, 0n, batch, null);
    expect(out.records[0].headers.h).toEqual([Buffer.from('1'), Buffer.from('2')]);
    expect(out.records[0].timestamp).toBe(1000n);
    batch.writeInt16BE(batch.readInt16BE(21) | 0x08, 21);
    batch.writeBigInt64BE(5000n, 35);
    batch.writeUInt32BE(crc32c(batch, 21), 17);
    expect(decodeFetchedRecords(tp, 0n, batch, null).records[0].timestamp).toBe(5000n);
  });

  test('a CRC mismatch is RECORD_BATCH_CORRUPT (check.crcs), naming the partition and fetch offset', () => {
    const batch = encodeBatch({ baseOffset: 0n, records: [{ value: 'abc' }] });
    batch[batch.length - 1] ^= 1;
    let err: unknown;
    try {
      decodeFetchedRecords(tp, 0n, batch, null);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CorruptRecordBatchError);
    expect(err).toMatchObject({ code: 'RECORD_BATCH_CORRUPT', location: { topic: 't', partition: 3, fetchOffset: '0' } });
    expect((err as Error).message).toMatch(/CRC mismatch/);
  });

  test.each([0, 4, 13, -1, -12, -100])('a batch length of %i (shorter than any batch) is RECORD_BATCH_CORRUPT, not a RangeError', (n) => {
    // Java's ByteBufferLogInputStream: a size under the smallest record overhead is a CorruptRecordException.
    const batch = Buffer.concat([encodeBatch({ baseOffset: 0n, records: [{ value: 'abc' }] }), Buffer.alloc(80)]);
    batch.writeInt32BE(n, 8);
    let err: unknown;
    try {
      decodeFetchedRecords(tp, 0n, batch, null);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CorruptRecordBatchError);
    expect(err).toMatchObject({ code: 'RECORD_BATCH_CORRUPT', location: { topic: 't', partition: 3, fetchOffset: '0' } });
  });

  test('an undefined codec id (5) with a valid CRC is UNSUPPORTED_COMPRESSION', () => {
    const batch = encodeBatch({ baseOffset: 0n, records: [{ value: 'abc' }] });
    batch.writeInt16BE((batch.readInt16BE(21) & ~7) | 5, 21);
    batch.writeUInt32BE(crc32c(batch, 21), 17);
    expect(() => decodeFetchedRecords(tp, 0n, batch, null)).toThrow(UnsupportedCompressionError);
  });

  test('records that do not parse (valid CRC) are RECORD_BATCH_CORRUPT, never a poison record', () => {
    const batch = encodeBatch({ baseOffset: 0n, records: [{ value: 'abc' }] });
    batch.writeInt32BE(2, 57); // two records claimed, one present
    batch.writeUInt32BE(crc32c(batch, 21), 17);
    expect(() => decodeFetchedRecords(tp, 0n, batch, null)).toThrow(CorruptRecordBatchError);
  });
});
