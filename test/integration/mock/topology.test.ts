/**
 * Topology faults observed by real KafkaJS clients: a broker down and back up, a partition leader
 * moved, a group coordinator moved. The clients must recover on their own.
 */
import { MockCluster, startCluster, waitForCaughtUp, waitForEvent, waitForStableGroup } from '../../../src/testing/mock-broker';
import { waitUntil } from '../../../src/testing/mock-broker/testing';
import { kafkaFor, Received, runConsumer, sleep } from './helpers';
import { until } from '../../helpers/until';

jest.setTimeout(90_000);

/** A group id whose coordinator (by hash) is `broker`. */
function groupOn(cluster: MockCluster, broker: number, prefix: string): string {
  for (let i = 0; ; i++) if (cluster.inspect.coordinator(`${prefix}-${i}`) === broker) return `${prefix}-${i}`;
}

describe('topology faults against KafkaJS', () => {
  let cluster: MockCluster;
  beforeEach(async () => {
    cluster = await startCluster();
  });
  afterEach(async () => {
    await cluster.stop();
  });

  test('leader moved: the stale producer gets NOT_LEADER_OR_FOLLOWER, refreshes and succeeds on the new leader', async () => {
    cluster.createTopic('moving', 1, 3);
    const from = cluster.partitions('moving')[0].leader;
    const to = from === 3 ? 1 : from + 1;
    const { kafka, logs } = kafkaFor(cluster, 'mover');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'moving', messages: [{ value: 'before' }] });
    expect(cluster.moveLeader('moving', 0, to)).toBe(1);
    await producer.send({ topic: 'moving', messages: [{ value: 'after' }] });
    expect(logs.some((l) => /Produce/.test(l.message) && /not the leader/i.test(l.error ?? '')
      && l.broker?.endsWith(`:${cluster.broker(from).port}`))).toBe(true);
    expect(cluster.partitions('moving')[0]).toMatchObject({ leader: to, leaderEpoch: 1, highWatermark: 2 });
    const admin = kafka.admin();
    await admin.connect();
    const md = await admin.fetchTopicMetadata({ topics: ['moving'] });
    expect(md.topics[0].partitions[0].leader).toBe(to);
    await admin.disconnect();
    await producer.disconnect();
  });

  test('broker down and back up: leadership fails over with an epoch bump, clients carry on, the broker returns', async () => {
    cluster.createTopic('replicated', 3, 3);
    const victim = 2;
    const groupId = groupOn(cluster, victim, 'down'); // the group's coordinator is on the victim too
    const { kafka } = kafkaFor(cluster, 'downer', { retry: { initialRetryTime: 100, retries: 30, maxRetryTime: 500 } });
    const producer = kafka.producer();
    await producer.connect();
    const admin = kafka.admin();
    await admin.connect();
    const brokerIds = async () => (await admin.describeCluster()).brokers.map((b) => b.nodeId).sort();
    const got: Received[] = [];
    const consumer = await runConsumer(kafka, groupId, ['replicated'], got);
    await producer.send({ topic: 'replicated', messages: Array.from({ length: 30 }, (_, i) => ({ partition: i % 3, value: `a${i}` })) });
    await waitForStableGroup(cluster, groupId, { members: 1, allAssigned: ['replicated'] });
    await waitUntil(() => got.length >= 30, 'first 30 messages');

    const ledByVictim = cluster.partitions('replicated').filter((p) => p.leader === victim);
    expect(ledByVictim.length).toBeGreaterThan(0);
    await cluster.stopBroker(victim);
    expect(cluster.faults.brokerStatus(victim)).toBe('down');
    for (const p of ledByVictim) {
      const now = cluster.partitions('replicated')[p.partition];
      expect(now.leader).not.toBe(victim);
      expect(now.leaderEpoch).toBe(p.leaderEpoch + 1);
    }
    expect(cluster.inspect.coordinator(groupId)).not.toBe(victim);
    expect(await brokerIds()).toEqual([1, 3]);
    await producer.send({ topic: 'replicated', messages: Array.from({ length: 30 }, (_, i) => ({ partition: i % 3, value: `b${i}` })) });
    await waitUntil(() => got.length >= 60, 'the 30 messages produced while the broker is down');

    await cluster.startBroker(victim);
    expect(await brokerIds()).toEqual([1, 2, 3]);
    for (const p of ledByVictim)
      expect(cluster.partitions('replicated')[p.partition]).toMatchObject({ leader: victim, leaderEpoch: p.leaderEpoch + 2 });
    expect(cluster.inspect.coordinator(groupId)).toBe(victim);
    await producer.send({ topic: 'replicated', messages: Array.from({ length: 30 }, (_, i) => ({ partition: i % 3, value: `c${i}` })) });
    await waitForCaughtUp(cluster, groupId, 'replicated', { timeoutMs: 60_000 });
    expect(new Set(got.map((m) => m.value)).size).toBe(90);
    expect(cluster.inspect.events({ type: ['broker.stopped', 'broker.started'] }).map((e) => e.type))
      .toEqual(['broker.stopped', 'broker.started']);
    await consumer.disconnect();
    await admin.disconnect();
    await producer.disconnect();
  });

  test('a partition with no live replica is offline while its broker is down; a send waits for it to return', async () => {
    cluster.createTopic('single', 1, 1);
    const victim = cluster.partitions('single')[0].leader;
    const { kafka } = kafkaFor(cluster, 'offline', { retry: { initialRetryTime: 100, retries: 30, maxRetryTime: 500 } });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'single', messages: [{ value: 'first' }] });
    await cluster.stopBroker(victim);
    expect(cluster.partitions('single')[0]).toMatchObject({ leader: victim, offline: true, leaderEpoch: 1 });
    expect(cluster.inspect.events({ type: 'partition.offline' })).toHaveLength(1);
    const asked = metadataRequests(cluster, 'offline');
    const pending = producer.send({ topic: 'single', messages: [{ value: 'waited' }] });
    await until(() => metadataRequests(cluster, 'offline') > asked, 'the producer to look for the offline leader', 10_000);
    await cluster.startBroker(victim);
    await pending;
    expect(cluster.partitions('single')[0]).toMatchObject({ leader: victim, offline: false, leaderEpoch: 2, highWatermark: 2 });
    await producer.disconnect();
  });

  test('coordinator moved: NOT_COORDINATOR, the group finds the new coordinator and keeps consuming and committing', async () => {
    cluster.createTopic('coord', 3);
    const groupId = groupOn(cluster, 1, 'coord');
    const { kafka, logs } = kafkaFor(cluster, 'coord');
    const producer = kafka.producer();
    await producer.connect();
    const got: Received[] = [];
    const consumers = [await runConsumer(kafka, groupId, ['coord'], got), await runConsumer(kafka, groupId, ['coord'], got)];
    await waitForStableGroup(cluster, groupId, { members: 2, allAssigned: ['coord'] });
    await producer.send({ topic: 'coord', messages: Array.from({ length: 30 }, (_, i) => ({ partition: i % 3, value: `a${i}` })) });
    await waitForCaughtUp(cluster, groupId, 'coord');

    const seq = cluster.inspect.lastEventSeq();
    cluster.moveCoordinator(groupId, 3);
    expect(cluster.inspect.coordinator(groupId)).toBe(3);
    await producer.send({ topic: 'coord', messages: Array.from({ length: 30 }, (_, i) => ({ partition: i % 3, value: `b${i}` })) });
    await waitForEvent(cluster, { type: 'offsets.committed', groupId, afterSeq: seq });
    await waitForCaughtUp(cluster, groupId, 'coord');
    await waitForStableGroup(cluster, groupId, { members: 2, allAssigned: ['coord'] });
    expect(new Set(got.map((m) => m.value)).size).toBe(60);
    expect(logs.some((l) => /not the correct coordinator/i.test(l.error ?? ''))).toBe(true);
    expect(cluster.inspect.events({ type: 'coordinator.moved' }))
      .toEqual([expect.objectContaining({ data: expect.objectContaining({ key: groupId, from: 1, to: 3 }) })]);
    await Promise.all(consumers.map((c) => c.disconnect()));
    await producer.disconnect();
  });

  test('illegal broker transitions fail by name', async () => {
    await expect(cluster.startBroker(1)).rejects.toMatchObject({ code: 'ILLEGAL_BROKER_TRANSITION' });
    await cluster.stopBroker(1);
    await expect(cluster.stopBroker(1)).rejects.toMatchObject({ code: 'ILLEGAL_BROKER_TRANSITION' });
    expect(() => cluster.moveCoordinator('g', 1)).toThrow(expect.objectContaining({ code: 'BROKER_DOWN' }));
    await cluster.startBroker(1);
    expect(cluster.faults.brokerStatus(1)).toBe('up');
  });
});

/** How many Metadata requests client `clientId` sent (the mock's request log). */
function metadataRequests(cluster: MockCluster, clientId: string): number {
  return cluster.requestVersions.list(clientId).filter((v) => v.api === 'Metadata').reduce((n, v) => n + v.count, 0);
}
