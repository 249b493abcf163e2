/** The KIP-848 server-side assignors: every partition once, balance, stickiness, subscriptions honoured. */
import { Assignment, EMPTY, TopicMetadata, assignmentOf, size } from '../../../../../src/testing/mock-broker/groups/consumer/assignment';
import { AssignorMember, SERVER_ASSIGNORS, rangeAssignor,
  uniformAssignor } from '../../../../../src/testing/mock-broker/groups/consumer/assignors';

const T1: TopicMetadata = { topicId: 'a'.repeat(32), name: 't1', numPartitions: 6 };
const T2: TopicMetadata = { topicId: 'b'.repeat(32), name: 't2', numPartitions: 3 };
const topics = (...ts: TopicMetadata[]) => new Map(ts.map((t) => [t.topicId, t]));
const member = (memberId: string, subscribed: TopicMetadata[], previousTarget: Assignment = EMPTY): AssignorMember => ({
  memberId, subscribedTopicIds: new Set(subscribed.map((t) => t.topicId)), previousTarget,
});

function owners(result: Map<string, Assignment>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [id, a] of result) for (const [t, parts] of a) for (const p of parts) out.set(
    `${t}:${p}`, [...(out.get(`${t}:${p}`) ?? []), id],
  );
  return out;
}

function expectEachPartitionOnce(result: Map<string, Assignment>, ts: TopicMetadata[]): void {
  const o = owners(result);
  for (const t of ts) for (let p = 0; p < t.numPartitions; p++) expect(o.get(`${t.topicId}:${p}`)).toHaveLength(1);
  expect(o.size).toBe(ts.reduce((n, t) => n + t.numPartitions, 0));
}

describe.each([['uniform', uniformAssignor], ['range', rangeAssignor]])('%s assignor', (_name, assignor) => {
  test('assigns every partition of the subscribed topics exactly once, balanced for identical subscriptions', () => {
    const result = assignor.assign([member('m1', [T1, T2]), member('m2', [T1, T2]), member('m3', [T1, T2])], topics(T1, T2));
    expectEachPartitionOnce(result, [T1, T2]);
    const counts = [...result.values()].map(size);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(assignor === rangeAssignor ? 2 : 1);
  });

  test('gives a member only partitions of topics it subscribes to', () => {
    const result = assignor.assign([member('m1', [T1]), member('m2', [T2])], topics(T1, T2));
    expect([...result.get('m1')!.keys()]).toEqual([T1.topicId]);
    expect([...result.get('m2')!.keys()]).toEqual([T2.topicId]);
    expectEachPartitionOnce(result, [T1, T2]);
  });

  test('a member subscribed to nothing known gets an empty assignment', () => {
    const result = assignor.assign([member('m1', [T1]), member('m2', [])], topics(T1));
    expect(size(result.get('m2')!)).toBe(0);
    expect(size(result.get('m1')!)).toBe(6);
  });

  test('is sticky: a member joining takes partitions only from the others, who keep the rest', () => {
    const first = assignor.assign([member('m1', [T1]), member('m2', [T1])], topics(T1));
    const second = assignor.assign(
      [member('m1', [T1], first.get('m1')), member('m2', [T1], first.get('m2')), member('m3', [T1])], topics(T1),
    );
    expectEachPartitionOnce(second, [T1]);
    for (const id of ['m1', 'm2']) {
      const kept = second.get(id)!.get(T1.topicId) ?? [];
      expect(kept.every((p) => first.get(id)!.get(T1.topicId)!.includes(p))).toBe(true);
      expect(kept).toHaveLength(2);
    }
    expect(size(second.get('m3')!)).toBe(2);
  });

  test('drops partitions that no longer exist from the previous target', () => {
    const previous = assignmentOf([[T1.topicId, [0, 1, 2, 7, 8]]]);
    const result = assignor.assign([member('m1', [T1], previous)], topics(T1));
    expect(result.get('m1')!.get(T1.topicId)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

test('uniform balances different subscriptions: a partition moves while a subscribed member holds two fewer', () => {
  // m1 alone on t2; m1, m2 and m3 on t1. Greedy in name order would overload m1.
  const result = uniformAssignor.assign([member('m1', [T1, T2]), member('m2', [T1]), member('m3', [T1])], topics(T1, T2));
  expectEachPartitionOnce(result, [T1, T2]);
  expect(result.get('m1')!.get(T2.topicId)).toEqual([0, 1, 2]);
  const counts = ['m1', 'm2', 'm3'].map((id) => size(result.get(id)!));
  expect(counts).toEqual([3, 3, 3]);
});

test('range gives contiguous ranges per topic, the first members by id one extra', () => {
  const result = rangeAssignor.assign([member('b', [T1]), member('a', [T1]), member('c', [T1]), member('d', [T1])], topics(T1));
  expect(result.get('a')!.get(T1.topicId)).toEqual([0, 1]);
  expect(result.get('b')!.get(T1.topicId)).toEqual([2, 3]);
  expect(result.get('c')!.get(T1.topicId)).toEqual([4]);
  expect(result.get('d')!.get(T1.topicId)).toEqual([5]);
});

test('the assignors a member may name are uniform (default, first) and range', () => {
  expect([...SERVER_ASSIGNORS.keys()]).toEqual(['uniform', 'range']);
});
