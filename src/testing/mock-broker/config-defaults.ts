/**
 * The configs DescribeConfigs reports and the topic configs Create/Alter/IncrementalAlterConfigs
 * accept: Apache Kafka's topic-level configs with their defaults and validators (LogConfig /
 * TopicConfig, Kafka 3.x) in one table, and the broker configs a client or a test reads. Values the
 * mock actually applies (max.message.bytes, retention.ms, retention.bytes, cleanup.policy=compact's
 * key check, num.partitions, auto.create.topics.enable, the group settings...) come from the
 * cluster's configuration or the topic's overrides (ClusterState.topicConfig); the rest are Kafka's
 * defaults, reported for fidelity but not enforced.
 */
import type { ConfigInputs } from './cluster-config';

/** DescribeConfigs ConfigSource (org.apache.kafka.clients.admin.ConfigEntry.ConfigSource ids). */
export const ConfigSource = { DYNAMIC_TOPIC_CONFIG: 1, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;
/** DescribeConfigs ConfigType (v3+). */
export const ConfigType = { BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7, CLASS: 8, PASSWORD: 9 } as const;

/** One config as DescribeConfigs reports it; `value` is its default (or configured) value as a string. */
export interface ConfigDef {
  name: string;
  /** A {@link ConfigType} id. */
  type: number;
  /** The broker config that supplies the default (a synonym), if any. */
  brokerSynonym?: string;
  doc: string;
  value: (c: ConfigInputs) => string | null;
  /** Broker configs: true when the value comes from the mock's options rather than Kafka's default. */
  configured?: (c: ConfigInputs) => boolean;
  readOnly?: boolean;
  sensitive?: boolean;
}

/** Kafka's validator for a topic config (LogConfig's ConfigDef): a numeric range or the allowed values. */
export interface ConfigRule { min?: number; max?: number; oneOf?: readonly string[] }

/** A topic config: its broker synonym and its validator (none: any value of its type). */
export interface TopicConfigDef extends ConfigDef { brokerSynonym: string; rule: ConfigRule }

const LONG_MAX = '9223372036854775807';
const fixed = (v: string | null) => () => v;
const { BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST, PASSWORD } = ConfigType;

function topic(
  name: string, type: number, brokerSynonym: string, value: ConfigDef['value'], doc: string, rule: ConfigRule = {},
): TopicConfigDef {
  return { name, type, brokerSynonym, value, doc, rule };
}

/** Kafka's topic configs (TopicConfig), in name order: defaults, broker synonyms and validators. */

export const TOPIC_CONFIGS: readonly TopicConfigDef[] = [
  topic('cleanup.policy', LIST, 'log.cleanup.policy', fixed('delete'),
    'delete or compact (the mock never compacts).', { oneOf: ['compact', 'delete'] }),
  topic('compression.type', STRING, 'compression.type', fixed('producer'),
    'Final compression type; producer keeps the codec the producer used.',
    { oneOf: ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] }),
  topic('delete.retention.ms', LONG, 'log.cleaner.delete.retention.ms', fixed('86400000'),
    'How long delete tombstones are retained.', { min: 0 }),
  topic('file.delete.delay.ms', LONG, 'log.segment.delete.delay.ms', fixed('60000'), 'Delay before deleting a file.', { min: 0 }),
  topic('flush.messages', LONG, 'log.flush.interval.messages', fixed(LONG_MAX), 'Messages between fsyncs.', { min: 1 }),
  topic('flush.ms', LONG, 'log.flush.interval.ms', fixed(LONG_MAX), 'Time between fsyncs.', { min: 0 }),
  topic('follower.replication.throttled.replicas', LIST, 'follower.replication.throttled.replicas', fixed(''),
    'Throttled follower replicas.'),
  topic('index.interval.bytes', INT, 'log.index.interval.bytes', fixed('4096'), 'Bytes between offset index entries.', { min: 0 }),
  topic('leader.replication.throttled.replicas', LIST, 'leader.replication.throttled.replicas', fixed(''), 'Throttled leader replicas.'),
  topic('local.retention.bytes', LONG, 'log.local.retention.bytes', fixed('-2'),
    'Local tier retention bytes (-2 = retention.bytes; no tiered storage in the mock).', { min: -2 }),
  topic('local.retention.ms', LONG, 'log.local.retention.ms', fixed('-2'),
    'Local tier retention time (-2 = retention.ms; no tiered storage in the mock).', { min: -2 }),
  topic('max.compaction.lag.ms', LONG, 'log.cleaner.max.compaction.lag.ms', fixed(LONG_MAX),
    'Longest time a message stays uncompacted.', { min: 1 }),
  topic('max.message.bytes', INT, 'message.max.bytes', (c) => String(c.config.maxMessageBytes),
    'Largest record batch size allowed (enforced: MESSAGE_TOO_LARGE).', { min: 0 }),
  topic('message.downconversion.enable', BOOLEAN, 'log.message.downconversion.enable', fixed('true'), 'Down-conversion for old consumers.'),
  topic('message.format.version', STRING, 'log.message.format.version', fixed('3.0-IV1'),
    'Message format version (magic 2 only in the mock).'),
  topic('message.timestamp.after.max.ms', LONG, 'log.message.timestamp.after.max.ms', fixed(LONG_MAX),
    'Largest allowed timestamp ahead of the broker clock (KIP-937).', { min: 0 }),
  topic('message.timestamp.before.max.ms', LONG, 'log.message.timestamp.before.max.ms', fixed(LONG_MAX),
    'Largest allowed timestamp behind the broker clock (KIP-937).', { min: 0 }),
  topic('message.timestamp.difference.max.ms', LONG, 'log.message.timestamp.difference.max.ms', fixed(LONG_MAX),
    'Largest allowed timestamp difference.', { min: 0 }),
  topic('message.timestamp.type', STRING, 'log.message.timestamp.type', fixed('CreateTime'),
    'CreateTime or LogAppendTime.', { oneOf: ['CreateTime', 'LogAppendTime'] }),
  topic('min.cleanable.dirty.ratio', DOUBLE, 'log.cleaner.min.cleanable.ratio', fixed('0.5'),
    'Dirty ratio that triggers compaction.', { min: 0, max: 1 }),
  topic('min.compaction.lag.ms', LONG, 'log.cleaner.min.compaction.lag.ms', fixed('0'),
    'Shortest time a message stays uncompacted.', { min: 0 }),
  topic('min.insync.replicas', INT, 'min.insync.replicas', fixed('1'), 'Replicas that must acknowledge acks=-1.', { min: 1 }),
  topic('preallocate', BOOLEAN, 'log.preallocate', fixed('false'), 'Preallocate segment files.'),
  topic('remote.storage.enable', BOOLEAN, 'remote.log.storage.system.enable', fixed('false'), 'Tiered storage (not in the mock).'),
  topic('retention.bytes', LONG, 'log.retention.bytes', (c) => String(c.config.retention.retentionBytes),
    'Largest partition size before old batches are deleted (enforced).'),
  topic('retention.ms', LONG, 'log.retention.ms', (c) => String(c.config.retention.retentionMs),
    'Longest time a batch is kept (enforced; -1 = forever, the mock default).', { min: -1 }),
  topic('segment.bytes', INT, 'log.segment.bytes', fixed('1073741824'), 'Segment file size.', { min: 14 }),
  topic('segment.index.bytes', INT, 'log.index.size.max.bytes', fixed('10485760'), 'Offset index size.', { min: 4 }),
  topic('segment.jitter.ms', LONG, 'log.roll.jitter.ms', fixed('0'), 'Jitter of segment rolling.', { min: 0 }),
  topic('segment.ms', LONG, 'log.roll.ms', fixed('604800000'), 'Time before a segment is rolled.', { min: 1 }),
  topic('unclean.leader.election.enable', BOOLEAN, 'unclean.leader.election.enable', fixed('false'), 'Allow out-of-sync replicas to lead.'),
];

