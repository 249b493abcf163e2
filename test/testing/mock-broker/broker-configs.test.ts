/**
 * Configs as Kafka 4.0 describes and changes them: ConfigHelper.describeConfigs / createTopicConfigEntry /
 * createBrokerConfigEntry / configSynonyms (an empty or null key list answers every config; synonyms at every level,
 * dropped up to the config's own name), ConfigHelperUtils (null or [] keys), DynamicBrokerConfig (update modes,
 * validateConfigs), ConfigAdminManager (per-broker resource must be the answering broker, duplicates, null values),
 * and the defaults of LogConfig / ServerLogConfigs / ServerConfigs / GroupCoordinatorConfig, checked entry by entry
 * against the table below (transcribed from Kafka 4.0's source, with KIP-1030's new defaults).
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { DescribeConfigs } from '../../../src/protocol/messages/admin';
import { AlterConfigs, IncrementalAlterConfigs } from '../../../src/protocol/messages/cluster-admin';
import { Produce } from '../../../src/protocol/messages/data';
import { encodeBatch } from '../../../src/protocol/record-batch';
import { ConfigSource, ConfigType } from '../../../src/testing/mock-broker/config-defaults';
import { RawClient } from './raw-client';

jest.setTimeout(60_000);

const TOPIC = 2;
const BROKER = 4;
const { DEFAULT_CONFIG, DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG } = ConfigSource;

/** Kafka 4.0's topic config defaults (LogConfig, ServerLogConfigs, TopicConfig): the oracle of this test. */
const KAFKA_TOPIC_DEFAULTS: Record<string, string> = {
  'cleanup.policy': 'delete', 'compression.gzip.level': '-1', 'compression.lz4.level': '9', 'compression.type': 'producer',
  'compression.zstd.level': '3', 'delete.retention.ms': '86400000', 'file.delete.delay.ms': '60000',
  'flush.messages': '9223372036854775807', 'flush.ms': '9223372036854775807', 'follower.replication.throttled.replicas': '',
  'index.interval.bytes': '4096', 'leader.replication.throttled.replicas': '', 'local.retention.bytes': '-2', 'local.retention.ms': '-2',
  'max.compaction.lag.ms': '9223372036854775807', 'max.message.bytes': '1048588', 'message.timestamp.after.max.ms': '3600000',
  'message.timestamp.before.max.ms': '9223372036854775807', 'message.timestamp.type': 'CreateTime', 'min.cleanable.dirty.ratio': '0.5',
  'min.compaction.lag.ms': '0', 'min.insync.replicas': '1', preallocate: 'false', 'remote.log.copy.disable': 'false',
  'remote.log.delete.on.disable': 'false', 'remote.storage.enable': 'false', 'retention.bytes': '-1', 'retention.ms': '604800000',
  'segment.bytes': '1073741824', 'segment.index.bytes': '10485760', 'segment.jitter.ms': '0', 'segment.ms': '604800000',
  'unclean.leader.election.enable': 'false',
};

/** Kafka 4.0's defaults of broker configs a client reads (ServerConfigs, ServerLogConfigs, GroupCoordinatorConfig...). */
const KAFKA_BROKER_DEFAULTS: Record<string, string | null> = {
  'auto.create.topics.enable': 'true', 'num.partitions': '1', 'default.replication.factor': '1', 'message.max.bytes': '1048588',
  'log.retention.hours': '168', 'log.retention.minutes': null, 'log.retention.ms': null, 'log.retention.bytes': '-1',
  'log.segment.bytes': '1073741824', 'log.cleanup.policy': 'delete', 'min.insync.replicas': '1', 'compression.type': 'producer',
  'group.min.session.timeout.ms': '6000', 'group.max.session.timeout.ms': '1800000', 'group.consumer.heartbeat.interval.ms': '5000',
  'group.consumer.session.timeout.ms': '45000', 'group.coordinator.rebalance.protocols': 'classic,consumer',
  'offsets.topic.replication.factor': '3', 'transaction.max.timeout.ms': '900000', 'connections.max.idle.ms': '600000',
  'num.recovery.threads.per.data.dir': '2', 'socket.request.max.bytes': '104857600', 'delete.topic.enable': 'true',
};

type Config = { name: string; value: string | null; configSource: number; readOnly: boolean;
  synonyms: { name: string; value: string | null; source: number }[] };

