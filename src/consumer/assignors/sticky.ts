/**
 * The `sticky` assignor: the eager protocol of Java's `org.apache.kafka.clients.consumer.StickyAssignor`
 * (`internals/AbstractStickyAssignor`), without rack awareness.
 *
 * Goals, in order:
 * 1. Balance. Identical subscriptions: counts differ by at most one. Different subscriptions: no
 *    chain of hand-overs can move a partition from a member holding n partitions to one holding
 *    n-2 or fewer (this is Java's "as balanced as possible" and slightly stronger: Java checks only
 *    direct hand-overs). Partitions only go to subscribers of their topic.
 * 2. Stickiness. Keep as many partitions as possible with the member that owned them in the
 *    previous generation. Each member reports that assignment in its subscription userData
 *    (StickyAssignorUserData V1: previous assignment + generation; V0, without generation, is read too).
 *
 * Conflicting claims (two members report the same partition) are settled as in Java: the claimant
 * with the highest generation keeps it; when the highest generation is shared, no claimant keeps it
 * and it is reassigned like a new partition. A member without a generation counts as -1. Either way
 * every partition gets exactly one owner.
 *
 * Identical subscriptions use Java's quota algorithm (ConstrainedAssignmentBuilder): each member
 * keeps up to its quota of owned partitions (min = floor(P/M), and max = ceil(P/M) for the first
 * P mod M members that already own that many), then the rest are dealt round-robin to members below
 * quota. That moves only what balance requires. Different subscriptions: keep every valid owned
 * partition, give each unowned partition (topics with fewest subscribers first) to its least loaded
 * subscriber, then rebalance along shortest hand-over chains, preferring partitions that were
 * already moving over ones a member owned.
 *
 * Unlike Java (which iterates HashMaps), the result depends only on the input's contents, never on
 * member order.
 */
import { KafkaEosError } from '../../errors';
import {
  compareStrings,
  decodeStickyUserData,
  encodeStickyUserData,
  existingTopics,
  type GroupAssignment,
  type GroupSubscriptions,
  type PartitionsPerTopic,
  type TopicPartition,
} from '../../protocol/consumer-protocol';

/** Protocol name shared with Java, librdkafka and kafka-python consumers. */
export const STICKY_ASSIGNOR_NAME = 'sticky';

/** Java's `AbstractStickyAssignor.DEFAULT_GENERATION`: the generation of a claim that has none. */
export const DEFAULT_GENERATION = -1;

// ---------------------------------------------------------------------------------------------
// Member state: what a member reports about itself when it joins.

/**
 * Where a member's sticky assignor reads the assignment it holds, to report it on the next join.
 * Java's StickyAssignor learns it in `onAssignment`; KafkaJS has no such hook, so the group
 * consumer feeds it (see {@link createStickyAssignorState}).
 */
export interface StickyAssignorState {
  /** The partitions this member was assigned in the last completed rebalance ([] before the first). */
  current(): readonly TopicPartition[];
  /** That rebalance's generation id, or undefined if unknown. */
  generation(): number | undefined;
}

/** A {@link StickyAssignorState} the group consumer updates. */
export interface MutableStickyAssignorState extends StickyAssignorState {
  /**
   * Record the assignment received after SyncGroup. Accepts KafkaJS's `{ [topic]: partitions[] }`
   * (the `memberAssignment` of the `consumer.group_join` event) or a list.
   * @param generationId the generation of that assignment, if the caller knows it.
   */
  update(assignment: Readonly<Record<string, readonly number[]>> | readonly TopicPartition[], generationId?: number): void;
  /** Forget the assignment (after leaving the group or losing the session). */
  reset(): void;
}

/**
 * Creates the state holder a group consumer passes to `createStickyAssignor({ state })`.
 *
 * Feeding it from KafkaJS 2.2.4: `consumer.on(consumer.events.GROUP_JOIN, e =>
 * state.update(e.payload.memberAssignment))` after every rebalance, and `state.reset()` on
 * `consumer.events.STOP` / `CRASH`. KafkaJS does not expose the generation id; without one the
 * member writes V0 user data (no generation), which every client reads, and its claims count as
 * generation -1: they still stick unless another member claims the same partition.
 */
