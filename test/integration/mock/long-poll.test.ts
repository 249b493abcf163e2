/**
 * Two brokers: A leads t1 (1000 records), B leads t2 (empty). A consumer of both with maxWait 5 s
 * and minBytes 1 must get t1's records at once: B's long poll must not hold back A's data.
 * The bound (< 2.5 s from joining) is behaviour, not a benchmark: it is half the long poll.
 */
import { MockCluster, startCluster } from '../../../src/testing/mock-broker';
import { kafkaFor } from './helpers';
import { waitUntil } from '../../../src/testing/mock-broker/testing';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { Fetch } from '../../../src/protocol/messages/data';
import { RawClient } from '../../testing/mock-broker/raw-client';
import { until } from '../../helpers/until';

jest.setTimeout(60_000);

describe('long poll on one broker never holds back another broker\'s data', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 2 });
  });
  afterAll(async () => {
    await cluster.stop();
  });

  test('first t1 record reaches the handler well before the 5 s long poll on t2 could end', async () => {
    cluster.createTopic('t1', 1);
    cluster.createTopic('t2', 1);
    if (cluster.partitions('t1')[0].leader !== 1) cluster.moveLeader('t1', 0, 1);
    if (cluster.partitions('t2')[0].leader !== 2) cluster.moveLeader('t2', 0, 2);
    for (let i = 0; i < 10; i++) {
      cluster.append('t1', 0, Array.from({ length: 100 }, (_, j) => ({ value: `r${i * 100 + j}` })));
    }
    expect(cluster.partitions('t1')[0].highWatermark).toBe(1000);

    const { kafka } = kafkaFor(cluster, 'long-poll');
    const consumer = kafka.consumer({ groupId: 'long-poll-g', maxWaitTimeInMs: 5000, minBytes: 1, sessionTimeout: 10_000 });
    let joinedAt = 0;
    let firstT1At = 0;
    let t1Count = 0;
    consumer.on(consumer.events.GROUP_JOIN, () => {
      joinedAt ||= Date.now();
    });
    await consumer.connect();
    await consumer.subscribe({ topics: ['t1', 't2'], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic }) => {
        if (topic !== 't1') return;
        firstT1At ||= Date.now();
        t1Count++;
      },
    });
    await waitUntil(() => t1Count === 1000, 'all 1000 t1 records', { timeoutMs: 30_000 });
    expect(joinedAt).toBeGreaterThan(0);
    expect(firstT1At - joinedAt).toBeLessThan(2500);
    await consumer.disconnect();
  });
});

describe('a long poll parked on a partition whose leadership moves', () => {
  test('answers NOT_LEADER_OR_FOLLOWER at once instead of waiting out maxWaitMs', async () => {
    const cluster = await startCluster({ brokers: 2 });
    try {
      cluster.createTopic('moving', 1);
      const from = cluster.partitions('moving')[0].leader;
      const to = from === 1 ? 2 : 1;
      const leader = cluster.bootstrap[from - 1];
      const client = await RawClient.connect(leader);
      const fetchesBefore = cluster.requestVersions.list('raw').filter((v) => v.api === 'Fetch').reduce((n, v) => n + v.count, 0);
      const started = Date.now();
      const pending = client.request(Fetch, 11, {
        replicaId: -1, maxWaitMs: 20000, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic: 'moving',
          partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [], rackId: '',
      });
      // Parked once the broker has it: the partition is empty.
      await until(() => cluster.requestVersions.list('raw').some((v) => v.api === 'Fetch' && v.count >= fetchesBefore + 1),
        'the fetch to reach the broker');
      cluster.moveLeader('moving', 0, to);
      const res = await pending;
      expect(res.responses[0].partitions[0].errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      // Behaviour, not a benchmark: far sooner than the 20 s the poll would otherwise wait.
      expect(Date.now() - started).toBeLessThan(10000);
      client.close();
    } finally {
      await cluster.stop();
    }
  });
});
