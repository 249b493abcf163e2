/**
 * Fetch v12-v13 and incremental fetch sessions (KIP-227): a full fetch at epoch 0 creates a session;
 * incremental fetches carry only changes and are answered with only the partitions that have
 * records, errors or moved offsets; a wrong epoch is INVALID_FETCH_SESSION_EPOCH, an unknown id
 * FETCH_SESSION_ID_NOT_FOUND; forgotten partitions leave the session; epoch -1 closes it. Fetch v13
 * names topics by id (KIP-516), an unknown id is UNKNOWN_TOPIC_ID.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { Fetch } from '../../../src/protocol/messages/data';
import { decodeBatches } from '../../../src/protocol/record-batch';
import { RawClient } from './raw-client';

let cluster: MockCluster;
let c: RawClient;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1 });
  cluster.createTopic('sess', 2);
  cluster.append('sess', 0, [{ value: 'a0' }]);
  cluster.append('sess', 1, [{ value: 'b0' }]);
  c = await RawClient.connect(cluster.bootstrap[0]);
});
afterAll(async () => { c.close(); await cluster.stop(); });

const part = (partition: number, fetchOffset: bigint) =>
  ({ partition, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20 });
const fetch = (v: number, sessionId: number, sessionEpoch: number, topics: object[], forgottenTopicsData: object[] = []) =>
  c.request(Fetch, v, {
    clusterId: null, replicaId: -1, maxWaitMs: 50, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId, sessionEpoch, topics,
    forgottenTopicsData, rackId: '',
  });
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const partitionsOf = (res: Record<string, any>) => res.responses.flatMap((t: any) =>
  t.partitions.map((p: any) => [p.partitionIndex, decodeBatches(p.records).flatMap((b) => b.records.map((r) => r.value?.toString()))]));

test('a session: full fetch, incremental fetches of changes only, forgotten partitions, close', async () => {
  const full = await fetch(12, 0, 0, [{ topic: 'sess', partitions: [part(0, 0n), part(1, 0n)] }]);
  expect(full.errorCode).toBe(0);
  expect(full.sessionId).toBeGreaterThan(0);
  expect(partitionsOf(full)).toEqual([[0, ['a0']], [1, ['b0']]]);
  const id = full.sessionId;
  // The client moves its offsets past what it read; the broker reports nothing new.
  const quiet = await fetch(12, id, 1, [{ topic: 'sess', partitions: [part(0, 1n), part(1, 1n)] }]);
  expect(quiet).toMatchObject({ errorCode: 0, sessionId: id, responses: [] });
  cluster.append('sess', 1, [{ value: 'b1' }]);
  const changed = await fetch(12, id, 2, []);
  expect(partitionsOf(changed)).toEqual([[1, ['b1']]]);
  expect(changed.responses[0].partitions[0].highWatermark).toBe(2n);
  expect((await fetch(12, id, 2, [])).errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
  expect((await fetch(12, id + 1000, 1, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  // Forget partition 1: new records there are no longer fetched.
  await fetch(12, id, 3, [{ topic: 'sess', partitions: [part(1, 2n)] }]);
  cluster.append('sess', 1, [{ value: 'b2' }]);
  cluster.append('sess', 0, [{ value: 'a1' }]);
  const forgotten = await fetch(12, id, 4, [], [{ topic: 'sess', partitions: [1] }]);
  expect(partitionsOf(forgotten)).toEqual([[0, ['a1']]]);
  // Epoch -1 closes the session (and is a plain full fetch).
  const closing = await fetch(12, id, -1, [{ topic: 'sess', partitions: [part(0, 0n)] }]);
  expect(closing.sessionId).toBe(0);
  expect((await fetch(12, id, 5, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  expect(cluster.inspect.fetchSessionCount(1)).toBe(0);
});

test('sessionless fetches (epoch -1, as KafkaJS and librdkafka send) create no session', async () => {
  const res = await fetch(11, 0, -1, [{ topic: 'sess', partitions: [part(0, 0n)] }]);
  expect(res.sessionId).toBe(0);
  expect(cluster.inspect.fetchSessionCount(1)).toBe(0);
});

test('Fetch v13 names topics by id; an unknown id is UNKNOWN_TOPIC_ID', async () => {
  const id = cluster.inspect.topic('sess')!.topicId;
  const unknown = 'cd'.repeat(16);
  const res = await fetch(13, 0, -1, [{ topicId: id, partitions: [part(0, 0n)] }, { topicId: unknown, partitions: [part(0, 0n)] }]);
  expect(res.responses.map((t: { topicId: string }) => t.topicId)).toEqual([id, unknown]);
  expect(res.responses[0].partitions[0].errorCode).toBe(0);
  expect(partitionsOf({ responses: [res.responses[0]] })[0][1][0]).toBe('a0');
  expect(res.responses[1].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_ID);
});

test.each([[12, 13], [13, 12]])('a session created at v%i and continued at v%i is FETCH_SESSION_TOPIC_ID_ERROR, as Kafka\'s FetchManager',
  async (from, to) => {
  const topicId = cluster.inspect.topic('sess')!.topicId;
  const topic = (v: number) => (v >= 13 ? { topicId } : { topic: 'sess' });
  const full = await fetch(from, 0, 0, [{ ...topic(from), partitions: [part(0, 0n)] }]);
  expect(full.sessionId).toBeGreaterThan(0);
  const res = await fetch(to, full.sessionId, 1, [{ ...topic(to), partitions: [part(0, 1n)] }]);
  expect(res).toMatchObject({ errorCode: ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR, sessionId: 0, responses: [] });
  // The session itself is untouched: the right version continues it at the same epoch.
  expect((await fetch(from, full.sessionId, 1, [])).errorCode).toBe(0);
  await fetch(from, full.sessionId, -1, []);
});

test('an incremental fetch that forgets every partition closes the session and is answered sessionless (id 0)', async () => {
  const full = await fetch(12, 0, 0, [{ topic: 'sess', partitions: [part(0, 0n), part(1, 0n)] }]);
  const id = full.sessionId;
  const open = cluster.inspect.fetchSessionCount(1);
  const emptied = await fetch(12, id, 1, [], [{ topic: 'sess', partitions: [0, 1] }]);
  expect(emptied).toMatchObject({ errorCode: 0, sessionId: 0, responses: [] });
  expect((await fetch(12, id, 2, [])).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  expect(cluster.inspect.fetchSessionCount(1)).toBe(open - 1);
});
