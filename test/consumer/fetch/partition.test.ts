/** One partition's fetch state: a seek always wins over a fetch in flight; one chunk waits at most; release is final. */
import { FetchPartition } from '../../../src/consumer/fetch/partition';
import { IllegalTransitionError } from '../../../src/util/state-machine';

const chunk = (fetchOffset: bigint, nextOffset: bigint) => ({ fetchOffset, records: [], nextOffset, highWatermark: 100n });

describe('FetchPartition', () => {
  test('unpositioned until a seek; a fetch moves the position to the chunk\'s end; the runner takes the chunk', () => {
    const p = new FetchPartition({ topic: 't', partition: 0 });
    expect(p.state).toBe('unpositioned');
    expect(() => p.sending()).toThrow(IllegalTransitionError);
    p.seek(5n);
    const sent = p.sending();
    expect(sent).toEqual({ epoch: 1, offset: 5n });
    expect(p.received(sent, chunk(5n, 9n))).toBe(true);
    expect([p.state, p.position]).toEqual(['buffered', 9n]);
    expect(() => p.sending()).toThrow(IllegalTransitionError); // never fetched while a chunk waits
    const taken = p.take()!;
    expect([taken.fetchOffset, taken.nextOffset, p.state]).toEqual([5n, 9n, 'fetchable']);
    expect(p.holds(taken)).toBe(true);
  });

  test('a seek while a fetch is in flight makes its response stale: the seek wins', () => {
    const p = new FetchPartition({ topic: 't', partition: 0 });
    p.seek(0n);
    const sent = p.sending();
    p.seek(40n);
    expect(p.received(sent, chunk(0n, 10n))).toBe(false);
    expect([p.state, p.position]).toEqual(['fetchable', 40n]);
  });

  test('a seek drops a waiting chunk, and a taken chunk is no longer current', () => {
    const p = new FetchPartition({ topic: 't', partition: 0 });
    p.seek(0n);
    p.received(p.sending(), chunk(0n, 10n));
    const taken = p.take()!;
    p.received(p.sending(), chunk(10n, 20n));
    p.seek(3n);
    expect(p.take()).toBeNull();
    expect(p.holds(taken)).toBe(false);
    expect(p.position).toBe(3n);
  });

  test('released is terminal: seeks and responses are ignored', () => {
    const p = new FetchPartition({ topic: 't', partition: 0 });
    p.seek(0n);
    const sent = p.sending();
    p.release('revoked');
    expect(p.received(sent, chunk(0n, 5n))).toBe(false);
    p.seek(9n);
    expect([p.state, p.position, p.released]).toEqual(['released', 0n, true]);
  });

  test('an empty response or one that does not move the position leaves it fetchable', () => {
    const p = new FetchPartition({ topic: 't', partition: 0 });
    p.seek(7n);
    expect(p.received(p.sending(), null)).toBe(false);
    expect(p.received(p.sending(), chunk(7n, 7n))).toBe(false);
    expect([p.state, p.position]).toEqual(['fetchable', 7n]);
  });

  test('take() cuts a chunk to maxRecords / maxBytes: contiguous ranges, the rest waits (no refetch), at least one record', () => {
    const rec = (offset: bigint, bytes: number) => ({ topic: 't', partition: 0, offset, key: null, value: Buffer.alloc(bytes),
      timestamp: 0n, headers: {} });
    const p = new FetchPartition({ topic: 't', partition: 0 });
    p.seek(10n);
    // offsets 10, 11, 13 (12: a transaction marker), 14; the fetch covered up to 20 (control records after 14)
    expect(p.received(p.sending(), { fetchOffset: 10n, records: [rec(10n, 5), rec(11n, 5), rec(13n, 5), rec(14n, 50)],
      nextOffset: 20n, highWatermark: 20n })).toBe(true);
    const a = p.take({ maxRecords: 2 })!;
    expect([a.fetchOffset, a.records.map((r) => r.offset), a.nextOffset, p.state]).toEqual([10n, [10n, 11n], 13n, 'buffered']);
    const b = p.take({ maxBytes: 12 })!;
    expect([b.fetchOffset, b.records.map((r) => r.offset), b.nextOffset]).toEqual([13n, [13n], 14n]);
    const c = p.take({ maxBytes: 12 })!; // one record bigger than the bound still goes, alone
    expect([c.fetchOffset, c.records.map((r) => r.offset), c.nextOffset, p.state]).toEqual([14n, [14n], 20n, 'fetchable']);
    expect(p.holds(a) && p.holds(c)).toBe(true);
  });
});
