/**
 * Request faults observed by real KafkaJS clients: injected error codes, added latency and dropped
 * connections. Each test checks both sides: the client recovers, and the cluster saw the fault.
 */
import { MockCluster, startCluster, waitForCaughtUp, waitForStableGroup, FaultError } from '../../../src/testing/mock-broker';
import { kafkaFor, Received, runConsumer } from './helpers';
import { waitUntil } from '../../../src/testing/mock-broker/testing';

jest.setTimeout(60_000);

describe('request faults against KafkaJS', () => {
  let cluster: MockCluster;
  beforeEach(async () => {
    cluster = await startCluster();
  });
  afterEach(async () => {
    await cluster.stop();
  });

  test('failNext Produce NOT_LEADER_OR_FOLLOWER: the producer refreshes metadata, retries and succeeds once', async () => {
    cluster.createTopic('fail-produce', 1);
    const { kafka, logs } = kafkaFor(cluster, 'fail-produce');
    const producer = kafka.producer();
    await producer.connect();
    const rule = cluster.faults.failNext({ apiKey: 'Produce', errorCode: 'NOT_LEADER_OR_FOLLOWER', count: 2 });
    const [meta] = await producer.send({ topic: 'fail-produce', messages: [{ value: 'a' }, { value: 'b' }] });
    expect(meta.errorCode).toBe(0);
    expect(rule.hits).toBe(2);
    expect(rule.active).toBe(false);
    // The failed attempts never reached the log: the records are there exactly once.
    expect(cluster.partitions('fail-produce')[0].highWatermark).toBe(2);
    expect(cluster.inspect.events({ type: 'fault.error' }).map((e) => e.data.api)).toEqual(['Produce', 'Produce']);
    expect(logs.some((l) => /not the leader/i.test(l.error ?? ''))).toBe(true);
    await producer.disconnect();
  });

  test('failNext Fetch on the leader only: the consumer recovers and reads everything', async () => {
    cluster.createTopic('fail-fetch', 1);
    const leader = cluster.partitions('fail-fetch')[0].leader;
    const { kafka } = kafkaFor(cluster, 'fail-fetch');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'fail-fetch', messages: Array.from({ length: 20 }, (_, i) => ({ value: `m${i}` })) });
    const rule = cluster.faults.failNext({ apiKey: 1, errorCode: 'NOT_LEADER_OR_FOLLOWER', count: 3, broker: leader });
    const got: Received[] = [];
    const consumer = await runConsumer(kafka, 'fail-fetch-g', ['fail-fetch'], got);
    await waitUntil(() => got.length >= 20, '20 messages');
    expect(rule.hits).toBe(3);
    expect(cluster.inspect.events({ type: 'fault.error' }).every((e) => e.data.broker === leader)).toBe(true);
    expect(got.map((m) => m.value)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    await consumer.disconnect();
    await producer.disconnect();
  });

  test('failNext Heartbeat REBALANCE_IN_PROGRESS: the member rejoins and the group moves to a new generation', async () => {
    cluster.createTopic('hb', 2);
    const { kafka } = kafkaFor(cluster, 'hb');
    const got: Received[] = [];
    const consumer = await runConsumer(kafka, 'hb-g', ['hb'], got);
    const before = await waitForStableGroup(cluster, 'hb-g', { members: 1, allAssigned: ['hb'] });
    const rule = cluster.faults.failNext({ apiKey: 'Heartbeat', errorCode: 'REBALANCE_IN_PROGRESS' });
    await waitUntil(() => rule.hits === 1, 'the heartbeat fault to fire');
    const after = await waitForStableGroup(cluster, 'hb-g', { members: 1, allAssigned: ['hb'], afterGeneration: before.generationId });
    expect(after.members[0].memberId).toBe(before.members[0].memberId);
    await consumer.disconnect();
  });

  test('delay: added latency on one broker, then gone once its count is used up', async () => {
    cluster.createTopic('slow', 1);
    const leader = cluster.partitions('slow')[0].leader;
    const { kafka } = kafkaFor(cluster, 'slow');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'slow', messages: [{ value: 'warm-up' }] });
    const rule = cluster.faults.delay({ apiKey: 'Produce', broker: leader, ms: 400, count: 1 });
    const t0 = Date.now();
    await producer.send({ topic: 'slow', messages: [{ value: 'late' }] });
    // A lower bound only: the request cannot have been answered before its injected latency.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(390);
    expect(rule.hits).toBe(1);
    expect(cluster.faults.active).toHaveLength(0);
    await producer.disconnect();
  });

  test('dropNext and dropConnections: the client reconnects and nothing is written twice', async () => {
    cluster.createTopic('drop', 1);
    const { kafka } = kafkaFor(cluster, 'drop');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'drop', messages: [{ value: '1' }] });
    const rule = cluster.faults.dropNext({ apiKey: 'Produce' });
    await producer.send({ topic: 'drop', messages: [{ value: '2' }] });
    expect(rule.hits).toBe(1);
    expect(cluster.inspect.events({ type: 'fault.dropped' })).toHaveLength(1);
    expect(cluster.faults.dropConnections()).toBeGreaterThan(0);
    await producer.send({ topic: 'drop', messages: [{ value: '3' }] });
    expect(cluster.partitions('drop')[0].highWatermark).toBe(3);

    const got: Received[] = [];
    const consumer = await runConsumer(kafka, 'drop-g', ['drop'], got);
    await waitForCaughtUp(cluster, 'drop-g', 'drop');
    expect(got.map((m) => m.value)).toEqual(['1', '2', '3']);
    await consumer.disconnect();
    await producer.disconnect();
  });

  test('invalid faults fail loudly and by name', () => {
    expect(() => cluster.faults.failNext({ apiKey: 'Nope' as never, errorCode: 'NOT_COORDINATOR' })).toThrow(FaultError);
    expect(() => cluster.faults.failNext({ apiKey: 'Fetch', errorCode: 'NONE' as never })).toThrow(/non-error/);
    expect(() => cluster.faults.delay({ ms: -1 })).toThrow(/delay ms/);
    expect(() => cluster.faults.dropNext({ broker: 9 })).toThrow(expect.objectContaining({ code: 'UNKNOWN_BROKER' }));
    expect(() => cluster.moveLeader('missing', 0, 1))
      .toThrow(expect.objectContaining({ code: 'KAFKA_PROTOCOL_ERROR', kafkaError: 'UNKNOWN_TOPIC_OR_PARTITION' }));
    const rule = cluster.faults.failNext({ apiKey: 'Fetch', errorCode: 6, count: Infinity });
    expect(cluster.faults.active.map((r) => r.id)).toEqual([rule.id]);
    rule.cancel();
    expect(cluster.faults.active).toHaveLength(0);
  });
});
