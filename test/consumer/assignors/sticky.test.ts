import {
  assignRoundRobin,
  assignSticky,
  createStickyAssignorState,
  encodeStickyUserData,
  stickyUserData,
  type GroupAssignment,
} from '../../../src/consumer/assignors';
import { expectValid, key, moved, short, sizes, subs, topics, withOwned } from './helpers';

const tp = (topic: string, partition: number) => ({ topic, partition });
const flat = (a: GroupAssignment, id: string) => new Set((a.get(id) ?? []).map(key));
const containsAll = (outer: Set<string>, inner: Set<string>) => [...inner].every((k) => outer.has(k));

describe('sticky (Java StickyAssignor Javadoc)', () => {
  it('Example 1: fresh assignment equals round robin, and survives C1 leaving without moves', () => {
    const s = subs({ C0: ['t0', 't1', 't2', 't3'], C1: ['t0', 't1', 't2', 't3'], C2: ['t0', 't1', 't2', 't3'] });
    const t = topics({ t0: 2, t1: 2, t2: 2, t3: 2 });
    const first = assignSticky(s, t);
    expect(short(first)).toEqual({ C0: ['t0p0', 't1p1', 't3p0'], C1: ['t0p1', 't2p0', 't3p1'], C2: ['t1p0', 't2p1'] });
    expect(short(first)).toEqual(short(assignRoundRobin(s, t)));

    const after = withOwned(s, first, 1);
    after.delete('C1');
    const second = assignSticky(after, t);
    expectValid(after, t, second);
    expect(sizes(second)).toEqual([4, 4]);
    expect(containsAll(flat(second, 'C0'), flat(first, 'C0'))).toBe(true);
    expect(containsAll(flat(second, 'C2'), flat(first, 'C2'))).toBe(true);
  });

  it('Example 2: balances where round robin does not, and keeps 5 of 6 when C0 leaves', () => {
    const s = subs({ C0: ['t0'], C1: ['t0', 't1'], C2: ['t0', 't1', 't2'] });
    const t = topics({ t0: 1, t1: 2, t2: 3 });
    const first = assignSticky(s, t);
    expect(short(first)).toEqual({ C0: ['t0p0'], C1: ['t1p0', 't1p1'], C2: ['t2p0', 't2p1', 't2p2'] });

    const after = withOwned(s, first, 1);
    after.delete('C0');
    expect(short(assignSticky(after, t))).toEqual({ C1: ['t0p0', 't1p0', 't1p1'], C2: ['t2p0', 't2p1', 't2p2'] });
  });
});