describe('DescribeConfigs', () => {
  let cluster: MockCluster;
  let c: RawClient;
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 2 });
    cluster.createTopic('t', 1, 1, { 'retention.ms': '1000' });
    c = await RawClient.connect(cluster.bootstrap[0]);
  });
  afterAll(async () => {
    c?.close();
    await cluster?.stop();
  });

  const describe4 = async (resourceType: number, resourceName: string, keys: string[] | null) => {
    const res = await c.request(DescribeConfigs, 4, {
      resources: [{ resourceType, resourceName, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: true,
    });
    return res.results[0] as {
      errorCode: number; errorMessage: string | null; configs: (Config & { documentation: string | null; configType: number })[] };
  };

  test.each([[null], [[]]])('keys %j answer every topic config with Kafka 4.0\'s default, our documentation and its type', async (keys) => {
    const { configs } = await describe4(TOPIC, 't', keys);
    const values = Object.fromEntries(configs.map((x) => [x.name, x.value]));
    expect(values).toEqual({ ...KAFKA_TOPIC_DEFAULTS, 'retention.ms': '1000' });
    expect(configs.every((x) => typeof x.documentation === 'string' && x.documentation.length > 10)).toBe(true);
    expect(configs.find((x) => x.name === 'retention.ms')?.configType).toBe(ConfigType.LONG);
    expect(configs.find((x) => x.name === 'cleanup.policy')?.configType).toBe(ConfigType.LIST);
  });

  test('topic synonyms: the override, then the broker synonym at every level; forms without a value are dropped', async () => {
    const { configs } = await describe4(TOPIC, 't', ['retention.ms', 'max.message.bytes', 'segment.ms', 'remote.storage.enable']);
    const by = Object.fromEntries(configs.map((x) => [x.name, x]));
    expect(by['retention.ms']).toMatchObject({
      configSource: DYNAMIC_TOPIC_CONFIG, synonyms: [{ name: 'retention.ms', value: '1000', source: DYNAMIC_TOPIC_CONFIG }] });
    expect(by['max.message.bytes'])
      .toMatchObject({ configSource: DEFAULT_CONFIG, synonyms: [{ name: 'message.max.bytes', value: '1048588', source: DEFAULT_CONFIG }] });
    // log.roll.ms has no default: its synonyms start at log.roll.hours and are dropped (ConfigHelper.configSynonyms).
    expect(by['segment.ms']).toMatchObject({ value: '604800000', configSource: DEFAULT_CONFIG, synonyms: [] });
    expect(by['remote.storage.enable']).toMatchObject({ configSource: DEFAULT_CONFIG, synonyms: [] });
  });

  test('a broker by id answers every broker config: Kafka\'s defaults, the mock\'s static ones, read-only flags', async () => {
    const { configs } = await describe4(BROKER, '1', []);
    const by = Object.fromEntries(configs.map((x) => [x.name, x]));
    for (const [name, value] of Object.entries(KAFKA_BROKER_DEFAULTS)) {
      expect([name, by[name]?.value]).toEqual([name, value]);
      expect([name, by[name]?.configSource]).toEqual([name, DEFAULT_CONFIG]);
    }
    expect(by['node.id']).toMatchObject({ value: '1', configSource: STATIC_BROKER_CONFIG, readOnly: true });
    expect(by['group.initial.rebalance.delay.ms']).toMatchObject({ value: '0', configSource: STATIC_BROKER_CONFIG });
    expect(by['listeners'].value).toBe(`PLAINTEXT://${cluster.bootstrap[0]}`);
    expect(by['num.partitions'].readOnly).toBe(true);
    expect(by['message.max.bytes'].readOnly).toBe(false);
    expect(by['log.retention.hours'].synonyms).toEqual([{ name: 'log.retention.hours', value: '168', source: DEFAULT_CONFIG }]);
    expect(by['sasl.jaas.config'].value).toBeNull();
  });

  test('the cluster default "" answers only dynamic defaults; another broker\'s id is INVALID_REQUEST', async () => {
    expect((await describe4(BROKER, '', null)).configs).toEqual([]);
    expect(await describe4(BROKER, '2', null)).toMatchObject({
      errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Unexpected broker id, expected 1 or empty string, but received 2',
    });
    expect(await describe4(TOPIC, 'no-such', null)).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null });
  });
});

