/** The mock cluster's test API as README.md describes it (the README's own blocks are compiled and run by test/readme.test.ts). */
import { Kafka, logLevel } from 'kafkajs';
import { startCluster, waitForStableGroup } from '../../../src/testing/mock-broker';

test('README: startCluster, waitForStableGroup, inspect and faults work as documented', async () => {
  const cluster = await startCluster({ brokers: 3 });
  try {
    cluster.createTopic('flights', 2);
    const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
    const consumers = [0, 1].map(() => kafka.consumer({ groupId: 'my-group', heartbeatInterval: 100, maxWaitTimeInMs: 100 }));
    for (const c of consumers) {
      await c.connect();
      await c.subscribe({ topic: 'flights', fromBeginning: true });
      await c.run({ eachMessage: async () => undefined });
    }
    const group = await waitForStableGroup(cluster, 'my-group', { members: 2 });
    expect(group.members).toHaveLength(2);
    expect(cluster.inspect.partitions('flights').map((p) => p.highWatermark)).toEqual([0, 0]);
    expect(cluster.inspect.group('my-group')?.state).toBe('Stable');
    const rule = cluster.faults.failNext({ apiKey: 'Fetch', errorCode: 'NOT_LEADER_OR_FOLLOWER', count: 2 });
    expect(rule.remaining).toBe(2);
    await Promise.all(consumers.map((c) => c.disconnect()));
  } finally {
    await cluster.stop();
  }
});
