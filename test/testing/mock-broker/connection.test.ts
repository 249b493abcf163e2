/**
 * Connection limits found by attacking the mock: half-received frames count against a per-broker
 * budget (`maxBufferedRequestBytes`), and a connection idle for `connectionsMaxIdleMs` (Kafka's
 * connections.max.idle.ms) is closed unless a request of it is still being answered.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { ApiVersions, Fetch, Produce } from '../../../src/protocol/messages/data';
import { encodeBatch } from '../../../src/protocol/record-batch';
import { RawClient } from './raw-client';
import { until } from '../../helpers/until';

const KiB = 1024;

/** The first `n` bytes of a frame that announces `size` bytes (a slowloris' half request). */
function partialFrame(size: number, n: number): Buffer {
  const b = Buffer.alloc(n);
  b.writeInt32BE(size, 0);
  return b;
}

describe('buffered bytes of half-received frames are capped per broker', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 1, maxBufferedRequestBytes: 1024 * KiB, connectionsMaxIdleMs: 0 });
  });
  afterAll(async () => { await cluster.stop(); });

  test('the connection that would take the broker over its cap is closed; the others and new requests go on', async () => {
    cluster.createTopic('cap', 1);
    const bystander = await RawClient.connect(cluster.bootstrap[0]);
    const first = await RawClient.connect(cluster.bootstrap[0]);
    const big = first.frame(Produce, 8, { transactionalId: null, acks: 1, timeoutMs: 1000, topicData:
      [{ name: 'cap', partitionData: [{ index: 0, records: encodeBatch({ records: [{ value: Buffer.alloc(800 * KiB, 1) }] }) }] }] }, 7);
    expect(big.length).toBeGreaterThan(800 * KiB);
    first.write(big.subarray(0, 600 * KiB));
    await until(() => cluster.broker(1).memory.used >= 600 * KiB - 4, 'the broker to hold the first half-frame');
    const second = await RawClient.connect(cluster.bootstrap[0]);
    second.write(partialFrame(900 * KiB, 600 * KiB));
    await second.waitClosed();
    expect(cluster.events.entries({ type: 'connection-rejected' }).some((e) => /over its limit of 1048576/.test(String(e.data.reason))))
      .toBe(true);
    // The first connection finishes its request and is answered; its bytes are released after.
    first.write(big.subarray(600 * KiB));
    expect(await first.nextFrame()).not.toBeNull();
    expect(cluster.partitions('cap')[0].highWatermark).toBe(1);
    expect((await bystander.request(ApiVersions, 3, { clientSoftwareName: 'b', clientSoftwareVersion: '1' })).errorCode).toBe(0);
    // With the budget free again, another 600 KiB half-frame is held, not refused.
    const third = await RawClient.connect(cluster.bootstrap[0]);
    third.write(partialFrame(900 * KiB, 600 * KiB));
    await until(() => cluster.broker(1).memory.used >= 600 * KiB - 4 || third.closed, 'the broker to hold the third half-frame');
    expect(third.closed).toBe(false);
    third.close();
    await until(() => cluster.broker(1).memory.used === 0, 'the closed connection to release its bytes');
    for (const c of [bystander, first]) c.close();
  });
});

describe('idle connections are closed after connectionsMaxIdleMs', () => {
  let cluster: MockCluster;
  beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1, connectionsMaxIdleMs: 400 }); });
  afterAll(async () => { await cluster.stop(); });

  test('a slowloris connection that sent half a frame is closed', async () => {
    const c = await RawClient.connect(cluster.bootstrap[0]);
    c.write(partialFrame(1000, 10));
    const started = Date.now();
    await c.waitClosed(10_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(cluster.events.entries({ type: 'connection-idle-closed' }).length).toBeGreaterThan(0);
    expect(cluster.broker(1).memory.used).toBe(0);
  });

  test('a connection in use stays open, and so does one waiting on a long poll longer than the idle time', async () => {
    cluster.createTopic('idle-poll', 1);
    const busy = await RawClient.connect(cluster.bootstrap[0]);
    for (let i = 0; i < 8; i++) {
      expect((await busy.request(ApiVersions, 3, { clientSoftwareName: 'b', clientSoftwareVersion: '1' })).errorCode).toBe(0);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(busy.closed).toBe(false);
    const poller = await RawClient.connect(cluster.bootstrap[0]);
    const res = await poller.request(Fetch, 11, {
      replicaId: -1, maxWaitMs: 1200, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: 'idle-poll',
        partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    expect(res.responses[0].partitions[0].errorCode).toBe(0);
    busy.close();
    poller.close();
  });
});
