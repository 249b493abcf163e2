/**
 * Java's `ConsumerProtocol` codec: the bytes a consumer puts in JoinGroup's protocol metadata
 * (Subscription) and the bytes the leader hands back through SyncGroup (Assignment), plus the
 * `StickyAssignorUserData` that the eager `sticky` assignor carries inside Subscription.userData.
 *
 * Wire layouts (all big-endian, non-flexible; follows Apache Kafka's
 * `ConsumerProtocolSubscription.json` / `ConsumerProtocolAssignment.json`, versions 0-3):
 *
 * ```
 * Subscription => Version:int16 Topics:[string] UserData:nullable-bytes
 *                 OwnedPartitions:[Topic:string Partitions:[int32]]   (v1+)
 *                 GenerationId:int32                                  (v2+, default -1)
 *                 RackId:nullable-string                              (v3+, default null)
 * Assignment   => Version:int16 AssignedPartitions:[Topic:string Partitions:[int32]]
 *                 UserData:nullable-bytes                             (same fields in v0-v3)
 * StickyAssignorUserData => PreviousAssignment:[Topic:string Partitions:[int32]]
 *                           Generation:int32                          (V1 only; V0 lacks it)
 * ```
 *
 * Decoding follows `org.apache.kafka.clients.consumer.internals.ConsumerProtocol`: any version >= 0
 * is accepted, versions above the highest known are read with the highest known layout, and bytes
 * after the last known field are ignored. One deliberate leniency beyond Java: if the buffer ends
 * exactly where an optional later field (OwnedPartitions, GenerationId, RackId) would begin, the
 * field takes its default. KafkaJS's `AssignerProtocol.MemberMetadata.encode` writes only v0 fields
 * whatever version it is given, and this lets such metadata decode instead of failing the rebalance.
 * A field cut off in the middle is still an error.
 *
 * KafkaJS 2.2.4 reads every version of these messages with its v0 reader, which works because
 * later versions only append fields.
 */
import { KafkaEosError } from '../../errors';

/** One partition of one topic. `partition` is the 0-based partition index (int32). */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** Highest ConsumerProtocol version this codec knows (Kafka 3.5+, KIP-881 added RackId in v3). */
export const CONSUMER_PROTOCOL_MAX_VERSION = 3;

/** Decoded `ConsumerProtocolSubscription`. Fields absent from `version` hold their defaults. */
export interface ConsumerProtocolSubscription {
  /** Version read from (or to write to) the wire, 0..32767. */
  version: number;
  /** Subscribed topic names. Java writes them sorted. */
  topics: string[];
  /** Assignor-specific bytes, or null (Java's default). */
  userData: Buffer | null;
  /** v1+: partitions the member owned when it joined (cooperative protocols). Default []. */
  ownedPartitions: TopicPartition[];
  /** v2+: the generation `ownedPartitions` belongs to. Default -1 (unknown). */
  generationId: number;
  /** v3+: the consumer's `client.rack`. Default null. */
  rackId: string | null;
}

/** Decoded `ConsumerProtocolAssignment`. */
export interface ConsumerProtocolAssignment {
  version: number;
  assignedPartitions: TopicPartition[];
  userData: Buffer | null;
}

/** Decoded `StickyAssignorUserData` (Java `StickyAssignor`, librdkafka and kafka-python write the same). */
export interface StickyUserData {
  /** The member's assignment in `generation`. */
  partitions: TopicPartition[];
  /** Present in V1 user data; undefined when the bytes used the V0 layout (no generation). */
  generation: number | undefined;
}

/**
 * Thrown when ConsumerProtocol bytes cannot be decoded (buffer underflow, negative version,
 * negative array length). Code `CONSUMER_PROTOCOL_DECODE`, never retriable: the same bytes fail again.
 */
export class ConsumerProtocolDecodeError extends KafkaEosError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('CONSUMER_PROTOCOL_DECODE', message, { retriable: false, cause: options.cause });
  }
}

/** Thrown by the encoders for values the wire cannot carry (version out of range, int32 overflow). */
export class ConsumerProtocolEncodeError extends KafkaEosError {
  constructor(message: string) {
    super('CONSUMER_PROTOCOL_ENCODE', message, { retriable: false });
  }
}

// ---------------------------------------------------------------------------------------------
// Primitive reader / writer (non-flexible Kafka types only).

class Reader {
  private offset = 0;
  constructor(private readonly buf: Buffer, private readonly what: string) {}

  atEnd(): boolean {
    return this.offset >= this.buf.length;
  }