describe('dynamic broker configs (AlterConfigs, IncrementalAlterConfigs on BROKER)', () => {
  let cluster: MockCluster;
  let b1: RawClient;
  let b2: RawClient;
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 2 });
    b1 = await RawClient.connect(cluster.bootstrap[0]);
    b2 = await RawClient.connect(cluster.bootstrap[1]);
  });
  afterAll(async () => {
    b1?.close();
    b2?.close();
    await cluster?.stop();
  });

  const describe = async (c: RawClient, resourceType: number, resourceName: string, keys: string[]) =>
    (await c.request(DescribeConfigs, 4,
      { resources: [{ resourceType, resourceName, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false }))
      .results[0].configs as Config[];
  const incremental = async (c: RawClient, resourceName: string,
    configs: { name: string; configOperation: number; value: string | null }[]) =>
    (await c.request(IncrementalAlterConfigs, 1, { resources: [{ resourceType: BROKER, resourceName, configs }], validateOnly: false }))
      .responses[0];

  test('cluster-wide message.max.bytes: DYNAMIC_DEFAULT_BROKER_CONFIG, topic default follows, produce obeys it', async () => {
    expect(await incremental(b1, '', [{ name: 'message.max.bytes', configOperation: 0, value: '2000' }]))
      .toEqual({ errorCode: 0, errorMessage: null, resourceType: BROKER, resourceName: '' });
    expect(await describe(b2, BROKER, '', [])).toEqual([expect.objectContaining({
      name: 'message.max.bytes', value: '2000', configSource: DYNAMIC_DEFAULT_BROKER_CONFIG,
      synonyms: [{ name: 'message.max.bytes', value: '2000', source: DYNAMIC_DEFAULT_BROKER_CONFIG }],
    })]);
    expect(await describe(b2, BROKER, '2', ['message.max.bytes'])).toEqual([expect.objectContaining({
      value: '2000', configSource: DYNAMIC_DEFAULT_BROKER_CONFIG,
      synonyms: [{ name: 'message.max.bytes', value: '2000', source: DYNAMIC_DEFAULT_BROKER_CONFIG },
        { name: 'message.max.bytes', value: '1048588', source: DEFAULT_CONFIG }],
    })]);
    cluster.createTopic('big', 1, 1);
    expect(await describe(b1, TOPIC, 'big', ['max.message.bytes']))
      .toEqual([expect.objectContaining({ value: '2000', configSource: DYNAMIC_DEFAULT_BROKER_CONFIG })]);
    const leader = cluster.partitions('big')[0].leader;
    const c = leader === 1 ? b1 : b2;
    const produce = await c.request(Produce, 9, {
      transactionalId: null, acks: 1, timeoutMs: 1000,
      topicData: [{ name: 'big', partitionData: [{ index: 0, records: encodeBatch({ records: [{ value: Buffer.alloc(3000) }] }) }] }],
    });
    expect(produce.responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(cluster.events.entries({ type: 'broker-configs-changed' }).at(-1)?.data)
      .toEqual({ broker: null, configs: { 'message.max.bytes': '2000' } });
  });

  test('per broker: only on that broker, above the cluster default; DELETE goes back; log.retention.ms applies to its partitions',
    async () => {
    expect(await incremental(b1, '1', [{ name: 'log.retention.ms', configOperation: 0, value: '60000' }])).toMatchObject({ errorCode: 0 });
    expect(await describe(b1, BROKER, '1', ['log.retention.ms', 'log.retention.hours'])).toEqual([
      expect.objectContaining({ name: 'log.retention.hours', value: '168', configSource: DEFAULT_CONFIG }),
      expect.objectContaining({
        name: 'log.retention.ms', value: '60000', configSource: DYNAMIC_BROKER_CONFIG,
        synonyms: [{ name: 'log.retention.ms', value: '60000', source: DYNAMIC_BROKER_CONFIG },
          { name: 'log.retention.hours', value: '168', source: DEFAULT_CONFIG }],
      }),
    ]);
    expect((await describe(b2, BROKER, '2', ['log.retention.ms']))[0]).toMatchObject({ value: null, configSource: DEFAULT_CONFIG });
    cluster.createTopic('r', 2, 1);
    const on1 = cluster.partitions('r').find((p) => p.leader === 1)!;
    const t = cluster.inspect.topic('r')!;
    expect(cluster.inspect.topicConfig('r', 'retention.ms')).toBe('604800000');
    expect(on1.partition).toBeDefined();
    expect((await describe(b1, TOPIC, t.name, ['retention.ms']))[0]).toMatchObject({ value: '60000', configSource: DYNAMIC_BROKER_CONFIG });
    expect((await describe(b2, TOPIC, t.name, ['retention.ms']))[0]).toMatchObject({ value: '604800000', configSource: DEFAULT_CONFIG });
    expect(await incremental(b1, '1', [{ name: 'log.retention.ms', configOperation: 1, value: null }])).toMatchObject({ errorCode: 0 });
    expect((await describe(b1, BROKER, '1', ['log.retention.ms']))[0]).toMatchObject({ value: null, configSource: DEFAULT_CONFIG });
  });

  test('refusals with Kafka\'s messages: read-only, per-broker-only at the default, another broker, bad values, duplicates, nulls',
    async () => {
    expect(await incremental(b1, '1', [{ name: 'num.partitions', configOperation: 0, value: '3' }]))
      .toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'Cannot update these configs dynamically: Set(num.partitions)' });
    expect(await incremental(b1, '', [{ name: 'listeners', configOperation: 0, value: 'PLAINTEXT://:1' }])).toMatchObject({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)',
    });
    expect(await incremental(b1, '2', [{ name: 'message.max.bytes', configOperation: 0, value: '1' }]))
      .toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Unexpected broker id, expected 1, but received 2' });
    expect(await incremental(b1, '', [{ name: 'message.max.bytes', configOperation: 0, value: 'abc' }])).toMatchObject({
      errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Invalid value abc for configuration message.max.bytes: Not a number of type INT',
    });
    expect(await incremental(b1, '', [{ name: 'log.cleanup.policy', configOperation: 0, value: null }]))
      .toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Null value not supported for : log.cleanup.policy' });
    const twice = await b1.request(AlterConfigs, 2, {
      resources: [{ resourceType: BROKER, resourceName: '', configs: [] }, { resourceType: BROKER, resourceName: '', configs: [] }],
      validateOnly: false,
    });
    expect(twice.responses.map((r: { errorMessage: string }) => r.errorMessage))
      .toEqual(['Each resource must appear at most once.', 'Each resource must appear at most once.']);
    cluster.createTopic('n', 1, 1);
    const nulls = await b1.request(AlterConfigs, 2, {
      resources: [{ resourceType: TOPIC, resourceName: 'n', configs: [{ name: 'retention.ms', value: null }] }], validateOnly: false,
    });
    expect(nulls.responses[0])
      .toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Null value not supported for : retention.ms' });
  });

  test('validateOnly changes nothing; legacy AlterConfigs replaces the whole dynamic set of the resource', async () => {
    await b1.request(AlterConfigs, 2, {
      resources: [{ resourceType: BROKER, resourceName: '', configs: [{ name: 'log.retention.bytes', value: '1000' }] }],
      validateOnly: true,
    });
    expect((await describe(b1, BROKER, '', [])).map((x) => x.name)).toEqual(['message.max.bytes']);
    await b1.request(AlterConfigs, 2, {
      resources: [{ resourceType: BROKER, resourceName: '', configs: [{ name: 'log.retention.bytes', value: '1000' }] }],
      validateOnly: false,
    });
    expect((await describe(b1, BROKER, '', [])).map((x) => [x.name, x.value])).toEqual([['log.retention.bytes', '1000']]);
  });
});

