/**
 * Assignments of a KIP-848 consumer group: topic id → sorted partition indexes, as Kafka's
 * `Assignment` / `TopicIds` keep them (group-coordinator module). Pure values and set operations; every
 * function returns a new map and never changes its arguments. Empty topics are dropped.
 */

/** Topic id (32 hex digits, as Metadata serves it) → partition indexes in ascending order. */
export type Assignment = ReadonlyMap<string, readonly number[]>;

export const EMPTY: Assignment = new Map();

/** A topic the group can assign: its id, name and partition count (from the cluster's metadata). */
export interface TopicMetadata {
  readonly topicId: string;
  readonly name: string;
  readonly numPartitions: number;
}

/** Where the coordinator reads topic metadata (the cluster's topics). */
export interface TopicSource {
  byName(name: string): TopicMetadata | undefined;
  byId(topicId: string): TopicMetadata | undefined;
  all(): Iterable<TopicMetadata>;
  /** A number that changes whenever a topic is created, deleted or given partitions (regex subscriptions re-resolve then). */
  version(): number;
}

/** Builds an assignment from `[topicId, partitions]` pairs (partitions sorted, duplicates dropped). */
export function assignmentOf(entries: Iterable<readonly [string, Iterable<number>]>): Assignment {
  const out = new Map<string, number[]>();
  for (const [topicId, parts] of entries) {
    const set = new Set([...(out.get(topicId) ?? []), ...parts]);
    if (set.size > 0) out.set(topicId, [...set].sort((a, b) => a - b));
  }
  return out;
}

/** The wire shape (`[{ topicId, partitions }]`) read into an assignment; null stays null. */
export function fromWire(tps: readonly { topicId: string; partitions: readonly number[] }[] | null): Assignment | null {
  return tps === null ? null : assignmentOf(tps.map((t) => [t.topicId, t.partitions] as const));
}

/** The wire shape of an assignment, topics in id order. */
export function toWire(a: Assignment): { topicId: string; partitions: number[] }[] {
  return [...a].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([topicId, partitions]) => ({ topicId, partitions: [...partitions] }));
}

function combine(a: Assignment, b: Assignment, keep: (inB: boolean) => boolean): Assignment {
  const out = new Map<string, number[]>();
  for (const [topicId, parts] of a) {
    const other = new Set(b.get(topicId) ?? []);
    const kept = parts.filter((p) => keep(other.has(p)));
    if (kept.length > 0) out.set(topicId, kept);
  }
  return out;
}

/** Partitions of `a` that are also in `b`. */
export function intersect(a: Assignment, b: Assignment): Assignment {
  return combine(a, b, (inB) => inB);
}

/** Partitions of `a` that are not in `b`. */
export function subtract(a: Assignment, b: Assignment): Assignment {
  return combine(a, b, (inB) => !inB);
}

/** Partitions in `a` or `b`. */
export function union(a: Assignment, b: Assignment): Assignment {
  return assignmentOf([...a, ...b]);
}

export function isEmpty(a: Assignment): boolean {
  return a.size === 0;
}

export function size(a: Assignment): number {
  let n = 0;
  for (const parts of a.values()) n += parts.length;
  return n;
}

export function equals(a: Assignment, b: Assignment): boolean {
  return size(a) === size(b) && size(intersect(a, b)) === size(a);
}

/** Every `[topicId, partition]` of an assignment. */
export function* partitionsOf(a: Assignment): Iterable<[string, number]> {
  for (const [topicId, parts] of a) for (const p of parts) yield [topicId, p];
}
