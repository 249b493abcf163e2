/**
 * The static broker configs of a mock cluster (Kafka's server.properties, the STATIC_BROKER_CONFIG level), from
 * MockCluster.start's typed options (`retentionMs`, `group.minSessionTimeoutMs`...) and its `brokerConfigs` (Kafka's
 * names, what `kafka-eos broker --config key=value` passes). One setting is one config: a typed option and a
 * `brokerConfigs` entry for the same config must agree. The mock's own defaults that differ from Kafka's
 * (group.initial.rebalance.delay.ms 0) are static configs too, so DescribeConfigs tells them apart from Kafka's.
 */
import type { GroupCoordinatorConfig } from './groups/types';
import { brokerConfigDef, staticBrokerConfigError } from './broker-configs';
import { KafkaEosError } from '../../errors';

/** The typed options static-configs.ts reads (a subset of MockClusterOptions). */
export interface TypedBrokerOptions {
  /** auto.create.topics.enable (default true, as in Kafka). */
  autoCreateTopics?: boolean;
  /** num.partitions for auto-created topics (default 1). */
  defaultPartitions?: number;
  /** default.replication.factor (default 1; capped at the broker count). */
  defaultReplicationFactor?: number;
  /** log.retention.bytes: retention.bytes of topics without their own (default -1 = unbounded, as in Kafka). */
  retentionBytes?: number;
  /** log.retention.ms: retention.ms of topics without their own (default 604800000, 7 days, as in Kafka; -1 = forever). */
  retentionMs?: number;
  /** message.max.bytes (default 1048588, as in Kafka). */
  maxMessageBytes?: number;
  /**
   * connections.max.idle.ms: a connection with no traffic and no request in progress for this long is
   * closed (default 600000, Kafka's 10 minutes; 0 = never).
   */
  connectionsMaxIdleMs?: number;
  /**
   * Static broker configs by Kafka's name (server.properties; what `kafka-eos broker --config` passes), e.g.
   * `{ 'log.retention.ms': '60000', 'group.consumer.heartbeat.interval.ms': '500' }`: only configs the mock acts on
   * (broker-configs.ts), each checked as Kafka's ConfigDef checks it; a typed option for the same config must agree.
   */
  brokerConfigs?: Record<string, string>;
  group?: Partial<GroupCoordinatorConfig>;
  transactions?: { maxTimeoutMs?: number };
  /** connections.max.reauth.ms comes from here (the SASL options). */
  sasl?: { connectionsMaxReauthMs?: number };
}

type Getter = (o: TypedBrokerOptions) => number | boolean | undefined;
const MAPPED: readonly { name: string; get: Getter; mockDefault?: string }[] = [
  { name: 'auto.create.topics.enable', get: (o) => o.autoCreateTopics },
  { name: 'num.partitions', get: (o) => o.defaultPartitions },
  { name: 'default.replication.factor', get: (o) => o.defaultReplicationFactor },
  { name: 'log.retention.bytes', get: (o) => o.retentionBytes },
  { name: 'log.retention.ms', get: (o) => o.retentionMs },
  { name: 'message.max.bytes', get: (o) => o.maxMessageBytes },
  { name: 'connections.max.idle.ms', get: (o) => o.connectionsMaxIdleMs },
  { name: 'connections.max.reauth.ms', get: (o) => o.sasl?.connectionsMaxReauthMs },
  { name: 'group.initial.rebalance.delay.ms', get: (o) => o.group?.initialRebalanceDelayMs, mockDefault: '0' },
  { name: 'group.min.session.timeout.ms', get: (o) => o.group?.minSessionTimeoutMs },
  { name: 'group.max.session.timeout.ms', get: (o) => o.group?.maxSessionTimeoutMs },
  { name: 'group.max.size', get: (o) => o.group?.maxGroupSize },
  { name: 'offset.metadata.max.bytes', get: (o) => o.group?.offsetMetadataMaxBytes },
  { name: 'group.consumer.heartbeat.interval.ms', get: (o) => o.group?.consumerHeartbeatIntervalMs },
  { name: 'group.consumer.session.timeout.ms', get: (o) => o.group?.consumerSessionTimeoutMs },
  { name: 'group.consumer.max.size', get: (o) => o.group?.consumerMaxGroupSize },
  { name: 'transaction.max.timeout.ms', get: (o) => o.transactions?.maxTimeoutMs },
];

