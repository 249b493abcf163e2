/** Record batches of many records: the encoder's bookkeeping must not spread the records into one call's arguments. */
import fc from 'fast-check';
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

test('records of every varint width (the one- and two-byte fast paths and the general loop) decode to what was encoded', () => {
  // Lengths 0-63 are one zig-zag byte, 64-8191 two, 8192 and up three; offset deltas likewise; null key and value are -1.
  fc.assert(fc.property(fc.array(fc.record({
    key: fc.option(fc.uint8Array({ maxLength: 70 }), { nil: null }),
    value: fc.option(fc.oneof(
      fc.uint8Array({ maxLength: 70 }), fc.integer({ min: 60, max: 9000 }).map((n) => new Uint8Array(n).fill(n & 0xff)),
    ), { nil: null }),
    headers: fc.array(fc.record({
      key: fc.string({ maxLength: 70 }), value: fc.option(fc.uint8Array({ maxLength: 70 }), { nil: null }),
    }), { maxLength: 3 }),
    gap: fc.integer({ min: 1, max: 10000 }),
    timestamp: fc.bigInt({ min: 0n, max: 2n ** 45n }),
  }), { minLength: 1, maxLength: 20 }), (specs) => {
    let delta = -1;
    const input = specs.map((s) => ({
      key: s.key && Buffer.from(s.key), value: s.value && Buffer.from(s.value), timestamp: s.timestamp, offsetDelta: (delta += s.gap),
      headers: s.headers.map((h) => ({ key: h.key, value: h.value && Buffer.from(h.value) })),
    }));
    const { records } = decodeBatch(encodeBatch({ baseOffset: 1000n, records: input }));
    expect(records.map((r) => ({ ...r, headers: r.headers }))).toEqual(input.map((r) => ({
      offset: 1000n + BigInt(r.offsetDelta), timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers,
    })));
    for (const r of records) { r.headers.push({ key: 'own list', value: null }); } // each record's headers are its own
  }), { numRuns: 300 });
});
