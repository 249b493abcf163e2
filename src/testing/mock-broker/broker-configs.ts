/**
 * Broker configs as Apache Kafka 4.0 defines them (KafkaConfig, ServerConfigs, ServerLogConfigs,
 * GroupCoordinatorConfig, TransactionLogConfig, SocketServerConfigs; names, types, defaults, validators) and
 * as DynamicBrokerConfig lets them change: read-only, per-broker, or cluster-wide (settable per broker too).
 * The mock holds four levels, Kafka's order of precedence: dynamic per-broker (AlterConfigs on BROKER "<id>",
 * DYNAMIC_BROKER_CONFIG), dynamic cluster default (BROKER "", DYNAMIC_DEFAULT_BROKER_CONFIG), static (what the
 * cluster was started with: options, `brokerConfigs`, `kafka-eos broker --config`; STATIC_BROKER_CONFIG) and
 * Kafka's default (DEFAULT_CONFIG). Topic defaults come from these (config-defaults.ts), so a dynamic
 * `message.max.bytes` or `log.retention.ms` applies to every topic without an override.
 *
 * `honoured` marks the configs that change what the mock does; the others are Kafka's, stored and described only.
 * The documentation strings are ours, written from Kafka's meaning (docs/mock-broker.md).
 */
import { ConfigRule, ConfigType, configValueError } from './config-defaults';

/** DynamicBrokerConfig's update modes. */
export type BrokerConfigMode = 'read-only' | 'per-broker' | 'cluster-wide';

/** One broker config: Kafka's name, type (a ConfigType id), default (as DescribeConfigs prints it; null: none). */
export interface BrokerConfigDef {
  readonly name: string;
  readonly type: number;
  readonly default: string | null;
  readonly mode: BrokerConfigMode;
  readonly doc: string;
  readonly rule: ConfigRule;
  /** The mock acts on it (topic defaults, groups, transactions, listeners...). */
  readonly honoured: boolean;
  readonly sensitive: boolean;
}

const { BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST, PASSWORD, CLASS } = ConfigType;
const LONG_MAX = '9223372036854775807';
const INT_MAX = '2147483647';

type Opt = { rule?: ConfigRule; honoured?: boolean; sensitive?: boolean };
const def = (name: string, type: number, dflt: string | null, mode: BrokerConfigMode, doc: string, o: Opt = {}): BrokerConfigDef =>
  ({ name, type, default: dflt, mode, doc, rule: o.rule ?? {}, honoured: o.honoured ?? false, sensitive: o.sensitive ?? false });
const H = { honoured: true } as const;
const CW = 'cluster-wide';
const PB = 'per-broker';
const RO = 'read-only';
/** The authorizers the mock stands in for, all enforcing ACLs as StandardAuthorizer does (acls.ts `authorize`). */
export const AUTHORIZERS = [
  '', 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'kafka.security.authorizer.AclAuthorizer',
  'kafka.security.auth.SimpleAclAuthorizer',
];
const COMPRESSION = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'];

