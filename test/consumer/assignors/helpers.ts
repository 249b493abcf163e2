import type { GroupAssignment, MemberSubscription, TopicPartition } from '../../../src/consumer/assignors';

/** `{ C0: ['t0'], ... }` -> subscriptions map. */
export function subs(spec: Record<string, string[] | MemberSubscription>): Map<string, MemberSubscription> {
  return new Map(Object.entries(spec).map(([id, s]) => [id, Array.isArray(s) ? { topics: s } : s]));
}

export function topics(spec: Record<string, number>): Map<string, number> {
  return new Map(Object.entries(spec));
}

/** Assignment as `{ C0: ['t0p0', ...] }` for readable expectations. */
export function short(assignment: GroupAssignment): Record<string, string[]> {
  return Object.fromEntries([...assignment].map(([id, list]) => [id, list.map((p) => `${p.topic}p${p.partition}`)]));
}

export const key = (p: TopicPartition): string => `${p.topic}\u0000${p.partition}`;

/** Every partition of every subscribed topic exactly once, and only to a subscriber. */
export function expectValid(
  subscriptions: ReadonlyMap<string, MemberSubscription>,
  partitionsPerTopic: ReadonlyMap<string, number>,
  assignment: GroupAssignment,
): void {
  expect([...assignment.keys()].sort()).toEqual([...subscriptions.keys()].sort());
  const seen = new Set<string>();
  for (const [id, list] of assignment) {
    const mine = new Set(subscriptions.get(id)!.topics);
    for (const p of list) {
      if (!mine.has(p.topic)) throw new Error(`${id} got ${p.topic}-${p.partition} without subscribing`);
      if (seen.has(key(p))) throw new Error(`${p.topic}-${p.partition} assigned twice`);
      seen.add(key(p));
    }
  }
  const subscribed = new Set([...subscriptions.values()].flatMap((s) => s.topics));
  let expected = 0;
  for (const [t, n] of partitionsPerTopic) if (subscribed.has(t)) expected += n;
  expect(seen.size).toBe(expected);
}

export function sizes(assignment: GroupAssignment): number[] {
  return [...assignment.values()].map((l) => l.length);
}

/** Partitions that changed hands between two assignments (only those whose previous owner is still present). */
export function moved(before: GroupAssignment, after: GroupAssignment): number {
  const owner = new Map<string, string>();
  for (const [id, list] of after) for (const p of list) owner.set(key(p), id);
  let n = 0;
  for (const [id, list] of before) {
    if (!after.has(id)) continue;
    for (const p of list) if (owner.has(key(p)) && owner.get(key(p)) !== id) n++;
  }
  return n;
}

/** Subscriptions carrying each member's previous assignment, as the sticky adapter would. */
export function withOwned(
  subscriptions: ReadonlyMap<string, MemberSubscription>,
  previous: GroupAssignment,
  generation?: number,
): Map<string, MemberSubscription> {
  return new Map(
    [...subscriptions].map(([id, s]) => [id, { topics: s.topics, ownedPartitions: previous.get(id) ?? [], generation }]),
  );
}
