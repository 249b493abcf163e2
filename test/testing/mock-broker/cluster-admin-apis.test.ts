/**
 * The admin APIs added for modern clients: AlterConfigs and IncrementalAlterConfigs (the enforced
 * configs change behaviour at once), CreateAcls / DescribeAcls / DeleteAcls (stored, described,
 * deleted), DescribeCluster, DescribeLogDirs, OffsetForLeaderEpoch (client quotas: client-quotas.test.ts),
 * ListTransactions, DescribeTransactions and DescribeProducers. Through KafkaJS's admin where it
 * offers the call, on the wire otherwise, at every served version.
 */
import {
  AclOperationTypes, AclPermissionTypes, AclResourceTypes, ConfigResourceTypes, Kafka, logLevel, ResourcePatternTypes,
} from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { createRegistry } from '../../../src/testing/mock-broker/handlers';
import { ErrorCode } from '../../../src/protocol/error-codes';
import {
  AlterConfigs, DescribeCluster, DescribeLogDirs, IncrementalAlterConfigs, OffsetForLeaderEpoch,
} from '../../../src/protocol/messages/cluster-admin';
import { ApiVersions, Produce } from '../../../src/protocol/messages/data';
import { DescribeProducers, DescribeTransactions, ListTransactions } from '../../../src/protocol/messages/transactions';
import { encodeBatch } from '../../../src/protocol/record-batch';
import { RawClient } from './raw-client';

let cluster: MockCluster;
let kafka: Kafka;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 2 });
  kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 50 } });
});
afterAll(async () => { await cluster.stop(); });

/** A raw connection to the broker that leads `topic`-0 (or broker 1). */
async function rawTo(nodeId = 1): Promise<RawClient> {
  return RawClient.connect(cluster.bootstrap[nodeId - 1]);
}
const leaderOf = (topic: string) => cluster.partitions(topic)[0].leader;
const produceTo = (c: RawClient, topic: string, records: Buffer) => c.request(Produce, 8, {
  transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
});
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

