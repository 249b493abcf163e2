/** Record batches of many records: the encoder's bookkeeping must not spread the records into one call's arguments. */
import { decodeBatch, encodeBatch, readBatchHeader } from '../../src/protocol/record-batch';

test('a batch of 300,000 records encodes (no Math.max(...records) stack overflow) with lastOffsetDelta = count - 1', () => {
  const records = Array.from({ length: 300_000 }, () => ({ value: Buffer.from('x') }));
  const header = readBatchHeader(encodeBatch({ records }));
  expect(header.lastOffsetDelta).toBe(299_999);
  expect(header.recordCount).toBe(300_000);
});

test('timestamp deltas of 8 bytes and more decode exactly, whatever their sign (zig-zag values past 2^53)', () => {
  // KafkaJS takes a batch's first timestamp from the messages that set one: one record at 9e15 among records at
  // now makes every other delta about -9e15, whose zig-zag value (odd, past 2^53) a double rounds to a positive delta.
  const base = 9_000_000_000_000_000n;
  const stamps = [base, 1_796_600_000_001n, base - 2n ** 53n + 1n, 1n, base + 2n ** 53n + 3n, 2n ** 62n, -(2n ** 62n) + base, base - 1n];
  const { records } = decodeBatch(encodeBatch({ records: stamps.map((timestamp) => ({ value: 'v', timestamp })) }));
  expect(records.map((r) => r.timestamp)).toEqual(stamps);
});
