import { MockCluster } from '../../src/testing/mock-broker';
import { startCluster } from '../../src/testing/mock-broker/testing';
import { GroupConsumer } from '../../src/consumer/group-consumer';
import { consumerOn, kafkaOf, produce, stopAll, until, valueOf } from './helpers';

describe('GroupConsumer basics', () => {
  let cluster: MockCluster;
  const consumers: GroupConsumer[] = [];
  beforeAll(async () => { cluster = await startCluster(); });
  afterEach(() => stopAll(consumers));
  afterAll(() => cluster.stop());

  test('at-least-once consumes every record and commits last offset + 1 on stop', async () => {
    cluster.createTopic('smoke', 2);
    const kafka = kafkaOf(cluster);
    await produce(kafka, 'smoke', 0, ['a', 'b', 'c']);
    await produce(kafka, 'smoke', 1, ['d', 'e']);
    const seen: string[] = [];
    const c = consumerOn(cluster, { groupId: 'smoke-g', topics: ['smoke'], delivery: 'at-least-once', commitIntervalMs: 60000,
      recordHandler: async (r) => { seen.push(valueOf(r)); } }, consumers);
    await c.start();
    await until(() => seen.length === 5, '5 records');
    await c.stop();
    expect(seen.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    const admin = kafka.admin();
    await admin.connect();
    const [res] = await admin.fetchOffsets({ groupId: 'smoke-g', topics: ['smoke'] });
    await admin.disconnect();
    expect(res.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset)).toEqual(['3', '2']);
    expect(c.state).toBe('stopped');
  });
});
