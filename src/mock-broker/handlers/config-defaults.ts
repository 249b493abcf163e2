/**
 * The configs DescribeConfigs reports: Apache Kafka's topic-level configs with their defaults
 * (LogConfig / TopicConfig, Kafka 3.x), and the broker configs a client or a test reads. Values
 * the mock actually applies (max.message.bytes, retention.ms, retention.bytes, num.partitions,
 * auto.create.topics.enable, the group settings...) come from the cluster's configuration;
 * the rest are Kafka's defaults, reported for fidelity but not enforced.
 */
import type { ClusterState } from '../cluster';

/** DescribeConfigs ConfigSource (org.apache.kafka.clients.admin.ConfigEntry.ConfigSource ids). */
export const ConfigSource = { DYNAMIC_TOPIC_CONFIG: 1, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;
/** DescribeConfigs ConfigType (v3+). */
export const ConfigType = { BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7, CLASS: 8, PASSWORD: 9 } as const;

export interface ConfigDef {
  name: string;
  type: number;
  /** The broker config that supplies the default (a synonym), if any. */
  brokerSynonym?: string;
  doc: string;
  value: (c: ClusterState) => string | null;
  /** Broker configs: true when the value comes from the mock's options rather than Kafka's default. */
  configured?: (c: ClusterState) => boolean;
  readOnly?: boolean;
  sensitive?: boolean;
}

const LONG_MAX = '9223372036854775807';
const fixed = (v: string | null) => () => v;
const { BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST, PASSWORD } = ConfigType;

export const TOPIC_CONFIGS: readonly ConfigDef[] = [
  { name: 'cleanup.policy', type: LIST, brokerSynonym: 'log.cleanup.policy', doc: 'delete or compact (the mock never compacts).', value: fixed('delete') },
  { name: 'compression.type', type: STRING, brokerSynonym: 'compression.type', doc: 'Final compression type; producer keeps the codec the producer used.', value: fixed('producer') },
  { name: 'delete.retention.ms', type: LONG, brokerSynonym: 'log.cleaner.delete.retention.ms', doc: 'How long delete tombstones are retained.', value: fixed('86400000') },
  { name: 'file.delete.delay.ms', type: LONG, brokerSynonym: 'log.segment.delete.delay.ms', doc: 'Delay before deleting a file.', value: fixed('60000') },
  { name: 'flush.messages', type: LONG, brokerSynonym: 'log.flush.interval.messages', doc: 'Messages between fsyncs.', value: fixed(LONG_MAX) },
  { name: 'flush.ms', type: LONG, brokerSynonym: 'log.flush.interval.ms', doc: 'Time between fsyncs.', value: fixed(LONG_MAX) },
  { name: 'follower.replication.throttled.replicas', type: LIST, brokerSynonym: 'follower.replication.throttled.replicas', doc: 'Throttled follower replicas.', value: fixed('') },
  { name: 'index.interval.bytes', type: INT, brokerSynonym: 'log.index.interval.bytes', doc: 'Bytes between offset index entries.', value: fixed('4096') },
  { name: 'leader.replication.throttled.replicas', type: LIST, brokerSynonym: 'leader.replication.throttled.replicas', doc: 'Throttled leader replicas.', value: fixed('') },
  { name: 'local.retention.bytes', type: LONG, brokerSynonym: 'log.local.retention.bytes', doc: 'Local tier retention bytes (-2 = retention.bytes; no tiered storage in the mock).', value: fixed('-2') },
  { name: 'local.retention.ms', type: LONG, brokerSynonym: 'log.local.retention.ms', doc: 'Local tier retention time (-2 = retention.ms; no tiered storage in the mock).', value: fixed('-2') },
  { name: 'max.compaction.lag.ms', type: LONG, brokerSynonym: 'log.cleaner.max.compaction.lag.ms', doc: 'Longest time a message stays uncompacted.', value: fixed(LONG_MAX) },
  { name: 'max.message.bytes', type: INT, brokerSynonym: 'message.max.bytes', doc: 'Largest record batch size allowed (enforced: MESSAGE_TOO_LARGE).', value: (c) => String(c.config.maxMessageBytes) },
  { name: 'message.downconversion.enable', type: BOOLEAN, brokerSynonym: 'log.message.downconversion.enable', doc: 'Down-conversion for old consumers.', value: fixed('true') },
  { name: 'message.format.version', type: STRING, brokerSynonym: 'log.message.format.version', doc: 'Message format version (magic 2 only in the mock).', value: fixed('3.0-IV1') },
  { name: 'message.timestamp.after.max.ms', type: LONG, brokerSynonym: 'log.message.timestamp.after.max.ms', doc: 'Largest allowed timestamp ahead of the broker clock (KIP-937).', value: fixed(LONG_MAX) },
  { name: 'message.timestamp.before.max.ms', type: LONG, brokerSynonym: 'log.message.timestamp.before.max.ms', doc: 'Largest allowed timestamp behind the broker clock (KIP-937).', value: fixed(LONG_MAX) },
  { name: 'message.timestamp.difference.max.ms', type: LONG, brokerSynonym: 'log.message.timestamp.difference.max.ms', doc: 'Largest allowed timestamp difference.', value: fixed(LONG_MAX) },
  { name: 'message.timestamp.type', type: STRING, brokerSynonym: 'log.message.timestamp.type', doc: 'CreateTime or LogAppendTime.', value: fixed('CreateTime') },
  { name: 'min.cleanable.dirty.ratio', type: DOUBLE, brokerSynonym: 'log.cleaner.min.cleanable.ratio', doc: 'Dirty ratio that triggers compaction.', value: fixed('0.5') },
  { name: 'min.compaction.lag.ms', type: LONG, brokerSynonym: 'log.cleaner.min.compaction.lag.ms', doc: 'Shortest time a message stays uncompacted.', value: fixed('0') },
  { name: 'min.insync.replicas', type: INT, brokerSynonym: 'min.insync.replicas', doc: 'Replicas that must acknowledge acks=-1.', value: fixed('1') },
  { name: 'preallocate', type: BOOLEAN, brokerSynonym: 'log.preallocate', doc: 'Preallocate segment files.', value: fixed('false') },
  { name: 'remote.storage.enable', type: BOOLEAN, brokerSynonym: 'remote.log.storage.system.enable', doc: 'Tiered storage (not in the mock).', value: fixed('false') },
  { name: 'retention.bytes', type: LONG, brokerSynonym: 'log.retention.bytes', doc: 'Largest partition size before old batches are deleted (enforced).', value: (c) => String(c.config.retention.retentionBytes) },
  { name: 'retention.ms', type: LONG, brokerSynonym: 'log.retention.ms', doc: 'Longest time a batch is kept (enforced; -1 = forever, the mock default).', value: (c) => String(c.config.retention.retentionMs) },
  { name: 'segment.bytes', type: INT, brokerSynonym: 'log.segment.bytes', doc: 'Segment file size.', value: fixed('1073741824') },
  { name: 'segment.index.bytes', type: INT, brokerSynonym: 'log.index.size.max.bytes', doc: 'Offset index size.', value: fixed('10485760') },
  { name: 'segment.jitter.ms', type: LONG, brokerSynonym: 'log.roll.jitter.ms', doc: 'Jitter of segment rolling.', value: fixed('0') },
  { name: 'segment.ms', type: LONG, brokerSynonym: 'log.roll.ms', doc: 'Time before a segment is rolled.', value: fixed('604800000') },
  { name: 'unclean.leader.election.enable', type: BOOLEAN, brokerSynonym: 'unclean.leader.election.enable', doc: 'Allow out-of-sync replicas to lead.', value: fixed('false') },
];

const group = (c: ClusterState) => c.groups.config;

export const BROKER_CONFIGS: readonly ConfigDef[] = [
  { name: 'auto.create.topics.enable', type: BOOLEAN, doc: 'Create topics on metadata requests.', value: (c) => String(c.config.autoCreateTopics), configured: () => true, readOnly: true },
  { name: 'compression.type', type: STRING, doc: 'Final compression type.', value: fixed('producer') },
  { name: 'default.replication.factor', type: INT, doc: 'Replication factor of auto-created topics.', value: (c) => String(c.config.defaultReplicationFactor), configured: () => true, readOnly: true },
  { name: 'delete.topic.enable', type: BOOLEAN, doc: 'Topics can be deleted.', value: fixed('true'), readOnly: true },
  { name: 'group.initial.rebalance.delay.ms', type: INT, doc: 'Delay of the first rebalance of an empty group (mock default 0, Kafka 3000).', value: (c) => String(group(c).initialRebalanceDelayMs), configured: () => true, readOnly: true },
  { name: 'group.max.session.timeout.ms', type: INT, doc: 'Largest session timeout.', value: (c) => String(group(c).maxSessionTimeoutMs), configured: () => true, readOnly: true },
  { name: 'group.min.session.timeout.ms', type: INT, doc: 'Smallest session timeout.', value: (c) => String(group(c).minSessionTimeoutMs), configured: () => true, readOnly: true },
  { name: 'log.cleanup.policy', type: LIST, doc: 'Default cleanup policy.', value: fixed('delete') },
  { name: 'log.retention.bytes', type: LONG, doc: 'Default retention.bytes.', value: (c) => String(c.config.retention.retentionBytes), configured: () => true },
  { name: 'log.retention.hours', type: INT, doc: 'Default retention in hours (log.retention.ms wins).', value: fixed('168'), readOnly: true },
  { name: 'log.retention.ms', type: LONG, doc: 'Default retention.ms.', value: (c) => String(c.config.retention.retentionMs), configured: () => true },
  { name: 'message.max.bytes', type: INT, doc: 'Largest record batch size allowed.', value: (c) => String(c.config.maxMessageBytes), configured: () => true },
  { name: 'min.insync.replicas', type: INT, doc: 'Replicas that must acknowledge acks=-1.', value: fixed('1') },
  { name: 'num.partitions', type: INT, doc: 'Partitions of auto-created topics.', value: (c) => String(c.config.defaultPartitions), configured: () => true, readOnly: true },
  { name: 'offsets.topic.replication.factor', type: SHORT, doc: 'Replication factor of __consumer_offsets.', value: fixed('1'), readOnly: true },
  { name: 'sasl.enabled.mechanisms', type: LIST, doc: 'SASL mechanisms (PLAIN in the mock).', value: fixed('PLAIN'), readOnly: true },
  { name: 'socket.request.max.bytes', type: INT, doc: 'Largest request frame.', value: fixed('104857600'), readOnly: true },
  { name: 'transaction.state.log.replication.factor', type: SHORT, doc: 'Replication factor of __transaction_state.', value: fixed('1'), readOnly: true },
  { name: 'sasl.jaas.config', type: PASSWORD, doc: 'JAAS configuration.', value: fixed(null), readOnly: true, sensitive: true },
];

/** Kafka's validators for topic configs (LogConfig): ranges and allowed values, by name. */
const TOPIC_RULES: Readonly<Record<string, { min?: number; max?: number; oneOf?: readonly string[] }>> = {
  'cleanup.policy': { oneOf: ['compact', 'delete'] },
  'compression.type': { oneOf: ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] },
  'message.timestamp.type': { oneOf: ['CreateTime', 'LogAppendTime'] },
  'retention.ms': { min: -1 },
  'local.retention.ms': { min: -2 },
  'local.retention.bytes': { min: -2 },
  'max.message.bytes': { min: 0 },
  'segment.bytes': { min: 14 },
  'segment.ms': { min: 1 },
  'segment.index.bytes': { min: 4 },
  'segment.jitter.ms': { min: 0 },
  'min.insync.replicas': { min: 1 },
  'delete.retention.ms': { min: 0 },
  'min.compaction.lag.ms': { min: 0 },
  'max.compaction.lag.ms': { min: 1 },
  'min.cleanable.dirty.ratio': { min: 0, max: 1 },
  'flush.ms': { min: 0 },
  'flush.messages': { min: 1 },
  'index.interval.bytes': { min: 0 },
  'file.delete.delay.ms': { min: 0 },
  'message.timestamp.difference.max.ms': { min: 0 },
  'message.timestamp.before.max.ms': { min: 0 },
  'message.timestamp.after.max.ms': { min: 0 },
};