const group = (c: ConfigInputs) => c.groups.config;
/** A broker config set from MockCluster.start options (STATIC_BROKER_CONFIG), read-only unless `readOnly` is false. */
const configured = (name: string, type: number, doc: string, value: ConfigDef['value'], readOnly = true): ConfigDef =>
  ({ name, type, doc, value, configured: () => true, readOnly });

/** The broker configs DescribeConfigs answers for a BROKER resource (after broker.id and advertised.listeners). */
export const BROKER_CONFIGS: readonly ConfigDef[] = [
  configured('auto.create.topics.enable', BOOLEAN, 'Create topics on metadata requests.', (c) => String(c.config.autoCreateTopics)),
  { name: 'compression.type', type: STRING, doc: 'Final compression type.', value: fixed('producer') },
  configured(
    'default.replication.factor', INT, 'Replication factor of auto-created topics.',
    (c) => String(c.config.defaultReplicationFactor),
  ),
  { name: 'delete.topic.enable', type: BOOLEAN, doc: 'Topics can be deleted.', value: fixed('true'), readOnly: true },
  configured(
    'group.initial.rebalance.delay.ms', INT, 'Delay of the first rebalance of an empty group (mock default 0, Kafka 3000).',
    (c) => String(group(c).initialRebalanceDelayMs),
  ),
  configured('group.max.session.timeout.ms', INT, 'Largest session timeout.', (c) => String(group(c).maxSessionTimeoutMs)),
  configured('group.min.session.timeout.ms', INT, 'Smallest session timeout.', (c) => String(group(c).minSessionTimeoutMs)),
  { name: 'log.cleanup.policy', type: LIST, doc: 'Default cleanup policy.', value: fixed('delete') },
  configured('log.retention.bytes', LONG, 'Default retention.bytes.', (c) => String(c.config.retention.retentionBytes), false),
  { name: 'log.retention.hours', type: INT, doc: 'Default retention in hours (log.retention.ms wins).', value: fixed('168'),
    readOnly: true },
  configured('log.retention.ms', LONG, 'Default retention.ms.', (c) => String(c.config.retention.retentionMs), false),
  configured('message.max.bytes', INT, 'Largest record batch size allowed.', (c) => String(c.config.maxMessageBytes), false),
  { name: 'min.insync.replicas', type: INT, doc: 'Replicas that must acknowledge acks=-1.', value: fixed('1') },
  configured('num.partitions', INT, 'Partitions of auto-created topics.', (c) => String(c.config.defaultPartitions)),
  { name: 'offsets.topic.replication.factor', type: SHORT, doc: 'Replication factor of __consumer_offsets.', value: fixed('1'),
    readOnly: true },
  { name: 'sasl.enabled.mechanisms', type: LIST, doc: 'SASL mechanisms (PLAIN in the mock).', value: fixed('PLAIN'), readOnly: true },
  { name: 'socket.request.max.bytes', type: INT, doc: 'Largest request frame.', value: fixed('104857600'), readOnly: true },
  { name: 'transaction.state.log.replication.factor', type: SHORT, doc: 'Replication factor of __transaction_state.',
    value: fixed('1'), readOnly: true },
  { name: 'sasl.jaas.config', type: PASSWORD, doc: 'JAAS configuration.', value: fixed(null), readOnly: true, sensitive: true },
];

