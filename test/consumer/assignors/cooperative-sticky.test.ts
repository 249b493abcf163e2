/**
 * cooperative-sticky (KIP-429): the sticky assignment from owned partitions, minus every partition that would change
 * owner (withheld until its owner revoked it); the follow-up rebalance gives them out. The generation travels as
 * Java's assignor writes it.
 */
import fc from 'fast-check';
import {
  assignCooperativeSticky, cooperativeGeneration, cooperativeStickyUserData,
} from '../../../src/consumer/assignors/cooperative-sticky';
import { decodeSubscription, encodeSubscription } from '../../../src/protocol/consumer-protocol';
import { key, short, subs, topics } from './helpers';

const tp = (partition: number) => ({ topic: 't', partition });
const owning = (partitions: number[], generation = 1) => ({ topics: ['t'], ownedPartitions: partitions.map(tp), generation });

describe('assignCooperativeSticky', () => {
  test('a joining member: each old member keeps all but one; the two that move are withheld, then given in the follow-up', () => {
    const first = assignCooperativeSticky(subs({ A: owning([0, 1, 2]), B: owning([3, 4, 5]), C: { topics: ['t'] } }), topics({ t: 6 }));
    const withheld = short(first);
    expect(withheld.A).toHaveLength(2);
    expect(withheld.B).toHaveLength(2);
    expect(withheld.C).toEqual([]);
    // Follow-up: A and B revoked what they lost and say so in their subscriptions.
    const follow = assignCooperativeSticky(
      subs({ A: owning(first.get('A')!.map((p) => p.partition), 2), B: owning(first.get('B')!.map((p) => p.partition), 2),
        C: { topics: ['t'], generation: 2 } }),
      topics({ t: 6 }),
    );
    expect(follow.get('A')).toEqual(first.get('A'));
    expect(follow.get('B')).toEqual(first.get('B'));
    expect(follow.get('C')!.map((p) => p.partition).sort()).toEqual([0, 1, 2, 3, 4, 5].filter((p) =>
      !first.get('A')!.some((x) => x.partition === p) && !first.get('B')!.some((x) => x.partition === p)));
  });

  test('nothing moves when the members are balanced already', () => {
    const a = assignCooperativeSticky(subs({ A: owning([0, 2]), B: owning([1, 3]) }), topics({ t: 4 }));
    expect(short(a)).toEqual({ A: ['tp0', 'tp2'], B: ['tp1', 'tp3'] });
  });

  test('a partition nobody owns (new partitions, a member that left) is given at once', () => {
    const a = assignCooperativeSticky(subs({ A: owning([0, 1]), B: owning([2]) }), topics({ t: 4 }));
    expect(short(a)).toEqual({ A: ['tp0', 'tp1'], B: ['tp2', 'tp3'] });
  });

  test('property: no partition ever goes to a member while another member claims it', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 12 }), fc.array(fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 6 }),
        { minLength: 1, maxLength: 5 }),
      (partitions, claims) => {
        const members = Object.fromEntries(claims.map((c, i) => [`M${i}`, owning([...new Set(c.filter((p) => p < partitions))])]));
        const result = assignCooperativeSticky(subs(members), topics({ t: partitions }));
        const seen = new Set<string>();
        for (const [id, list] of result) {
          for (const p of list) {
            expect(seen.has(key(p))).toBe(false);
            seen.add(key(p));
            const ownedByOther = Object.entries(members).some(([other, m]) => other !== id &&
              m.ownedPartitions.some((o) => o.partition === p.partition));
            const ownedByMe = members[id].ownedPartitions.some((o) => o.partition === p.partition);
            expect(ownedByOther && !ownedByMe).toBe(false);
          }
        }
      },
    ), { numRuns: 300 });
  });
});

describe('the generation a member reports', () => {
  test('Java writes it as a 4-byte userData; the v2+ GenerationId field wins when set', () => {
    expect(cooperativeStickyUserData(7)).toEqual(Buffer.from([0, 0, 0, 7]));
    const v1 = decodeSubscription(encodeSubscription({ topics: ['t'], userData: cooperativeStickyUserData(4),
      ownedPartitions: [tp(0)] }, 1));
    expect(cooperativeGeneration(v1)).toBe(4);
    const v3 = decodeSubscription(encodeSubscription({ topics: ['t'], userData: cooperativeStickyUserData(4), generationId: 9 }, 3));
    expect(cooperativeGeneration(v3)).toBe(9);
    expect(cooperativeGeneration({ generationId: -1, userData: null })).toBeUndefined();
    expect(cooperativeGeneration({ generationId: -1, userData: Buffer.from([1, 2]) })).toBeUndefined();
  });
});