test('ApiVersions advertises every new API at its served range', async () => {
  const c = await rawTo();
  const res = await c.request(ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  const got =
    new Map(res.apiKeys.map((k: { apiKey: number; minVersion: number; maxVersion: number }) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  expect(Object.fromEntries([23, 29, 30, 31, 33, 35, 44, 48, 49, 60, 61, 65, 66].map((k) => [k, got.get(k)]))).toEqual({
    23: [0, 4], 29: [0, 3], 30: [0, 3], 31: [0, 3], 33: [0, 2], 35: [0, 4], 44: [0, 1], 48: [0, 1], 49: [0, 1], 60: [0, 1], 61: [0, 0],
    65: [0, 0], 66: [0, 1],
  });
  expect(createRegistry().size).toBe(res.apiKeys.length);
  c.close();
});

describe('AlterConfigs / IncrementalAlterConfigs', () => {
  test('KafkaJS alterConfigs sets max.message.bytes and produce obeys it at once; describeConfigs shows it', async () => {
    cluster.createTopic('alter-mmb', 1);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const c = await rawTo(leaderOf('alter-mmb'));
      const batch = encodeBatch({ records: [{ value: 'x'.repeat(3000) }] });
      expect((await produceTo(c, 'alter-mmb', batch)).responses[0].partitionResponses[0].errorCode).toBe(0);
      await admin.alterConfigs({ validateOnly: false, resources:
        [{ type: ConfigResourceTypes.TOPIC, name: 'alter-mmb', configEntries: [{ name: 'max.message.bytes', value: '2000' }] }] });
      expect((await produceTo(c, 'alter-mmb', batch)).responses[0].partitionResponses[0].errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
      const described = await admin.describeConfigs({
        includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'alter-mmb', configNames: ['max.message.bytes'] }] });
      expect(described.resources[0].configEntries[0])
        .toMatchObject({ configName: 'max.message.bytes', configValue: '2000', isDefault: false });
      // AlterConfigs is not incremental: leaving the config out returns it to the default.
      await admin.alterConfigs({ validateOnly: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: 'alter-mmb', configEntries: [{ name: 'retention.ms', value: '-1' }] }] });
      expect(cluster.inspect.topic('alter-mmb')!.configs).toEqual({ 'retention.ms': '-1' });
      expect((await produceTo(c, 'alter-mmb', batch)).responses[0].partitionResponses[0].errorCode).toBe(0);
      c.close();
    } finally {
      await admin.disconnect();
    }
  });

  test('retention.bytes set by AlterConfigs deletes old batches on the next append', async () => {
    cluster.createTopic('alter-retention', 1);
    const c = await rawTo(leaderOf('alter-retention'));
    for (let i = 0; i < 5; i++) await produceTo(c, 'alter-retention', encodeBatch({ records: [{ value: Buffer.alloc(500, i) }] }));
    expect(cluster.partitions('alter-retention')[0].logStartOffset).toBe(0);
    for (const v of range(0, 2)) {
      const res = await c.request(AlterConfigs, v, { resources: [{
        resourceType: 2, resourceName: 'alter-retention', configs: [{ name: 'retention.bytes', value: '1200' }] }], validateOnly: false });
      expect(res.responses).toEqual([{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 'alter-retention' }]);
    }
    await produceTo(c, 'alter-retention', encodeBatch({ records: [{ value: Buffer.alloc(500, 9) }] }));
    const p = cluster.partitions('alter-retention')[0];
    expect(p.logStartOffset).toBeGreaterThanOrEqual(4);
    expect(p.highWatermark).toBe(6);
    c.close();
  });

  test('invalid values, unknown names, brokers, unknown topics and validateOnly', async () => {
    cluster.createTopic('alter-bad', 1, 1, { 'retention.ms': '5000' });
    cluster.createTopic('alter-bad2', 1, 1);
    cluster.createTopic('alter-bad3', 1, 1);
    const c = await rawTo();
    const res = await c.request(AlterConfigs, 2, {
      resources: [
        { resourceType: 2, resourceName: 'alter-bad', configs: [{ name: 'retention.ms', value: 'abc' }] },
        { resourceType: 2, resourceName: 'alter-bad2', configs: [{ name: 'no.such.config', value: '1' }] },
        { resourceType: 2, resourceName: 'missing-topic', configs: [{ name: 'retention.ms', value: '1' }] },
        { resourceType: 4, resourceName: '1', configs: [{ name: 'num.partitions', value: '1' }] },
        { resourceType: 2, resourceName: 'alter-bad3',
          configs: [{ name: 'retention.ms', value: '1' }, { name: 'retention.ms', value: '2' }] },
        { resourceType: 4, resourceName: '2', configs: [{ name: 'log.retention.ms', value: '1' }] },
      ],
      validateOnly: false,
    });
    expect(res.responses.map((r: { errorCode: number; errorMessage: string }) => [r.errorCode, r.errorMessage])).toEqual([
      [ErrorCode.INVALID_CONFIG, 'Invalid value abc for configuration retention.ms: Not a number of type LONG'],
      [ErrorCode.INVALID_CONFIG, 'Unknown topic config name: no.such.config'],
      [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic 'missing-topic' does not exist."],
      [ErrorCode.INVALID_REQUEST, 'Cannot update these configs dynamically: Set(num.partitions)'],
      [ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys'],
      [ErrorCode.INVALID_REQUEST, 'Unexpected broker id, expected 1, but received 2'],
    ]);
    const dry = await c.request(AlterConfigs, 1,
      { resources: [{ resourceType: 2, resourceName: 'alter-bad', configs: [{ name: 'retention.ms', value: '7' }] }], validateOnly: true });
    expect(dry.responses[0].errorCode).toBe(0);
    expect(cluster.inspect.topic('alter-bad')!.configs['retention.ms']).toBe('5000');
    c.close();
  });

  test.each([0, 1])('IncrementalAlterConfigs v%i: SET, DELETE, APPEND and SUBTRACT as Kafka applies them', async (v) => {
    const topic = `incr-${v}`;
    cluster.createTopic(topic, 1, 1, { 'retention.ms': '5000', 'segment.ms': '100000' });
    const c = await rawTo();
    const alter = (configs: object[], validateOnly = false) =>
      c.request(IncrementalAlterConfigs, v, { resources: [{ resourceType: 2, resourceName: topic, configs }], validateOnly });
    let res = await alter([{ name: 'max.message.bytes', configOperation: 0, value: '4096' },
      { name: 'segment.ms', configOperation: 1, value: null }]);
    expect(res.responses[0].errorCode).toBe(0);
    expect(cluster.inspect.topic(topic)!.configs).toEqual({ 'retention.ms': '5000', 'max.message.bytes': '4096' });
    expect(cluster.inspect.topicConfig(topic, 'max.message.bytes')).toBe('4096');
    res = await alter([{ name: 'cleanup.policy', configOperation: 2, value: 'compact' }]);
    expect(res.responses[0].errorCode).toBe(0);
    expect(cluster.inspect.topic(topic)!.configs['cleanup.policy']).toBe('delete,compact'); // appended to the default
    res = await alter([{ name: 'cleanup.policy', configOperation: 3, value: 'delete' }]);
    expect(cluster.inspect.topic(topic)!.configs['cleanup.policy']).toBe('compact');
    res = await alter([{ name: 'retention.ms', configOperation: 2, value: '1' }]);
    expect(res.responses[0]).toMatchObject({
      errorCode: ErrorCode.INVALID_CONFIG, errorMessage: 'Config value append is not allowed for config key: retention.ms' });
    res = await alter([{ name: 'retention.ms', configOperation: 0, value: '-5' }]);
    expect(res.responses[0].errorCode).toBe(ErrorCode.INVALID_CONFIG);
    res = await alter([{ name: 'retention.ms', configOperation: 0, value: '9' }], true);
    expect(res.responses[0].errorCode).toBe(0);
    expect(cluster.inspect.topic(topic)!.configs['retention.ms']).toBe('5000');
    c.close();
  });
});

describe('ACLs', () => {
  test('KafkaJS createAcls, describeAcls (literal, prefixed, match filters) and deleteAcls', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const acl = (resourceName: string, resourcePatternType: ResourcePatternTypes, principal: string, operation: AclOperationTypes) => ({
        resourceType: AclResourceTypes.TOPIC, resourceName, resourcePatternType, principal, host: '*', operation,
        permissionType: AclPermissionTypes.ALLOW,
      });
      await admin.createAcls({ acl: [
        acl('orders', ResourcePatternTypes.LITERAL, 'User:alice', AclOperationTypes.READ),
        acl('orders', ResourcePatternTypes.LITERAL, 'User:bob', AclOperationTypes.WRITE),
        acl('ord', ResourcePatternTypes.PREFIXED, 'User:carol', AclOperationTypes.DESCRIBE),
        acl('payments', ResourcePatternTypes.LITERAL, 'User:alice', AclOperationTypes.READ),
      ] });
      const any =
        { resourceType: AclResourceTypes.TOPIC, host: undefined, operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY };
      const literal = await admin.describeAcls({
        ...any, resourceName: 'orders', resourcePatternType: ResourcePatternTypes.LITERAL, principal: undefined } as never);
      expect(literal.resources).toHaveLength(1);
      expect(literal.resources[0].acls.map((a) => a.principal).sort()).toEqual(['User:alice', 'User:bob']);
      const match = await admin.describeAcls({
        ...any, resourceName: 'orders', resourcePatternType: ResourcePatternTypes.MATCH, principal: undefined } as never);
      expect(match.resources.map((r) => `${r.resourceName}/${r.resourcePatternType}`).sort()).toEqual(['ord/4', 'orders/3']);
      const alice = await admin.describeAcls({
        ...any, resourceName: undefined, resourcePatternType: ResourcePatternTypes.ANY, principal: 'User:alice' } as never);
      expect(alice.resources.map((r) => r.resourceName).sort()).toEqual(['orders', 'payments']);
      const deleted = await admin.deleteAcls({
        filters: [{ ...any, resourceName: undefined, resourcePatternType: ResourcePatternTypes.ANY, principal: 'User:alice' }] as never });
      expect(deleted.filterResponses[0].matchingAcls).toHaveLength(2);
      const left = await admin.describeAcls({
        ...any, resourceName: undefined, resourcePatternType: ResourcePatternTypes.ANY, principal: undefined } as never);
      expect(left.resources.flatMap((r) => r.acls.map((a) => a.principal)).sort()).toEqual(['User:bob', 'User:carol']);
      expect(cluster.inspect.acls().length).toBe(2);
      // Kafka's validation: a principal without a type is refused.
      await expect(admin.createAcls({ acl: [acl('x', ResourcePatternTypes.LITERAL, 'alice', AclOperationTypes.READ)] })).rejects.toThrow();
    } finally {
      await admin.disconnect();
    }
  });
});