export function createStickyAssignorState(): MutableStickyAssignorState {
  let partitions: TopicPartition[] = [];
  let gen: number | undefined;
  return {
    current: () => partitions,
    generation: () => gen,
    update(assignment, generationId) {
      if (Array.isArray(assignment)) {
        partitions = (assignment as readonly TopicPartition[]).map(({ topic, partition }) => ({ topic, partition }));
      } else {
        const byTopic = assignment as Readonly<Record<string, readonly number[]>>;
        partitions = Object.keys(byTopic).flatMap((topic) => (byTopic[topic] ?? []).map((partition) => ({ topic, partition })));
      }
      gen = generationId;
    },
    reset() {
      partitions = [];
      gen = undefined;
    },
  };
}

/**
 * The subscription userData a sticky member sends: null before its first assignment (as Java),
 * else StickyAssignorUserData with its current assignment (V1 when the generation is known, V0 otherwise).
 */
export function stickyUserData(state: StickyAssignorState | undefined): Buffer | null {
  if (!state) return null;
  const generation = state.generation();
  const partitions = state.current();
  if (partitions.length === 0 && generation === undefined) return null;
  return encodeStickyUserData({ partitions, generation });
}

// ---------------------------------------------------------------------------------------------
// The pure core.

interface Problem {
  memberIds: string[]; // sorted; member index = position
  topics: string[]; // sorted, existing and subscribed by someone; topic index = position
  base: Int32Array; // first partition id of each topic
  partitionCount: number; // P
  topicOf: Int32Array; // partition id -> topic index
  subscribers: number[][]; // topic index -> member indexes (ascending)
  memberTopics: number[][]; // member index -> topic indexes (ascending)
  subscribes: Uint8Array; // member * T + topic -> 1 if subscribed
  original: Int32Array; // partition id -> retained previous owner, -1 if none
  previous: Int32Array; // partition id -> a lower-generation previous claimant, -1 if none
  identical: boolean; // all members subscribe to the same topics
}

function prepare(subscriptions: GroupSubscriptions, partitionsPerTopic: PartitionsPerTopic): Problem {
  const counts = existingTopics(partitionsPerTopic);
  const memberIds = [...subscriptions.keys()].sort(compareStrings);
  const subscribed = memberIds.map((id) => new Set(subscriptions.get(id)!.topics.filter((t) => counts.has(t))));
  const topics = [...new Set(subscribed.flatMap((s) => [...s]))].sort(compareStrings);
  const topicIndex = new Map(topics.map((t, i) => [t, i]));
  const T = topics.length;
  const M = memberIds.length;

  const base = new Int32Array(T + 1);
  topics.forEach((t, i) => (base[i + 1] = base[i]! + counts.get(t)!));
  const P = base[T]!;
  const topicOf = new Int32Array(P);
  for (let t = 0; t < T; t++) topicOf.fill(t, base[t]!, base[t + 1]!);

  const subscribers: number[][] = topics.map(() => []);
  const memberTopics: number[][] = [];
  const subscribes = new Uint8Array(M * T);
  subscribed.forEach((set, m) => {
    const list = [...set].map((t) => topicIndex.get(t)!).sort((a, b) => a - b);
    memberTopics.push(list);
    for (const t of list) {
      subscribers[t]!.push(m);
      subscribes[m * T + t] = 1;
    }
  });
  const first = memberTopics[0]?.join(',');
  const identical = memberTopics.every((l) => l.join(',') === first);

  // Claims: the unique claimant with the highest generation keeps a partition (Java's rule).
  const claims: { member: number; generation: number; ids: number[] }[] = [];
  memberIds.forEach((id, m) => {
    const sub = subscriptions.get(id)!;
    let owned = sub.ownedPartitions;
    let generation = sub.generation;
    if (owned === undefined) {
      const decoded = decodeStickyUserData(sub.userData);
      owned = decoded.partitions;
      generation = decoded.generation ?? generation;
    }
    const ids = new Set<number>();
    for (const { topic, partition } of owned) {
      const t = topicIndex.get(topic);
      if (t === undefined || !Number.isInteger(partition) || partition < 0 || partition >= base[t + 1]! - base[t]!) continue;
      ids.add(base[t]! + partition);
    }
    claims.push({ member: m, generation: generation ?? DEFAULT_GENERATION, ids: [...ids] });
  });
  const bestGen = new Float64Array(P).fill(-Infinity);
  const best = new Int32Array(P).fill(-1);
  const tied = new Uint8Array(P);
  for (const { member, generation, ids } of claims) {
    for (const id of ids) {
      if (generation > bestGen[id]!) {
        bestGen[id] = generation;
        best[id] = member;
        tied[id] = 0;
      } else if (generation === bestGen[id]) {
        tied[id] = 1;
      }
    }
  }
  const original = new Int32Array(P).fill(-1);
  const previous = new Int32Array(P).fill(-1);
  const previousGen = new Float64Array(P).fill(-Infinity);
  for (const { member, generation, ids } of claims) {
    for (const id of ids) {
      if (generation < bestGen[id]! && generation > previousGen[id]!) {
        previousGen[id] = generation;
        previous[id] = member;
      }
    }
  }
  for (let id = 0; id < P; id++) {
    const m = best[id]!;
    // A member keeps a partition only if it still subscribes to the topic (Java revokes otherwise).
    if (m >= 0 && tied[id] === 0 && subscribes[m * T + topicOf[id]!] === 1) original[id] = m;
  }
  return { memberIds, topics, base, partitionCount: P, topicOf, subscribers, memberTopics, subscribes, original, previous, identical };
}