describe('static broker configs (brokerConfigs, kafka-eos broker --config)', () => {
  test('are STATIC_BROKER_CONFIG and the mock acts on them', async () => {
    const cluster = await MockCluster.start({
      brokers: 1, brokerConfigs: { 'log.retention.ms': '5000', 'group.consumer.heartbeat.interval.ms': '250', 'num.partitions': '3' },
    });
    try {
      const c = await RawClient.connect(cluster.bootstrap[0]);
      const res = await c.request(DescribeConfigs, 4, {
        resources:
          [{ resourceType: BROKER, resourceName: '1', configurationKeys: ['log.retention.ms', 'group.consumer.heartbeat.interval.ms'] }],
        includeSynonyms: false, includeDocumentation: false,
      });
      expect(res.results[0].configs.map((x: Config) => [x.name, x.value, x.configSource])).toEqual([
        ['group.consumer.heartbeat.interval.ms', '250', STATIC_BROKER_CONFIG], ['log.retention.ms', '5000', STATIC_BROKER_CONFIG],
      ]);
      c.close();
      expect(cluster.createTopic('three', -1).partitions).toHaveLength(3);
      expect(cluster.inspect.topicConfig('three', 'retention.ms')).toBe('5000');
      expect(cluster.groups.config.consumerHeartbeatIntervalMs).toBe(250);
    } finally {
      await cluster.stop();
    }
  });

  test.each([
    [{ 'log.retention.msec': '1' }, /Unknown broker config name: log.retention.msec/],
    [{ 'num.io.threads': '4' }, /num.io.threads is a Kafka broker config the mock cluster does not act on/],
    [{ 'num.partitions': '0' }, /Invalid value 0 for configuration num.partitions: Value must be at least 1/],
  ])('%j is refused', async (brokerConfigs, message) => {
    await expect(MockCluster.start({ brokers: 1, brokerConfigs })).rejects.toThrow(message);
  });

  test('a typed option and its brokerConfigs entry must agree', async () => {
    await expect(MockCluster.start({ brokers: 1, retentionMs: 1000, brokerConfigs: { 'log.retention.ms': '2000' } }))
      .rejects.toThrow(/log.retention.ms is given twice: 2000 \(brokerConfigs\) and 1000 \(option\)/);
  });
});
