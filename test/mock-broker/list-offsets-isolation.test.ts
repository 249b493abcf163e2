/**
 * ListOffsets by timestamp under read_committed with a transaction open: as Kafka's
 * Partition.fetchOffsetForTimestamp, a lookup (a timestamp, -3) answers only offsets below the last
 * fetchable offset (the LSO for read_committed, the high watermark otherwise); -1 is the LSO.
 */
import { MockCluster } from '../../src/mock-broker';
import { ListOffsets } from '../../src/protocol/messages/data';
import { encodeBatch, readBatchHeader } from '../../src/protocol/record-batch';
import { lastStableOffset, producerState } from '../../src/mock-broker/transactions/producer-state';
import { RawClient } from './raw-client';

let cluster: MockCluster;
let c: RawClient;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, autoCreateTopics: false });
  cluster.createTopic('lo-txn', 1);
  cluster.append('lo-txn', 0, [{ value: 'a', timestamp: 10n }, { value: 'b', timestamp: 20n }]); // offsets 0, 1
  // Offset 2: a transactional record (ts 30) whose transaction stays open; offset 3: a plain record (ts 40).
  const tc = cluster.state.transactions;
  const { producerId } = tc.initProducerId('lo-tx', 60_000, null);
  expect(tc.addPartitions('lo-tx', producerId, 0, [{ topic: 'lo-txn', partition: 0 }])).toBe(0);
  const log = cluster.state.partition('lo-txn', 0)!;
  const records = [{ value: 'open', timestamp: 30n }];
  const bytes = encodeBatch({ records, producerId, producerEpoch: 0, baseSequence: 0, isTransactional: true });
  const b = { header: readBatchHeader(bytes), bytes };
  const check = producerState(log).checkAppend([b], (p, e) => tc.verifyPartition(p, e, 'lo-txn', 0));
  if (check.kind !== 'ok') throw new Error(`transactional append refused: ${JSON.stringify(check)}`);
  check.apply(log.append([b], Date.now()));
  cluster.append('lo-txn', 0, [{ value: 'd', timestamp: 40n }]);
  expect(lastStableOffset(log)).toBe(2);
  expect(log.highWatermark).toBe(4);
  c = await RawClient.connect(cluster.bootstrap[0]);
});
afterAll(async () => { c.close(); await cluster.stop(); });

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
  const batches = [...cluster.state.partition('lo-txn', 0)!.liveBatches()];
  expect(batches.map((b) => b.maxTimestamp)).toEqual([20n, 30n, 40n]);
});