/** Identical subscriptions: Java's quota algorithm. Returns partition id -> member index. */
function assignIdentical(pb: Problem): Int32Array {
  const M = pb.memberIds.length;
  const P = pb.partitionCount;
  const owner = new Int32Array(P).fill(-1);
  const size = new Int32Array(M);
  const minQuota = Math.floor(P / M);
  const maxQuota = Math.ceil(P / M);
  const expectedOver = P % M;
  let over = 0;

  const owned: number[][] = pb.memberIds.map(() => []);
  for (let id = 0; id < P; id++) if (pb.original[id]! >= 0) owned[pb.original[id]!]!.push(id);

  const underMin: number[] = [];
  let atMin: number[] = [];
  for (let m = 0; m < M; m++) {
    // Java keeps the lowest partition numbers first (ordered by partition, then topic).
    const list = owned[m]!.sort((a, b) => a - pb.base[pb.topicOf[a]!]! - (b - pb.base[pb.topicOf[b]!]!) || a - b);
    let keep: number;
    if (list.length < minQuota) {
      keep = list.length;
      underMin.push(m);
    } else if (list.length >= maxQuota && over < expectedOver) {
      keep = maxQuota;
      over++;
      if (over === expectedOver) atMin = [];
    } else {
      keep = minQuota;
      if (over < expectedOver) atMin.push(m);
    }
    for (let i = 0; i < keep; i++) owner[list[i]!] = m;
    size[m] = keep;
  }

  // Deal the rest round-robin: first to members under minQuota, then one each to members at minQuota.
  let next = 0;
  let head = 0;
  for (let id = 0; id < P; id++) {
    if (owner[id]! >= 0) continue;
    let m: number;
    if (underMin.length > 0) {
      if (next >= underMin.length) next = 0;
      m = underMin[next]!;
      owner[id] = m;
      if (++size[m]! === minQuota) {
        underMin.splice(next, 1);
        atMin.push(m);
      } else {
        next++;
      }
    } else if (head < atMin.length) {
      m = atMin[head++]!;
      owner[id] = m;
      size[m]!++;
    } else {
      throw new KafkaEosError('ASSIGNOR_INTERNAL', 'sticky: no member below quota for an unassigned partition');
    }
  }
  return owner;
}