/** The broker configs the mock knows, in name order. */
export const BROKER_CONFIG_DEFS: readonly BrokerConfigDef[] = [
  def('advertised.listeners', STRING, null, PB, 'The listeners this broker tells clients to use (name://host:port, comma-separated).', H),
  def('allow.everyone.if.no.acl.found', BOOLEAN, 'false', RO,
    'StandardAuthorizer: whether a resource without ACLs is open to everyone (else only super users).', H),
  def('authorizer.class.name', STRING, '', RO, 'The authorizer that enforces ACLs (empty: none, every request is allowed).',
    { rule: { oneOf: AUTHORIZERS }, honoured: true }),
  def('auto.create.topics.enable', BOOLEAN, 'true', RO, 'Whether a Metadata request for an unknown topic creates it.', H),
  def('background.threads', INT, '10', CW, 'Threads for background work.', { rule: { min: 1 } }),
  def('broker.id', INT, '-1', RO, 'The id of this broker (equal to node.id in KRaft mode).', H),
  def('broker.rack', STRING, null, RO, 'The rack of this broker, for rack-aware replica placement.'),
  def('compression.gzip.level', INT, '-1', CW, 'gzip level used when the broker recompresses with compression.type=gzip.'),
  def('compression.lz4.level', INT, '9', CW, 'lz4 level used when the broker recompresses with compression.type=lz4.',
    { rule: { min: 1, max: 17 } }),
  def('compression.type', STRING, 'producer', CW, 'Default final compression of topics (producer keeps the producer\'s codec).',
    { rule: { oneOf: COMPRESSION }, honoured: true }),
  def('compression.zstd.level', INT, '3', CW, 'zstd level used when the broker recompresses with compression.type=zstd.',
    { rule: { min: -131072, max: 22 } }),
  def('connections.max.idle.ms', LONG, '600000', RO, 'Idle connections are closed after this many milliseconds.', H),
  def('connections.max.reauth.ms', LONG, '0', RO,
    'Longest session of a SASL connection before the client must re-authenticate, in ms (0: no limit).', H),
  def('default.replication.factor', INT, '1', RO, 'Replication factor of auto-created topics and of CreateTopics with -1.', H),
  def('delete.topic.enable', BOOLEAN, 'true', RO, 'Whether topics can be deleted.'),
  def('group.consumer.assignors', LIST, 'uniform,range', RO, 'Server-side assignors of KIP-848 consumer groups; the first is the default.'),
  def('group.consumer.heartbeat.interval.ms', INT, '5000', RO, 'Heartbeat interval given to KIP-848 consumer group members, in ms.',
    { rule: { min: 1 }, honoured: true }),
  def('group.consumer.max.heartbeat.interval.ms', INT, '15000', RO, 'Largest heartbeat interval of KIP-848 members, in ms.',
    { rule: { min: 1 } }),
  def('group.consumer.max.session.timeout.ms', INT, '60000', RO, 'Largest session timeout of KIP-848 members, in ms.',
    { rule: { min: 1 } }),
  def('group.consumer.max.size', INT, INT_MAX, RO, 'Most members of one KIP-848 consumer group.', { rule: { min: 1 }, honoured: true }),
  def('group.consumer.min.heartbeat.interval.ms', INT, '5000', RO, 'Smallest heartbeat interval of KIP-848 members, in ms.',
    { rule: { min: 1 } }),
  def('group.consumer.min.session.timeout.ms', INT, '45000', RO, 'Smallest session timeout of KIP-848 members, in ms.',
    { rule: { min: 1 } }),
  def('group.consumer.session.timeout.ms', INT, '45000', RO, 'Session timeout of KIP-848 consumer group members, in ms.',
    { rule: { min: 1 }, honoured: true }),
  def('group.coordinator.rebalance.protocols', LIST, 'classic,consumer', RO, 'Group protocols the coordinator serves.'),
  def('group.initial.rebalance.delay.ms', INT, '3000', RO,
    'How long a new classic group waits for more members before its first rebalance, in ms.',
    H),
  def('group.max.session.timeout.ms', INT, '1800000', RO, 'Largest session timeout a classic group member may ask for, in ms.', H),
  def('group.max.size', INT, INT_MAX, RO, 'Most members of one classic group.', { rule: { min: 1 }, honoured: true }),
  def('group.min.session.timeout.ms', INT, '6000', RO, 'Smallest session timeout a classic group member may ask for, in ms.', H),
  def('leader.replication.throttled.rate', LONG, LONG_MAX, CW, 'Upper bound of leader replication traffic, in bytes/s.',
    { rule: { min: 0 } }),
  def('follower.replication.throttled.rate', LONG, LONG_MAX, CW, 'Upper bound of follower replication traffic, in bytes/s.',
    { rule: { min: 0 } }),
  def('listener.security.protocol.map', STRING, 'SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT', PB,
    'The security protocol of each listener name.', H),
  def('listeners', STRING, 'PLAINTEXT://:9092', PB, 'The addresses the broker listens on (name://host:port, comma-separated).', H),
  def('log.cleaner.delete.retention.ms', LONG, '86400000', CW, 'Default delete.retention.ms of topics.', { rule: { min: 0 },
    honoured: true }),
  def('log.cleaner.enable', BOOLEAN, 'true', RO, 'Whether the log cleaner (compaction) runs.'),
  def('log.cleaner.max.compaction.lag.ms', LONG, LONG_MAX, CW, 'Default max.compaction.lag.ms of topics.', { rule: { min: 1 },
    honoured: true }),
  def('log.cleaner.min.cleanable.ratio', DOUBLE, '0.5', CW, 'Default min.cleanable.dirty.ratio of topics.',
    { rule: { min: 0, max: 1 }, honoured: true }),
  def('log.cleaner.min.compaction.lag.ms', LONG, '0', CW, 'Default min.compaction.lag.ms of topics.', { rule: { min: 0 }, honoured: true }),
  def('log.cleaner.threads', INT, '1', CW, 'Threads of the log cleaner.', { rule: { min: 0 } }),
  def('log.cleanup.policy', LIST, 'delete', CW, 'Default cleanup.policy of topics: delete, compact or both.',
    { rule: { oneOf: ['compact', 'delete'] }, honoured: true }),
  def('log.dirs', STRING, null, RO, 'The directories that hold the broker\'s logs.', H),
  def('log.flush.interval.messages', LONG, LONG_MAX, CW, 'Default flush.messages of topics.', { rule: { min: 1 }, honoured: true }),
  def('log.flush.interval.ms', LONG, null, CW, 'Default flush.ms of topics (log.flush.scheduler.interval.ms when unset).', H),
  def('log.flush.scheduler.interval.ms', LONG, LONG_MAX, RO,
    'How often the flusher checks logs, in ms; flush.ms default when log.flush.interval.ms is unset.',
    H),
  def('log.index.interval.bytes', INT, '4096', CW, 'Default index.interval.bytes of topics.', { rule: { min: 0 }, honoured: true }),
  def('log.index.size.max.bytes', INT, '10485760', CW, 'Default segment.index.bytes of topics.', { rule: { min: 4 }, honoured: true }),
  def('log.local.retention.bytes', LONG, '-2', CW, 'Default local.retention.bytes of topics (tiered storage).',
    { rule: { min: -2 }, honoured: true }),
  def('log.local.retention.ms', LONG, '-2', CW, 'Default local.retention.ms of topics (tiered storage).', { rule: { min: -2 },
    honoured: true }),
  def('log.message.timestamp.after.max.ms', LONG, '3600000', CW, 'Default message.timestamp.after.max.ms of topics.',
    { rule: { min: 0 }, honoured: true }),
  def('log.message.timestamp.before.max.ms', LONG, LONG_MAX, CW, 'Default message.timestamp.before.max.ms of topics.',
    { rule: { min: 0 }, honoured: true }),
  def('log.message.timestamp.type', STRING, 'CreateTime', CW, 'Default message.timestamp.type of topics.',
    { rule: { oneOf: ['CreateTime', 'LogAppendTime'] }, honoured: true }),
  def('log.preallocate', BOOLEAN, 'false', CW, 'Default preallocate of topics.', H),
  def('log.retention.bytes', LONG, '-1', CW, 'Default retention.bytes of topics (-1: no size limit).', H),
  def('log.retention.check.interval.ms', LONG, '300000', RO, 'How often logs are checked for deletable segments, in ms.',
    { rule: { min: 1 } }),
  def('log.retention.hours', INT, '168', RO,
    'Default retention of topics in hours, used when log.retention.ms and log.retention.minutes are unset.',
    H),
  def('log.retention.minutes', INT, null, RO, 'Default retention of topics in minutes, used when log.retention.ms is unset.', H),
  def('log.retention.ms', LONG, null, CW, 'Default retention.ms of topics (-1: keep forever); wins over the minutes and hours forms.', H),
  def('log.roll.hours', INT, '168', RO, 'Default segment.ms of topics in hours, used when log.roll.ms is unset.',
    { rule: { min: 1 }, honoured: true }),
  def('log.roll.jitter.hours', INT, '0', RO, 'Default segment.jitter.ms of topics in hours, used when log.roll.jitter.ms is unset.',
    { rule: { min: 0 }, honoured: true }),
  def('log.roll.jitter.ms', LONG, null, CW, 'Default segment.jitter.ms of topics.', H),
  def('log.roll.ms', LONG, null, CW, 'Default segment.ms of topics.', H),
  def('log.segment.bytes', INT, '1073741824', CW, 'Default segment.bytes of topics.', { rule: { min: 1048576 }, honoured: true }),
  def('log.segment.delete.delay.ms', LONG, '60000', CW, 'Default file.delete.delay.ms of topics.', { rule: { min: 0 }, honoured: true }),
  def('max.connections', INT, INT_MAX, CW, 'Most connections the broker accepts.', { rule: { min: 0 } }),
  def('max.connections.per.ip', INT, INT_MAX, CW, 'Most connections from one address.', { rule: { min: 0 } }),
  def('message.max.bytes', INT, '1048588', CW, 'Largest record batch a topic accepts by default (max.message.bytes), in bytes.',
    { rule: { min: 0 }, honoured: true }),
  def('min.insync.replicas', INT, '1', CW, 'Default min.insync.replicas of topics.', { rule: { min: 1 }, honoured: true }),
  def('node.id', INT, '-1', RO, 'The id of this node in the KRaft cluster.', H),
  def('num.io.threads', INT, '8', CW, 'Threads that handle requests.', { rule: { min: 1 } }),
  def('num.network.threads', INT, '3', CW, 'Threads that read and write the network.', { rule: { min: 1 } }),
  def('num.partitions', INT, '1', RO, 'Partitions of auto-created topics and of CreateTopics with -1.', { rule: { min: 1 },
    honoured: true }),
  def('num.recovery.threads.per.data.dir', INT, '2', CW, 'Threads per log directory for recovery at start and flush at shutdown.',
    { rule: { min: 1 } }),
  def('num.replica.fetchers', INT, '1', CW, 'Threads that fetch from leaders.', { rule: { min: 1 } }),
  def('offset.metadata.max.bytes', INT, '4096', RO, 'Largest metadata string of a committed offset, in bytes.', H),
  def('offsets.retention.minutes', INT, '10080', RO, 'How long committed offsets of an empty group are kept, in minutes.',
    { rule: { min: 1 } }),
  def('offsets.topic.num.partitions', INT, '50', RO, 'Partitions of __consumer_offsets.', { rule: { min: 1 } }),
  def('offsets.topic.replication.factor', SHORT, '3', RO, 'Replication factor of __consumer_offsets.', { rule: { min: 1 } }),
  def('principal.builder.class', CLASS, 'org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder', PB,
    'The class that builds a connection\'s principal.'),
  def('process.roles', LIST, '', RO, 'The roles of this node in KRaft mode (broker, controller).', H),
  def('producer.id.expiration.ms', INT, '86400000', CW, 'How long an idle producer id is kept, in ms.', { rule: { min: 1 } }),
  def('queued.max.request.bytes', LONG, '-1', RO, 'Bytes of queued requests before the broker stops reading (-1: no bound).'),
  def('replica.lag.time.max.ms', LONG, '30000', RO, 'How long a follower may lag before it leaves the ISR, in ms.'),
  def('sasl.enabled.mechanisms', LIST, 'GSSAPI', PB, 'The SASL mechanisms the SASL listeners accept.', H),
  def('sasl.jaas.config', PASSWORD, null, PB, 'JAAS login settings of the SASL listeners.', { sensitive: true }),
  def('socket.request.max.bytes', INT, '104857600', RO, 'Largest request frame the broker reads, in bytes.', { rule: { min: 1 } }),
  def('super.users', STRING, '', RO, 'StandardAuthorizer: principals allowed everything (User:a;User:b).', H),
  def('ssl.client.auth', STRING, 'none', PB, 'Whether SSL listeners ask clients for a certificate: required, requested or none.',
    { rule: { oneOf: ['required', 'requested', 'none'] } }),
  def('transaction.max.timeout.ms', INT, '900000', RO, 'Largest transaction timeout a producer may ask for, in ms.',
    { rule: { min: 1 }, honoured: true }),
  def('transaction.partition.verification.enable', BOOLEAN, 'true', CW,
    'Whether transactional produce is checked against the partitions added (KIP-890).'),
  def('transaction.state.log.replication.factor', SHORT, '3', RO, 'Replication factor of __transaction_state.', { rule: { min: 1 } }),
  def('transactional.id.expiration.ms', INT, '604800000', RO, 'How long an idle transactional id is kept, in ms.', { rule: { min: 1 } }),
  def('unclean.leader.election.enable', BOOLEAN, 'false', CW, 'Default unclean.leader.election.enable of topics.', H),
];

