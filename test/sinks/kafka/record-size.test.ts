/**
 * The record batch size estimate (src/sinks/kafka/record-size.ts) against the bytes encodeBatch really writes
 * (src/protocol/record-batch.ts), over many record shapes; and the split of a partition's records under a limit.
 */
import { encodeBatch, BATCH_HEADER_BYTES, type RecordHeader } from '../../../src/protocol/record-batch';
import { recordSizeInBytes, splitRecordBatches, varintSize, varlongSize, type BatchRecord } from '../../../src/sinks/kafka/record-size';

/** A deterministic pseudo-random generator (mulberry32), so that a failure repeats. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const lengths = [0, 1, 2, 63, 64, 127, 128, 8191, 8192, 20000];

function randomRecord(next: () => number, withTimestamp: boolean): BatchRecord {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const bytes = () => (next() < 0.2 ? null : Buffer.alloc(pick(lengths), 'a'));
  const headers: RecordHeader[] = [];
  const n = pick([0, 0, 1, 3, 70]);
  for (let i = 0; i < n; i++) headers.push({ key: 'h'.repeat(pick([0, 1, 64, 200])) + 'é'.repeat(pick([0, 2])), value: bytes() });
  const r: BatchRecord = { key: bytes(), value: bytes(), headers };
  if (withTimestamp) r.timestamp = 1_700_000_000_000n + BigInt(Math.floor(next() * 2 ** 40)) - 2n ** 39n;
  return r;
}

const encoded = (records: BatchRecord[]) => encodeBatch({
  records: records.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })),
  producerId: 5n, producerEpoch: 1, baseSequence: 0, isTransactional: true,
}).length;

test('varint and varlong sizes match the zig-zag encoding at each byte boundary', () => {
  expect([0, -1, 63, -64, 64, -65, 8191, 8192, 2 ** 31 - 1, -(2 ** 31)].map(varintSize)).toEqual([1, 1, 1, 1, 2, 2, 2, 3, 5, 5]);
  expect([0n, -1n, 63n, 64n, 2n ** 61n, -(2n ** 63n), 2n ** 63n - 1n].map(varlongSize)).toEqual([1, 1, 1, 2, 9, 10, 10]);
});

test('one record: header plus recordSizeInBytes is exactly the encoded batch, over 2000 shapes', () => {
  const next = rng(7);
  for (let i = 0; i < 2000; i++) {
    const r = randomRecord(next, false);
    expect(BATCH_HEADER_BYTES + recordSizeInBytes(0, 0n, r.key, r.value, r.headers)).toBe(encoded([r]));
  }
});

test('a split batch\'s counted bytes are exactly its encoded size (no timestamps), and never above the limit', () => {
  const next = rng(11);
  for (const limit of [200, 5_000, 100_000]) {
    const records = Array.from({ length: 3000 }, () => randomRecord(next, false));
    const batches = splitRecordBatches(records, limit);
    expect(batches.flatMap((b) => b.records)).toEqual(records); // every record, in order
    for (const b of batches) {
      const actual = encoded(b.records);
      expect(b.bytes).toBe(actual);
      if (b.records.length > 1) expect(actual).toBeLessThanOrEqual(limit);
    }
  }
});

test('with timestamps (the first record\'s or a later one\'s), the count is exact or above the encoded size, never below', () => {
  const next = rng(13);
  for (let i = 0; i < 200; i++) {
    const records = Array.from({ length: 1 + Math.floor(next() * 40) }, () => randomRecord(next, next() < 0.5));
    const [b] = splitRecordBatches(records, Infinity);
    const actual = encoded(b.records);
    expect(b.bytes).toBeGreaterThanOrEqual(actual);
    // Only the later records' own timestamps under a first record without one are counted at the worst case.
    if (records[0].timestamp !== undefined || records.every((r) => r.timestamp === undefined)) expect(b.bytes).toBe(actual);
  }
});

test('400,000 one-byte records (the breaker\'s case): batches by encoded size, each under the limit', () => {
  const records: BatchRecord[] = Array.from({ length: 400_000 }, () => ({ key: null, value: Buffer.from('x'), headers: [] }));
  const batches = splitRecordBatches(records, 900_000);
  // payload bytes alone (400 KB) would fit one batch; the framing (attributes, deltas, lengths) makes ~2.8 MB
  expect(batches.length).toBeGreaterThan(1);
  for (const b of batches) expect(encoded(b.records)).toBeLessThanOrEqual(900_000);
  expect(batches.reduce((n, b) => n + b.records.length, 0)).toBe(400_000);
});

test('a record larger than the limit gets a batch of its own', () => {
  const small: BatchRecord = { key: null, value: Buffer.from('s'), headers: [] };
  const big: BatchRecord = { key: null, value: Buffer.alloc(1000), headers: [] };
  const batches = splitRecordBatches([small, big, small], 500);
  expect(batches.map((b) => b.records.length)).toEqual([1, 1, 1]);
  expect(batches[1].records[0]).toBe(big);
});
