/**
 * The seed scenario: topic1 with partitions 0, 1 and 2 and one group. Consumers join one at a
 * time up to four (assignments 3; 2+1; 1+1+1; 1+1+1 with the fourth idle), then leave one at a
 * time (the idle one picks up work; the last one holds all 3). A second group on the same topic
 * receives every message too. Assignments are read from the coordinator, decoded.
 */
import type { Consumer } from 'kafkajs';
import { MockCluster, startCluster, waitForCaughtUp, waitForStableGroup, GroupInspection } from '../../../src/testing/mock-broker';
import { kafkaFor, Received, runConsumer } from './helpers';

jest.setTimeout(180_000);

const TOPIC = 'topic1';
const GROUP = 'seed-group';

/** clientId → number of topic1 partitions assigned. */
function countsByClient(g: GroupInspection): Map<string, number> {
  return new Map(g.members.map((m) => [m.clientId, m.assignment?.[TOPIC]?.length ?? 0]));
}

describe('seed scenario: one group scaling 1 → 4 → 1 on topic1, and a second group', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster = await startCluster();
    cluster.createTopic(TOPIC, 3);
  });
  afterAll(async () => {
    await cluster.stop();
  });

  test('assignments follow the membership and no message is lost', async () => {
    const { kafka: producerKafka } = kafkaFor(cluster, 'seed-producer');
    const producer = producerKafka.producer();
    await producer.connect();
    let sent = 0;
    const produceRound = async () => {
      const messages = Array.from({ length: 30 }, (_, i) => ({ partition: i % 3, value: `m${sent + i}` }));
      sent += messages.length;
      await producer.send({ topic: TOPIC, messages });
    };

    const got: Received[] = [];
    const byClient = new Map<string, Received[]>();
    const consumers = new Map<string, Consumer>();
    const start = async (clientId: string) => {
      const into: Received[] = [];
      byClient.set(clientId, into);
      const { kafka } = kafkaFor(cluster, clientId);
      const c = await runConsumer(kafka, GROUP, [TOPIC], into);
      consumers.set(clientId, c);
    };
    const settle = async (members: number): Promise<GroupInspection> => {
      const g = await waitForStableGroup(cluster, GROUP, { members, allAssigned: [TOPIC], timeoutMs: 60_000 });
      await produceRound();
      await waitForCaughtUp(cluster, GROUP, TOPIC, { timeoutMs: 60_000 });
      return g;
    };
    const sortedCounts = (g: GroupInspection) => [...countsByClient(g).values()].sort((a, b) => b - a);

    // Scale up, one consumer at a time.
    const expectedUp = [[3], [2, 1], [1, 1, 1], [1, 1, 1, 0]];
    let group!: GroupInspection;
    for (let k = 1; k <= 4; k++) {
      await start(`c${k}`);
      group = await settle(k);
      expect(sortedCounts(group)).toEqual(expectedUp[k - 1]);
    }
    const idle = [...countsByClient(group)].find(([, n]) => n === 0)![0];

    // Scale down: stop a working consumer first, so the idle one must pick up work.
    const order = [...consumers.keys()].filter((c) => c !== idle);
    const expectedDown = [[1, 1, 1], [2, 1], [3]];
    for (let i = 0; i < 3; i++) {
      const leaving = order[i];
      await consumers.get(leaving)!.disconnect();
      consumers.delete(leaving);
      group = await settle(4 - i - 1);
      expect(sortedCounts(group)).toEqual(expectedDown[i]);
      if (i === 0) expect(countsByClient(group).get(idle)).toBe(1);
    }
    const [last] = consumers.keys();
    expect(group.members).toHaveLength(1);
    expect(group.members[0].clientId).toBe(last);
    expect(group.members[0].assignment).toEqual({ [TOPIC]: [0, 1, 2] });

    // The first group, across all its members, consumed every message.
    for (const list of byClient.values()) got.push(...list);
    const expected = Array.from({ length: sent }, (_, i) => `m${i}`).sort();
    expect([...new Set(got.map((m) => m.value))].sort()).toEqual(expected);

    // A second group on the same topic receives every message too.
    const second: Received[] = [];
    const { kafka } = kafkaFor(cluster, 'second');
    const other = await runConsumer(kafka, 'seed-group-2', [TOPIC], second);
    await waitForCaughtUp(cluster, 'seed-group-2', TOPIC, { timeoutMs: 60_000 });
    expect([...new Set(second.map((m) => m.value))].sort()).toEqual(expected);
    expect(cluster.inspect.committedOffsets(GROUP).map((o) => o.offset)).toEqual([sent / 3, sent / 3, sent / 3]);

    await other.disconnect();
    await Promise.all([...consumers.values()].map((c) => c.disconnect()));
    await producer.disconnect();
  });
});