const BY_NAME = new Map(BROKER_CONFIG_DEFS.map((d) => [d.name, d]));

/** The definition of broker config `name`, or undefined. */
export function brokerConfigDef(name: string): BrokerConfigDef | undefined {
  return BY_NAME.get(name);
}

/**
 * Kafka's broker config synonyms (DynamicBrokerConfig.brokerConfigSynonyms): the forms of one setting, highest
 * precedence first.
 */
export function brokerConfigSynonyms(name: string): string[] {
  const groups = [
    ['log.roll.ms', 'log.roll.hours'], ['log.roll.jitter.ms', 'log.roll.jitter.hours'],
    ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'], ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
  ];
  return groups.find((g) => g.includes(name)) ?? [name];
}

/**
 * Why a static broker config (server.properties, `--config`, `brokerConfigs`) is refused, or null: an unknown
 * name, a config the mock does not act on, or a value Kafka's ConfigDef would refuse (Kafka's wording).
 */
export function staticBrokerConfigError(name: string, value: string): string | null {
  const d = brokerConfigDef(name);
  if (!d) return `Unknown broker config name: ${name}`;
  if (!d.honoured) return `${name} is a Kafka broker config the mock cluster does not act on`;
  return configValueError(d, value);
}

/**
 * Why a dynamic change of broker configs is refused (DynamicBrokerConfig.validateConfigs, ConfigAdminManager), or
 * null. `perBroker`: the resource names a broker (else the cluster-wide default ""). Unknown names are accepted, as
 * Kafka accepts custom broker configs.
 */