const BY_NAME = new Map(TOPIC_CONFIGS.map((d) => [d.name, d]));

/** The definition of topic config `name`, or undefined when Kafka has no such topic config. */
export function topicConfigDef(name: string): TopicConfigDef | undefined {
  return BY_NAME.get(name);
}

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
  const def = topicConfigDef(name);
  if (!def) return `Unknown topic config name: ${name}`;
  if (value === null) return null;
  const v = value.trim();
  const invalid = (why: string) => `Invalid value ${value} for configuration ${name}: ${why}`;
  let num: number | null = null;
  const range = INTEGER_RANGE[def.type];
  if (range) {
    if (!/^[-+]?\d+$/.test(v) || BigInt(v) < range[0] || BigInt(v) > range[1]) {
      return invalid(`Not a number of type ${TYPE_NAME[def.type]}`);
    }
    num = Number(v);
  } else if (def.type === DOUBLE) {
    num = v === '' ? NaN : Number(v);
    if (Number.isNaN(num)) return invalid('Not a number of type DOUBLE');
  } else if (def.type === BOOLEAN && !/^(true|false)$/i.test(v)) {
    return invalid('Expected value to be either true or false');
  }
  const { rule } = def;
  if (num !== null && rule.min !== undefined && num < rule.min) return invalid(`Value must be at least ${rule.min}`);
  if (num !== null && rule.max !== undefined && num > rule.max) return invalid(`Value must be no more than ${rule.max}`);
  if (rule.oneOf) {
    const items = def.type === LIST ? v.split(',').map((x) => x.trim()) : [v];
    const bad = items.find((x) => !rule.oneOf!.includes(x));
    if (bad !== undefined) return invalid(`String must be one of: ${rule.oneOf.join(', ')}`);
  }
  return null;
}
