/**
 * Topic configs as Apache Kafka 4.0 defines them (TopicConfig, LogConfig: names, types, defaults, validators) and
 * how each takes its default from broker configs (ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS: e.g.
 * retention.ms from log.retention.ms, else log.retention.minutes × 60000, else log.retention.hours × 3600000), with
 * the value checks CreateTopics, AlterConfigs, IncrementalAlterConfigs and broker configs share (ConfigDef parsing
 * and validators, Kafka's wording). Kafka 4.0 dropped message.format.version, message.downconversion.enable and
 * message.timestamp.difference.max.ms; it defaults message.timestamp.after.max.ms to one hour (KIP-1030).
 *
 * The mock acts on max.message.bytes, retention.ms, retention.bytes and cleanup.policy=compact's key check; the others
 * are stored, validated and described. The documentation strings are ours, written from Kafka's meaning.
 */

/** DescribeConfigs ConfigSource ids (DescribeConfigsResponse.ConfigSource; 1 is Kafka's TOPIC_CONFIG). */
export const ConfigSource = {
  DYNAMIC_TOPIC_CONFIG: 1, DYNAMIC_BROKER_CONFIG: 2, DYNAMIC_DEFAULT_BROKER_CONFIG: 3, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5,
} as const;
/** DescribeConfigs ConfigType (v3+). */
export const ConfigType = { BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7, CLASS: 8, PASSWORD: 9 } as const;

/** Kafka's validator of a config (ConfigDef.Range, ValidString, ValidList): a numeric range or the allowed values. */
export interface ConfigRule { min?: number; max?: number; oneOf?: readonly string[] }

/** A broker config a topic config takes its default from, with the factor to its unit (hours → ms: 3600000). */
export interface BrokerSynonym { readonly name: string; readonly factor?: number }

/** One topic config: type (ConfigType id), validator, broker synonyms (highest first) and LogConfig's own default. */
export interface TopicConfigDef {
  readonly name: string;
  readonly type: number;
  readonly synonyms: readonly BrokerSynonym[];
  /** LogConfig's default, used when no broker synonym has a value. */
  readonly default: string;
  readonly doc: string;
  readonly rule: ConfigRule;
}

const LONG_MAX = '9223372036854775807';
const { BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST } = ConfigType;
const HOUR = 3_600_000;

function topic(
  name: string, type: number, synonyms: (string | BrokerSynonym)[], dflt: string, doc: string, rule: ConfigRule = {},
): TopicConfigDef {
  return { name, type, synonyms: synonyms.map((s) => (typeof s === 'string' ? { name: s } : s)), default: dflt, doc, rule };
}

const COMPRESSION = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'];