describe('sticky (scenarios from Java AbstractStickyAssignorTest / StickyAssignorTest)', () => {
  it('one consumer: no topic, nonexistent topic, one topic', () => {
    expect(short(assignSticky(subs({ C: [] }), topics({})))).toEqual({ C: [] });
    expect(short(assignSticky(subs({ C: ['x'] }), topics({})))).toEqual({ C: [] });
    expect(short(assignSticky(subs({ C: ['t'] }), topics({ t: 3 })))).toEqual({ C: ['tp0', 'tp1', 'tp2'] });
  });

  it('only assigns partitions from subscribed topics', () => {
    expect(short(assignSticky(subs({ C: ['t'] }), topics({ t: 2, other: 3 })))).toEqual({ C: ['tp0', 'tp1'] });
  });

  it('adding then removing a consumer keeps the original owner stable', () => {
    const t = topics({ t: 3 });
    const one = assignSticky(subs({ C1: ['t'] }), t);
    const two = assignSticky(withOwned(subs({ C1: ['t'], C2: ['t'] }), one, 1), t);
    expect(sizes(two).sort()).toEqual([1, 2]);
    expect(containsAll(flat(one, 'C1'), flat(two, 'C1'))).toBe(true);
    expect(moved(one, two)).toBe(1);
    const back = assignSticky(withOwned(subs({ C2: ['t'] }), two, 2), t);
    expect(short(back).C2).toHaveLength(3);
    expect(containsAll(flat(back, 'C2'), flat(two, 'C2'))).toBe(true);
  });

  it('poor round-robin scenario: mixed subscriptions still balance', () => {
    const s = subs({
      C0: ['t0', 't1', 't2', 't3', 't4'],
      C1: ['t1', 't3', 't4'],
      C2: ['t0', 't1', 't2', 't3', 't4'],
      C3: ['t3'],
      C4: ['t4'],
    });
    const t = topics({ t0: 2, t1: 1, t2: 1, t3: 2, t4: 2 });
    const result = assignSticky(s, t);
    expectValid(s, t, result);
    expect(Math.max(...sizes(result)) - Math.min(...sizes(result))).toBeLessThanOrEqual(1);
  });

  it('testAssignmentWithConflictingPreviousGenerations: the highest generation keeps contested partitions', () => {
    const t = topics({ t1: 4, t2: 4, t3: 4 });
    const all = ['t1', 't2', 't3'];
    for (const equal of [true, false]) {
      const c1 = equal
        ? [tp('t1', 0), tp('t1', 1), tp('t1', 2), tp('t2', 2), tp('t2', 3), tp('t3', 0)]
        : [tp('t1', 0), tp('t1', 1), tp('t1', 2), tp('t1', 3)];
      const c2 = [tp('t1', 0), tp('t1', 1), tp('t2', 0), tp('t2', 1), tp('t2', 2), tp('t2', 3)];
      const c3 = [tp('t1', 2), tp('t1', 3), tp('t3', 0), tp('t3', 1), tp('t3', 2), tp('t3', 3)];
      const s = subs({
        C1: { topics: equal ? all : ['t1'], ownedPartitions: c1, generation: 1 },
        C2: { topics: equal ? all : ['t1', 't2'], ownedPartitions: c2, generation: 2 },
        C3: { topics: all, ownedPartitions: c3, generation: 2 },
      });
      const result = assignSticky(s, t);
      expectValid(s, t, result);
      expect(sizes(result)).toEqual([4, 4, 4]);
      expect(containsAll(new Set(c2.map(key)), flat(result, 'C2'))).toBe(true);
      expect(containsAll(new Set(c3.map(key)), flat(result, 'C3'))).toBe(true);
    }
  });

  it('same-generation double claims are taken from both claimants (never two owners)', () => {
    const t = topics({ t: 3 });
    const s = subs({
      C1: { topics: ['t'], ownedPartitions: [tp('t', 0), tp('t', 1)], generation: 5 },
      C2: { topics: ['t'], ownedPartitions: [tp('t', 0), tp('t', 2)], generation: 5 },
    });
    const result = assignSticky(s, t);
    expectValid(s, t, result);
    expect(flat(result, 'C1').has(key(tp('t', 1)))).toBe(true);
    expect(flat(result, 'C2').has(key(tp('t', 2)))).toBe(true);
  });

  it('testSchemaBackwardCompatibility: V0 user data (no generation) mixes with V1', () => {
    const t = topics({ t: 3 });
    const s = subs({
      C1: { topics: ['t'], userData: encodeStickyUserData({ partitions: [tp('t', 0), tp('t', 2)], generation: 1 }) },
      C2: { topics: ['t'], userData: encodeStickyUserData({ partitions: [tp('t', 1)] }) },
      C3: { topics: ['t'] },
    });
    const result = assignSticky(s, t);
    expectValid(s, t, result);
    expect(sizes(result)).toEqual([1, 1, 1]);
    expect(['tp0', 'tp2']).toContain(short(result).C1![0]);
    expect(short(result).C2).toEqual(['tp1']);
  });

  it('drops claims on deleted topics, unsubscribed topics and out-of-range partitions', () => {
    const s = subs({
      C1: { topics: ['t'], ownedPartitions: [tp('gone', 0), tp('t', 9), tp('u', 0)], generation: 3 },
      C2: { topics: ['t', 'u'], ownedPartitions: [], generation: 3 },
    });
    const t = topics({ t: 2, u: 1 });
    const result = assignSticky(s, t);
    expectValid(s, t, result);
    expect(short(result)).toEqual({ C1: ['tp0', 'tp1'], C2: ['up0'] });
  });

  it('is a fixed point: reassigning an unchanged group moves nothing', () => {
    const s = subs({ A: ['x', 'y'], B: ['y', 'z'], C: ['x', 'z'], D: ['z'] });
    const t = topics({ x: 5, y: 7, z: 3 });
    const first = assignSticky(s, t);
    const second = assignSticky(withOwned(s, first, 1), t);
    expect(short(second)).toEqual(short(first));
  });

  it('finds hand-over chains that single moves miss', () => {
    // A only takes x, B takes x and y, C only takes y. C owns everything of y, B owns all of x.
    const s = subs({
      A: { topics: ['x'], ownedPartitions: [], generation: 1 },
      B: { topics: ['x', 'y'], ownedPartitions: [tp('x', 0), tp('x', 1), tp('x', 2), tp('x', 3)], generation: 1 },
      C: { topics: ['y'], ownedPartitions: [tp('y', 0), tp('y', 1), tp('y', 2), tp('y', 3), tp('y', 4), tp('y', 5)], generation: 1 },
    });
    const result = assignSticky(s, topics({ x: 4, y: 8 }));
    expect(sizes(result)).toEqual([4, 4, 4]);
  });
});

describe('sticky state holder', () => {
  it('reports nothing before the first assignment, then V0 or V1 user data', () => {
    const state = createStickyAssignorState();
    expect(stickyUserData(state)).toBeNull();
    state.update({ t: [1, 0] });
    expect(stickyUserData(state)).toEqual(encodeStickyUserData({ partitions: [tp('t', 0), tp('t', 1)] }));
    state.update([tp('u', 2)], 9);
    expect(stickyUserData(state)).toEqual(encodeStickyUserData({ partitions: [tp('u', 2)], generation: 9 }));
    state.reset();
    expect(stickyUserData(state)).toBeNull();
  });
});