/** Different subscriptions: keep, fill greedily, then rebalance along hand-over chains. */
function assignGeneral(pb: Problem): Int32Array {
  const M = pb.memberIds.length;
  const T = pb.topics.length;
  const P = pb.partitionCount;
  const owner = new Int32Array(P).fill(-1);
  const size = new Int32Array(M);
  // Holdings per (member, topic), split into partitions the member originally owned ("kept",
  // costly to move) and partitions that are moving anyway ("free").
  const free: (Set<number> | undefined)[] = new Array(M * T);
  const kept: (Set<number> | undefined)[] = new Array(M * T);
  const give = (id: number, m: number): void => {
    const slot = m * T + pb.topicOf[id]!;
    const sets = pb.original[id] === m ? kept : free;
    (sets[slot] ??= new Set()).add(id);
    owner[id] = m;
    size[m]!++;
  };
  const take = (id: number): void => {
    const m = owner[id]!;
    const slot = m * T + pb.topicOf[id]!;
    (pb.original[id] === m ? kept : free)[slot]!.delete(id);
    size[m]!--;
  };

  for (let id = 0; id < P; id++) if (pb.original[id]! >= 0) give(id, pb.original[id]!);

  // Unowned partitions, topics with the fewest subscribers first, to the least loaded subscriber
  // (ties: the lower-generation previous owner, then member id).
  const topicOrder = pb.topics.map((_, t) => t).sort((a, b) => pb.subscribers[a]!.length - pb.subscribers[b]!.length || a - b);
  for (const t of topicOrder) {
    const subs = pb.subscribers[t]!;
    for (let id = pb.base[t]!; id < pb.base[t + 1]!; id++) {
      if (owner[id]! >= 0) continue;
      let chosen = subs[0]!;
      for (const m of subs) if (size[m]! < size[chosen]!) chosen = m;
      const prev = pb.previous[id]!;
      if (prev >= 0 && pb.subscribes[prev * T + t] === 1 && size[prev] === size[chosen]) chosen = prev;
      give(id, chosen);
    }
  }

  // Rebalance. Each hand-over chain moves k partitions from source s to target a with
  // size[a] <= size[s] - 2 and k <= (size[s] - size[a]) / 2, so the sum of squared sizes strictly
  // falls; when no chain exists the sizes are the most balanced the subscriptions allow.
  // Shortest chains by cost (0: the hop can use a partition that is moving anyway; 1: it must
  // take one the giver owned), found level by level.
  const UNREACHED = 0x7fffffff;
  const dist = new Int32Array(M);
  const parent = new Int32Array(M);
  const edgeCost = new Int32Array(M);
  const done = new Uint8Array(M);
  const findChain = (s: number): number => {
    dist.fill(UNREACHED);
    done.fill(0);
    dist[s] = 0;
    let level = [s];
    for (let d = 0; level.length > 0; d++) {
      const nextLevel: number[] = [];
      for (let i = 0; i < level.length; i++) {
        const x = level[i]!;
        if (done[x]) continue;
        done[x] = 1;
        for (const t of pb.memberTopics[x]!) {
          const slot = x * T + t;
          const nFree = free[slot]?.size ?? 0;
          if (nFree + (kept[slot]?.size ?? 0) === 0) continue;
          const c = nFree > 0 ? 0 : 1;
          for (const y of pb.subscribers[t]!) {
            if (done[y] || dist[y]! <= d + c) continue;
            dist[y] = d + c;
            parent[y] = x;
            edgeCost[y] = c;
            (c === 0 ? level : nextLevel).push(y);
          }
        }
      }
      level = nextLevel;
    }
    let target = -1;
    for (let a = 0; a < M; a++) {
      if (a === s || dist[a] === UNREACHED || size[a]! > size[s]! - 2) continue;
      if (target < 0 || dist[a]! < dist[target]! || (dist[a] === dist[target] && size[a]! < size[target]!)) target = a;
    }
    return target;
  };
  // Partitions x can hand to y, in preference order: ones y owned before, other moving ones, then x's own.
  const pick = (x: number, y: number, k: number, cost: number): number[] => {
    const out: number[] = [];
    const topics = pb.memberTopics[y]!;
    for (const pass of [0, 1, 2]) {
      if (pass === 2 && cost === 0) break;
      for (const t of topics) {
        const set = (pass === 2 ? kept : free)[x * T + t];
        if (!set) continue;
        for (const id of set) {
          if (out.length === k) return out;
          if (pass === 0
            ? pb.original[id] === y || pb.previous[id] === y
            : pass === 1 ? !(pb.original[id] === y || pb.previous[id] === y) : true) {
            out.push(id);
          }
        }
      }
    }
    return out;
  };
  const available = (x: number, y: number, cost: number): number => {
    let n = 0;
    for (const t of pb.memberTopics[y]!) {
      n += free[x * T + t]?.size ?? 0;
      if (cost === 1) n += kept[x * T + t]?.size ?? 0;
    }
    return n;
  };

  // Always move from the largest member that has a chain, re-ranking after every move, so no
  // member gives more than balance asks of it.
  const ranked = [...Array(M).keys()];
  for (let moved = true; moved; ) {
    moved = false;
    ranked.sort((x, y) => size[y]! - size[x]! || x - y);
    let smallest = size[0]!;
    for (let m = 1; m < M; m++) smallest = Math.min(smallest, size[m]!);
    for (const s of ranked) {
      if (size[s]! - smallest < 2) break;
      const a = findChain(s);
      if (a < 0) continue;
      // Move at most half the gap, and no further past the group's average than needed, so that
      // members are not pushed over and refilled with partitions that could have stayed put.
      let k = Math.floor((size[s]! - size[a]!) / 2);
      const toAverage = Math.min(size[s]! - Math.floor(P / M), Math.ceil(P / M) - size[a]!);
      if (toAverage >= 1) k = Math.min(k, toAverage);
      for (let y = a; y !== s; y = parent[y]!) k = Math.min(k, available(parent[y]!, y, edgeCost[y]!));
      // Walk the chain from the source end so every hop has partitions to pass on.
      const chain: number[] = [];
      for (let y = a; y !== s; y = parent[y]!) chain.push(y);
      chain.reverse();
      let x = s;
      for (const y of chain) {
        for (const id of pick(x, y, k, edgeCost[y]!)) {
          take(id);
          give(id, y);
        }
        x = y;
      }
      moved = true;
      break;
    }
  }
  return owner;
}