/** Kafka 4.0's topic configs, in name order. */
export const TOPIC_CONFIGS: readonly TopicConfigDef[] = [
  topic('cleanup.policy', LIST, ['log.cleanup.policy'], 'delete',
    'What happens to old segments: delete them, compact them to the last record per key, or both.', { oneOf: ['compact', 'delete'] }),
  topic('compression.gzip.level', INT, ['compression.gzip.level'], '-1',
    'gzip level when the topic recompresses with gzip (-1: the codec\'s default).'),
  topic('compression.lz4.level', INT, ['compression.lz4.level'], '9', 'lz4 level when the topic recompresses with lz4.',
    { min: 1, max: 17 }),
  topic('compression.type', STRING, ['compression.type'], 'producer',
    'Final compression of the topic\'s batches; producer keeps whatever codec the producer used.', { oneOf: COMPRESSION }),
  topic('compression.zstd.level', INT, ['compression.zstd.level'], '3', 'zstd level when the topic recompresses with zstd.',
    { min: -131072, max: 22 }),
  topic('delete.retention.ms', LONG, ['log.cleaner.delete.retention.ms'], '86400000',
    'How long tombstones stay readable in a compacted topic, in ms.', { min: 0 }),
  topic('file.delete.delay.ms', LONG, ['log.segment.delete.delay.ms'], '60000',
    'Delay before a deleted segment\'s files are removed, in ms.',
    { min: 0 }),
  topic('flush.messages', LONG, ['log.flush.interval.messages'], LONG_MAX, 'Records written between forced flushes to disk.', { min: 1 }),
  topic('flush.ms', LONG, ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'], LONG_MAX,
    'Time between forced flushes to disk, in ms.',
    { min: 0 }),
  topic('follower.replication.throttled.replicas', LIST, [], '',
    'Replicas whose follower-side replication is throttled (partition:broker).'),
  topic('index.interval.bytes', INT, ['log.index.interval.bytes'], '4096', 'Bytes between two entries of the offset index.', { min: 0 }),
  topic('leader.replication.throttled.replicas', LIST, [], '', 'Replicas whose leader-side replication is throttled (partition:broker).'),
  topic('local.retention.bytes', LONG, ['log.local.retention.bytes'], '-2',
    'Bytes kept on local disk when tiered storage is on (-2: retention.bytes).', { min: -2 }),
  topic('local.retention.ms', LONG, ['log.local.retention.ms'], '-2',
    'Time kept on local disk when tiered storage is on, in ms (-2: retention.ms).', { min: -2 }),
  topic('max.compaction.lag.ms', LONG, ['log.cleaner.max.compaction.lag.ms'], LONG_MAX,
    'Longest time a record may stay uncompacted in a compacted topic, in ms.', { min: 1 }),
  topic('max.message.bytes', INT, ['message.max.bytes'], '1048588', 'Largest record batch the topic accepts, in bytes.', { min: 0 }),
  topic('message.timestamp.after.max.ms', LONG, ['log.message.timestamp.after.max.ms'], '3600000',
    'How far a CreateTime timestamp may be ahead of the broker\'s clock, in ms.', { min: 0 }),
  topic('message.timestamp.before.max.ms', LONG, ['log.message.timestamp.before.max.ms'], LONG_MAX,
    'How far a CreateTime timestamp may be behind the broker\'s clock, in ms.', { min: 0 }),
  topic('message.timestamp.type', STRING, ['log.message.timestamp.type'], 'CreateTime',
    'Which time a record\'s timestamp holds: the producer\'s (CreateTime) or the broker\'s (LogAppendTime).',
    { oneOf: ['CreateTime', 'LogAppendTime'] }),
  topic('min.cleanable.dirty.ratio', DOUBLE, ['log.cleaner.min.cleanable.ratio'], '0.5',
    'Share of uncompacted log that makes a partition eligible for compaction.', { min: 0, max: 1 }),
  topic('min.compaction.lag.ms', LONG, ['log.cleaner.min.compaction.lag.ms'], '0',
    'Shortest time a record stays uncompacted in a compacted topic, in ms.', { min: 0 }),
  topic('min.insync.replicas', INT, ['min.insync.replicas'], '1', 'Replicas that must have a batch before acks=all succeeds.', { min: 1 }),
  topic('preallocate', BOOLEAN, ['log.preallocate'], 'false', 'Whether segment files are allocated in full when created.'),
  topic('remote.log.copy.disable', BOOLEAN, [], 'false', 'Whether copying segments to tiered storage is paused.'),
  topic('remote.log.delete.on.disable', BOOLEAN, [], 'false', 'Whether turning tiered storage off deletes the remote segments.'),
  topic('remote.storage.enable', BOOLEAN, [], 'false', 'Whether the topic uses tiered storage (not available in the mock).'),
  topic('retention.bytes', LONG, ['log.retention.bytes'], '-1',
    'Largest partition size before the oldest data is deleted, in bytes (-1: no limit).'),
  topic('retention.ms', LONG, ['log.retention.ms', { name: 'log.retention.minutes', factor: 60_000 },
    { name: 'log.retention.hours', factor: HOUR }],
    '604800000', 'How long data is kept before it is deleted, in ms (-1: forever).', { min: -1 }),
  topic('segment.bytes', INT, ['log.segment.bytes'], '1073741824', 'Size of a log segment file, in bytes.', { min: 1048576 }),
  topic('segment.index.bytes', INT, ['log.index.size.max.bytes'], '10485760', 'Size of a segment\'s offset index, in bytes.', { min: 4 }),
  topic('segment.jitter.ms', LONG, ['log.roll.jitter.ms', { name: 'log.roll.jitter.hours', factor: HOUR }], '0',
    'Random jitter subtracted from segment.ms, in ms.', { min: 0 }),
  topic('segment.ms', LONG, ['log.roll.ms', { name: 'log.roll.hours', factor: HOUR }], '604800000',
    'Time after which a segment is rolled even if not full, in ms.', { min: 1 }),
  topic('unclean.leader.election.enable', BOOLEAN, ['unclean.leader.election.enable'], 'false',
    'Whether a replica outside the ISR may become leader, losing data.'),
];

