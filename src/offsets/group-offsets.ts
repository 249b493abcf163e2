/**
 * Inspecting and rewinding a consumer group's positions, as Kafka's `kafka-consumer-groups.sh
 * --describe / --reset-offsets` does, for both places a position can live: the group's committed
 * offsets in Kafka, and a sink's stored positions ({@link SinkPositionStore}: the SQL offsets table,
 * sql-positions.ts, or the HDFS sink's claims, hdfs-positions.ts), which are the source of truth for
 * exactly-once consumers (they read them on every assignment and use Kafka's committed offsets for
 * monitoring only).
 *
 * Offsets are "next offset to consume" (Kafka's committed-offset convention); `null` means none.
 */
import type { Admin, Kafka } from 'kafkajs';
import { ConsumerProtocolDecodeError, decodeAssignment } from '../protocol/consumer-protocol';
import { KafkaEosError } from '../errors';
import { partitionKey, type TopicPartition } from '../records';
import type { SinkPositionStore, StoredPosition } from './positions';
import { sqlPositionStore } from './sql-positions';
import { SqlOffsetStore } from '../sinks/sql/offset-store';

export type { SinkPositionStore, StoredPosition } from './positions';

/** A member of the group as DescribeGroups reports it, with its decoded assignment. */
export interface GroupMemberInfo {
  memberId: string;
  clientId: string;
  clientHost: string;
  /** Partitions by topic (empty when the assignment could not be decoded or is not yet made). */
  assignment: Record<string, number[]>;
}

/** One partition's positions. */
export interface PartitionOffsets extends TopicPartition {
  /** The log start offset (ListOffsets, earliest). */
  logStartOffset: bigint;
  /** The high watermark (ListOffsets, latest). */
  highWatermark: bigint;
  /** The group's committed offset in Kafka; null when none is committed. */
  committed: bigint | null;
  /** The sink's stored position; null when no sink is named or nothing is stored (-1). */
  sinkPosition: bigint | null;
  /** highWatermark − (the source of truth's position), ≥ 0; null when that position is unknown. */
  lag: bigint | null;
}

/** Which store the group's consumers resume from. */
export type SourceOfTruth = 'kafka' | 'sink';

/** What {@link describeGroupOffsets} returns. */
export interface GroupOffsetsDescription {
  groupId: string;
  /** The group state (Kafka's names: Empty, Stable, PreparingRebalance, CompletingRebalance, Dead). */
  state: string;
  members: GroupMemberInfo[];
  /**
   * `sink` when a sink is named and holds at least one position of the group (an exactly-once
   * group: its consumers read positions from the sink), else `kafka`.
   */
  sourceOfTruth: SourceOfTruth;
  partitions: PartitionOffsets[];
}

/** Where to look: a KafkaJS admin client (connected), the group, and optionally a sink's offsets store. */
export interface GroupOffsetsTarget {
  /** The client `admin` came from; a reset joins the group briefly through it to commit. */
  kafka: Kafka;
  admin: Admin;
  groupId: string;
  /** Topics to cover; default every topic with a committed offset in Kafka or a stored position in the sink. */
  topics?: string[];
  /** A sink's positions; a {@link SqlOffsetStore} is taken as its offsets table (`sqlPositionStore`). */
  store?: SinkPositionStore | SqlOffsetStore;
}

const positionsOf = (store: SinkPositionStore | SqlOffsetStore | undefined): SinkPositionStore | undefined =>
  (store instanceof SqlOffsetStore ? sqlPositionStore(store) : store);

/** How to move positions; the same choices as kafka-consumer-groups.sh. */
export type ResetSpec =
  | { kind: 'earliest' }
  | { kind: 'latest' }
  /**
   * The first offset whose record timestamp is ≥ timestampMs (an integer, ms since the epoch); the high watermark if
   * none; the log start for a time before the epoch. @throws KafkaEosError CONFIG_INVALID when not an integer
   */
  | { kind: 'datetime'; timestampMs: number }
  /** The current position (of the source of truth) plus `by` (may be negative). */
  | { kind: 'shift-by'; by: bigint }
  /** Explicit positions of named partitions; other partitions are left alone. */
  | { kind: 'offsets'; offsets: { topic: string; partition: number; offset: bigint }[] };

