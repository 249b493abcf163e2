/**
 * ListOffsets by timestamp under read_committed with a transaction open: as Kafka's
 * Partition.fetchOffsetForTimestamp, a lookup (a timestamp, -3) answers only offsets below the last
 * fetchable offset (the LSO for read_committed, the high watermark otherwise); -1 is the LSO.
 */
import { Kafka, logLevel, Producer } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { ListOffsets } from '../../../src/protocol/messages/data';
import { RawClient } from './raw-client';

let cluster: MockCluster;
let c: RawClient;
let producer: Producer;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, autoCreateTopics: false });
  cluster.createTopic('lo-txn', 1);
  cluster.append('lo-txn', 0, [{ value: 'a', timestamp: 10n }, { value: 'b', timestamp: 20n }]); // offsets 0, 1
  // Offset 2: a transactional record (ts 30) whose transaction stays open; offset 3: a plain record (ts 40).
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  producer = kafka.producer({ transactionalId: 'lo-tx', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const txn = await producer.transaction();
  await txn.send({ topic: 'lo-txn', messages: [{ value: 'open', timestamp: '30' }] });
  cluster.append('lo-txn', 0, [{ value: 'd', timestamp: 40n }]);
  expect(cluster.inspect.partitions('lo-txn')[0]).toMatchObject({ lastStableOffset: 2, highWatermark: 4 });
  c = await RawClient.connect(cluster.bootstrap[0]);
});
afterAll(async () => { c.close(); await producer.disconnect(); await cluster.stop(); });

async function list(version: number, isolationLevel: number, timestamp: bigint) {
  const res = await c.request(ListOffsets, version, {
    replicaId: -1, isolationLevel, timeoutMs: 1000,
    topics: [{ name: 'lo-txn', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
  });
  const p = res.topics[0].partitions[0];
  return [p.errorCode, p.offset, p.timestamp];
}

test.each([2, 7, 10])('v%i read_committed: a timestamp whose first record is at or past the LSO finds nothing', async (v) => {
  expect(await list(v, 1, 15n)).toEqual([0, 1n, 20n]);
  expect(await list(v, 1, 25n)).toEqual([0, -1n, -1n]); // offset 2 (ts 30) is in the open transaction
  expect(await list(v, 1, 35n)).toEqual([0, -1n, -1n]); // offset 3 (ts 40) is past the LSO
  expect(await list(v, 1, -1n)).toEqual([0, 2n, -1n]);
});

test.each([2, 7, 10])('v%i read_uncommitted: the same lookups find the records below the high watermark', async (v) => {
  expect(await list(v, 0, 25n)).toEqual([0, 2n, 30n]);
  expect(await list(v, 0, 35n)).toEqual([0, 3n, 40n]);
  expect(await list(v, 0, 41n)).toEqual([0, -1n, -1n]);
});

test('-3 (max timestamp) under read_committed: the largest timestamp is past the LSO, so nothing; read_uncommitted finds it',
  async () => {
  expect(await list(7, 1, -3n)).toEqual([0, -1n, -1n]);
  expect(await list(7, 0, -3n)).toEqual([0, 3n, 40n]);
});

test('MockCluster.append stores each batch with its own max timestamp (timestamp lookups skip batches by it)', () => {
  const batches = cluster.inspect.batches('lo-txn', 0);
  expect(batches.map((b) => b.maxTimestamp)).toEqual([20n, 30n, 40n]);
});