const INTEGER_RANGE: Partial<Record<number, [bigint, bigint]>> = {
  [LONG]: [-(1n << 63n), (1n << 63n) - 1n], [INT]: [-(1n << 31n), (1n << 31n) - 1n], [SHORT]: [-32768n, 32767n],
};
const TYPE_NAME: Record<number, string> = { [BOOLEAN]: 'BOOLEAN', [INT]: 'INT', [SHORT]: 'SHORT', [LONG]: 'LONG', [DOUBLE]: 'DOUBLE' };

/**
 * Why Kafka would refuse `value` for topic config `name` (ConfigDef parsing and LogConfig's
 * validators, with Kafka's own wording), or null when it is valid. Unknown names are refused as
 * Kafka does ("Unknown topic config name"). CreateTopics, AlterConfigs and IncrementalAlterConfigs
 * answer INVALID_CONFIG with this message.
 */
export function topicConfigError(name: string, value: string | null): string | null {
  const def = TOPIC_CONFIGS.find((d) => d.name === name);
  if (!def) return `Unknown topic config name: ${name}`;
  if (value === null) return null;
  const v = value.trim();
  const invalid = (why: string) => `Invalid value ${value} for configuration ${name}: ${why}`;
  let num: number | null = null;
  const range = INTEGER_RANGE[def.type];
  if (range) {
    if (!/^[-+]?\d+$/.test(v) || BigInt(v) < range[0] || BigInt(v) > range[1]) return invalid(`Not a number of type ${TYPE_NAME[def.type]}`);
    num = Number(v);
  } else if (def.type === DOUBLE) {
    num = v === '' ? NaN : Number(v);
    if (Number.isNaN(num)) return invalid('Not a number of type DOUBLE');
  } else if (def.type === BOOLEAN && !/^(true|false)$/i.test(v)) {
    return invalid('Expected value to be either true or false');
  }
  const rule = TOPIC_RULES[name];
  if (!rule) return null;
  if (num !== null && rule.min !== undefined && num < rule.min) return invalid(`Value must be at least ${rule.min}`);
  if (num !== null && rule.max !== undefined && num > rule.max) return invalid(`Value must be no more than ${rule.max}`);
  if (rule.oneOf) {
    const items = def.type === LIST ? v.split(',').map((x) => x.trim()) : [v];
    const bad = items.find((x) => !rule.oneOf!.includes(x));
    if (bad !== undefined) return invalid(`String must be one of: ${rule.oneOf.join(', ')}`);
  }
  return null;
}
