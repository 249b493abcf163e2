/**
 * Java's ConsumerProtocol as data schemas, read and written by the one generic codec: the bytes a
 * consumer puts in JoinGroup's protocol metadata (ConsumerProtocolSubscription), the bytes the
 * leader hands back through SyncGroup (ConsumerProtocolAssignment), and the eager sticky assignor's
 * StickyAssignorUserData. Transcribed from Apache Kafka's
 * clients/src/main/resources/common/message/ConsumerProtocolSubscription.json and
 * ConsumerProtocolAssignment.json (versions 0-3, never flexible: "flexibleVersions": "none"), and
 * from StickyAssignor's STICKY_ASSIGNOR_USER_DATA_V0 / _V1 for the user data (no JSON in Kafka).
 *
 * On the wire a Subscription or Assignment is an int16 version followed by the struct of that
 * version; StickyAssignorUserData carries no version (V1 is V0 plus a generation).
 *
 * `optionalAtEnd` marks our documented leniency: a buffer ending exactly where OwnedPartitions,
 * GenerationId or RackId (or an Assignment's UserData) would begin gives the field its default,
 * because KafkaJS writes only the v0 fields whatever version it claims.
 */
import { MalformedFrameError, Reader, Writer } from '../primitives';
import { arr, arrOf, data, DataOf, DataSchema, EncodeInput, f, readData, writeData } from '../schema';

/** Highest ConsumerProtocol version described (Kafka 3.5+; KIP-881 added RackId in v3). */
export const CONSUMER_PROTOCOL_MAX_VERSION = 3;

const topicPartitions = (name: 'ownedPartitions' | 'assignedPartitions' | 'previousAssignment', versions: string, optionalAtEnd: boolean) =>
  arr(name, versions, [f('topic', 'string', '0+'), arrOf('partitions', 'int32', '0+')], { optionalAtEnd });

export const ConsumerProtocolSubscription = data('ConsumerProtocolSubscription', '0-3', 'none', [
  arrOf('topics', 'string', '0+'),
  f('userData', 'bytes', '0+', { nullable: '0+' }),
  topicPartitions('ownedPartitions', '1+', true),
  f('generationId', 'int32', '2+', { default: -1, optionalAtEnd: true }),
  f('rackId', 'string', '3+', { nullable: '3+', optionalAtEnd: true }),
]);

export const ConsumerProtocolAssignment = data('ConsumerProtocolAssignment', '0-3', 'none', [
  topicPartitions('assignedPartitions', '0+', false),
  f('userData', 'bytes', '0+', { nullable: '0+', optionalAtEnd: true }),
]);

/** Java StickyAssignor's user data: V0 = previous assignment, V1 adds the generation it belongs to. */
export const StickyAssignorUserData = data('StickyAssignorUserData', '0-1', 'none', [
  topicPartitions('previousAssignment', '0+', false),
  f('generation', 'int32', '1+', { default: -1 }),
]);

/**
 * Decodes ConsumerProtocol bytes: the int16 version, then the struct of that version, as Java's
 * `ConsumerProtocol.deserialize*` does. A version above the schema's highest is read with the highest
 * layout; bytes after the last field are ignored.
 * `what` names the message in errors (default the schema's name).
 * @throws MalformedFrameError on a negative version, truncation inside a field or a bad length.
 */
export function decodeVersioned<S extends DataSchema>(
  schema: S, buffer: Buffer, what = schema.name,
): { version: number; value: DataOf<S> } {
  const r = new Reader(buffer);
  const version = r.int16();
  if (version < 0) throw new MalformedFrameError(`Unsupported ${what} version: ${version}`);
  return { version, value: readData(schema, Math.min(version, schema.versions.max), r) };
}

/**
 * Encodes ConsumerProtocol bytes: `version` (0..32767) as int16, then the struct, with the highest
 * layout for versions above the schema's. Throws RangeError for values the wire types cannot carry.
 */
export function encodeVersioned<S extends DataSchema>(schema: S, version: number, value: EncodeInput<DataOf<S>>): Buffer {
  const w = new Writer(64);
  w.int16(version);
  writeData(schema, Math.min(version, schema.versions.max), value, w);
  return Buffer.from(w.toBuffer());
}
