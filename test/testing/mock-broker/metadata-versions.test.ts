/**
 * Metadata v0-v12: the same topics at every version; flexible from v9; topic ids from v10 (the
 * same id at every version and for every broker); v12 requests by topic id (KIP-516): a known id
 * is described, an unknown one is UNKNOWN_TOPIC_ID; before v12 an id or a null name is refused. Auto-creation answers
 * as Kafka 4.0's KRaft brokers (AutoTopicCreationManager.sendCreateTopicRequest), or as ZooKeeper-mode Kafka.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { Metadata } from '../../../src/protocol/messages/data';
import { RawClient } from './raw-client';

const ZERO = '0'.repeat(32);
let cluster: MockCluster;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 2, autoCreateTopics: false });
  cluster.createTopic('meta-a', 3, 2);
  cluster.createTopic('meta-b', 1, 1);
});
afterAll(async () => { await cluster.stop(); });

const byName = (names: string[] | null, v: number) => ({
  topics: names === null ? null : names.map((name) => ({ name, topicId: ZERO })),
  allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
});

test.each(Array.from({ length: 13 }, (_, v) => v))('Metadata v%i describes the brokers, the controller and every partition', async (v) => {
  const c = await RawClient.connect(cluster.bootstrap[1]);
  const res = await c.request(Metadata, v, byName(['meta-a'], v));
  expect(res.brokers.map((b: { nodeId: number }) => b.nodeId)).toEqual([1, 2]);
  if (v >= 1) expect(res.controllerId).toBe(1);
  if (v >= 2) expect(res.clusterId).toBe(cluster.inspect.clusterId());
  const [t] = res.topics;
  expect(t).toMatchObject({ errorCode: 0, name: 'meta-a' });
  expect(t.partitions.map((p: { partitionIndex: number; leaderId: number }) => [p.partitionIndex, p.leaderId]))
    .toEqual(cluster.partitions('meta-a').map((p) => [p.partition, p.leader]));
  expect(t.topicId).toBe(v >= 10 ? cluster.inspect.topic('meta-a')!.topicId : ZERO);
  c.close();
});

test('v12 describes topics by id; unknown ids are UNKNOWN_TOPIC_ID with a null name', async () => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const id = cluster.inspect.topic('meta-b')!.topicId;
  const unknown = 'ab'.repeat(16);
  const res = await c.request(Metadata, 12, {
    topics: [{ name: null, topicId: id }, { name: null, topicId: unknown }],
    allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false,
  });
  expect(res.topics[0]).toMatchObject({ errorCode: 0, name: 'meta-b', topicId: id });
  expect(res.topics[0].partitions).toHaveLength(1);
  expect(res.topics[1]).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: null, topicId: unknown });
  c.close();
});

test.each([10, 11])('v%i refuses topic ids and null names in the request (INVALID_REQUEST)', async (v) => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const id = cluster.inspect.topic('meta-b')!.topicId;
  const res = await c.request(Metadata, v, { topics: [{ name: null, topicId: id }], allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  expect(res.topics[0].errorCode).toBe(ErrorCode.INVALID_REQUEST);
  c.close();
});

test('all topics (null) at v12 lists both topics with their ids', async () => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const res = await c.request(Metadata, 12, byName(null, 12));
  expect(res.topics.map((t: { name: string; topicId: string }) => [t.name, t.topicId]).sort())
    .toEqual(cluster.inspect.topics().map((t) => [t.name, t.topicId]).sort());
  c.close();
});

describe('auto-creation (AutoTopicCreationManager)', () => {
  const ask = (c: RawClient, name: string, allow = true) => c.request(Metadata, 12, {
    topics: [{ name, topicId: ZERO }], allowAutoTopicCreation: allow, includeTopicAuthorizedOperations: false,
  });

  test('KRaft (default): the creating Metadata answers UNKNOWN_TOPIC_OR_PARTITION, the next one the topic with its leader', async () => {
    const auto = await MockCluster.start({ brokers: 2, defaultPartitions: 2 });
    try {
      const c = await RawClient.connect(auto.bootstrap[0]);
      expect((await ask(c, 'made-by-metadata')).topics).toEqual([
        expect.objectContaining({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name: 'made-by-metadata', partitions: [] }),
      ]);
      const [t] = (await ask(c, 'made-by-metadata')).topics;
      expect(t).toMatchObject({ errorCode: 0, name: 'made-by-metadata', topicId: auto.inspect.topic('made-by-metadata')!.topicId });
      expect(t.partitions.map((p: { leaderId: number }) => p.leaderId).sort()).toEqual([1, 2]);
      expect((await ask(c, 'not-allowed', false)).topics[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      expect(auto.inspect.topic('not-allowed')).toBeUndefined();
      c.close();
    } finally {
      await auto.stop();
    }
  });

  test('zookeeper mode: LEADER_NOT_AVAILABLE first (createTopicsInZk), as Kafka up to 3.9 answered', async () => {
    const zk = await MockCluster.start({ brokers: 1, autoCreateTopicsAs: 'zookeeper' });
    try {
      const c = await RawClient.connect(zk.bootstrap[0]);
      expect((await ask(c, 'zk-made')).topics[0]).toMatchObject({ errorCode: ErrorCode.LEADER_NOT_AVAILABLE, name: 'zk-made' });
      expect((await ask(c, 'zk-made')).topics[0]).toMatchObject({ errorCode: 0, partitions: [expect.objectContaining({ leaderId: 1 })] });
      c.close();
    } finally {
      await zk.stop();
    }
  });
});
