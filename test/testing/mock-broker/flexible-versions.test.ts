/**
 * The flexible versions (KIP-482) added for modern clients, spoken on the wire: Produce v9,
 * ListOffsets v6, FindCoordinator v3, JoinGroup v6, SyncGroup v4, Heartbeat v4, OffsetCommit v8,
 * LeaveGroup v4 and CreateTopics v5 (which also answers the partition count, replication factor and
 * configs of the topic it created). The schemas themselves are checked against Kafka's facts in
 * protocol/schema-facts.test.ts; this drives a whole produce / group / commit cycle through them.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { CreateTopics } from '../../../src/protocol/messages/admin';
import { ListOffsets, Produce } from '../../../src/protocol/messages/data';
import { FindCoordinator, Heartbeat, JoinGroup, LeaveGroup, OffsetCommit, SyncGroup } from '../../../src/protocol/messages/group';
import { encodeBatch } from '../../../src/protocol/record-batch';
import { RawClient } from './raw-client';

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1 }); });
afterAll(async () => { await cluster.stop(); });

test('CreateTopics v5 creates the topic and answers its partitions, replication factor and configs', async () => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const res = await c.request(CreateTopics, 5, {
    topics: [
      { name: 'flex', numPartitions: 2, replicationFactor: -1, assignments: [], configs: [{ name: 'retention.ms', value: '60000' }] },
      { name: 'flex-bad', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: 'x' }] },
    ],
    timeoutMs: 1000, validateOnly: false,
  });
  const [ok, bad] = res.topics;
  expect(ok).toMatchObject({ name: 'flex', errorCode: 0, numPartitions: 2, replicationFactor: 1 });
  expect(ok.configs.find((e: { name: string }) => e.name === 'retention.ms'))
    .toEqual({ name: 'retention.ms', value: '60000', readOnly: false, configSource: 1, isSensitive: false });
  expect(ok.configs.find((e: { name: string }) => e.name === 'segment.ms')).toMatchObject({ configSource: 5 });
  expect(bad).toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG, numPartitions: -1, replicationFactor: -1, configs: null });
  c.close();
});

test('Produce v9 and ListOffsets v6 (flexible) append and find records', async () => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const produced = await c.request(Produce, 9, {
    transactionalId: null, acks: -1, timeoutMs: 1000,
    topicData: [{ name: 'flex', partitionData:
      [{ index: 1, records: encodeBatch({ records: [{ value: 'a', timestamp: 100n }, { value: 'b', timestamp: 200n }] }) }] }],
  });
  expect(produced.responses[0].partitionResponses[0]).toMatchObject({ index: 1, errorCode: 0, baseOffset: 0n });
  const offsets = await c.request(ListOffsets, 6, {
    replicaId: -1, isolationLevel: 0,
    topics: [{ name: 'flex', partitions:
      [{ partitionIndex: 1, currentLeaderEpoch: -1, timestamp: 150n }, { partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
  });
  expect(offsets.topics[0].partitions.map((p: { offset: bigint }) => p.offset)).toEqual([1n, 0n]);
  c.close();
});

test('a group cycle at FindCoordinator v3, JoinGroup v6, SyncGroup v4, Heartbeat v4, OffsetCommit v8, LeaveGroup v4', async () => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const coordinator = await c.request(FindCoordinator, 3, { key: 'flex-group', keyType: 0 });
  expect(coordinator).toMatchObject({ errorCode: 0, nodeId: 1 });
  const join = (memberId: string) => c.request(JoinGroup, 6, {
    groupId: 'flex-group', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId, groupInstanceId: null,
    protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from([0, 1, 0, 0, 0, 0]) }],
  });
  const first = await join('');
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  const joined = await join(first.memberId);
  expect(joined).toMatchObject({ errorCode: 0, generationId: 1, protocolName: 'range', leader: first.memberId });
  const synced = await c.request(SyncGroup, 4, {
    groupId: 'flex-group', generationId: 1, memberId: first.memberId, groupInstanceId: null,
    assignments: [{ memberId: first.memberId, assignment: Buffer.from('assigned') }],
  });
  expect(synced).toMatchObject({ errorCode: 0 });
  expect(Buffer.from(synced.assignment).toString()).toBe('assigned');
  expect((await c.request(Heartbeat, 4, { groupId: 'flex-group', generationId: 1, memberId: first.memberId, groupInstanceId: null }))
    .errorCode).toBe(0);
  const committed = await c.request(OffsetCommit, 8, {
    groupId: 'flex-group', generationId: 1, memberId: first.memberId, groupInstanceId: null,
    topics: [{ name: 'flex', partitions: [{ partitionIndex: 1, committedOffset: 2n, committedLeaderEpoch: -1, committedMetadata: null }] }],
  });
  expect(committed.topics[0].partitions[0]).toEqual({ partitionIndex: 1, errorCode: 0 });
  expect(cluster.inspect.lag('flex-group', 'flex').find((p) => p.partition === 1)).toMatchObject({ committed: 2 });
  const left = await c.request(LeaveGroup, 4, { groupId: 'flex-group', members: [{ memberId: first.memberId, groupInstanceId: null }] });
  expect(left).toMatchObject({ errorCode: 0, members: [{ memberId: first.memberId, groupInstanceId: null, errorCode: 0 }] });
  c.close();
});
