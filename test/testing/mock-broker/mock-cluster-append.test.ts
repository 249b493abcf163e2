/**
 * MockCluster.append (test set-up that bypasses the network) stores batches with their real header, as Produce
 * does: a ListOffsets by timestamp must find appended records (found by the confluent interop suite, where
 * fetchTopicOffsetsByTimestamp answered the high watermark because the batch claimed max timestamp 0).
 */
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster, startCluster } from '../../../src/testing/mock-broker';

let cluster: MockCluster;
beforeAll(async () => { cluster = await startCluster({ brokers: 1 }); });
afterAll(async () => { await cluster.stop(); });

test('append keeps the batch max timestamp, so ListOffsets by timestamp finds appended records', async () => {
  cluster.createTopic('append-ts', 1);
  const records = Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, timestamp: BigInt(1_700_000_000_000 + i * 1000) }));
  cluster.append('append-ts', 0, records);
  const admin = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    expect(await admin.fetchTopicOffsetsByTimestamp('append-ts', 1_700_000_004_500)).toEqual([{ partition: 0, offset: '5' }]);
    expect(await admin.fetchTopicOffsetsByTimestamp('append-ts', 1_700_000_009_000)).toEqual([{ partition: 0, offset: '9' }]);
  } finally {
    await admin.disconnect();
  }
});