export function dynamicBrokerConfigError(configs: ReadonlyMap<string, string>, perBroker: boolean): string | null {
  const names = [...configs.keys()];
  const readOnly = names.filter((n) => brokerConfigDef(n)?.mode === 'read-only');
  if (readOnly.length > 0) return `Cannot update these configs dynamically: Set(${readOnly.join(', ')})`;
  for (const [name, value] of configs) {
    const d = brokerConfigDef(name);
    const invalid = d ? configValueError(d, value) : null;
    if (invalid) return invalid;
  }
  const brokerOnly = names.filter((n) => brokerConfigDef(n)?.mode === 'per-broker');
  if (!perBroker && brokerOnly.length > 0) {
    return `Cannot update these configs at default cluster level, broker id must be specified: Set(${brokerOnly.join(', ')})`;
  }
  return null;
}

/** A config's value at each level Kafka describes (DescribeConfigs synonyms), highest first. */
export interface ConfigLevelValue { name: string; value: string | null; source: number }

/**
 * The broker configs of one cluster at their four levels. Static per-broker values (node.id, listeners) come from
 * `perBrokerStatic`. Changed only by {@link setDynamic}.
 */
export class BrokerConfigStore {
  private readonly perBroker = new Map<number, Map<string, string>>();
  private readonly clusterDefault = new Map<string, string>();

