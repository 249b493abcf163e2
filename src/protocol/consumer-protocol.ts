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
 *
 * The layouts are declared once, as data schemas in src/protocol/messages/consumer-protocol.ts, and
 * read and written by the generic codec of src/protocol/schema.ts (the mock broker reads the same
 * schemas); this module adds the SDK's shapes (flat TopicPartition lists), Java's sorting on write
 * and the typed errors.
 */
import { KafkaEosError } from '../errors';
import {
  CONSUMER_PROTOCOL_MAX_VERSION, ConsumerProtocolAssignment as AssignmentSchema, ConsumerProtocolSubscription as SubscriptionSchema,
  decodeVersioned, encodeVersioned, StickyAssignorUserData as StickyUserDataSchema,
} from './messages/consumer-protocol';
import { MalformedFrameError, Reader, Writer } from './primitives';
import { readData, writeData } from './schema';

/** One partition of one topic. `partition` is the 0-based partition index (int32). */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export { CONSUMER_PROTOCOL_MAX_VERSION };

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
// The wire: schemas in src/protocol/messages/consumer-protocol.ts, read and written by the one codec.

type PartitionsByTopic = { topic: string; partitions: number[] }[];

function decodeWith<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof MalformedFrameError)) throw err;
    throw new ConsumerProtocolDecodeError(`Cannot parse ${what}: ${err.message}`, { cause: err });
  }
}

function encodeWith(write: () => Buffer): Buffer {
  try {
    return write();
  } catch (err) {
    if (err instanceof RangeError) throw new ConsumerProtocolEncodeError(err.message);
    throw err;
  }
}

function checkInt32s(values: readonly number[]): void {
  for (const v of values) {
    if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) {
      throw new ConsumerProtocolEncodeError(`Value ${v} does not fit an int32`);
    }
  }
}

/** Groups partitions by topic (topics sorted, partitions ascending, duplicates dropped). */
function byTopic(partitions: readonly TopicPartition[]): PartitionsByTopic {
  checkInt32s(partitions.map((p) => p.partition));
  const grouped = groupByTopic(partitions);
  return [...grouped.keys()].sort(compareStrings).map((topic) => ({ topic, partitions: grouped.get(topic) ?? [] }));
}

function flatten(list: PartitionsByTopic): TopicPartition[] {
  return list.flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition })));
}

/** A copy, so that callers may keep the value after the network buffer is reused. */
const copy = (b: Buffer | null): Buffer | null => (b === null ? null : Buffer.from(b));

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
  if (input.generationId !== undefined) checkInt32s([input.generationId]);
  return encodeWith(() => encodeVersioned(SubscriptionSchema, version, {
    topics: [...input.topics].sort(compareStrings),
    userData: input.userData ?? null,
    ownedPartitions: byTopic(input.ownedPartitions ?? []),
    generationId: input.generationId ?? -1,
    rackId: input.rackId ?? null,
  }));
}

/**
 * Decodes a ConsumerProtocol Subscription of any version (see the module notes on leniency).
 * An empty RackId reads as null, as in Java.
 *
 * @throws ConsumerProtocolDecodeError on underflow inside a field, a negative version or a bad length.
 */
export function decodeSubscription(buffer: Buffer): ConsumerProtocolSubscription {
  return decodeWith("consumer protocol's subscription", () => {
    const { version, value: sub } = decodeVersioned(SubscriptionSchema, buffer, 'subscription');
    return {
      version,
      topics: sub.topics,
      userData: copy(sub.userData),
      ownedPartitions: flatten(sub.ownedPartitions),
      generationId: sub.generationId,
      rackId: sub.rackId === '' ? null : sub.rackId,
    };
  });
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
  return encodeWith(() => encodeVersioned(AssignmentSchema, version, {
    assignedPartitions: byTopic(input.assignedPartitions),
    userData: input.userData ?? null,
  }));
}

/**
 * Decodes a ConsumerProtocol Assignment of any version. A buffer ending right after the partitions
 * reads `userData` as null.
 *
 * @throws ConsumerProtocolDecodeError on underflow inside a field, a negative version or a bad length.
 */
export function decodeAssignment(buffer: Buffer): ConsumerProtocolAssignment {
  return decodeWith("consumer protocol's assignment", () => {
    const { version, value: a } = decodeVersioned(AssignmentSchema, buffer, 'assignment');
    return { version, assignedPartitions: flatten(a.assignedPartitions), userData: copy(a.userData) };
  });
}

// ---------------------------------------------------------------------------------------------
// StickyAssignorUserData (Java `StickyAssignor.serializeTopicPartitionAssignment`).

/**
 * Encodes StickyAssignorUserData: V1 (previous assignment + generation) when `generation` is a
 * number, V0 (previous assignment only) when it is undefined. Java, librdkafka and kafka-python read both.
 */
export function encodeStickyUserData(data: { partitions: readonly TopicPartition[]; generation?: number }): Buffer {
  if (data.generation !== undefined) checkInt32s([data.generation]);
  return encodeWith(() => {
    const w = new Writer(64);
    writeData(
      StickyUserDataSchema, data.generation === undefined ? 0 : 1,
      { previousAssignment: byTopic(data.partitions), generation: data.generation }, w,
    );
    return Buffer.from(w.toBuffer());
  });
}

/**
 * Decodes StickyAssignorUserData as Java's `StickyAssignor.memberData` does: V1 first, V0 when the
 * generation is missing, and — like Java — bytes that fit neither read as "no previous assignment"
 * with generation -1 rather than failing the rebalance. Null or empty bytes also mean no previous
 * assignment, with generation undefined.
 */
export function decodeStickyUserData(buffer: Buffer | null | undefined): StickyUserData {
  if (!buffer || buffer.length === 0) return { partitions: [], generation: undefined };
  for (const version of [1, 0]) {
    try {
      const d = readData(StickyUserDataSchema, version, new Reader(buffer));
      return { partitions: flatten(d.previousAssignment), generation: version === 1 ? d.generation : undefined };
    } catch (err) {
      if (!(err instanceof MalformedFrameError)) throw err; // V1 underflows on V0 bytes: try V0
    }
  }
  return { partitions: [], generation: -1 };
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