const BY_NAME = new Map(TOPIC_CONFIGS.map((d) => [d.name, d]));

/** The definition of topic config `name`, or undefined when Kafka has no such topic config. */
export function topicConfigDef(name: string): TopicConfigDef | undefined {
  return BY_NAME.get(name);
}

/**
 * The default of a topic config as a broker computes it (KafkaConfig.extractLogConfigMap): the first broker synonym
 * that has a value (`brokerValue`), times its factor, else LogConfig's own default.
 */
export function topicDefault(d: TopicConfigDef, brokerValue: (name: string) => string | null): string {
  for (const s of d.synonyms) {
    const v = brokerValue(s.name);
    if (v !== null) return s.factor ? String(BigInt(v.trim()) * BigInt(s.factor)) : v;
  }
  return d.default;
}

const INTEGER_RANGE: Partial<Record<number, [bigint, bigint]>> = {
  [LONG]: [-(1n << 63n), (1n << 63n) - 1n], [INT]: [-(1n << 31n), (1n << 31n) - 1n], [SHORT]: [-32768n, 32767n],
};
const TYPE_NAME: Record<number, string> = { [BOOLEAN]: 'BOOLEAN', [INT]: 'INT', [SHORT]: 'SHORT', [LONG]: 'LONG', [DOUBLE]: 'DOUBLE' };

/**
 * Why Kafka's ConfigDef would refuse `value` for a config of this type and validator (parsing, then
 * Range / ValidString / ValidList), with Kafka's wording, or null when it is valid.
 */
export function configValueError(d: { name: string; type: number; rule: ConfigRule }, value: string): string | null {
  const { name } = d;
  const v = value.trim();
  const invalid = (why: string) => `Invalid value ${value} for configuration ${name}: ${why}`;
  let num: number | null = null;
  const range = INTEGER_RANGE[d.type];
  if (range) {
    if (!/^[-+]?\d+$/.test(v) || BigInt(v) < range[0] || BigInt(v) > range[1]) {
      return invalid(`Not a number of type ${TYPE_NAME[d.type]}`);
    }
    num = Number(v);
  } else if (d.type === DOUBLE) {
    num = v === '' ? NaN : Number(v);
    if (Number.isNaN(num)) return invalid('Not a number of type DOUBLE');
  } else if (d.type === BOOLEAN && !/^(true|false)$/i.test(v)) {
    return invalid('Expected value to be either true or false');
  }
  const { rule } = d;
  if (num !== null && rule.min !== undefined && num < rule.min) return invalid(`Value must be at least ${rule.min}`);
  if (num !== null && rule.max !== undefined && num > rule.max) return invalid(`Value must be no more than ${rule.max}`);
  if (rule.oneOf) {
    const items = d.type === LIST ? v.split(',').map((x) => x.trim()) : [v];
    const bad = items.find((x) => !rule.oneOf!.includes(x));
    if (bad !== undefined) return invalid(`String must be one of: ${rule.oneOf.join(', ')}`);
  }
  return null;
}

/**
 * Why Kafka would refuse `value` for topic config `name` (ConfigDef parsing and LogConfig's validators, with
 * Kafka's own wording), or null when it is valid. Unknown names are refused as Kafka does ("Unknown topic config
 * name"). CreateTopics, AlterConfigs and IncrementalAlterConfigs answer INVALID_CONFIG with this message.
 */
export function topicConfigError(name: string, value: string | null): string | null {
  const d = topicConfigDef(name);
  if (!d) return `Unknown topic config name: ${name}`;
  return value === null ? null : configValueError(d, value);
}