  constructor(
    private readonly staticConfigs: ReadonlyMap<string, string>,
    private readonly perBrokerStatic: (nodeId: number) => ReadonlyMap<string, string> = () => new Map(),
  ) {}

  /** The dynamic configs of broker `nodeId`, or of the cluster default (null). */
  dynamic(nodeId: number | null): ReadonlyMap<string, string> {
    return nodeId === null ? this.clusterDefault : (this.perBroker.get(nodeId) ?? new Map());
  }

  /** Replaces the dynamic configs of broker `nodeId`, or of the cluster default (null). The caller validated them. */
  setDynamic(nodeId: number | null, configs: ReadonlyMap<string, string>): void {
    const target = nodeId === null ? this.clusterDefault : this.perBroker.get(nodeId) ?? new Map<string, string>();
    target.clear();
    for (const [k, v] of configs) target.set(k, v);
    if (nodeId !== null) this.perBroker.set(nodeId, target);
  }

  /** The static config `name` of broker `nodeId` (what it was started with), or undefined. */
  staticValue(nodeId: number | null, name: string): string | undefined {
    return (nodeId === null ? undefined : this.perBrokerStatic(nodeId).get(name)) ?? this.staticConfigs.get(name);
  }

  /**
   * `name`'s values at every level for broker `nodeId` (null: as the cluster default sees them, no per-broker level),
   * highest precedence first: DYNAMIC_BROKER_CONFIG (2), DYNAMIC_DEFAULT_BROKER_CONFIG (3), STATIC_BROKER_CONFIG (4),
   * DEFAULT_CONFIG (5, Kafka's default when it has one).
   */
  levels(nodeId: number | null, name: string): ConfigLevelValue[] {
    const out: ConfigLevelValue[] = [];
    const perBroker = nodeId === null ? undefined : this.perBroker.get(nodeId)?.get(name);
    if (perBroker !== undefined) out.push({ name, value: perBroker, source: 2 });
    const dflt = this.clusterDefault.get(name);
    if (dflt !== undefined) out.push({ name, value: dflt, source: 3 });
    const stat = this.staticValue(nodeId, name);
    if (stat !== undefined) out.push({ name, value: stat, source: 4 });
    const kafka = brokerConfigDef(name)?.default;
    if (kafka !== undefined && kafka !== null) out.push({ name, value: kafka, source: 5 });
    return out;
  }

