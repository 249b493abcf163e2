/**
 * OffsetFetch requireStable on the wire (KIP-447): while a transaction holds a partition's offset (TxnOffsetCommit
 * sent, EndTxn not yet), v7 and v8+ with requireStable answer UNSTABLE_OFFSET_COMMIT for that partition, without it
 * the last committed offset; once the transaction commits, the new offset. (The handler once dropped the flag.)
 */
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { OffsetFetch } from '../../../src/protocol/messages/group';
import { RawClient } from './raw-client';

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1 }); });
afterAll(async () => { await cluster.stop(); });

test('an open transaction\'s offset is UNSTABLE_OFFSET_COMMIT under requireStable (v7, v8, v9), the committed one otherwise', async () => {
  cluster.createTopic('stable-in', 2);
  cluster.createTopic('stable-out', 1);
  const groupId = 'stable-g';
  const producer = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING })
    .producer({ transactionalId: 'stable-txn', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const raw = await RawClient.connect(cluster.bootstrap[0]!);
  try {
    const txn = await producer.transaction();
    await txn.send({ topic: 'stable-out', messages: [{ value: 'x' }] });
    await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: 'stable-in', partitions: [{ partition: 0, offset: '7' }] }] });
    const topics = [{ name: 'stable-in', partitionIndexes: [0, 1] }];
    const partitions = async (v: number, requireStable: boolean) => {
      const r = await raw.request(OffsetFetch, v, v >= 8
        ? { groups: [{ groupId, memberId: null, memberEpoch: -1, topics }], requireStable }
        : { groupId, topics, requireStable });
      return (v >= 8 ? r.groups[0].topics : r.topics)[0].partitions.map((p: { errorCode: number; committedOffset: bigint }) =>
        [p.errorCode, p.committedOffset]);
    };
    for (const v of [7, 8, 9]) {
      expect(await partitions(v, true)).toEqual([[ErrorCode.UNSTABLE_OFFSET_COMMIT, -1n], [ErrorCode.NONE, -1n]]);
      expect(await partitions(v, false)).toEqual([[ErrorCode.NONE, -1n], [ErrorCode.NONE, -1n]]);
    }
    await txn.commit();
    for (const v of [7, 8, 9]) expect(await partitions(v, true)).toEqual([[ErrorCode.NONE, 7n], [ErrorCode.NONE, -1n]]);
  } finally {
    raw.close();
    await producer.disconnect();
  }
});
