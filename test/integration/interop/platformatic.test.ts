/**
 * @platformatic/kafka 2.12.1 (pure JavaScript, its own protocol implementation) against the mock cluster, classic
 * group protocol: admin topic creation, 10k records produced and consumed, a group of 3 (child processes,
 * test/fixtures/platformatic-group-worker.js), transactions read with read_committed, and every admin call the
 * client offers that the mock serves. The client runs in a worker process (test/fixtures/platformatic-rpc-worker.js):
 * it is an ES module, which jest's CommonJS sandbox cannot require.
 *
 * The client needs Node 22+ for `Promise.withResolvers`; on Node 20 both fixtures first load the few lines of
 * test/fixtures/platformatic-node20-polyfill.js. Skipped (reported as skipped) without the interop clients
 * (KAFKA_EOS_INTEROP_CLIENTS); with CI set, missing clients fail the run.
 */
import { MockCluster, startCluster } from '../../../src/testing/mock-broker';
import { describeWithInteropClients, interopClientsDir } from './clients';
import { describeGroupScenario } from './group-scenario';
import { ALL_TXN_VALUES, COMMITTED_TXN_VALUES, expectEveryRecordOnceInOrder, makeRecords } from './records';
import { RpcWorker } from './rpc';

jest.setTimeout(180000);

/* eslint-disable @typescript-eslint/no-explicit-any -- results are the client's own shapes */
type Plt = any;