describe('cluster, log dirs, leader epochs', () => {
  test.each([0, 1])('DescribeCluster v%i lists the live brokers and the controller', async (v) => {
    const c = await rawTo();
    const res = await c.request(DescribeCluster, v, { includeClusterAuthorizedOperations: true, endpointType: 1 });
    expect(res).toMatchObject({ errorCode: 0, clusterId: cluster.inspect.clusterId(), controllerId: 1 });
    expect(res.brokers.map((b: { brokerId: number; port: number }) => [b.brokerId, b.port]))
      .toEqual(cluster.inspect.brokers().map((b) => [b.nodeId, b.port]));
    expect(res.clusterAuthorizedOperations).toBeGreaterThan(0);
    if (v === 1) expect((await c.request(DescribeCluster, 1, { includeClusterAuthorizedOperations: false, endpointType: 2 })).errorCode)
      .toBe(ErrorCode.UNSUPPORTED_ENDPOINT_TYPE);
    c.close();
  });

  test('DescribeLogDirs at every version reports the partitions a broker holds and their sizes', async () => {
    cluster.createTopic('dirs', 2, 2);
    cluster.append('dirs', 0, [{ value: 'abc' }]);
    const size = cluster.partitions('dirs')[0].sizeBytes;
    expect(size).toBeGreaterThan(0);
    const c = await rawTo(1);
    for (const v of range(0, 4)) {
      const res = await c.request(DescribeLogDirs, v, { topics: [{ topic: 'dirs', partitions: [0, 1, 7] }] });
      expect(res.results).toHaveLength(1);
      expect(res.results[0].logDir).toBe('/mock-kafka/broker-1');
      expect(res.results[0].topics).toEqual([{ name: 'dirs', partitions: [
        { partitionIndex: 0, partitionSize: BigInt(size), offsetLag: 0n, isFutureKey: false },
        { partitionIndex: 1, partitionSize: 0n, offsetLag: 0n, isFutureKey: false },
      ] }]);
    }
    const all = await c.request(DescribeLogDirs, 4, { topics: null });
    expect(all.results[0].topics.map((t: { name: string }) => t.name)).toContain('dirs');
    c.close();
  });

  test('OffsetForLeaderEpoch: end offsets per epoch across a leader move, and fenced / unknown epochs', async () => {
    cluster.createTopic('epochs', 1, 2);
    cluster.append('epochs', 0, [{ value: 'a' }, { value: 'b' }]);
    const first = leaderOf('epochs');
    const other = first === 1 ? 2 : 1;
    expect(cluster.moveLeader('epochs', 0, other)).toBe(1);
    cluster.append('epochs', 0, [{ value: 'c' }]);
    const c = await rawTo(other);
    const ask = (v: number, leaderEpoch: number, currentLeaderEpoch = -1) => c.request(OffsetForLeaderEpoch, v, {
      replicaId: -1, topics: [{ topic: 'epochs', partitions: [{ partition: 0, currentLeaderEpoch, leaderEpoch }] }],
    }).then((r) => r.topics[0].partitions[0]);
    for (const v of range(1, 4)) {
      expect(await ask(v, 0)).toMatchObject({ errorCode: 0, leaderEpoch: 0, endOffset: 2n });
      expect(await ask(v, 1)).toMatchObject({ errorCode: 0, leaderEpoch: 1, endOffset: 3n });
      expect(await ask(v, 5)).toMatchObject({ errorCode: 0, leaderEpoch: -1, endOffset: -1n });
    }
    expect(await ask(0, 0)).toMatchObject({ errorCode: 0, endOffset: 2n });
    expect((await ask(2, 0, 0)).errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
    expect((await ask(2, 0, 9)).errorCode).toBe(ErrorCode.UNKNOWN_LEADER_EPOCH);
    c.close();
    const old = await rawTo(first);
    const res = await old.request(OffsetForLeaderEpoch, 4,
      { replicaId: -1, topics: [{ topic: 'epochs', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] });
    expect(res.topics[0].partitions[0].errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    old.close();
  });
});

describe('transactions and producers', () => {
  test('ListTransactions, DescribeTransactions and DescribeProducers show an open transaction', async () => {
    cluster.createTopic('txn-describe', 1);
    const producer = kafka.producer({ transactionalId: 'describe-me', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const txn = await producer.transaction();
      await txn.send({ topic: 'txn-describe', messages: [{ value: 'a' }, { value: 'b' }] });
      const coordinator = cluster.inspect.coordinator('describe-me');
      const c = await rawTo(coordinator);
      for (const v of [0, 1]) {
        const listed =
          await c.request(ListTransactions, v, { stateFilters: ['Ongoing', 'Bogus'], producerIdFilters: [], durationFilter: -1n });
        expect(listed.unknownStateFilters).toEqual(['Bogus']);
        expect(listed.transactionStates)
          .toEqual([expect.objectContaining({ transactionalId: 'describe-me', transactionState: 'Ongoing' })]);
      }
      const none = await c.request(ListTransactions, 1, { stateFilters: ['CompleteCommit'], producerIdFilters: [], durationFilter: -1n });
      expect(none.transactionStates).toEqual([]);
      // An id this coordinator would own, never used.
      const nobody = Array.from({ length: 100 }, (_, i) => `nobody-${i}`).find((id) => cluster.inspect.coordinator(id) === coordinator)!;
      const described = await c.request(DescribeTransactions, 0, { transactionalIds: ['describe-me', nobody] });
      const [me, unknown] = described.transactionStates;
      expect(me).toMatchObject({ errorCode: 0, transactionState: 'Ongoing', topics: [{ topic: 'txn-describe', partitions: [0] }] });
      expect(me.transactionStartTimeMs).toBeGreaterThan(0n);
      expect(unknown.errorCode).toBe(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
      const leader = await rawTo(leaderOf('txn-describe'));
      const producers = await leader.request(DescribeProducers, 0, { topics: [{ name: 'txn-describe', partitionIndexes: [0, 5] }] });
      const [p0, p5] = producers.topics[0].partitions;
      expect(p0.activeProducers).toEqual([expect.objectContaining({
        producerId: me.producerId, producerEpoch: me.producerEpoch, lastSequence: 1, currentTxnStartOffset: 0n })]);
      expect(p5.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      await txn.commit();
      const after = await leader.request(DescribeProducers, 0, { topics: [{ name: 'txn-describe', partitionIndexes: [0] }] });
      expect(after.topics[0].partitions[0].activeProducers[0].currentTxnStartOffset).toBe(-1n);
      const notMine = await RawClient.connect(cluster.bootstrap[coordinator === 1 ? 1 : 0]);
      expect((await notMine.request(DescribeTransactions, 0, { transactionalIds: ['describe-me'] })).transactionStates[0].errorCode)
        .toBe(ErrorCode.NOT_COORDINATOR);
      for (const x of [c, leader, notMine]) x.close();
    } finally {
      await producer.disconnect();
    }
  });
});