/** Where a reset writes: Kafka's committed offsets, the sink's offsets table, or both. */
export type ResetStore = 'kafka' | 'sink';

/** One partition of a reset plan. */
export interface ResetPlanEntry extends TopicPartition {
  /** The current position of the source of truth (null when none). */
  current: bigint | null;
  /** The new position; null when the partition is left unchanged (see `note`). */
  target: bigint | null;
  /** Why the target differs from what was asked: clamped to the log, or skipped. */
  note?: string;
}

/** A reset computed but not yet applied. */
export interface ResetPlan {
  description: GroupOffsetsDescription;
  stores: ResetStore[];
  entries: ResetPlanEntry[];
  /** What the replay after this reset would do to the sink's output that the operator must know (e.g. duplicates). */
  warnings: string[];
}

/** The group has members, so its positions cannot be changed (they would be overwritten or fenced at once). */
export class GroupActiveError extends KafkaEosError {
  constructor(readonly groupId: string, readonly state: string, readonly members: GroupMemberInfo[]) {
    const who = members.map((m) => `${m.memberId} (client ${m.clientId}, host ${m.clientHost})`).join('; ') || '(members joining)';
    super('GROUP_ACTIVE', `group "${groupId}" is ${state} with ${members.length} active member(s): ${who}; stop them before `
      + `resetting offsets`);
  }
}

/** A member's ConsumerProtocolAssignment as topic → partitions ({} when empty or not a consumer's). */
function assignmentOf(buf: Buffer | undefined): Record<string, number[]> {
  if (!buf || buf.length === 0) return {};
  try {
    const out: Record<string, number[]> = {};
    for (const tp of decodeAssignment(buf).assignedPartitions) (out[tp.topic] ??= []).push(tp.partition);
    return out;
  } catch (err) {
    if (err instanceof ConsumerProtocolDecodeError) return {};
    throw err;
  }
}

async function groupMembers(admin: Admin, groupId: string): Promise<{ state: string; members: GroupMemberInfo[] }> {
  const { groups } = await admin.describeGroups([groupId]);
  const g = groups[0];
  return {
    state: g?.state ?? 'Dead',
    members: (g?.members ?? []).map((m) => ({ memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost,
      assignment: assignmentOf(m.memberAssignment) })),
  };
}

/**
 * Reads the group's state and members, the log range of each partition, the committed offsets and
 * the sink's stored positions.
 * @throws KafkaEosError UNKNOWN_TOPIC naming a topic (given, or remembered by the group) that does not exist.
 */
export async function describeGroupOffsets(target: GroupOffsetsTarget): Promise<GroupOffsetsDescription> {
  const { admin, groupId } = target;
  const store = positionsOf(target.store);
  const { state, members } = await groupMembers(admin, groupId);
  const stored = store ? await store.list(groupId, target.topics) : [];
  const sinkPos = new Map(stored.map((p) => [partitionKey(p), p.nextOffset]));
  const existing = new Set(await admin.listTopics());
  let topics = target.topics;
  if (!topics || topics.length === 0) {
    const committedTopics = (await admin.fetchOffsets({ groupId })).map((t) => t.topic);
    topics = [...new Set([...committedTopics, ...stored.map((p) => p.topic)])].filter((t) => existing.has(t));
  }
  const missing = topics.filter((t) => !existing.has(t));
  if (missing.length > 0) throw new KafkaEosError('UNKNOWN_TOPIC', `topic(s) ${missing.join(', ')} do not exist`);
  topics = [...topics].sort();
  const committed = new Map<string, bigint>();
  if (topics.length > 0) {
    for (const t of await admin.fetchOffsets({ groupId, topics })) {
      for (const p of t.partitions) if (Number(p.offset) >= 0) committed.set(partitionKey({ topic: t.topic, partition: p.partition }),
        BigInt(p.offset));
    }
  }
  const sourceOfTruth: SourceOfTruth = stored.some((p) => p.nextOffset >= 0n) ? 'sink' : 'kafka';
  const partitions: PartitionOffsets[] = [];
  for (const topic of topics) {
    const ranges = (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition);
    for (const r of ranges) {
      const key = partitionKey({ topic, partition: r.partition });
      const highWatermark = BigInt(r.high);
      const sp = sinkPos.get(key);
      const sinkPosition = sp !== undefined && sp >= 0n ? sp : null;
      const c = committed.get(key) ?? null;
      const position = sourceOfTruth === 'sink' ? sinkPosition : c;
      const lag = position === null ? null : highWatermark > position ? highWatermark - position : 0n;
      partitions.push({ topic, partition: r.partition, logStartOffset: BigInt(r.low), highWatermark, committed: c, sinkPosition, lag });
    }
  }
  return { groupId, state, members, sourceOfTruth, partitions };
}