  /** The value broker `nodeId` uses for `name` (its highest level), or null when no level sets it. */
  value(nodeId: number | null, name: string): string | null {
    return this.levels(nodeId, name)[0]?.value ?? null;
  }

  /**
   * Kafka's synonyms list for `name` (ConfigHelper.configSynonyms): every form of the setting at every level, levels
   * outermost, then dropped up to the first entry named `name` itself.
   */
  synonyms(nodeId: number | null, name: string): ConfigLevelValue[] {
    const forms = brokerConfigSynonyms(name);
    const all: ConfigLevelValue[] = [];
    for (const source of [2, 3, 4, 5]) {
      for (const form of forms) all.push(...this.levels(nodeId, form).filter((l) => l.source === source));
    }
    const first = all.findIndex((s) => s.name === name);
    return first < 0 ? [] : all.slice(first);
  }

  /** The names with a value at some level for broker `nodeId`: Kafka's, then any custom dynamic or static ones. */
  names(nodeId: number | null): string[] {
    const names = new Set(BROKER_CONFIG_DEFS.map((d) => d.name));
    for (const m of [this.staticConfigs, nodeId === null ? new Map() : this.perBrokerStatic(nodeId), this.clusterDefault,
      nodeId === null ? new Map() : this.perBroker.get(nodeId) ?? new Map()]) {
      for (const k of m.keys()) names.add(k);
    }
    return [...names];
  }
}