  private need(n: number, field: string): void {
    if (this.offset + n > this.buf.length) {
      throw new ConsumerProtocolDecodeError(
        `Buffer underflow while parsing ${this.what}: ${field} needs ${n} bytes at offset ${this.offset}, ` +
          `${this.buf.length - this.offset} left`,
      );
    }
  }

  int16(field: string): number {
    this.need(2, field);
    const v = this.buf.readInt16BE(this.offset);
    this.offset += 2;
    return v;
  }

  int32(field: string): number {
    this.need(4, field);
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  nullableString(field: string): string | null {
    const len = this.int16(field);
    if (len === -1) return null;
    if (len < 0) throw new ConsumerProtocolDecodeError(`Invalid length ${len} for ${field} in ${this.what}`);
    this.need(len, field);
    const v = this.buf.toString('utf8', this.offset, this.offset + len);
    this.offset += len;
    return v;
  }

  string(field: string): string {
    const v = this.nullableString(field);
    if (v === null) throw new ConsumerProtocolDecodeError(`Null ${field} in ${this.what}`);
    return v;
  }

  nullableBytes(field: string): Buffer | null {
    const len = this.int32(field);
    if (len === -1) return null;
    if (len < 0) throw new ConsumerProtocolDecodeError(`Invalid length ${len} for ${field} in ${this.what}`);
    this.need(len, field);
    // Copy, so that callers may keep the value after the network buffer is reused.
    const v = Buffer.from(this.buf.subarray(this.offset, this.offset + len));
    this.offset += len;
    return v;
  }

  array<T>(field: string, item: (r: Reader) => T): T[] {
    const len = this.int32(field);
    if (len === -1) return []; // a null array reads as empty, as Java's non-nullable arrays never are null
    if (len < 0) throw new ConsumerProtocolDecodeError(`Invalid length ${len} for ${field} in ${this.what}`);
    // Each element is at least 2 bytes; reject absurd lengths before allocating.
    this.need(Math.min(len, 1 << 20) * 2, field);
    const out: T[] = [];
    for (let i = 0; i < len; i++) out.push(item(this));
    return out;
  }

  topicPartitions(field: string): TopicPartition[] {
    const out: TopicPartition[] = [];
    this.array(field, (r) => {
      const topic = r.string(`${field}.topic`);
      for (const partition of r.array(`${field}.partitions`, (rr) => rr.int32(`${field}.partition`))) {
        out.push({ topic, partition });
      }
    });
    return out;
  }
}

class Writer {
  private readonly chunks: Buffer[] = [];

  int16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    this.chunks.push(b);
    return this;
  }