/** Throws {@link GroupActiveError} unless the group is Empty or Dead (no members). */
export function assertGroupInactive(d: { groupId: string; state: string; members: GroupMemberInfo[] }): void {
  if (d.members.length > 0 || !['Empty', 'Dead'].includes(d.state)) throw new GroupActiveError(d.groupId, d.state, d.members);
}

/**
 * Computes a reset without changing anything. Targets outside [log start, high watermark] are
 * clamped to it, as kafka-consumer-groups.sh does, with a note. `shift-by` skips partitions with
 * no current position. Refuses while the group has members.
 * @throws GroupActiveError; KafkaEosError UNKNOWN_TOPIC / UNKNOWN_PARTITION for an explicit offset of a partition that does not exist.
 */
export async function planOffsetReset(target: GroupOffsetsTarget, spec: ResetSpec, stores: ResetStore[]): Promise<ResetPlan> {
  const topics = spec.kind === 'offsets' ? [...new Set(spec.offsets.map((o) => o.topic))] : target.topics;
  const description = await describeGroupOffsets({ ...target, topics });
  assertGroupInactive(description);
  const byTime = new Map<string, bigint>();
  // A time before the epoch is before every record (Kafka refuses negative timestamps other than -1, "none"): the log
  // start, never a ListOffsets query, whose negative timestamps are sentinels (-1 LATEST, -2 EARLIEST, -3 MAX_TIMESTAMP).
  if (spec.kind === 'datetime' && !Number.isSafeInteger(spec.timestampMs)) {
    throw new KafkaEosError('CONFIG_INVALID', `timestampMs: expected an integer number of ms, got ${spec.timestampMs}`);
  }
  if (spec.kind === 'datetime' && spec.timestampMs >= 0) {
    for (const topic of new Set(description.partitions.map((p) => p.topic))) {
      for (const r of await target.admin.fetchTopicOffsetsByTimestamp(topic, spec.timestampMs)) byTime.set(partitionKey({ topic,
        partition: r.partition }), BigInt(r.offset));
    }
  }
  const explicit = new Map(spec.kind === 'offsets' ? spec.offsets.map((o) => [partitionKey(o), o.offset]) : []);
  if (spec.kind === 'offsets') {
    const known = new Set(description.partitions.map(partitionKey));
    const unknown = spec.offsets.filter((o) => !known.has(partitionKey(o)));
    if (unknown.length > 0) throw new KafkaEosError('UNKNOWN_PARTITION',
      `partition(s) ${unknown.map(partitionKey).join(', ')} do not exist`);
  }
  const entries: ResetPlanEntry[] = [];
  for (const p of description.partitions) {
    const key = partitionKey(p);
    if (spec.kind === 'offsets' && !explicit.has(key)) continue;
    const current = description.sourceOfTruth === 'sink' ? p.sinkPosition : p.committed;
    let wanted: bigint | null;
    switch (spec.kind) {
      case 'earliest': wanted = p.logStartOffset; break;
      case 'latest': wanted = p.highWatermark; break;
      case 'datetime': wanted = spec.timestampMs < 0 ? p.logStartOffset : byTime.get(key) ?? p.highWatermark; break;
      case 'shift-by': wanted = current === null ? null : current + spec.by; break;
      case 'offsets': wanted = explicit.get(key) ?? null; break;
    }
    if (wanted === null) {
      entries.push({ topic: p.topic, partition: p.partition, current, target: null,
        note: 'no current position to shift from; unchanged' });
      continue;
    }
    let note: string | undefined;
    if (wanted < p.logStartOffset) { note = `${wanted} is before the log start offset; clamped`; wanted = p.logStartOffset; }
    if (wanted > p.highWatermark) { note = `${wanted} is past the high watermark; clamped`; wanted = p.highWatermark; }
    const store = positionsOf(target.store);
    if (stores.includes('sink') && store?.align) {
      const aligned = await store.align(p, wanted, p.logStartOffset);
      if (aligned.target !== wanted) { note = [note, aligned.note].filter(Boolean).join('; '); wanted = aligned.target; }
    }
    entries.push({ topic: p.topic, partition: p.partition, current, target: wanted, ...(note ? { note } : {}) });
  }
  const rewinds = entries.flatMap((e) => (e.current !== null && e.target !== null && e.target < e.current
    ? [{ topic: e.topic, partition: e.partition, from: e.current, to: e.target }] : []));
  const store = positionsOf(target.store);
  const warnings = stores.includes('sink') && store?.replayWarnings ? await store.replayWarnings(target.groupId, rewinds) : [];
  return { description, stores, entries, warnings };
}

