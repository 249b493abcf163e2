/**
 * The admin APIs (DescribeGroups, ListGroups, CreateTopics with manual replica assignments, DeleteTopics, DeleteRecords,
 * DescribeConfigs, CreatePartitions, AlterPartitionReassignments, ListPartitionReassignments, DeleteGroups,
 * OffsetDelete) through KafkaJS's admin client, and at the versions KafkaJS does not send (flexible ones) through the
 * raw client. Manual assignments and reassignments follow Kafka's ReplicationControlManager.
 */
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import * as admin from '../../../src/protocol/messages/admin';
import { AlterPartitionReassignments, ListPartitionReassignments } from '../../../src/protocol/messages/cluster-admin';
import { Fetch } from '../../../src/protocol/messages/data';
import { OffsetCommit, OffsetFetch } from '../../../src/protocol/messages/group';
import { RawClient } from './raw-client';
import { until } from '../../helpers/until';

jest.setTimeout(60000);

let cluster: MockCluster;
let kafka: Kafka;

beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0 } });
  kafka = new Kafka({ clientId: 'admin-test', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
});
afterAll(async () => { await cluster.stop(); });

async function withAdmin<T>(fn: (a: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> {
  const a = kafka.admin();
  await a.connect();
  try { return await fn(a); } finally { await a.disconnect(); }
}

/** A raw client on the broker with `nodeId` (1-based). */
const rawTo = (nodeId: number) => RawClient.connect(cluster.bootstrap[nodeId - 1]);

async function rawCoordinator(groupId: string): Promise<RawClient> {
  return rawTo(cluster.inspect.coordinator(groupId));
}

describe('groups', () => {
  test('a consumer group is listed, described, refused deletion while active, then deleted', async () => {
    cluster.createTopic('g-topic', 2);
    const consumer = kafka.consumer({ groupId: 'adm-g1', sessionTimeout: 10000 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'g-topic', fromBeginning: true });
    await consumer.run({ eachMessage: async () => undefined });
    await until(() => cluster.groups.group('adm-g1')?.state === 'Stable', 'the condition');

    await withAdmin(async (a) => {
      const { groups } = await a.listGroups();
      expect(groups).toEqual(expect.arrayContaining([{ groupId: 'adm-g1', protocolType: 'consumer' }]));
      expect(groups.filter((g) => g.groupId === 'adm-g1')).toHaveLength(1); // only its coordinator lists it
      const desc = await a.describeGroups(['adm-g1', 'adm-unknown']);
      const g1 = desc.groups.find((g) => g.groupId === 'adm-g1')!;
      expect(g1).toMatchObject({ state: 'Stable', protocolType: 'consumer', protocol: 'RoundRobinAssigner', errorCode: 0 });
      expect(g1.members).toHaveLength(1);
      expect(g1.members[0].clientId).toBe('admin-test');
      expect(g1.members[0].memberAssignment.length).toBeGreaterThan(0);
      expect(desc.groups.find((g) => g.groupId === 'adm-unknown')).toMatchObject({ state: 'Dead', errorCode: 0 });
      await expect(a.deleteGroups(['adm-g1']))
        .rejects.toMatchObject({ groups: [expect.objectContaining({ groupId: 'adm-g1', errorCode: ErrorCode.NON_EMPTY_GROUP })] });
    });
    await consumer.disconnect();
    await until(() => cluster.groups.group('adm-g1')?.state === 'Empty', 'the condition');
    await withAdmin(async (a) => {
      await expect(a.deleteGroups(['adm-g1'])).resolves.toEqual([expect.objectContaining({ groupId: 'adm-g1', errorCode: 0 })]);
      expect((await a.listGroups()).groups.map((g) => g.groupId)).not.toContain('adm-g1');
    });
    expect(cluster.groups.group('adm-g1')).toBeUndefined();
  });

  test('ListGroups v4 filters by state; DescribeGroups v5 (flexible) reports operations', async () => {
    const groupId = 'adm-simple';
    cluster.createTopic('s-topic', 1);
    const c = await rawCoordinator(groupId);
    const commit = await c.request(OffsetCommit, 2, { groupId, generationId: -1, memberId: '',
      topics: [{ name: 's-topic', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedMetadata: null }] }] });
    expect(commit.topics[0].partitions[0].errorCode).toBe(0);
    const empty = await c.request(admin.ListGroups, 4, { statesFilter: ['empty'] });
    // v4 has no groupType: it decodes as the default ''.
    expect(empty.groups).toEqual(expect.arrayContaining([{ groupId, protocolType: '', groupState: 'Empty', groupType: '' }]));
    const stable = await c.request(admin.ListGroups, 4, { statesFilter: ['Stable'] });
    expect(stable.groups.map((g: { groupId: string }) => g.groupId)).not.toContain(groupId);
    const v3 = await c.request(admin.ListGroups, 3, {});
    expect(v3.groups.map((g: { groupId: string }) => g.groupId)).toContain(groupId);
    const d = await c.request(admin.DescribeGroups, 5, { groups: [groupId], includeAuthorizedOperations: true });
    expect(d.groups[0]).toMatchObject({ groupId, errorCode: 0, groupState: 'Empty', authorizedOperations: (1 << 3) | (1 << 6) | (1 << 8) });
    const d0 = await c.request(admin.DescribeGroups, 3, { groups: [groupId], includeAuthorizedOperations: false });
    expect(d0.groups[0].authorizedOperations).toBe(-2147483648);
    // OffsetFetch v6 (flexible) and v7 (requireStable) read the commit back.
    for (const v of [6, 7]) {
      const f = await c.request(OffsetFetch, v, { groupId, topics: [{ name: 's-topic', partitionIndexes: [0] }], requireStable: true });
      expect(f.topics[0].partitions[0]).toMatchObject({ partitionIndex: 0, committedOffset: 5n, errorCode: 0 });
    }
    // OffsetDelete v0 on an Empty group, then DeleteGroups v2 (flexible).
    const od = await c.request(admin.OffsetDelete, 0, { groupId, topics: [{ name: 's-topic', partitions: [{ partitionIndex: 0 }] }] });
    expect(od).toMatchObject({ errorCode: 0, topics: [{ name: 's-topic', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] });
    const after = await c.request(OffsetFetch, 7, { groupId, topics: [{ name: 's-topic', partitionIndexes: [0] }], requireStable: false });
    expect(after.topics[0].partitions[0].committedOffset).toBe(-1n);
    const del = await c.request(admin.DeleteGroups, 2, { groupsNames: [groupId, 'adm-never'] });
    const byId = Object.fromEntries(del.results.map((r: { groupId: string; errorCode: number }) => [r.groupId, r.errorCode]));
    expect(byId[groupId]).toBe(0);
    expect([ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.NOT_COORDINATOR]).toContain(byId['adm-never']);
    c.close();
  });

  test('group requests to a broker that is not the coordinator answer NOT_COORDINATOR', async () => {
    const groupId = 'adm-elsewhere';
    const other = cluster.inspect.brokers().find((b) => b.nodeId !== cluster.inspect.coordinator(groupId))!;
    const c = await rawTo(other.nodeId);
    expect((await c.request(admin.DescribeGroups, 2, { groups: [groupId] })).groups[0].errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect((await c.request(admin.DeleteGroups, 1, { groupsNames: [groupId] })).results[0].errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect((await c.request(admin.OffsetDelete, 0, { groupId, topics: [] })).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    c.close();
  });
});

describe('topics', () => {
  test('CreateTopics with a manual replica assignment: replicas and leaders as given; Kafka\'s refusals', async () => {
    await withAdmin(async (a) => {
      await a.createTopics({
        topics: [{ topic: 'manual', replicaAssignment: [{ partition: 0, replicas: [3, 1] }, { partition: 1, replicas: [2, 3] }] }] });
    });
    expect(cluster.partitions('manual').map((p) => [p.partition, p.leader, p.replicas])).toEqual([[0, 3, [3, 1]], [1, 2, [2, 3]]]);
    const c = await rawTo(2);
    const create = (name: string, assignments: { partitionIndex: number; brokerIds: number[] }[], numPartitions = -1,
      replicationFactor = -1) =>
      c.request(admin.CreateTopics, 7,
        { topics: [{ name, numPartitions, replicationFactor, assignments, configs: [] }], timeoutMs: 1000, validateOnly: false })
        .then((r) => [r.topics[0].errorCode, r.topics[0].errorMessage]);
    const p = (partitionIndex: number, brokerIds: number[]) => ({ partitionIndex, brokerIds });
    expect(await create('m1', [p(0, [1])], 1)).toEqual([ErrorCode.INVALID_REQUEST,
      'A manual partition assignment was specified, but numPartitions was not set to -1.']);
    expect(await create('m2', [p(0, [1])], -1, 1)).toEqual([ErrorCode.INVALID_REQUEST,
      'A manual partition assignment was specified, but replication factor was not set to -1.']);
    expect(await create('m3', [p(0, [9])])).toEqual([ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      'The manual partition assignment includes broker 9, but no such broker is registered.']);
    expect(await create('m4', [p(0, [1, 1])])).toEqual([ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      'The manual partition assignment includes the broker 1 more than once.']);
    expect(await create('m5', [p(0, [1, 2]), p(1, [3])])).toEqual([ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      'The manual partition assignment includes a partition with 1 replica(s), ' +
        'but this is not consistent with previous partitions, which have 2 replica(s).']);
    expect(await create('m6', [p(0, [1]), p(2, [2])]))
      .toEqual([ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'partitions should be a consecutive 0-based integer sequence']);
    expect(await create('m7', [p(0, [1]), p(0, [2])]))
      .toEqual([ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Found multiple manual partition assignments for partition 0']);
    expect(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'].map((t) => cluster.inspect.topic(t))).toEqual(Array(7).fill(undefined));
    c.close();
  });

  test('a reassignment adding a replica is listed in progress until it catches up; a reorder completes at once; cancel', async () => {
    cluster.createTopic('moving', 2, 2);
    const c = await rawTo(1);
    const [r0, r1] = cluster.partitions('moving').map((pv) => pv.replicas);
    const spare0 = [1, 2, 3].find((b) => !r0.includes(b))!;
    const alter = (partitions: { partitionIndex: number; replicas: number[] | null }[]) =>
      c.request(AlterPartitionReassignments, 0, { timeoutMs: 1000, topics: [{ name: 'moving', partitions }] })
        .then((r) => r.responses[0].partitions);
    const list = () => c.request(ListPartitionReassignments, 0, { timeoutMs: 1000, topics: null }).then((r) => r.topics);
    expect(await alter([{ partitionIndex: 0, replicas: [spare0, r0[0]] }, { partitionIndex: 1, replicas: [r1[1], r1[0]] }]))
      .toEqual([{ partitionIndex: 0, errorCode: 0, errorMessage: null }, { partitionIndex: 1, errorCode: 0, errorMessage: null }]);
    expect(cluster.partitions('moving')[1].replicas).toEqual([r1[1], r1[0]]); // a reorder: done
    expect(await list()).toEqual([{
      name: 'moving',
      partitions: [{ partitionIndex: 0, replicas: [spare0, r0[0], r0[1]], addingReplicas: [spare0], removingReplicas: [r0[1]] }],
    }]);
    await until(() => cluster.partitions('moving')[0].replicas.length === 2, 'the reassignment finishes', 10_000);
    expect(cluster.partitions('moving')[0].replicas).toEqual([spare0, r0[0]]);
    expect(await list()).toEqual([]);
    expect(await alter([{ partitionIndex: 0, replicas: null }])).toEqual([
      { partitionIndex: 0, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: 'No partition reassignment is in progress.' },
    ]);
    await alter([{ partitionIndex: 0, replicas: [r0[1], r0[0]] }]);
    expect(await alter([{ partitionIndex: 0, replicas: null }])).toEqual([{ partitionIndex: 0, errorCode: 0, errorMessage: null }]);
    // PartitionReassignmentRevert: the in-progress list (target + removing) without the replicas being added.
    expect(cluster.partitions('moving')[0].replicas).toEqual([r0[0], spare0]);
    expect(await list()).toEqual([]);
    expect(await alter([{ partitionIndex: 7, replicas: [1] }, { partitionIndex: 0, replicas: [1, 9] }])).toEqual([
      { partitionIndex: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'Unable to find partition moving:7.' },
      { partitionIndex: 0, errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        errorMessage: 'The manual partition assignment includes broker 9, but no such broker is registered.' },
    ]);
    c.close();
  });

  test('DeleteTopics removes a topic; a second delete answers UNKNOWN_TOPIC_OR_PARTITION', async () => {
    cluster.createTopic('doomed', 3);
    await withAdmin(async (a) => {
      await a.deleteTopics({ topics: ['doomed'] });
      expect(await a.listTopics()).not.toContain('doomed');
    });
    expect(cluster.inspect.topic('doomed')).toBeUndefined();
    const c = await rawTo(1);
    for (const v of [4, 5]) {
      const res = await c.request(admin.DeleteTopics, v, { topicNames: ['doomed'], timeoutMs: 1000 });
      expect(res.responses[0]).toMatchObject({ name: 'doomed', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
      if (v === 5) expect(res.responses[0].errorMessage).toEqual(expect.any(String));
    }
    c.close();
  });

  test('CreatePartitions grows a topic, refuses to shrink it, and validateOnly changes nothing', async () => {
    cluster.createTopic('grow', 2);
    await withAdmin(async (a) => {
      await a.createPartitions({ topicPartitions: [{ topic: 'grow', count: 5 }] });
      const md = await a.fetchTopicMetadata({ topics: ['grow'] });
      expect(md.topics[0].partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2, 3, 4]);
      await expect(a.createPartitions({ topicPartitions: [{ topic: 'grow', count: 3 }] }))
        .rejects.toMatchObject({ type: 'INVALID_PARTITIONS' });
    });
    const c = await rawTo(2);
    const dry = await c.request(admin.CreatePartitions, 2,
      { topics: [{ name: 'grow', count: 7, assignments: null }], timeoutMs: 1000, validateOnly: true });
    expect(dry.results[0]).toMatchObject({ name: 'grow', errorCode: 0 });
    expect(cluster.partitions('grow')).toHaveLength(5);
    const manual = await c.request(admin.CreatePartitions, 3,
      { topics: [{ name: 'grow', count: 6, assignments: [{ brokerIds: [3] }] }], timeoutMs: 1000, validateOnly: false });
    expect(manual.results[0].errorCode).toBe(0);
    expect(cluster.partitions('grow')[5]).toMatchObject({ leader: 3, replicas: [3] });
    const bad = await c.request(admin.CreatePartitions, 1,
      { topics: [{ name: 'grow', count: 8, assignments: [{ brokerIds: [1] }] }], timeoutMs: 1000, validateOnly: false });
    expect(bad.results[0].errorCode).toBe(39); // INVALID_REPLICA_ASSIGNMENT: 2 partitions, 1 assignment
    // A hostile count is refused instead of exhausting memory (found by the fuzz test).
    const huge = await c.request(admin.CreatePartitions, 0,
      { topics: [{ name: 'grow', count: 2147483647, assignments: null }], timeoutMs: 1000, validateOnly: false });
    expect(huge.results[0].errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    const hugeTopic = await c.request(admin.CreateTopics, 4, { topics: [{ name: 'huge', numPartitions: 0x40000000, replicationFactor: 1,
      assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
    expect(hugeTopic.topics[0].errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(cluster.inspect.topic('huge')).toBeUndefined();
    const unknown = await c.request(admin.CreatePartitions, 0,
      { topics: [{ name: 'nope', count: 2, assignments: null }], timeoutMs: 1000, validateOnly: false });
    expect(unknown.results[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    c.close();
  });

  test('DeleteRecords moves the log start offset and a fetch below it is OFFSET_OUT_OF_RANGE', async () => {
    cluster.createTopic('trim', 1);
    cluster.append('trim', 0, Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })));
    await withAdmin(async (a) => {
      await a.fetchTopicMetadata({ topics: ['trim'] }); // KafkaJS needs the leaders loaded first
      await a.deleteTopicRecords({ topic: 'trim', partitions: [{ partition: 0, offset: '4' }] });
      const offsets = await a.fetchTopicOffsets('trim');
      expect(offsets[0]).toMatchObject({ low: '4', high: '10' });
    });
    const leader = cluster.partitions('trim')[0].leader;
    const c = await rawTo(leader);
    const fetch = (offset: bigint) => c.request(Fetch, 11, {
      maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: 'trim', partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    expect((await fetch(2n)).responses[0].partitions[0]).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, logStartOffset: 4n });
    expect((await fetch(4n)).responses[0].partitions[0].errorCode).toBe(0);
    const res = await c.request(admin.DeleteRecords, 2,
      { topics: [{ name: 'trim', partitions: [{ partitionIndex: 0, offset: -1n }, { partitionIndex: 3, offset: 0n }] }], timeoutMs: 1000 });
    expect(res.topics[0].partitions).toEqual([
      { partitionIndex: 0, lowWatermark: 10n, errorCode: 0 },
      { partitionIndex: 3, lowWatermark: -1n, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
    ]);
    const tooFar = await c.request(admin.DeleteRecords, 0,
      { topics: [{ name: 'trim', partitions: [{ partitionIndex: 0, offset: 11n }] }], timeoutMs: 1000 });
    expect(tooFar.topics[0].partitions[0]).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1n });
    c.close();
  });

  test('DescribeConfigs answers Kafka topic defaults, overrides, broker configs and synonyms', async () => {
    cluster.createTopic('conf', 1, 1, { 'retention.ms': '1000', 'cleanup.policy': 'delete' });
    await withAdmin(async (a) => {
      const res = await a.describeConfigs({
        includeSynonyms: true,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: 'conf' },
          { type: ConfigResourceTypes.TOPIC, name: 'conf', configNames: ['max.message.bytes'] },
        ],
      });
      const all = Object.fromEntries(res.resources[0].configEntries.map((e) => [e.configName, e]));
      expect(all['cleanup.policy'].configValue).toBe('delete');
      expect(all['retention.ms']).toMatchObject({ configValue: '1000', isDefault: false, configSource: 1 });
      // log.retention.ms has no value at any level (its default is null): ConfigHelper.configSynonyms drops the hours form.
      expect(all['retention.ms'].configSynonyms).toEqual([
        expect.objectContaining({ configName: 'retention.ms', configValue: '1000', configSource: 1 }),
      ]);
      expect(all['max.message.bytes'].configSynonyms).toEqual([
        expect.objectContaining({ configName: 'message.max.bytes', configValue: '1048588', configSource: 5 }),
      ]);
      expect(all['max.message.bytes']).toMatchObject({ configValue: '1048588', isDefault: true, configSource: 5 });
      expect(all['segment.bytes'].configValue).toBe('1073741824');
      expect(res.resources[1].configEntries.map((e) => e.configName)).toEqual(['max.message.bytes']);
    });
    const c = await rawTo(2);
    const broker = await c.request(admin.DescribeConfigs, 4,
      { resources: [{ resourceType: 4, resourceName: '2', configurationKeys: null }], includeSynonyms: false, includeDocumentation: true });
    const entries = Object.fromEntries(broker.results[0].configs.map((e: { name: string }) => [e.name, e]));
    expect(broker.results[0].errorCode).toBe(0);
    expect(entries['broker.id']).toMatchObject({ value: '2', readOnly: true, configSource: 4, configType: 3 });
    expect(entries['message.max.bytes'].value).toBe('1048588');
    expect(entries['sasl.jaas.config']).toMatchObject({ value: null, isSensitive: true });
    expect(typeof entries['message.max.bytes'].documentation).toBe('string');
    const wrong = await c.request(admin.DescribeConfigs, 0, { resources: [{ resourceType: 4, resourceName: '1',
      configurationKeys: null }, { resourceType: 2, resourceName: 'absent', configurationKeys: null }] });
    expect(wrong.results.map((r: { errorCode: number }) => r.errorCode))
      .toEqual([ErrorCode.INVALID_REQUEST, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    const v0 = await c.request(admin.DescribeConfigs, 0,
      { resources: [{ resourceType: 2, resourceName: 'conf', configurationKeys: ['retention.ms', 'segment.ms'] }] });
    expect(v0.results[0].configs.map((e: { name: string; isDefault: boolean }) => [e.name, e.isDefault]))
      .toEqual([['retention.ms', false], ['segment.ms', true]]);
    c.close();
  });
});

