/** The jest helpers and the inspection API, without clients. */
import { MockCluster, MockTimeoutError, startCluster, TEST_GROUP_DEFAULTS, waitForEvent, waitForStableGroup,
  waitFor } from '../../../src/testing/mock-broker';

describe('testing helpers and inspection', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 2 });
  });
  afterAll(async () => {
    await cluster.stop();
  });

  test('startCluster applies the test defaults, options still win', async () => {
    expect(cluster.groups.config).toMatchObject(TEST_GROUP_DEFAULTS);
    const other = await startCluster({ brokers: 1, group: { minSessionTimeoutMs: 6000 } });
    expect(other.groups.config).toMatchObject({ initialRebalanceDelayMs: 0, minSessionTimeoutMs: 6000 });
    expect(other.bootstrap).toHaveLength(1);
    await other.stop();
  });

  test('waitForEvent sees past and future events; afterSeq and RegExp filters', async () => {
    cluster.createTopic('h1', 2);
    await expect(waitForEvent(cluster, { type: 'topic-created', where: (e) => e.data.topic === 'h1' }))
      .resolves.toMatchObject({ data: { topic: 'h1', partitions: 2 } });
    const seq = cluster.inspect.lastEventSeq();
    const pending = waitForEvent(cluster, { type: /^partition\./, afterSeq: seq });
    setTimeout(() => cluster.moveLeader('h1', 0, cluster.partitions('h1')[0].leader === 1 ? 2 : 1), 20);
    const e = await pending;
    expect(e).toMatchObject({ type: 'partition.leader', data: { topic: 'h1', partition: 0, leaderEpoch: 1, reason: 'moved' } });
    expect(e.seq).toBeGreaterThan(seq);
    expect(cluster.inspect.events({ type: ['topic-created', 'partition.leader'], afterSeq: seq })).toHaveLength(1);
  });

  test('waits time out with a typed error carrying the last state seen', async () => {
    const err = await waitForStableGroup(cluster, 'nobody', { members: 2, timeoutMs: 100 }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(MockTimeoutError);
    expect(err).toMatchObject({ code: 'MOCK_WAIT_TIMEOUT', retriable: false });
    expect((err as Error).message).toMatch(/group 'nobody' to be Stable, 2 members/);
    await expect(waitFor(cluster, () => { throw new Error('probe failed'); }, 'x')).rejects.toThrow('probe failed');
  });

  test('partitions, topics and lag views', () => {
    cluster.createTopic('h2', 1, 2, { 'retention.ms': '60000' });
    cluster.append('h2', 0, [{ value: 'a' }, { value: 'b' }, { value: 'c' }]);
    const [p] = cluster.inspect.partitions('h2');
    expect(p).toMatchObject({ partition: 0, leaderEpoch: 0, offline: false, logStartOffset: 0, highWatermark: 3, lastStableOffset: 3,
      batches: 1 });
    expect(p.replicas).toHaveLength(2);
    expect(cluster.inspect.topics().find((t) => t.name === 'h2')).toMatchObject({ configs: { 'retention.ms': '60000' } });
    expect(cluster.inspect.lag('g-none', 'h2')).toEqual([{ partition: 0, committed: undefined, highWatermark: 3, lag: 3 }]);
    expect(cluster.inspect.group('g-none')).toBeUndefined();
    expect(cluster.inspect.committedOffsets('g-none')).toEqual([]);
  });
});