describeWithInteropClients('@platformatic/kafka against the mock', () => {
  let cluster: MockCluster;
  let worker: RpcWorker;
  /** The client's enumerations (ConfigResourceTypes, AclOperations, ...), as the worker exported them. */
  let plt: Plt;
  const admin = (method: string, arg?: unknown) => worker.call('admin', { method, arg });

  beforeAll(async () => {
    cluster = await startCluster();
    worker = new RpcWorker('platformatic-rpc-worker.js', interopClientsDir()!);
    plt = await worker.call('connect', { bootstrap: cluster.bootstrap });
  });
  afterAll(async () => {
    await worker?.close();
    await cluster?.stop();
  });

  test('creates a topic, produces 10k records and consumes each exactly once, in order per partition', async () => {
    const created = await admin('createTopics', { topics: ['plt-10k'], partitions: 4, replicas: 1 });
    expect(created).toEqual([expect.objectContaining({ name: 'plt-10k', partitions: 4, replicas: 1 })]);
    expect(cluster.inspect.partitions('plt-10k')).toHaveLength(4);
    const records = makeRecords(10000, 4);
    await worker.call('produce', { topic: 'plt-10k', records });
    expect(cluster.inspect.partitions('plt-10k').reduce((n, pv) => n + pv.highWatermark, 0)).toBe(10000);
    const got = await worker.call('consume', { topic: 'plt-10k', groupId: 'plt-10k-reader', count: 10000 });
    expectEveryRecordOnceInOrder(got, records);
  });

  test('a committed and an aborted transaction: read_committed sees only the committed records', async () => {
    cluster.createTopic('plt-txn', 2);
    await worker.call('transactions', { topic: 'plt-txn', transactionalId: 'plt-txn-1', partitions: [0, 1] });
    // The mock's view: both partitions end past three markers, nothing left open.
    for (const pv of cluster.inspect.partitions('plt-txn')) expect(pv.lastStableOffset).toBe(pv.highWatermark);
    const read = (groupId: string, count: number, isolationLevel: number): Promise<{ value: string }[]> =>
      worker.call('consume', { topic: 'plt-txn', groupId, count, isolationLevel });
    const got = await read('plt-txn-reader', 4, 1);
    expect(got.map((r) => r.value).sort()).toEqual(COMMITTED_TXN_VALUES);
    // read_uncommitted sees the aborted records too (the control records are never delivered).
    const dirty = await read('plt-txn-dirty', 6, 0);
    expect(dirty.map((r) => r.value).sort()).toEqual(ALL_TXN_VALUES);
  });

  describe('admin calls return what the mock holds', () => {
    beforeAll(async () => {
      cluster.createTopic('plt-admin', 3, 1, { 'retention.ms': '3600000' });
      cluster.append('plt-admin', 0, Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })));
    });

    test('listTopics and metadata', async () => {
      expect(await admin('listTopics')).toEqual(expect.arrayContaining(['plt-admin']));
      const md = await admin('metadata', { topics: ['plt-admin'] });
      expect(md.brokers.size).toBe(3);
      expect(md.topics.get('plt-admin').partitionsCount).toBe(3);
      // The client prints the UUID with dashes; the mock's inspection gives the 32 hex digits.
      expect(md.topics.get('plt-admin').id.replace(/-/g, '')).toBe(cluster.inspect.topics().find((t) => t.name === 'plt-admin')!.topicId);
    });

    test('createPartitions and deleteTopics', async () => {
      await admin('createTopics', { topics: ['plt-grow'], partitions: 1, replicas: 1 });
      await admin('createPartitions', { topics: [{ name: 'plt-grow', count: 3 }] });
      expect(cluster.inspect.partitions('plt-grow')).toHaveLength(3);
      await admin('deleteTopics', { topics: ['plt-grow'] });
      expect(cluster.inspect.topics().map((t) => t.name)).not.toContain('plt-grow');
    });

    test('describeConfigs, alterConfigs and incrementalAlterConfigs', async () => {
      const TOPIC = plt.ConfigResourceTypes.TOPIC;
      const read = async () => {
        const configurationKeys = ['retention.ms', 'cleanup.policy'];
        const [d] = await admin('describeConfigs', { resources: [{ resourceType: TOPIC, resourceName: 'plt-admin', configurationKeys }] });
        return Object.fromEntries(d.configs.map((c: Plt) => [c.name, c.value]));
      };
      expect(await read()).toEqual({ 'retention.ms': '3600000', 'cleanup.policy': 'delete' });
      const configs = [{ name: 'retention.ms', value: '7200000' }];
      await admin('alterConfigs', { resources: [{ resourceType: TOPIC, resourceName: 'plt-admin', configs }] });
      expect(cluster.inspect.topics().find((t) => t.name === 'plt-admin')!.configs['retention.ms']).toBe('7200000');
      await admin('incrementalAlterConfigs', {
        resources: [{
          resourceType: TOPIC, resourceName: 'plt-admin', configs: [{ name: 'max.message.bytes', configOperation: 0, value: '65536' }],
        }],
      });
      const stored = cluster.inspect.topics().find((t) => t.name === 'plt-admin')!.configs;
      expect(stored['max.message.bytes']).toBe('65536');
      expect(stored['retention.ms']).toBe('7200000');
      expect(await read()).toEqual({ 'retention.ms': '7200000', 'cleanup.policy': 'delete' });
    });

    test('describeLogDirs', async () => {
      const dirs = await admin('describeLogDirs', { topics: [{ name: 'plt-admin', partitions: [0, 1, 2] }] });
      const topics = dirs.flatMap((d: Plt) => d.results.flatMap((r: Plt) => r.topics));
      const held = topics.flatMap((t: Plt) => t.partitions.map((p: Plt) => [t.name, p.partitionIndex, Number(p.partitionSize)]));
      const views = cluster.inspect.partitions('plt-admin');
      expect(held.sort()).toEqual(views.map((v) => ['plt-admin', v.partition, v.sizeBytes]).sort());
    });

    test('createAcls, describeAcls and deleteAcls', async () => {
      const acl = {
        resourceType: plt.ResourceTypes.TOPIC, resourceName: 'plt-admin', resourcePatternType: plt.ResourcePatternTypes.LITERAL,
        principal: 'User:alice', host: '*', operation: plt.AclOperations.READ, permissionType: plt.AclPermissionTypes.ALLOW,
      };
      await admin('createAcls', { creations: [acl] });
      const filter = { ...acl, resourceName: null, principal: null, host: null, resourcePatternType: plt.ResourcePatternTypes.ANY };
      const described = await admin('describeAcls', { filter });
      expect(described).toEqual([expect.objectContaining({
        resourceType: acl.resourceType, resourceName: 'plt-admin', resourcePatternType: acl.resourcePatternType,
        acls: [expect.objectContaining({
          principal: 'User:alice', host: '*', operation: acl.operation, permissionType: acl.permissionType,
        })],
      })]);
      const deleted = await admin('deleteAcls', { filters: [filter] });
      expect(deleted).toHaveLength(1);
      expect(await admin('describeAcls', { filter })).toEqual([]);
    });

    test('alterClientQuotas stores quotas that describeClientQuotas answers (and inspect.clientQuotas shows)', async () => {
      const { EXACT, DEFAULT, ANY } = plt.ClientQuotaMatchTypes;
      const setOp = (key: string, value: number) => ({ key, value, remove: false });
      const aliceApp = [{ entityType: 'user', entityName: 'alice' }, { entityType: 'client-id', entityName: 'plt-app' }];
      const defaultClient = [{ entityType: 'client-id', entityName: null }];
      expect(await admin('describeClientQuotas', { components: [{ entityType: 'client-id', matchType: ANY }] })).toEqual([]);
      const altered = await admin('alterClientQuotas', {
        entries: [
          { entities: aliceApp, ops: [setOp('producer_byte_rate', 1048576), setOp('request_percentage', 12.5)] },
          { entities: defaultClient, ops: [setOp('consumer_byte_rate', 2048)] },
        ],
      });
      expect(altered.map((e: Plt) => e.errorCode)).toEqual([0, 0]);
      // Kafka's order (its HashMaps, as OpenJDK 17 iterates them): entities, parts and values (client-quotas.ts).
      const aliceAppKafka = [{ entityType: 'client-id', entityName: 'plt-app' }, { entityType: 'user', entityName: 'alice' }];
      const aliceValues = [{ key: 'request_percentage', value: 12.5 }, { key: 'producer_byte_rate', value: 1048576 }];
      expect(altered.map((e: Plt) => e.entity)).toEqual([aliceAppKafka, defaultClient]);
      expect(cluster.inspect.clientQuotas()).toEqual([
        { entity: defaultClient, values: [{ key: 'consumer_byte_rate', value: 2048 }] },
        { entity: aliceAppKafka, values: aliceValues },
      ]);
      const byUser = await admin('describeClientQuotas', { components: [{ entityType: 'user', matchType: EXACT, match: 'alice' }] });
      expect(byUser).toEqual([{ entity: aliceAppKafka, values: aliceValues }]);
      const defaultOnly = { components: [{ entityType: 'client-id', matchType: DEFAULT }], strict: true };
      const byDefault = await admin('describeClientQuotas', defaultOnly);
      expect(byDefault).toEqual([expect.objectContaining({ values: [{ key: 'consumer_byte_rate', value: 2048 }] })]);
      // Kafka refuses an ip entity combined with a user: the client reports the entry's INVALID_REQUEST.
      await expect(admin('alterClientQuotas', {
        entries: [{
          entities: [{ entityType: 'ip', entityName: '10.0.0.1' }, { entityType: 'user', entityName: 'alice' }],
          ops: [setOp('connection_creation_rate', 5)],
        }],
      })).rejects.toThrow(/failed/);
      await admin('alterClientQuotas', { entries: [{ entities: defaultClient, ops: [{ key: 'consumer_byte_rate', remove: true }] }] });
      expect(await admin('describeClientQuotas', defaultOnly)).toEqual([]);
      expect(cluster.inspect.clientQuotas().map((e) => e.entity)).toEqual([aliceAppKafka]);
    });

    test('listGroups, describeGroups, listConsumerGroupOffsets, alter/delete offsets and deleteGroups', async () => {
      cluster.createTopic('plt-admin-grp', 2);
      cluster.append('plt-admin-grp', 0, [{ value: 'a' }, { value: 'b' }]);
      cluster.append('plt-admin-grp', 1, [{ value: 'c' }]);
      await worker.call('holdGroup', {
        topic: 'plt-admin-grp', groupId: 'plt-admin-group', count: 3,
        offsets: [{ topic: 'plt-admin-grp', partition: 0, offset: 2 }, { topic: 'plt-admin-grp', partition: 1, offset: 1 }],
      });
      const groups = await admin('listGroups');
      const listed = groups.get('plt-admin-group');
      expect(listed).toEqual(expect.objectContaining({ id: 'plt-admin-group', protocolType: 'consumer', state: 'Stable' }));
      const described = (await admin('describeGroups', { groups: ['plt-admin-group'] })).get('plt-admin-group');
      const mock = cluster.inspect.group('plt-admin-group')!;
      expect(described.protocol).toBe(mock.protocolName);
      expect([...described.members.keys()]).toEqual(mock.members.map((m) => m.memberId));
      const offsets = await admin('listConsumerGroupOffsets', { groups: ['plt-admin-group'] });
      const committed = offsets[0].topics
        .flatMap((t: Plt) => t.partitions.map((p: Plt) => [t.name, p.partitionIndex, Number(p.committedOffset)]));
      expect(committed.sort()).toEqual([['plt-admin-grp', 0, 2], ['plt-admin-grp', 1, 1]]);
      await worker.call('releaseGroups');
      const partitionOffsets = [{ partition: 0, offset: 1n }];
      await admin('alterConsumerGroupOffsets', { groupId: 'plt-admin-group', topics: [{ name: 'plt-admin-grp', partitionOffsets }] });
      expect(cluster.inspect.committedOffset('plt-admin-group', 'plt-admin-grp', 0)).toBe(1);
      await admin('deleteConsumerGroupOffsets', { groupId: 'plt-admin-group', topics: [{ name: 'plt-admin-grp', partitionIndexes: [1] }] });
      expect(cluster.inspect.committedOffset('plt-admin-group', 'plt-admin-grp', 1)).toBeUndefined();
      await admin('deleteGroups', { groups: ['plt-admin-group'] });
      expect(cluster.inspect.group('plt-admin-group')).toBeUndefined();
    });

    test('findCoordinator answers the broker coordinating the group', async () => {
      cluster.moveCoordinator('plt-coord-group', 2);
      const [found] = await admin('findCoordinator', { keyType: 0, keys: ['plt-coord-group'] });
      expect(found).toEqual(expect.objectContaining({ key: 'plt-coord-group', nodeId: 2 }));
      expect(`${found.host}:${found.port}`).toBe(cluster.bootstrap[1]);
    });

    test('listOffsets and deleteRecords', async () => {
      const latest = await admin('listOffsets', { topics: [{ name: 'plt-admin', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
      expect(Number(latest[0].partitions[0].offset)).toBe(10);
      const deleted = await admin('deleteRecords', { topics: [{ name: 'plt-admin', partitions: [{ partition: 0, offset: 4n }] }] });
      expect(Number(deleted[0].partitions[0].lowWatermark)).toBe(4);
      expect(cluster.inspect.partitions('plt-admin')[0].logStartOffset).toBe(4);
      const earliest = await admin('listOffsets', { topics: [{ name: 'plt-admin', partitions: [{ partitionIndex: 0, timestamp: -2n }] }] });
      expect(Number(earliest[0].partitions[0].offset)).toBe(4);
    });
  });

  describeGroupScenario({
    client: 'platformatic', protocol: 'classic', worker: 'platformatic-group-worker.js', cluster: () => cluster,
    clientsDir: () => interopClientsDir()!,
  });
});
