/**
 * What the versions up to Kafka 4.0's maxima add, on the wire with our schemas as the client:
 * KIP-951 leader hints (Produce v10+, Fetch v16+), ListOffsets -3/-4/-5 (KIP-734, KIP-405, KIP-1005),
 * FindCoordinator v4+ batches (KIP-699), JoinGroup v7+ nullable protocolName, CreateTopics v7 topic ids,
 * DeleteTopics v6 by id (KIP-516), and the request-version log.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { Fetch, ListOffsets, Produce } from '../../../src/protocol/messages/data';
import { FindCoordinator, JoinGroup } from '../../../src/protocol/messages/group';
import { CreateTopics, DeleteTopics } from '../../../src/protocol/messages/admin';
import { encodeBatch } from '../../../src/protocol/record-batch';
import { RawClient } from './raw-client';

const ZERO = '0'.repeat(32);
let cluster: MockCluster;
const clients: RawClient[] = [];
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 3, autoCreateTopics: false });
  cluster.createTopic('k4', 1);
});
afterAll(async () => {
  for (const c of clients) c.close();
  await cluster.stop();
});

async function connect(nodeId: number): Promise<RawClient> {
  const c = await RawClient.connect(cluster.bootstrap[nodeId - 1]);
  clients.push(c);
  return c;
}
const leaderOf = (topic: string) => cluster.partitions(topic)[0].leader;
const follower = (topic: string) => [1, 2, 3].find((n) => n !== leaderOf(topic))!;

const produceBody = (topic: string, values: string[]) => ({
  transactionalId: null, acks: -1, timeoutMs: 5000,
  topicData: [{ name: topic, partitionData: [{ index: 0, records: encodeBatch({ records: values.map((value) => ({ value })) }) }] }],
});

describe('KIP-951: NOT_LEADER_OR_FOLLOWER names the current leader and how to reach it', () => {
  test.each([9, 10, 11])('Produce v%i', async (v) => {
    const c = await connect(follower('k4'));
    const res = await c.request(Produce, v, produceBody('k4', ['x']));
    const p = res.responses[0].partitionResponses[0];
    expect(p.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const leader = cluster.inspect.brokers().find((b) => b.nodeId === leaderOf('k4'))!;
    if (v < 10) {
      expect(p.currentLeader).toEqual({ leaderId: -1, leaderEpoch: -1 }); // not on the wire before v10
      expect(res.nodeEndpoints).toEqual([]);
    } else {
      expect(p.currentLeader).toEqual({ leaderId: leader.nodeId, leaderEpoch: cluster.partitions('k4')[0].leaderEpoch });
      expect(res.nodeEndpoints).toEqual([{ nodeId: leader.nodeId, host: leader.host, port: leader.port, rack: null }]);
    }
  });

  test.each([15, 16, 17])('Fetch v%i', async (v) => {
    const c = await connect(follower('k4'));
    const topicId = cluster.inspect.topic('k4')!.topicId;
    const res = await c.request(Fetch, v, {
      maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      replicaState: { replicaId: -1, replicaEpoch: -1n }, // tagged (v15+): sent, read, and ignored for a consumer
      topics: [{
        topicId,
        partitions: [{
          partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20,
          replicaDirectoryId: 'ab'.repeat(16), // tagged (v17+) inside the partition: decoded past, ignored
        }],
      }],
      forgottenTopicsData: [], rackId: '',
    });
    const p = res.responses[0].partitions[0];
    expect(p.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const leader = cluster.inspect.brokers().find((b) => b.nodeId === leaderOf('k4'))!;
    if (v < 16) {
      expect(p.currentLeader).toEqual({ leaderId: -1, leaderEpoch: -1 });
      expect(res.nodeEndpoints).toEqual([]);
    } else {
      expect(p.currentLeader.leaderId).toBe(leader.nodeId);
      expect(res.nodeEndpoints).toEqual([{ nodeId: leader.nodeId, host: leader.host, port: leader.port, rack: null }]);
    }
  });

  test.each([12, 16])('Fetch v%i fences a stale currentLeaderEpoch (FENCED_LEADER_EPOCH, hinted from v16) and a future one', async (v) => {
    cluster.createTopic(`k4-epoch-${v}`, 1);
    const topic = `k4-epoch-${v}`;
    const leader = leaderOf(topic);
    const c = await connect(leader);
    cluster.moveLeader(topic, 0, leader === 1 ? 2 : 1);
    cluster.moveLeader(topic, 0, leader); // back, two epochs later
    const epoch = cluster.partitions(topic)[0].leaderEpoch;
    const fetchAt = async (currentLeaderEpoch: number) => (await c.request(Fetch, v, {
      maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [],
      topics: [{
        topic, topicId: cluster.inspect.topic(topic)!.topicId,
        partitions:
          [{ partition: 0, currentLeaderEpoch, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1024 }],
      }],
    })).responses[0].partitions[0];
    const stale = await fetchAt(epoch - 1);
    expect(stale.errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
    expect(stale.currentLeader).toEqual(v >= 16 ? { leaderId: leader, leaderEpoch: epoch } : { leaderId: -1, leaderEpoch: -1 });
    expect((await fetchAt(epoch + 1)).errorCode).toBe(ErrorCode.UNKNOWN_LEADER_EPOCH);
    expect((await fetchAt(epoch)).errorCode).toBe(0);
    expect((await fetchAt(-1)).errorCode).toBe(0);
  });

  test('a leader on a broker that is down is named but gets no endpoint', async () => {
    cluster.createTopic('k4-down', 1);
    const leader = leaderOf('k4-down');
    const asker = [1, 2, 3].find((n) => n !== leader)!;
    const c = await connect(asker);
    await cluster.stopBroker(leader);
    try {
      const res = await c.request(Produce, 11, produceBody('k4-down', ['x']));
      const p = res.responses[0].partitionResponses[0];
      expect(p.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      const now = cluster.partitions('k4-down')[0];
      expect(p.currentLeader.leaderId).toBe(now.leader);
      const up = now.leader !== leader;
      expect(res.nodeEndpoints.map((n: { nodeId: number }) => n.nodeId)).toEqual(up ? [now.leader] : []);
    } finally {
      await cluster.startBroker(leader);
    }
  });
});

describe('ListOffsets special timestamps', () => {
  const list = async (v: number, timestamp: bigint, isolationLevel = 0) => {
    const c = await connect(leaderOf('k4-ts'));
    const res = await c.request(ListOffsets, v, {
      replicaId: -1, isolationLevel, timeoutMs: 1000,
      topics: [{ name: 'k4-ts', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
    });
    return res.topics[0].partitions[0];
  };
  beforeAll(() => {
    cluster.createTopic('k4-ts', 1);
    // Timestamps 10, 50 (twice: the first one wins), 20; then DeleteRecords moves the log start.
    cluster.append('k4-ts', 0, [{ value: 'a', timestamp: 10n }, { value: 'b', timestamp: 50n }]);
    cluster.append('k4-ts', 0, [{ value: 'c', timestamp: 50n }, { value: 'd', timestamp: 20n }]);
  });

  test('-3 (v7+, KIP-734) finds the first record with the largest timestamp', async () => {
    expect(await list(7, -3n)).toMatchObject({ errorCode: 0, offset: 1n, timestamp: 50n });
    expect(await list(10, -3n)).toMatchObject({ errorCode: 0, offset: 1n, timestamp: 50n });
  });

  test('-4 (v8+, KIP-405) is the log start offset without tiered storage', async () => {
    expect(await list(8, -4n)).toMatchObject({ errorCode: 0, offset: 0n, timestamp: -1n });
    cluster.deleteRecordsBefore('k4-ts', 0, 1);
    expect(await list(8, -4n)).toMatchObject({ errorCode: 0, offset: 1n });
    expect(await list(8, -2n)).toMatchObject({ errorCode: 0, offset: 1n });
  });

  test('-5 (v9+, KIP-1005) is offset -1 with no error without tiered storage', async () => {
    expect(await list(9, -5n)).toEqual(expect.objectContaining({ errorCode: 0, offset: -1n, timestamp: -1n, leaderEpoch: -1 }));
  });

  test('-3 on an empty partition finds nothing', async () => {
    cluster.createTopic('k4-empty', 1);
    const c = await connect(leaderOf('k4-empty'));
    const res = await c.request(ListOffsets, 7, {
      replicaId: -1, isolationLevel: 0,
      topics: [{ name: 'k4-empty', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -3n }] }],
    });
    expect(res.topics[0].partitions[0]).toMatchObject({ errorCode: 0, offset: -1n, timestamp: -1n });
  });
});

test.each([4, 5, 6])('FindCoordinator v%i answers every key of the batch (KIP-699); key type 2 (share) is INVALID_REQUEST', async (v) => {
  const c = await connect(1);
  const res = await c.request(FindCoordinator, v, { keyType: 0, coordinatorKeys: ['g-a', 'g-b'] });
  expect(res.coordinators.map((x: { key: string; nodeId: number; errorCode: number }) => [x.key, x.nodeId, x.errorCode]))
    .toEqual([['g-a', cluster.inspect.coordinator('g-a'), 0], ['g-b', cluster.inspect.coordinator('g-b'), 0]]);
  const share = await c.request(FindCoordinator, v, { keyType: 2, coordinatorKeys: ['s'] });
  expect(share.coordinators).toEqual([expect.objectContaining({ key: 's', nodeId: -1, errorCode: ErrorCode.INVALID_REQUEST })]);
});

test.each([6, 7, 9])('JoinGroup v%i on a broker that is not the coordinator: protocolName empty before v7, null from v7', async (v) => {
  const not = [1, 2, 3].find((n) => n !== cluster.inspect.coordinator('jg'))!;
  const c = await connect(not);
  const res = await c.request(JoinGroup, v, {
    groupId: 'jg', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: null,
    protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
  });
  expect(res.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  expect(res.protocolName).toBe(v >= 7 ? null : '');
});

test('CreateTopics v7 answers the new topic id (zero for validateOnly); DeleteTopics v6 deletes by id or by name', async () => {
  const c = await connect(2);
  const topic = (name: string) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] });
  const created = await c.request(CreateTopics, 7, { topics: [topic('k4-new'), topic('k4-named')], timeoutMs: 1000, validateOnly: false });
  const ids = created.topics.map((t: { topicId: string }) => t.topicId);
  expect(ids).toEqual([cluster.inspect.topic('k4-new')!.topicId, cluster.inspect.topic('k4-named')!.topicId]);
  const dry = await c.request(CreateTopics, 7, { topics: [topic('k4-dry')], timeoutMs: 1000, validateOnly: true });
  expect(dry.topics[0]).toMatchObject({ errorCode: 0, topicId: ZERO });
  const unknownId = 'ab'.repeat(16);
  const res = await c.request(DeleteTopics, 6, {
    topics: [
      { name: null, topicId: ids[0] }, { name: 'k4-named', topicId: ZERO }, { name: null, topicId: unknownId },
      { name: null, topicId: ZERO }, { name: 'k4', topicId: ids[1] },
    ],
    timeoutMs: 1000,
  });
  expect(res.responses.map((r: { name: string | null; topicId: string; errorCode: number }) => [r.name, r.topicId, r.errorCode])).toEqual([
    ['k4-new', ids[0], 0],
    ['k4-named', ids[1], 0],
    [null, unknownId, ErrorCode.UNKNOWN_TOPIC_ID],
    [null, ZERO, ErrorCode.INVALID_REQUEST],
    ['k4', ids[1], ErrorCode.INVALID_REQUEST],
  ]);
  expect((cluster.inspect.topic('k4-new') !== undefined) || (cluster.inspect.topic('k4-named') !== undefined)).toBe(false);
  expect((cluster.inspect.topic('k4') !== undefined)).toBe(true);
});

test('the request-version log counts each client\'s requests by API and version', async () => {
  const before = cluster.requestVersions.list('raw').find((x) => x.api === 'FindCoordinator' && x.version === 4)?.count ?? 0;
  const c = await connect(1);
  await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['x'] });
  await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['y'] });
  const seen = cluster.requestVersions.list().filter((x) => x.api === 'FindCoordinator' && x.version === 4);
  expect(seen.reduce((n, x) => n + x.count, 0)).toBeGreaterThanOrEqual(before + 2);
  expect(seen.every((x) => x.served)).toBe(true);
});

describe('DeleteTopics duplicates as Kafka\'s ControllerApis answers them', () => {
  const topic = (name: string) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] });
  const answers = (res: Record<string, any>) => // eslint-disable-line @typescript-eslint/no-explicit-any
    res.responses.map((r: { name: string | null; topicId: string; errorCode: number; errorMessage: string | null }) =>
      [r.name, r.topicId, r.errorCode, r.errorMessage]);

  test('a name given by name and by its id is refused on the name, the id gets no answer, and the topic stays', async () => {
    const c = await connect(1);
    const created = await c.request(CreateTopics, 7, { topics: [topic('dt-clash')], timeoutMs: 1000, validateOnly: false });
    const id = created.topics[0].topicId as string;
    const topics = [{ name: null, topicId: id }, { name: 'dt-clash', topicId: ZERO }];
    const res = await c.request(DeleteTopics, 6, { topics, timeoutMs: 1000 });
    const message = 'The provided topic name maps to an ID that was already supplied.';
    expect(answers(res)).toEqual([['dt-clash', id, ErrorCode.INVALID_REQUEST, message]]);
    expect((cluster.inspect.topic('dt-clash') !== undefined)).toBe(true);
  });

  test.each([5, 6])('v%i: a name given twice is answered once (Duplicate topic name.) and not deleted', async (v) => {
    const c = await connect(1);
    await c.request(CreateTopics, 7, { topics: [topic(`dt-twice${v}`), topic(`dt-once${v}`)], timeoutMs: 1000, validateOnly: false });
    const names = [`dt-twice${v}`, `dt-once${v}`, `dt-twice${v}`];
    const body = v >= 6 ? { topics: names.map((name) => ({ name, topicId: ZERO })), timeoutMs: 1000 }
      : { topicNames: names, timeoutMs: 1000 };
    const res = await c.request(DeleteTopics, v, body);
    const onceId = v >= 6 ? (res.responses as { name: string; topicId: string }[]).find((r) => r.name === `dt-once${v}`)!.topicId : ZERO;
    expect(answers(res).map((a: unknown[]) => (v >= 6 ? a : [a[0], ZERO, a[2], a[3]]))).toEqual([
      [`dt-twice${v}`, ZERO, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'],
      [`dt-once${v}`, onceId, 0, null],
    ]);
    expect((cluster.inspect.topic(`dt-twice${v}`) !== undefined)).toBe(true);
    expect((cluster.inspect.topic(`dt-once${v}`) !== undefined)).toBe(false);
  });

  test('an id given twice is answered once (Duplicate topic id.), with no name, and not deleted', async () => {
    const c = await connect(1);
    const created = await c.request(CreateTopics, 7, { topics: [topic('dt-id-twice')], timeoutMs: 1000, validateOnly: false });
    const id = created.topics[0].topicId as string;
    const res = await c.request(DeleteTopics, 6, { topics: [{ name: null, topicId: id }, { name: null, topicId: id }], timeoutMs: 1000 });
    expect(answers(res)).toEqual([[null, id, ErrorCode.INVALID_REQUEST, 'Duplicate topic id.']]);
    expect((cluster.inspect.topic('dt-id-twice') !== undefined)).toBe(true);
  });
});
