/** Committed offsets and pending transactional ones, per group (Kafka's OffsetMetadataManager storage). */
import { OffsetStore } from '../../../../../src/testing/mock-broker/groups/offsets/store';

const at = (committedOffset: bigint, commitTimestampMs = 0) => ({
  committedOffset, committedLeaderEpoch: -1, metadata: '', commitTimestampMs,
});

test('commit, read, delete: a group without offsets is gone from the store', () => {
  const s = new OffsetStore();
  s.commit('g', 't', 0, at(5n));
  s.commit('g', 't', 1, at(7n));
  expect(s.get('g', 't', 1)?.committedOffset).toBe(7n);
  expect(s.view('g').map((o) => [o.topic, o.partition, o.committedOffset])).toEqual([['t', 0, 5n], ['t', 1, 7n]]);
  expect(s.delete('g', 't', 0)).toBe(true);
  expect(s.delete('g', 't', 0)).toBe(false);
  expect(s.hasOffsets('g')).toBe(true);
  expect(s.deleteGroup('g')).toBe(1);
  expect(s.hasOffsets('g')).toBe(false);
});

test('transactional offsets stay pending until their transaction ends: committed on commit, dropped on abort', () => {
  const s = new OffsetStore();
  s.stagePending('g', 1n, 't', 0, at(9n));
  s.stagePending('g', 2n, 't', 1, at(4n));
  expect(s.get('g', 't', 0)).toBeUndefined();
  expect([s.hasPending('g', 't', 0), s.hasAnyPending('g'), s.hasAnyPending('other')]).toEqual([true, true, false]);
  expect(s.completePending('g', 1n, true).map((p) => p.partition)).toEqual([0]);
  expect(s.get('g', 't', 0)?.committedOffset).toBe(9n);
  expect(s.completePending('g', 2n, false).map((p) => p.partition)).toEqual([1]);
  expect(s.get('g', 't', 1)).toBeUndefined();
  expect(s.hasAnyPending('g')).toBe(false);
  expect(s.completePending('g', 3n, true)).toEqual([]);
});
