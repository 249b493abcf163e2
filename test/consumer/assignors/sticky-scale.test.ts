import { assignSticky, type MemberSubscription } from '../../../src/consumer/assignors';
import { expectValid, moved, sizes, withOwned } from './helpers';

// 100 members x 10,000 partitions (100 topics x 100 partitions). Budgets are loose; the times are logged.
const topicNames = Array.from({ length: 100 }, (_, i) => `topic-${String(i).padStart(3, '0')}`);
const partitionsPerTopic = new Map(topicNames.map((t) => [t, 100]));
const memberIds = Array.from({ length: 100 }, (_, i) => `member-${String(i).padStart(3, '0')}`);

function timed<T>(label: string, f: () => T): T {
  const start = process.hrtime.bigint();
  const out = f();
  // eslint-disable-next-line no-console
  console.log(`${label}: ${(Number(process.hrtime.bigint() - start) / 1e6).toFixed(0)} ms`);
  return out;
}

describe('sticky at 100 members x 10,000 partitions', () => {
  it('identical subscriptions: fresh, one leaves, one joins', () => {
    const s = new Map<string, MemberSubscription>(memberIds.map((id) => [id, { topics: topicNames }]));
    const first = timed('identical fresh', () => assignSticky(s, partitionsPerTopic));
    expectValid(s, partitionsPerTopic, first);
    expect(new Set(sizes(first))).toEqual(new Set([100]));

    const leave = withOwned(s, first, 1);
    leave.delete('member-050');
    const second = timed('identical leave', () => assignSticky(leave, partitionsPerTopic));
    expect(moved(first, second)).toBe(0);

    const join = withOwned(s, first, 1);
    join.set('member-new', { topics: topicNames, ownedPartitions: [], generation: -1 });
    const third = timed('identical join', () => assignSticky(join, partitionsPerTopic));
    expect(moved(first, third)).toBe(99); // the newcomer gets floor(10000/101) = 99, all taken from others
  }, 60_000);

  it('different subscriptions: fresh, one leaves, one joins', () => {
    // Deterministic pseudo-random subsets of about 60 topics per member.
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const s = new Map<string, MemberSubscription>(memberIds.map((id) => [id, { topics: topicNames.filter(() => rand() < 0.6) }]));
    const first = timed('general fresh', () => assignSticky(s, partitionsPerTopic));
    expectValid(s, partitionsPerTopic, first);
    expect(Math.max(...sizes(first)) - Math.min(...sizes(first))).toBeLessThanOrEqual(1);

    const leave = withOwned(s, first, 1);
    leave.delete('member-050');
    const second = timed('general leave', () => assignSticky(leave, partitionsPerTopic));
    expectValid(leave, partitionsPerTopic, second);

    const join = withOwned(s, first, 1);
    join.set('member-new', { topics: topicNames.slice(0, 50), ownedPartitions: [], generation: -1 });
    const third = timed('general join', () => assignSticky(join, partitionsPerTopic));
    expectValid(join, partitionsPerTopic, third);
    // eslint-disable-next-line no-console
    console.log(`general: moved on leave ${moved(first, second)}, on join ${moved(first,
      third)}; sizes ${Math.min(...sizes(third))}..${Math.max(...sizes(third))}`);
    expect(moved(first, second)).toBe(0); // the leaver's partitions are simply redistributed
    expect(moved(first, third)).toBe(99); // optimal: the newcomer's 99 come one from each of 99 members
    expect(Math.max(...sizes(third)) - Math.min(...sizes(third))).toBeLessThanOrEqual(1);

    // Worst case: one member owned everything, 99 others (different subscriptions) arrive.
    const all = new Map<string, MemberSubscription>([...s]
      .map(([id, sub]) => [id, { topics: sub.topics, ownedPartitions: [], generation: -1 }]));
    const everything = topicNames.flatMap((topic) => Array.from({ length: 100 }, (_, partition) => ({ topic, partition })));
    all.set('member-000', { topics: topicNames, ownedPartitions: everything, generation: 1 });
    const spread = timed('general 1 -> 100 members', () => assignSticky(all, partitionsPerTopic));
    expectValid(all, partitionsPerTopic, spread);
    expect(Math.max(...sizes(spread)) - Math.min(...sizes(spread))).toBeLessThanOrEqual(1);
    expect(spread.get('member-000')!.length).toBeGreaterThanOrEqual(99);
  }, 120_000);
});