/** What the static configs resolve to: the STATIC_BROKER_CONFIG map and the typed settings the mock runs with. */
export interface ResolvedStaticConfigs {
  configs: Map<string, string>;
  autoCreateTopics: boolean;
  defaultPartitions: number;
  defaultReplicationFactor: number;
  connectionsMaxIdleMs: number;
  connectionsMaxReauthMs: number;
  group: Partial<GroupCoordinatorConfig>;
  transactionMaxTimeoutMs: number;
}

/**
 * Resolves the static configs. Throws KafkaEosError(CONFIG_INVALID) for an unknown or unhonoured `brokerConfigs`
 * name, a value Kafka's ConfigDef refuses, or a typed option that contradicts its `brokerConfigs` entry.
 */
export function resolveStaticConfigs(o: TypedBrokerOptions): ResolvedStaticConfigs {
  const configs = new Map<string, string>();
  for (const [name, value] of Object.entries(o.brokerConfigs ?? {})) {
    const invalid = staticBrokerConfigError(name, String(value));
    if (invalid) throw new KafkaEosError('CONFIG_INVALID', invalid);
    configs.set(name, String(value).trim());
  }
  for (const m of MAPPED) {
    const typed = m.get(o);
    const given = configs.get(m.name);
    if (typed !== undefined && given !== undefined && String(typed) !== given) {
      throw new KafkaEosError('CONFIG_INVALID', `${m.name} is given twice: ${given} (brokerConfigs) and ${typed} (option)`);
    }
    if (typed !== undefined) {
      const invalid = staticBrokerConfigError(m.name, String(typed));
      if (invalid) throw new KafkaEosError('CONFIG_INVALID', invalid);
      configs.set(m.name, String(typed));
    } else if (given === undefined && m.mockDefault !== undefined) {
      configs.set(m.name, m.mockDefault);
    }
  }
  const num = (name: string): number => Number(configs.get(name) ?? brokerConfigDef(name)!.default);
  const opt = (name: string): number | undefined => (configs.has(name) ? Number(configs.get(name)) : undefined);
  const group: Partial<GroupCoordinatorConfig> = { ...o.group };
  const groupKeys: [keyof GroupCoordinatorConfig, string][] = [
    ['initialRebalanceDelayMs', 'group.initial.rebalance.delay.ms'], ['minSessionTimeoutMs', 'group.min.session.timeout.ms'],
    ['maxSessionTimeoutMs', 'group.max.session.timeout.ms'], ['maxGroupSize', 'group.max.size'],
    ['offsetMetadataMaxBytes', 'offset.metadata.max.bytes'], ['consumerHeartbeatIntervalMs', 'group.consumer.heartbeat.interval.ms'],
    ['consumerSessionTimeoutMs', 'group.consumer.session.timeout.ms'], ['consumerMaxGroupSize', 'group.consumer.max.size'],
  ];
  for (const [key, name] of groupKeys) {
    const v = opt(name);
    if (v !== undefined) (group as Record<string, unknown>)[key] = v;
  }
  return {
    configs,
    autoCreateTopics: (configs.get('auto.create.topics.enable') ?? 'true').toLowerCase() === 'true',
    defaultPartitions: num('num.partitions'),
    defaultReplicationFactor: num('default.replication.factor'),
    connectionsMaxIdleMs: num('connections.max.idle.ms'),
    connectionsMaxReauthMs: num('connections.max.reauth.ms'),
    group,
    transactionMaxTimeoutMs: num('transaction.max.timeout.ms'),
  };
}
