/**
 * @confluentinc/kafka-javascript 1.10.1 (librdkafka 2.15.1, built from source) against the mock cluster, classic
 * group protocol, through both of its APIs: the KafkaJS-compatible one (`require(...).KafkaJS`) and the native
 * node-rdkafka-style one. For each: admin topic creation, 10k records produced and consumed, transactions read
 * with read_committed, the admin calls the API offers, and a group of 3 (child processes,
 * test/fixtures/confluent-{kafkajs,native}-group-worker.js). The clients run in a worker process
 * (test/fixtures/confluent-rpc-worker.js), which also keeps librdkafka's threads out of jest.
 *
 * Skipped (reported as skipped) without the interop clients (KAFKA_EOS_INTEROP_CLIENTS); with CI set, missing
 * clients fail the run.
 */
import { MockCluster, startCluster, waitForCommittedOffsets } from '../../../src/testing/mock-broker';
import { describeWithInteropClients, interopClientsDir } from './clients';
import { describeGroupScenario } from './group-scenario';
import { ALL_TXN_VALUES, COMMITTED_TXN_VALUES, expectEveryRecordOnceInOrder, makeRecords } from './records';
import { RpcWorker } from './rpc';

jest.setTimeout(180000);

/* eslint-disable @typescript-eslint/no-explicit-any -- results are the client's own shapes */
type Any = any;

