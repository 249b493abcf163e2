import fc from 'fast-check';
import {
  assignRange,
  assignRoundRobin,
  assignSticky,
  type GroupAssignment,
  type MemberSubscription,
} from '../../../src/consumer/assignors';
import { expectValid, moved, short, sizes, withOwned } from './helpers';

const TOPICS = ['a', 'b', 'c', 'd', 'e', 'f'];

const partitionCounts = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: TOPICS.length, maxLength: TOPICS.length })
  .map((ns) => new Map(TOPICS.map((t, i) => [t, ns[i]!])));

/** Members with random subscriptions (may include a topic that does not exist). */
const group = fc
  .uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 9 })
  .chain((ids) =>
    fc.tuple(
      fc.constant(ids),
      fc.array(fc.subarray([...TOPICS, 'missing'], { minLength: 1 }), { minLength: ids.length, maxLength: ids.length }),
    ),
  )
  .map(([ids, topicLists]) => new Map<string, MemberSubscription>(ids.map((id, i) => [id, { topics: topicLists[i]! }])));

const identicalGroup = fc
  .tuple(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 9 }), fc.subarray(TOPICS, { minLength: 1 }))
  .map(([ids, topics]) => new Map<string, MemberSubscription>(ids.map((id) => [id, { topics }])));

const reversed = <K, V>(m: ReadonlyMap<K, V>) => new Map([...m].reverse());
const spread = (a: GroupAssignment) => Math.max(...sizes(a)) - Math.min(...sizes(a));

const assignors = { range: assignRange, roundrobin: assignRoundRobin, sticky: assignSticky };

describe.each(Object.entries(assignors))('%s properties', (_name, assign) => {
  it('assigns every partition exactly once, only to a subscriber', () => {
    fc.assert(fc.property(group, partitionCounts, (s, t) => expectValid(s, t, assign(s, t))));
  });

  it('is deterministic whatever the member order', () => {
    fc.assert(
      fc.property(group, partitionCounts, (s, t) => {
        expect(short(assign(reversed(s), t))).toEqual(short(assign(s, t)));
      }),
    );
  });
});

describe('balance with identical subscriptions', () => {
  it('roundrobin and sticky: counts differ by at most one', () => {
    fc.assert(
      fc.property(identicalGroup, partitionCounts, (s, t) => {
        expect(spread(assignRoundRobin(s, t))).toBeLessThanOrEqual(1);
        expect(spread(assignSticky(s, t))).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('range: within one per topic', () => {
    fc.assert(
      fc.property(identicalGroup, partitionCounts, (s, t) => {
        const result = assignRange(s, t);
        for (const topic of TOPICS) {
          const perMember = [...result.values()].map((l) => l.filter((p) => p.topic === topic).length);
          expect(Math.max(...perMember) - Math.min(...perMember)).toBeLessThanOrEqual(1);
        }
      }),
    );
  });
});

describe('sticky', () => {
  it('different subscriptions: no member could take a partition from one holding 2+ more (Java balance)', () => {
    fc.assert(
      fc.property(group, partitionCounts, (s, t) => {
        const result = assignSticky(s, t);
        for (const [a, mine] of result) {
          const subscribed = new Set(s.get(a)!.topics);
          for (const [b, theirs] of result) {
            if (theirs.length > mine.length + 1) {
              expect(theirs.some((p) => subscribed.has(p.topic))).toBe(false);
            }
          }
        }
      }),
    );
  });

  it('keeps an unchanged group unchanged (any subscriptions)', () => {
    fc.assert(
      fc.property(group, partitionCounts, (s, t) => {
        const first = assignSticky(s, t);
        expect(short(assignSticky(withOwned(s, first, 1), t))).toEqual(short(first));
      }),
    );
  });

  it('identical subscriptions: members leaving/joining move only what balance requires', () => {
    const scenario = fc.record({
      before: identicalGroup,
      t: partitionCounts,
      leave: fc.array(fc.boolean(), { maxLength: 9 }),
      join: fc.uniqueArray(fc.string({ minLength: 5, maxLength: 6 }), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(scenario, ({ before, t, leave, join }) => {
        const first = assignSticky(before, t);
        const topics = [...before.values()][0]!.topics;
        const after = withOwned(before, first, 1);
        [...after.keys()].forEach((id, i) => leave[i] && after.delete(id));
        for (const id of join) after.set(id, { topics, ownedPartitions: [], generation: -1 });
        fc.pre(after.size > 0);
        const second = assignSticky(after, t);
        expectValid(after, t, second);
        expect(spread(second)).toBeLessThanOrEqual(1);

        // Lower bound: each survivor keeps at most its quota; ceil-quota slots go to those owning enough.
        const total = [...t].filter(([topic]) => topics.includes(topic)).reduce((n, [, c]) => n + c, 0);
        const M = after.size;
        const minQ = Math.floor(total / M);
        const maxQ = Math.ceil(total / M);
        const owned = [...after.keys()].map((id) => first.get(id)?.length ?? 0);
        const keep = owned.reduce((n, o) => n + Math.min(o, minQ), 0) +
          (maxQ > minQ ? Math.min(total % M, owned.filter((o) => o >= maxQ).length) : 0);
        const required = owned.reduce((n, o) => n + o, 0) - keep;
        expect(moved(first, second)).toBe(required);
      }),
      { numRuns: 300 },
    );
  });
});

describe('sticky with arbitrary previous claims', () => {
  const claimed = fc
    .tuple(group, partitionCounts)
    .chain(([s, t]) =>
      fc.tuple(
        fc.constant(s),
        fc.constant(t),
        fc.array(
          fc.record({
            owned: fc.array(fc.record({ topic: fc.constantFrom(...TOPICS, 'missing'), partition: fc.integer({ min: -1, max: 10 }) }),
              { maxLength: 12 }),
            generation: fc.option(fc.integer({ min: -1, max: 4 }), { nil: undefined }),
          }),
          { minLength: s.size, maxLength: s.size },
        ),
      ),
    )
    .map(([s, t, claims]) => {
      const withClaims = new Map<string, MemberSubscription>(
        [...s].map(([id, sub], i) => [id, { topics: sub.topics, ownedPartitions: claims[i]!.owned, generation: claims[i]!.generation }]),
      );
      return { s: withClaims, t };
    });

  it('stays valid, deterministic and balanced whatever members claim (conflicts included)', () => {
    fc.assert(
      fc.property(claimed, ({ s, t }) => {
        const result = assignSticky(s, t);
        expectValid(s, t, result);
        expect(short(assignSticky(reversed(s), t))).toEqual(short(result));
        for (const [a, mine] of result) {
          const subscribed = new Set(s.get(a)!.topics);
          for (const theirs of result.values()) {
            if (theirs.length > mine.length + 1) expect(theirs.some((p) => subscribed.has(p.topic))).toBe(false);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