/**
 * Commits offsets for an inactive group: joins it as a short-lived member (KafkaJS offers no
 * AlterConsumerGroupOffsets), commits every offset in one OffsetCommit under that generation, and
 * leaves. Nothing is consumed (autoCommit off). Joining takes one rebalance of the empty group.
 */
async function commitAsTemporaryMember(kafka: Kafka, groupId: string,
  offsets: { topic: string; partition: number; offset: string }[]): Promise<void> {
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, sessionTimeout: 10_000, rebalanceTimeout: 10_000,
    heartbeatInterval: 1000 });
  const joined = new Promise<void>((resolve) => { consumer.on(consumer.events.GROUP_JOIN, () => resolve()); });
  const crashed = new Promise<never>((_resolve, reject) => { consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error)); });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...new Set(offsets.map((o) => o.topic))], fromBeginning: true });
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: async () => undefined });
    consumer.pause([...new Set(offsets.map((o) => o.topic))].map((topic) => ({ topic })));
    await Promise.race([joined, crashed]);
    await consumer.commitOffsets(offsets);
  } finally {
    await consumer.disconnect();
  }
}

/**
 * Applies a plan: Kafka's committed offsets first (as a short-lived member of the empty group),
 * then the sink's stored positions in one transaction.
 * The group is checked again just before writing.
 * @throws GroupActiveError when members joined since the plan was made; KafkaEosError CONFIG_INVALID
 *   when the plan names the sink but no store is given.
 */
export async function executeOffsetReset(target: GroupOffsetsTarget, plan: ResetPlan): Promise<void> {
  const changes = plan.entries.filter((e): e is ResetPlanEntry & { target: bigint } => e.target !== null);
  if (changes.length === 0) return;
  if (plan.stores.includes('sink') && !target.store) throw new KafkaEosError('CONFIG_INVALID',
    'the plan resets a sink but no offsets store was given');
  assertGroupInactive({ groupId: target.groupId, ...(await groupMembers(target.admin, target.groupId)) });
  if (plan.stores.includes('kafka')) {
    await commitAsTemporaryMember(target.kafka, target.groupId, changes.map((e) => ({ topic: e.topic, partition: e.partition,
      offset: e.target.toString() })));
  }
  const store = positionsOf(target.store);
  if (plan.stores.includes('sink') && store) {
    await store.overwrite(target.groupId, changes.map((e) => ({ topic: e.topic, partition: e.partition,
      nextOffset: e.target })));
  }
}
