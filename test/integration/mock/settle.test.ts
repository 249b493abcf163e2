/**
 * Three KafkaJS consumers started together settle on one stable generation with every partition
 * assigned exactly once, and every consumer agrees on that generation. (How long it takes is a
 * benchmark: bench/settle.js.)
 */
import type { Consumer } from 'kafkajs';
import { MockCluster, startCluster, waitForCaughtUp, waitForStableGroup } from '../../../src/testing/mock-broker';
import { waitUntil } from '../../../src/testing/mock-broker/testing';
import { FAST_CONSUMER, kafkaFor } from './helpers';

jest.setTimeout(90_000);

describe('consumers started together', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster = await startCluster({ group: { initialRebalanceDelayMs: 0 } });
    cluster.createTopic('settle', 6);
  });
  afterAll(async () => {
    await cluster.stop();
  });

  test('3 consumers settle on one stable generation with every partition assigned', async () => {
    const joined = new Set<string>(); // member ids KafkaJS reported in GROUP_JOIN
    const consumers: Consumer[] = await Promise.all([0, 1, 2].map(async (i) => {
      const { kafka } = kafkaFor(cluster, `settle-${i}`);
      const c = kafka.consumer({ groupId: 'settle-g', ...FAST_CONSUMER });
      c.on(c.events.GROUP_JOIN, (e) => {
        joined.add(e.payload.memberId);
      });
      await c.connect();
      await c.subscribe({ topics: ['settle'], fromBeginning: true });
      await c.run({ eachMessage: async () => undefined });
      return c;
    }));
    const group = await waitForStableGroup(cluster, 'settle-g', { members: 3, allAssigned: ['settle'], timeoutMs: 60_000 });
    expect(group.members.map((m) => Object.values(m.assignment!).flat().length).sort()).toEqual([2, 2, 2]);
    // Every consumer saw the join of this generation (its memberId is a current member).
    await waitUntil(() => group.members.every((m) => joined.has(m.memberId)), 'every consumer\'s GROUP_JOIN');
    // The group stays on that generation while it works.
    const producer = kafkaFor(cluster, 'settle-p').kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'settle', messages: Array.from({ length: 60 }, (_, i) => ({ partition: i % 6, value: String(i) })) });
    await waitForCaughtUp(cluster, 'settle-g', 'settle');
    const after = cluster.inspect.group('settle-g')!;
    expect(after.state).toBe('Stable');
    expect(after.generationId).toBe(group.generationId);
    const generations = cluster.inspect.events({ type: 'group.generation', groupId: 'settle-g' }).map((e) => e.data.generationId);
    expect(generations[generations.length - 1]).toBe(group.generationId);
    await producer.disconnect();
    await Promise.all(consumers.map((c) => c.disconnect()));
  });
});