  int32(v: number): this {
    if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) {
      throw new ConsumerProtocolEncodeError(`Value ${v} does not fit an int32`);
    }
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.chunks.push(b);
    return this;
  }

  nullableString(v: string | null): this {
    if (v === null) return this.int16(-1);
    const b = Buffer.from(v, 'utf8');
    if (b.length > 0x7fff) throw new ConsumerProtocolEncodeError(`String of ${b.length} bytes exceeds int16 length`);
    this.int16(b.length);
    this.chunks.push(b);
    return this;
  }

  nullableBytes(v: Buffer | null): this {
    if (v === null) return this.int32(-1);
    this.int32(v.length);
    this.chunks.push(v);
    return this;
  }

  array<T>(items: readonly T[], write: (w: Writer, item: T) => void): this {
    this.int32(items.length);
    for (const item of items) write(this, item);
    return this;
  }

  /** Groups partitions by topic (topics sorted, partitions ascending, duplicates dropped). */
  topicPartitions(partitions: readonly TopicPartition[]): this {
    const grouped = groupByTopic(partitions);
    return this.array([...grouped.keys()].sort(compareStrings), (w, topic) => {
      w.nullableString(topic);
      w.array(grouped.get(topic) ?? [], (ww, p) => ww.int32(p));
    });
  }

  build(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers.

/** Java `String.compareTo` order (UTF-16 code units), which JS `<` also uses. Not locale-aware. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders by topic (Java string order), then partition index. */
export function compareTopicPartitions(a: TopicPartition, b: TopicPartition): number {
  return compareStrings(a.topic, b.topic) || a.partition - b.partition;
}

/** Topic -> ascending, de-duplicated partition indexes. */
export function groupByTopic(partitions: readonly TopicPartition[]): Map<string, number[]> {
  const out = new Map<string, Set<number>>();
  for (const { topic, partition } of partitions) {
    let set = out.get(topic);
    if (!set) out.set(topic, (set = new Set()));
    set.add(partition);
  }
  const result = new Map<string, number[]>();
  for (const [topic, set] of out) result.set(topic, [...set].sort((a, b) => a - b));
  return result;
}

function checkVersion(version: number, what: string): void {
  if (!Number.isInteger(version) || version < 0 || version > 0x7fff) {
    throw new ConsumerProtocolEncodeError(`Unsupported ${what} version ${version}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Subscription.

/** Input of {@link encodeSubscription}; omitted fields take the schema defaults. */
export interface SubscriptionInput {
  topics: readonly string[];
  userData?: Buffer | null;
  ownedPartitions?: readonly TopicPartition[];
  generationId?: number;
  rackId?: string | null;
}

/**
 * Encodes a ConsumerProtocol Subscription as Java's `ConsumerProtocol.serializeSubscription` does:
 * topics sorted, owned partitions grouped by topic and sorted. Fields newer than `version` are
 * dropped; versions above 3 are written with the v3 layout under the requested version number.
 *
 * @param version 0..32767, default {@link CONSUMER_PROTOCOL_MAX_VERSION}.
 * @throws ConsumerProtocolEncodeError on a negative version or values that overflow the wire types.
 */
export function encodeSubscription(input: SubscriptionInput, version = CONSUMER_PROTOCOL_MAX_VERSION): Buffer {
  checkVersion(version, 'subscription');
  const w = new Writer().int16(version);
  w.array([...input.topics].sort(compareStrings), (ww, t) => ww.nullableString(t));
  w.nullableBytes(input.userData ?? null);
  if (version >= 1) w.topicPartitions(input.ownedPartitions ?? []);
  if (version >= 2) w.int32(input.generationId ?? -1);
  if (version >= 3) w.nullableString(input.rackId ?? null);
  return w.build();
}

/**
 * Decodes a ConsumerProtocol Subscription of any version (see the module notes on leniency).
 * An empty RackId reads as null, as in Java.
 *
 * @throws ConsumerProtocolDecodeError on underflow inside a field, a negative version or a bad length.
 */
export function decodeSubscription(buffer: Buffer): ConsumerProtocolSubscription {
  const r = new Reader(buffer, "consumer protocol's subscription");
  const version = r.int16('version');
  if (version < 0) throw new ConsumerProtocolDecodeError(`Unsupported subscription version: ${version}`);
  const topics = r.array('topics', (rr) => rr.string('topic'));
  const userData = r.nullableBytes('userData');
  const sub: ConsumerProtocolSubscription = { version, topics, userData, ownedPartitions: [], generationId: -1, rackId: null };
  if (version >= 1 && !r.atEnd()) sub.ownedPartitions = r.topicPartitions('ownedPartitions');
  if (version >= 2 && !r.atEnd()) sub.generationId = r.int32('generationId');
  if (version >= 3 && !r.atEnd()) {
    const rack = r.nullableString('rackId');
    sub.rackId = rack === null || rack === '' ? null : rack;
  }
  return sub;
}

// ---------------------------------------------------------------------------------------------
// Assignment.

/** Input of {@link encodeAssignment}. */
export interface AssignmentInput {
  assignedPartitions: readonly TopicPartition[];
  userData?: Buffer | null;
}

/**
 * Encodes a ConsumerProtocol Assignment (topics sorted, partitions ascending). All versions share
 * one layout; the version number is written as given.
 *
 * @param version 0..32767, default {@link CONSUMER_PROTOCOL_MAX_VERSION} (Java's leader writes its highest).
 * @throws ConsumerProtocolEncodeError as {@link encodeSubscription}.
 */
export function encodeAssignment(input: AssignmentInput, version = CONSUMER_PROTOCOL_MAX_VERSION): Buffer {
  checkVersion(version, 'assignment');
  return new Writer()
    .int16(version)
    .topicPartitions(input.assignedPartitions)
    .nullableBytes(input.userData ?? null)
    .build();
}

/**
 * Decodes a ConsumerProtocol Assignment of any version. A buffer ending right after the partitions
 * reads `userData` as null.
 *
 * @throws ConsumerProtocolDecodeError on underflow inside a field, a negative version or a bad length.
 */
export function decodeAssignment(buffer: Buffer): ConsumerProtocolAssignment {
  const r = new Reader(buffer, "consumer protocol's assignment");
  const version = r.int16('version');
  if (version < 0) throw new ConsumerProtocolDecodeError(`Unsupported assignment version: ${version}`);
  const assignedPartitions = r.topicPartitions('assignedPartitions');
  const userData = r.atEnd() ? null : r.nullableBytes('userData');
  return { version, assignedPartitions, userData };
}

// ---------------------------------------------------------------------------------------------
// StickyAssignorUserData (Java `StickyAssignor.serializeTopicPartitionAssignment`).

/**
 * Encodes StickyAssignorUserData: V1 (previous assignment + generation) when `generation` is a
 * number, V0 (previous assignment only) when it is undefined. Java, librdkafka and kafka-python read both.
 */
export function encodeStickyUserData(data: { partitions: readonly TopicPartition[]; generation?: number }): Buffer {
  const w = new Writer().topicPartitions(data.partitions);
  if (data.generation !== undefined) w.int32(data.generation);
  return w.build();
}

/**
 * Decodes StickyAssignorUserData as Java's `StickyAssignor.memberData` does: V1 first, V0 when the
 * generation is missing, and — like Java — bytes that fit neither read as "no previous assignment"
 * with generation -1 rather than failing the rebalance. Null or empty bytes also mean no previous
 * assignment, with generation undefined.
 */
export function decodeStickyUserData(buffer: Buffer | null | undefined): StickyUserData {
  if (!buffer || buffer.length === 0) return { partitions: [], generation: undefined };
  try {
    const r = new Reader(buffer, 'sticky assignor user data');
    const partitions = r.topicPartitions('previousAssignment');
    let generation: number | undefined;
    try {
      generation = r.int32('generation');
    } catch {
      generation = undefined; // V0 layout: Java's V1 read underflows and it falls back to V0
    }
    return { partitions, generation };
  } catch (err) {
    if (err instanceof ConsumerProtocolDecodeError) return { partitions: [], generation: -1 };
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Shapes shared by the pure assignor cores (range.ts, round-robin.ts, sticky.ts).

/** One member's input to a pure assignor core. */
export interface MemberSubscription {
  /** Subscribed topics; topics missing from `partitionsPerTopic` are ignored, as Java does. */
  readonly topics: readonly string[];
  /** Static membership id (KIP-345). Range and round-robin order members by it when present, as Java does. */
  readonly groupInstanceId?: string | null;
  /** Sticky only: the member's previous assignment (overrides `userData`). */
  readonly ownedPartitions?: readonly TopicPartition[];
  /** Sticky only: the generation of `ownedPartitions`; undefined means unknown (-1). */
  readonly generation?: number;
  /** Sticky only: raw StickyAssignorUserData, decoded when `ownedPartitions` is undefined. */
  readonly userData?: Buffer | null;
}

/** memberId -> subscription. Iteration order never affects results. */
export type GroupSubscriptions = ReadonlyMap<string, MemberSubscription>;
/** topic -> number of partitions (partitions are 0..n-1). Topics with 0 partitions are skipped. */
export type PartitionsPerTopic = ReadonlyMap<string, number>;
/** memberId -> assigned partitions. Every member is present (possibly with []); keys and lists are sorted. */
export type GroupAssignment = Map<string, TopicPartition[]>;

/**
 * Java's `AbstractPartitionAssignor.MemberInfo` order: members with a group.instance.id first, by
 * that id; then the rest by member id.
 */
export function compareMembers(
  a: { memberId: string; groupInstanceId?: string | null },
  b: { memberId: string; groupInstanceId?: string | null },
): number {
  const ai = a.groupInstanceId ?? null;
  const bi = b.groupInstanceId ?? null;
  if (ai !== null && bi !== null) return compareStrings(ai, bi) || compareStrings(a.memberId, b.memberId);
  if (ai !== null) return -1;
  if (bi !== null) return 1;
  return compareStrings(a.memberId, b.memberId);
}

/** Builds the result map: members sorted by id, each list sorted by topic then partition. */
export function finishAssignment(memberIds: Iterable<string>, lists: ReadonlyMap<string, TopicPartition[]>): GroupAssignment {
  const out: GroupAssignment = new Map();
  for (const id of [...memberIds].sort(compareStrings)) {
    out.set(id, [...(lists.get(id) ?? [])].sort(compareTopicPartitions));
  }
  return out;
}

/** The topics with at least one partition, validated: a count must be a non-negative integer. */
export function existingTopics(partitionsPerTopic: PartitionsPerTopic): Map<string, number> {
  const out = new Map<string, number>();
  for (const [topic, n] of partitionsPerTopic) {
    if (!Number.isInteger(n) || n < 0) throw new KafkaEosError('ASSIGNOR_INVALID_INPUT', `Topic ${topic} has invalid partition count ${n}`);
    if (n > 0) out.set(topic, n);
  }
  return out;
}
