import { Kafka, logLevel, CompressionTypes } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';

describe('KafkaJS producer and admin against the mock cluster', () => {
  let cluster: MockCluster;
  let kafka: Kafka;
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 3 });
    kafka = new Kafka({ clientId: 'basic', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  });
  afterAll(async () => { await cluster.stop(); });

  test('admin creates a topic with leaders spread over the brokers', async () => {
    const admin = kafka.admin();
    await admin.connect();
    expect(await admin.createTopics({ topics: [{ topic: 'spread', numPartitions: 6 }] })).toBe(true);
    const md = await admin.fetchTopicMetadata({ topics: ['spread'] });
    const leaders = new Set(md.topics[0].partitions.map((p) => p.leader));
    expect(md.topics[0].partitions).toHaveLength(6);
    expect(leaders.size).toBe(3);
    await expect(admin.createTopics({ topics: [{ topic: 'spread', numPartitions: 1 }] })).resolves.toBe(false);
    await admin.disconnect();
  });

  test('produce uncompressed and gzip, then list offsets', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'p', numPartitions: 2 }] });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'p', messages: Array.from({ length: 10 }, (_, i) => ({ partition: 0, value: `v${i}` })) });
    await producer.send({ topic: 'p', compression: CompressionTypes.GZIP,
      messages: Array.from({ length: 5 }, (_, i) => ({ partition: 1, value: `g${i}` })) });
    const offsets = await admin.fetchTopicOffsets('p');
    const byPartition = Object.fromEntries(offsets.map((o) => [o.partition, o]));
    expect(byPartition[0]).toMatchObject({ offset: '10', high: '10', low: '0' });
    expect(byPartition[1]).toMatchObject({ offset: '5', high: '5', low: '0' });
    expect(cluster.partitions('p').map((p) => p.highWatermark)).toEqual([10, 5]);
    await producer.disconnect();
    await admin.disconnect();
  });
});
