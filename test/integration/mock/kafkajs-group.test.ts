import { Kafka, logLevel, Consumer } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { until } from '../../helpers/until';


describe('KafkaJS consumer group against the mock cluster', () => {
  let cluster: MockCluster;
  let kafka: Kafka;
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
    kafka = new Kafka({ clientId: 'grp', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  });
  afterAll(async () => { await cluster.stop(); });

  test('three members share six partitions and consume every record once', async () => {
    cluster.createTopic('g6', 6);
    const producer = kafka.producer();
    await producer.connect();
    const N = 600;
    await producer.send({ topic: 'g6', messages: Array.from({ length: N }, (_, i) => ({ key: `k${i % 37}`, value: String(i) })) });
    const seen = new Map<string, number>();
    const consumers: Consumer[] = [];
    for (let i = 0; i < 3; i++) {
      const c = kafka.consumer({ groupId: 'g6-group', sessionTimeout: 6000, heartbeatInterval: 200, maxWaitTimeInMs: 100 });
      await c.connect();
      await c.subscribe({ topic: 'g6', fromBeginning: true });
      await c.run({ eachMessage: async ({ message, partition }) => {
        const k = `${partition}:${message.offset}`;
        seen.set(k, (seen.get(k) ?? 0) + 1);
      } });
      consumers.push(c);
    }
    await until(() => cluster.groups.group('g6-group')?.state === 'Stable' && cluster.groups.group('g6-group')?.members.length === 3,
      'stable group of 3', 20000);
    await until(() => seen.size === N, 'all records', 20000);
    await Promise.all(consumers.map((c) => c.disconnect()));
    expect([...seen.values()].every((n) => n >= 1)).toBe(true);
    expect(seen.size).toBe(N);
    await producer.disconnect();
  });
});
