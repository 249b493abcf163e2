/**
 * The server-side assignors of KIP-848 consumer groups, `uniform` (the default, as in Kafka 4.x) and
 * `range`, after Apache Kafka's `UniformAssignor` and `RangeAssignor` (group-coordinator module,
 * `org.apache.kafka.coordinator.group.assignor`). Pure: members and topics in, target assignment out.
 *
 * - uniform: every partition of the subscribed topics goes to exactly one subscribed member; members keep
 *   the partitions of their previous target assignment where they still subscribe, and partitions move
 *   only to even out counts. With identical subscriptions the counts differ by at most one (Kafka's
 *   optimized builder); with different subscriptions a partition moves while a subscribed member holds at
 *   least two fewer (Kafka's general builder balances the same way, in its own order).
 * - range: per topic, the subscribed members sorted by member id get contiguous ranges, the first
 *   `partitions % members` one extra, as the classic range assignor does; a member keeps its previous
 *   partitions of the topic that fit its quota (Kafka's server range assignor is sticky the same way).
 *
 * Ties are broken by member id, so the same input always gives the same assignment.
 */
import { Assignment, TopicMetadata, assignmentOf } from './assignment';

/** One member as the assignor sees it. */
export interface AssignorMember {
  readonly memberId: string;
  /** Topic ids the member subscribes to (known topics only). */
  readonly subscribedTopicIds: ReadonlySet<string>;
  /** The member's partitions in the previous target assignment (stickiness). */
  readonly previousTarget: Assignment;
}

/** A server-side assignor (Kafka's `ConsumerGroupPartitionAssignor`). */
export interface ServerAssignor {
  readonly name: string;
  /** The target assignment: member id → partitions. Members with nothing get an empty assignment. */
  assign(members: readonly AssignorMember[], topics: ReadonlyMap<string, TopicMetadata>): Map<string, Assignment>;
}

const byId = (a: { memberId: string }, b: { memberId: string }) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0);
const key = (topicId: string, p: number) => `${topicId}:${p}`;

function finish(members: readonly AssignorMember[], owned: Map<string, [string, number][]>): Map<string, Assignment> {
  return new Map(members.map((m) => {
    const perTopic = new Map<string, number[]>();
    for (const [t, p] of owned.get(m.memberId) ?? []) perTopic.set(t, [...(perTopic.get(t) ?? []), p]);
    return [m.memberId, assignmentOf(perTopic)];
  }));
}

export const uniformAssignor: ServerAssignor = {
  name: 'uniform',
  assign(members, topics) {
    const sorted = [...members].sort(byId);
    const owned = new Map<string, [string, number][]>(sorted.map((m) => [m.memberId, []]));
    const owner = new Map<string, string>();
    const subscribed = (m: AssignorMember, topicId: string) => m.subscribedTopicIds.has(topicId) && topics.has(topicId);
    // 1. Stickiness: keep what the previous target gave, where still subscribed and existing.
    for (const m of sorted) {
      for (const [topicId, parts] of m.previousTarget) {
        if (!subscribed(m, topicId)) continue;
        const n = topics.get(topicId)!.numPartitions;
        for (const p of parts) {
          if (p >= n || owner.has(key(topicId, p))) continue;
          owner.set(key(topicId, p), m.memberId);
          owned.get(m.memberId)!.push([topicId, p]);
        }
      }
    }
    const count = (id: string) => owned.get(id)!.length;
    const least = (candidates: AssignorMember[]) => candidates.reduce((best, m) => (count(m.memberId) < count(best.memberId) ? m : best));
    // 2. Free partitions, topic by topic in name order, each to the least loaded subscribed member.
    const ordered = [...topics.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const t of ordered) {
      const candidates = sorted.filter((m) => subscribed(m, t.topicId));
      if (candidates.length === 0) continue;
      for (let p = 0; p < t.numPartitions; p++) {
        if (owner.has(key(t.topicId, p))) continue;
        const m = least(candidates);
        owner.set(key(t.topicId, p), m.memberId);
        owned.get(m.memberId)!.push([t.topicId, p]);
      }
    }
    // 3. Balance: move a partition while a subscribed member holds at least two fewer than its owner.
    for (let moved = true; moved;) {
      moved = false;
      for (const m of [...sorted].sort((a, b) => count(b.memberId) - count(a.memberId) || byId(a, b))) {
        const list = owned.get(m.memberId)!;
        for (let i = list.length - 1; i >= 0 && !moved; i--) {
          const [topicId, p] = list[i];
          const candidates = sorted.filter((c) => c !== m && subscribed(c, topicId));
          if (candidates.length === 0) continue;
          const to = least(candidates);
          if (count(to.memberId) > count(m.memberId) - 2) continue;
          list.splice(i, 1);
          owned.get(to.memberId)!.push([topicId, p]);
          moved = true;
        }
        if (moved) break;
      }
    }
    return finish(sorted, owned);
  },
};

export const rangeAssignor: ServerAssignor = {
  name: 'range',
  assign(members, topics) {
    const sorted = [...members].sort(byId);
    const owned = new Map<string, [string, number][]>(sorted.map((m) => [m.memberId, []]));
    for (const t of topics.values()) {
      const subs = sorted.filter((m) => m.subscribedTopicIds.has(t.topicId));
      if (subs.length === 0) continue;
      const base = Math.floor(t.numPartitions / subs.length);
      const extra = t.numPartitions % subs.length;
      const quota = new Map(subs.map((m, i) => [m.memberId, base + (i < extra ? 1 : 0)]));
      const taken = new Set<number>();
      const mine = new Map<string, number[]>(subs.map((m) => [m.memberId, []]));
      for (const m of subs) {
        for (const p of m.previousTarget.get(t.topicId) ?? []) {
          if (p >= t.numPartitions || taken.has(p) || mine.get(m.memberId)!.length >= quota.get(m.memberId)!) continue;
          taken.add(p);
          mine.get(m.memberId)!.push(p);
        }
      }
      let next = 0;
      for (const m of subs) {
        const list = mine.get(m.memberId)!;
        while (list.length < quota.get(m.memberId)!) {
          while (taken.has(next)) next++;
          taken.add(next);
          list.push(next);
        }
        for (const p of list) owned.get(m.memberId)!.push([t.topicId, p]);
      }
    }
    return finish(sorted, owned);
  },
};

/** The assignors a member may name in `serverAssignor`, by name. The first is the default. */
export const SERVER_ASSIGNORS: ReadonlyMap<string, ServerAssignor> = new Map([
  [uniformAssignor.name, uniformAssignor], [rangeAssignor.name, rangeAssignor],
]);

/** Kafka's default `group.consumer.assignors` first entry. */
export const DEFAULT_ASSIGNOR = uniformAssignor.name;