describeWithInteropClients('@confluentinc/kafka-javascript against the mock', () => {
  let cluster: MockCluster;
  let worker: RpcWorker;
  const kjs = (method: string, ...args: unknown[]) => worker.call('kjsAdmin', { method, args });
  /** A native admin call; pass the options argument explicitly (describeTopics, listOffsets, deleteRecords and
   * listConsumerGroupOffsets take a callback only in third place). */
  const native = (method: string, ...args: unknown[]) => worker.call('nativeAdmin', { method, args });

  beforeAll(async () => {
    cluster = await startCluster();
    worker = new RpcWorker('confluent-rpc-worker.js', interopClientsDir()!);
    const info = await worker.call('connect', { bootstrap: cluster.bootstrap });
    expect(info.librdkafkaVersion).toBe('2.15.1');
  });
  afterAll(async () => {
    await worker?.close();
    await cluster?.stop();
  });

  describe.each([['kjs', 'KafkaJS-compatible API'], ['native', 'native API']] as const)('%s (%s)', (api, _title) => {
    test('creates a topic, produces 10k records and consumes each exactly once, in order per partition', async () => {
      const topic = `ck-${api}-10k`;
      if (api === 'kjs') {
        expect(await kjs('createTopics', { topics: [{ topic, numPartitions: 4, replicationFactor: 1 }] })).toBe(true);
      } else {
        await native('createTopic', { topic, num_partitions: 4, replication_factor: 1 });
      }
      expect(cluster.inspect.partitions(topic)).toHaveLength(4);
      const records = makeRecords(10000, 4);
      await worker.call(`${api}Produce`, { topic, records });
      expect(cluster.inspect.partitions(topic).reduce((n, pv) => n + pv.highWatermark, 0)).toBe(10000);
      const got = await worker.call(`${api}Consume`, { topic, groupId: `ck-${api}-10k-reader`, count: 10000 });
      expectEveryRecordOnceInOrder(got, records);
    });

    test('a committed and an aborted transaction: read_committed sees only the committed records', async () => {
      const topic = `ck-${api}-txn`;
      cluster.createTopic(topic, 2);
      await worker.call(`${api}Transactions`, { topic, transactionalId: `ck-${api}-txn-1`, partitions: [0, 1] });
      for (const pv of cluster.inspect.partitions(topic)) expect(pv.lastStableOffset).toBe(pv.highWatermark);
      const got: { value: string }[] = await worker.call(`${api}Consume`, { topic, groupId: `ck-${api}-txn-reader`, count: 4 });
      expect(got.map((r) => r.value).sort()).toEqual(COMMITTED_TXN_VALUES);
      const dirty: { value: string }[] = await worker.call(`${api}Consume`, {
        topic, groupId: `ck-${api}-txn-dirty`, count: 6, isolationLevel: 'read_uncommitted',
      });
      expect(dirty.map((r) => r.value).sort()).toEqual(ALL_TXN_VALUES);
    });
  });

  /** A group `groupId` holding committed offsets 2 and 1 on `topic`'s two partitions, with one member connected. */
  const holdGroup = async (api: 'kjs' | 'native', topic: string, groupId: string) => {
    cluster.createTopic(topic, 2);
    cluster.append(topic, 0, [{ value: 'a' }, { value: 'b' }]);
    cluster.append(topic, 1, [{ value: 'c' }]);
    const offsets = [{ topic, partition: 0, offset: 2 }, { topic, partition: 1, offset: 1 }];
    await worker.call(`${api}HoldGroup`, { topic, groupId, count: 3, offsets });
    await waitForCommittedOffsets(cluster, groupId, { [topic]: { 0: 2, 1: 1 } }, { timeoutMs: 20000 });
  };
  /**
   * listGroups, describeGroups (both as the mock holds the group), the API's committed-offsets call (`offsets`,
   * answering [topic, partition, offset] triples) and deleteGroups, on a group holding offsets 2 and 1.
   */
  type OffsetsCall = (groupId: string, topic: string) => Promise<[string, number, number][]>;
  const expectGroupCalls = async (api: 'kjs' | 'native', offsets: OffsetsCall) => {
    const call = api === 'kjs' ? kjs : native;
    const topic = `ck-${api}-grp`;
    const groupId = `ck-${api}-group`;
    await holdGroup(api, topic, groupId);
    const { groups } = await call('listGroups');
    expect(groups).toEqual(expect.arrayContaining([expect.objectContaining({ groupId, protocolType: 'consumer' })]));
    const described = (await call('describeGroups', [groupId])).groups[0];
    const mock = cluster.inspect.group(groupId)!;
    expect(described.protocol).toBe(mock.protocolName);
    expect(described.members.map((m: Any) => m.memberId)).toEqual(mock.members.map((m) => m.memberId));
    expect((await offsets(groupId, topic)).sort()).toEqual([[topic, 0, 2], [topic, 1, 1]]);
    await worker.call('releaseGroups');
    await call('deleteGroups', [groupId]);
    expect(cluster.inspect.group(groupId)).toBeUndefined();
  };
  const topicWithRecords = (topic: string) => {
    cluster.createTopic(topic, 3);
    cluster.append(topic, 0, Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, timestamp: BigInt(1_700_000_000_000 + i * 1000) })));
  };

  describe('KafkaJS-compatible admin calls return what the mock holds', () => {
    test('listTopics, fetchTopicMetadata and deleteTopics', async () => {
      topicWithRecords('ck-kjs-admin');
      expect(await kjs('listTopics')).toEqual(expect.arrayContaining(['ck-kjs-admin']));
      const [md] = await kjs('fetchTopicMetadata', { topics: ['ck-kjs-admin'] });
      expect(md.name).toBe('ck-kjs-admin');
      const views = cluster.inspect.partitions('ck-kjs-admin');
      expect(md.partitions.map((p: Any) => [p.partitionId, p.leader]).sort()).toEqual(views.map((v) => [v.partition, v.leader]).sort());
      cluster.createTopic('ck-kjs-doomed', 1);
      await kjs('deleteTopics', { topics: ['ck-kjs-doomed'] });
      expect(cluster.inspect.topics().map((t) => t.name)).not.toContain('ck-kjs-doomed');
    });

    test('fetchTopicOffsets, fetchTopicOffsetsByTimestamp and deleteTopicRecords', async () => {
      const offsets = await kjs('fetchTopicOffsets', 'ck-kjs-admin');
      const p0 = offsets.find((o: Any) => o.partition === 0);
      expect([p0.low, p0.high, p0.offset]).toEqual(['0', '10', '10']);
      const byTime = await kjs('fetchTopicOffsetsByTimestamp', 'ck-kjs-admin', 1_700_000_000_000 + 4500);
      expect(byTime.find((o: Any) => o.partition === 0).offset).toBe('5');
      await kjs('deleteTopicRecords', { topic: 'ck-kjs-admin', partitions: [{ partition: 0, offset: '4' }] });
      expect(cluster.inspect.partitions('ck-kjs-admin')[0].logStartOffset).toBe(4);
      const after = await kjs('fetchTopicOffsets', 'ck-kjs-admin');
      expect(after.find((o: Any) => o.partition === 0).low).toBe('4');
    });

    test('listGroups, describeGroups, fetchOffsets and deleteGroups', async () => {
      await expectGroupCalls('kjs', async (groupId, topic) => {
        const [fetched] = await kjs('fetchOffsets', { groupId, topics: [topic] });
        return fetched.partitions.map((p: Any) => [topic, p.partition, Number(p.offset)]);
      });
    });
  });

  describe('native admin calls return what the mock holds', () => {
    test('listTopics, describeTopics, createPartitions and deleteTopic', async () => {
      topicWithRecords('ck-native-admin');
      expect(await native('listTopics')).toEqual(expect.arrayContaining(['ck-native-admin']));
      const [desc] = await native('describeTopics', ['ck-native-admin'], {});
      expect(desc.name).toBe('ck-native-admin');
      expect(desc.partitions.map((p: Any) => [p.partition, p.leader.id]).sort())
        .toEqual(cluster.inspect.partitions('ck-native-admin').map((v) => [v.partition, v.leader]).sort());
      cluster.createTopic('ck-native-grow', 1);
      await native('createPartitions', 'ck-native-grow', 3);
      expect(cluster.inspect.partitions('ck-native-grow')).toHaveLength(3);
      await native('deleteTopic', 'ck-native-grow');
      expect(cluster.inspect.topics().map((t) => t.name)).not.toContain('ck-native-grow');
    });

    test('listOffsets and deleteRecords', async () => {
      // An OffsetSpec is { timestamp }: -1 latest, -2 earliest, else the first offset at or after that time.
      const spec = (offset: { timestamp: number }) => [{ topic: 'ck-native-admin', partition: 0, offset }];
      const [latest] = await native('listOffsets', spec({ timestamp: -1 }), {});
      expect(latest.offset).toBe(10);
      const [byTime] = await native('listOffsets', spec({ timestamp: 1_700_000_000_000 + 4500 }), {});
      expect(byTime.offset).toBe(5);
      const [deleted] = await native('deleteRecords', [{ topic: 'ck-native-admin', partition: 0, offset: 4 }], {});
      expect(deleted.lowWatermark).toBe(4);
      expect(cluster.inspect.partitions('ck-native-admin')[0].logStartOffset).toBe(4);
      const [earliest] = await native('listOffsets', spec({ timestamp: -2 }), {});
      expect(earliest.offset).toBe(4);
    });

    test('listGroups, describeGroups, listConsumerGroupOffsets and deleteGroups', async () => {
      await expectGroupCalls('native', async (groupId) => {
        const [offsets] = await native('listConsumerGroupOffsets', [{ groupId }], {});
        return offsets.partitions.map((p: Any) => [p.topic, p.partition, p.offset]);
      });
    });
  });

  for (const client of ['confluent-kafkajs', 'confluent-native']) {
    describeGroupScenario({
      client, protocol: 'classic', worker: `${client}-group-worker.js`, cluster: () => cluster, clientsDir: () => interopClientsDir()!,
    });
  }
});