/**
 * Pure sticky assignment (Java `StickyAssignor`, eager).
 *
 * @param subscriptions memberId -> subscription. Each member's previous assignment comes from
 *   `ownedPartitions` + `generation` when `ownedPartitions` is set, else from `userData` decoded as
 *   StickyAssignorUserData (its generation, else `generation`). Claims on unknown topics or
 *   partitions are ignored.
 * @param partitionsPerTopic topic -> partition count; unknown or empty topics are skipped.
 * @returns every member, each with its partitions sorted by topic then partition.
 * @throws KafkaEosError `ASSIGNOR_INVALID_INPUT` on a bad partition count; `ASSIGNOR_INTERNAL` if
 *   the result would break "every partition exactly once, only to a subscriber" (a bug).
 */
export function assignSticky(subscriptions: GroupSubscriptions, partitionsPerTopic: PartitionsPerTopic): GroupAssignment {
  const pb = prepare(subscriptions, partitionsPerTopic);
  const out: GroupAssignment = new Map(pb.memberIds.map((id) => [id, []]));
  if (pb.memberIds.length === 0 || pb.partitionCount === 0) return out;
  const owner = pb.identical ? assignIdentical(pb) : assignGeneral(pb);
  const T = pb.topics.length;
  for (let id = 0; id < pb.partitionCount; id++) {
    const m = owner[id]!;
    const t = pb.topicOf[id]!;
    if (m < 0 || pb.subscribes[m * T + t] !== 1) {
      throw new KafkaEosError(
        'ASSIGNOR_INTERNAL', `sticky: partition ${pb.topics[t]}-${id - pb.base[t]!} left unassigned or given to a non-subscriber`,
      );
    }
    out.get(pb.memberIds[m]!)!.push({ topic: pb.topics[t]!, partition: id - pb.base[t]! });
  }
  return out; // partition ids ascend in (topic, partition) order, so each list is already sorted
}
