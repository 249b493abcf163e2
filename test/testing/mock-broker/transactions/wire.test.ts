/**
 * The transaction APIs on the wire, at every version served (flexible ones included), with our own
 * schemas as the client: coordinator routing, version-dependent fencing errors, Produce sequence
 * checks, and read_committed Fetch / ListOffsets.
 */
import { MockCluster } from '../../../../src/testing/mock-broker';
import { ErrorCode } from '../../../../src/protocol/error-codes';
import { Fetch, ListOffsets, Produce } from '../../../../src/protocol/messages/data';
import { AddOffsetsToTxn, AddPartitionsToTxn, EndTxn, InitProducerId,
  TxnOffsetCommit } from '../../../../src/protocol/messages/transactions';
import { ApiVersions } from '../../../../src/protocol/messages/data';
import { decodeBatches, encodeBatch } from '../../../../src/protocol/record-batch';
import { OPERATION_NOT_ATTEMPTED } from '../../../../src/testing/mock-broker/handlers/24-add-partitions-to-txn';
import { RawClient } from '../raw-client';
import { until } from '../../../helpers/until';

describe('transaction APIs on the wire', () => {
  let cluster: MockCluster;
  const clients: RawClient[] = [];
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 3 });
    cluster.createTopic('w', 1);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await cluster.stop();
  });

  async function connect(nodeId: number): Promise<RawClient> {
    const b = cluster.inspect.brokers().find((b) => b.nodeId === nodeId)!;
    const c = await RawClient.connect(`${b.host}:${b.port}`);
    clients.push(c);
    return c;
  }
  const coordinatorOf = (key: string) => connect(cluster.inspect.coordinator(key));
  const notCoordinatorOf = (key: string) =>
    connect(cluster.inspect.brokers().find((b) => b.nodeId !== cluster.inspect.coordinator(key))!.nodeId);
  const leaderOf = (topic: string) => connect(cluster.partitions(topic)[0].leader);

  const produce = (c: RawClient,
    spec: { pid: bigint; epoch: number; seq: number; values: string[]; txn?: boolean; txnId?: string | null }) =>
    c.request(Produce, 8, {
      transactionalId: spec.txnId ?? null, acks: -1, timeoutMs: 5000,
      topicData: [{ name: 'w', partitionData: [{ index: 0, records: encodeBatch({
        records: spec.values.map((value) => ({ value })), producerId: spec.pid, producerEpoch: spec.epoch, baseSequence: spec.seq,
        isTransactional: spec.txn ?? false,
      }) }] }],
    }).then((r) => r.responses[0].partitionResponses[0]);

  test('ApiVersions advertises the transaction APIs', async () => {
    const c = await connect(1);
    const res = await c.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    const byKey = new Map((res.apiKeys as { apiKey: number; minVersion: number; maxVersion: number }[])
      .map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
    expect(byKey.get(22)).toEqual([0, 5]);
    expect(byKey.get(24)).toEqual([0, 5]);
    expect(byKey.get(25)).toEqual([0, 4]);
    expect(byKey.get(26)).toEqual([0, 4]); // v5 is unstable in Kafka 4.0's definitions
    expect(byKey.get(28)).toEqual([0, 4]);
  });

  test.each([0, 1, 2, 3, 4, 5])('InitProducerId v%i: idempotent anywhere, transactional only at the coordinator', async (v) => {
    const txnId = `wire-init-${v}`;
    const anywhere = await notCoordinatorOf(txnId);
    const idem = await anywhere.request(InitProducerId, v, { transactionalId: null, transactionTimeoutMs: 1000 });
    expect(idem).toMatchObject({ errorCode: 0, producerEpoch: 0 });
    expect(idem.producerId).toBeGreaterThanOrEqual(0n);
    expect((await anywhere.request(InitProducerId, v, { transactionalId: txnId, transactionTimeoutMs: 1000 })).errorCode)
      .toBe(ErrorCode.NOT_COORDINATOR);
    const coord = await coordinatorOf(txnId);
    const first = await coord.request(InitProducerId, v, { transactionalId: txnId, transactionTimeoutMs: 1000 });
    expect(first).toMatchObject({ errorCode: 0, producerEpoch: 0 });
    const second = await coord.request(InitProducerId, v, { transactionalId: txnId, transactionTimeoutMs: 1000 });
    expect(second).toMatchObject({ errorCode: 0, producerId: first.producerId, producerEpoch: 1 });
    if (v >= 3) {
      // KIP-360: the old epoch may no longer bump; v4 says PRODUCER_FENCED, v3 INVALID_PRODUCER_EPOCH.
      const stale = await coord.request(InitProducerId, v,
        { transactionalId: txnId, transactionTimeoutMs: 1000, producerId: first.producerId + 100n, producerEpoch: 0 });
      expect(stale.errorCode).toBe(v >= 4 ? ErrorCode.PRODUCER_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH);
      const half = await coord.request(InitProducerId, v,
        { transactionalId: txnId, transactionTimeoutMs: 1000, producerId: first.producerId, producerEpoch: -1 });
      expect(half.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    }
  });

  test.each([0, 1, 2, 3, 4])('AddPartitionsToTxn (client form, up to v3) / AddOffsetsToTxn / EndTxn v%i', async (v) => {
    const txnId = `wire-txn-${v}`;
    const coord = await coordinatorOf(txnId);
    const { producerId } = await coord.request(InitProducerId, Math.min(v + 1, 4), { transactionalId: txnId, transactionTimeoutMs: 60000 });
    const other = await notCoordinatorOf(txnId);
    const add = (c: RawClient, epoch: number, topics: { name: string; partitions: number[] }[]) =>
      c.request(AddPartitionsToTxn, Math.min(v, 3), { transactionalId: txnId, producerId, producerEpoch: epoch, topics })
        .then((r) => r.resultsByTopic);
    expect(await add(other, 0, [{ name: 'w', partitions: [0] }]))
      .toEqual([{ name: 'w', resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: ErrorCode.NOT_COORDINATOR }] }]);
    expect(await add(coord, 0, [{ name: 'w', partitions: [0, 7] }])).toEqual([{ name: 'w', resultsByPartition: [
      { partitionIndex: 0, partitionErrorCode: OPERATION_NOT_ATTEMPTED },
      { partitionIndex: 7, partitionErrorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
    ] }]);
    const fenced = v >= 2 ? ErrorCode.PRODUCER_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH;
    expect((await add(coord, 5, [{ name: 'w', partitions: [0] }]))[0].resultsByPartition[0].partitionErrorCode).toBe(fenced);
    expect((await add(coord, 0, [{ name: 'w', partitions: [0] }]))[0].resultsByPartition[0].partitionErrorCode).toBe(0);
    expect((await coord.request(AddOffsetsToTxn, v, { transactionalId: txnId, producerId, producerEpoch: 0, groupId: `g-${v}` }))
      .errorCode).toBe(0);
    expect((await coord.request(AddOffsetsToTxn, v, { transactionalId: txnId, producerId, producerEpoch: 9, groupId: `g-${v}` }))
      .errorCode).toBe(fenced);
    expect((await other.request(EndTxn, v, { transactionalId: txnId, producerId, producerEpoch: 0, committed: true })).errorCode)
      .toBe(ErrorCode.NOT_COORDINATOR);
    expect((await coord.request(EndTxn, v, { transactionalId: txnId, producerId, producerEpoch: 3, committed: true })).errorCode)
      .toBe(fenced);
    expect((await coord.request(EndTxn, v, { transactionalId: txnId, producerId, producerEpoch: 0, committed: false })).errorCode).toBe(0);
    expect((await coord.request(EndTxn, v, { transactionalId: txnId, producerId, producerEpoch: 0, committed: true })).errorCode)
      .toBe(ErrorCode.INVALID_TXN_STATE);
  });

  test.each([0, 1, 2, 3, 4])('TxnOffsetCommit v%i goes to the group coordinator and stages offsets until commit', async (v) => {
    const txnId = `wire-toc-${v}`;
    const groupId = `wire-group-${v}`;
    const coord = await coordinatorOf(txnId);
    const { producerId } = await coord.request(InitProducerId, 2, { transactionalId: txnId, transactionTimeoutMs: 60000 });
    const body = {
      transactionalId: txnId, groupId, producerId, producerEpoch: 0, generationId: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 'w', partitions: [{ partitionIndex: 0, committedOffset: 11n, committedLeaderEpoch: -1,
        committedMetadata: 'm' }, { partitionIndex: 9, committedOffset: 1n, committedMetadata: null }] }],
    };
    const groupCoord = await coordinatorOf(groupId);
    const codes = async (c: RawClient, b: Record<string, unknown>) =>
      (await c.request(TxnOffsetCommit, v, b)).topics[0].partitions.map((p: { errorCode: number }) => p.errorCode);
    expect(await codes(groupCoord, body)).toEqual([ErrorCode.INVALID_TXN_STATE, ErrorCode.INVALID_TXN_STATE]); // group not added yet
    expect((await coord.request(AddOffsetsToTxn, 0, { transactionalId: txnId, producerId, producerEpoch: 0, groupId })).errorCode).toBe(0);
    expect(await codes(await notCoordinatorOf(groupId), body)).toEqual([ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR]);
    expect(await codes(groupCoord, { ...body, producerEpoch: 4 }))
      .toEqual([ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.INVALID_PRODUCER_EPOCH]);
    expect(await codes(groupCoord, body)).toEqual([0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    const committed = () => cluster.groups.fetchOffsets({ groupId, topics: [{ name: 'w', partitionIndexes: [0] }] })
      .topics[0].partitions[0];
    expect(committed().committedOffset).toBe(-1n);
    expect((await coord.request(EndTxn, 0, { transactionalId: txnId, producerId, producerEpoch: 0, committed: true })).errorCode).toBe(0);
    expect(committed()).toMatchObject({ committedOffset: 11n, metadata: 'm' });
    if (v >= 3) {
      // KIP-447: a member id the group does not know is rejected.
      await coord.request(AddOffsetsToTxn, 0, { transactionalId: txnId, producerId, producerEpoch: 0, groupId });
      expect(await codes(groupCoord, { ...body, memberId: 'ghost', generationId: 1, topics: [body.topics[0]] }))
        .toContain(ErrorCode.UNKNOWN_MEMBER_ID);
    }
  });

  test.each([4, 5])('AddPartitionsToTxn v%i batches transactions and verifies without adding (verifyOnly, KIP-890)', async (v) => {
    const ids = [`wire-batch-${v}-a`, `wire-batch-${v}-b`];
    const coord = await coordinatorOf(ids[0]);
    const pid = new Map<string, bigint>();
    for (const id of ids) {
      const c = await coordinatorOf(id);
      pid.set(id, (await c.request(InitProducerId, 5, { transactionalId: id, transactionTimeoutMs: 60000 })).producerId);
    }
    const txn = (id: string, verifyOnly: boolean, partitions = [0], epoch = 0) => ({
      transactionalId: id, producerId: pid.get(id)!, producerEpoch: epoch, verifyOnly, topics: [{ name: 'w', partitions }],
    });
    type TopicResult = { resultsByPartition: { partitionErrorCode: number }[] };
    type TxnResult = { transactionalId: string; topicResults: TopicResult[] };
    const codes = (res: Record<string, unknown>) => new Map((res.resultsByTransaction as TxnResult[]).map((t) => [
      t.transactionalId, t.topicResults.flatMap((r) => r.resultsByPartition.map((p) => p.partitionErrorCode)),
    ]));
    const send = (...transactions: Record<string, unknown>[]) => coord.request(AddPartitionsToTxn, v, { transactions });
    const other = ids[1];
    const otherHere = cluster.inspect.coordinator(other) === cluster.inspect.coordinator(ids[0]);
    // Verify before adding: not in the transaction yet (TRANSACTION_ABORTABLE); nothing is added.
    let res = await send(txn(ids[0], true), txn(other, true));
    expect(res.errorCode).toBe(0);
    expect(codes(res).get(ids[0])).toEqual([ErrorCode.TRANSACTION_ABORTABLE]);
    expect(codes(res).get(other)).toEqual([otherHere ? ErrorCode.TRANSACTION_ABORTABLE : ErrorCode.NOT_COORDINATOR]);
    expect(codes(await send(txn(ids[0], true))).get(ids[0])).toEqual([ErrorCode.TRANSACTION_ABORTABLE]); // still not added
    // Add (verifyOnly false), then verify: NONE for the added partition, TRANSACTION_ABORTABLE for another.
    res = await send(txn(ids[0], false));
    expect(codes(res).get(ids[0])).toEqual([0]);
    cluster.createTopic(`wire-batch-${v}`, 2);
    res = await send({ ...txn(ids[0], true), topics: [{ name: 'w', partitions: [0] }, { name: `wire-batch-${v}`, partitions: [1] }] });
    expect(codes(res).get(ids[0])).toEqual([0, ErrorCode.TRANSACTION_ABORTABLE]);
    // Errors for the whole transaction: a stale epoch, an unknown partition.
    expect(codes(await send(txn(ids[0], true, [0], 7))).get(ids[0])).toEqual([ErrorCode.PRODUCER_FENCED]);
    expect(codes(await send(txn(ids[0], true, [0, 9]))).get(ids[0]))
      .toEqual([OPERATION_NOT_ATTEMPTED, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    await coord.request(EndTxn, 4, { transactionalId: ids[0], producerId: pid.get(ids[0])!, producerEpoch: 0, committed: false });
  });

  test('Produce sequence checks and read_committed Fetch / ListOffsets', async () => {
    const txnId = 'wire-data';
    const coord = await coordinatorOf(txnId);
    const leader = await leaderOf('w');
    const start = cluster.partitions('w')[0].highWatermark;
    const idem = await leader.request(InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 0 });
    const pid = idem.producerId as bigint;
    expect(await produce(leader, { pid, epoch: 0, seq: 0, values: ['i0', 'i1'] }))
      .toMatchObject({ errorCode: 0, baseOffset: BigInt(start) });
    expect(await produce(leader, { pid, epoch: 0, seq: 0, values: ['i0', 'i1'] }))
      .toMatchObject({ errorCode: 0, baseOffset: BigInt(start) });
    expect(await produce(leader, { pid, epoch: 0, seq: 5, values: ['gap'] }))
      .toMatchObject({ errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(cluster.partitions('w')[0].highWatermark).toBe(start + 2);

    const { producerId: tp } = await coord.request(InitProducerId, 4, { transactionalId: txnId, transactionTimeoutMs: 60000 });
    // Not added to the transaction yet.
    expect(await produce(leader, { pid: tp, epoch: 0, seq: 0, values: ['x'], txn: true, txnId }))
      .toMatchObject({ errorCode: ErrorCode.INVALID_TXN_STATE });
    const begin = async () => expect((await coord.request(AddPartitionsToTxn, 3,
      { transactionalId: txnId, producerId: tp, producerEpoch: 0, topics: [{ name: 'w', partitions: [0] }] }))
      .resultsByTopic[0].resultsByPartition[0].partitionErrorCode).toBe(0);
    await begin();
    const abortedAt = start + 2;
    expect(await produce(leader, { pid: tp, epoch: 0, seq: 0, values: ['a0', 'a1'], txn: true, txnId }))
      .toMatchObject({ errorCode: 0, baseOffset: BigInt(abortedAt) });
    const fetch = (isolationLevel: number, fetchOffset: number, maxWaitMs = 0) => leader.request(Fetch, 11, {
      replicaId: -1, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, isolationLevel, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: 'w', partitions:
        [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: BigInt(fetchOffset), logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    }).then((r) => r.responses[0].partitions[0]);
    const values = (p: { records: Buffer | null }) =>
      decodeBatches(p.records).flatMap((b) => (b.header.isControl ? ['<marker>'] : b.records.map((r) => r.value!.toString())));
    const lso = async (isolationLevel: number) => (await leader.request(ListOffsets, 5, { replicaId: -1, isolationLevel, topics:
      [{ name: 'w', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }] })).topics[0].partitions[0].offset;

    let p = await fetch(1, start);
    expect(p).toMatchObject({ highWatermark: BigInt(start + 4), lastStableOffset: BigInt(abortedAt) });
    expect(values(p)).toEqual(['i0', 'i1']);
    expect(values(await fetch(0, start))).toEqual(['i0', 'i1', 'a0', 'a1']);
    expect(await lso(1)).toBe(BigInt(abortedAt));
    expect(await lso(0)).toBe(BigInt(start + 4));

    // A long-polling read_committed fetch at the LSO is released by the ABORT marker.
    const fetches = () => cluster.requestVersions.list('raw').filter((v) => v.api === 'Fetch').reduce((n, v) => n + v.count, 0);
    const fetchesBefore = fetches();
    const waiting = fetch(1, abortedAt, 20000);
    await until(() => fetches() > fetchesBefore, 'the long poll to reach the broker');
    expect((await coord.request(EndTxn, 3, { transactionalId: txnId, producerId: tp, producerEpoch: 0, committed: false })).errorCode)
      .toBe(0);
    p = await waiting;
    expect(p.lastStableOffset).toBe(BigInt(start + 5));
    expect(values(p)).toEqual(['a0', 'a1', '<marker>']);
    expect(p.abortedTransactions).toEqual([{ producerId: tp, firstOffset: BigInt(abortedAt) }]);

    // A committed transaction after it: no aborted transaction reported past the ABORT marker.
    await begin();
    expect(await produce(leader, { pid: tp, epoch: 0, seq: 2, values: ['c0'], txn: true, txnId })).toMatchObject({ errorCode: 0 });
    expect((await coord.request(EndTxn, 3, { transactionalId: txnId, producerId: tp, producerEpoch: 0, committed: true })).errorCode)
      .toBe(0);
    p = await fetch(1, start + 5);
    expect(values(p)).toEqual(['c0', '<marker>']);
    expect(p.abortedTransactions).toEqual([]);
    expect((await fetch(1, start)).abortedTransactions).toEqual([{ producerId: tp, firstOffset: BigInt(abortedAt) }]);
    expect((await fetch(0, start)).abortedTransactions).toBeNull();
    expect(await lso(1)).toBe(BigInt(start + 7));
  });
});
