import type { ClusterState } from '../../../../src/testing/mock-broker/cluster';
import { ErrorCode } from '../../../../src/protocol/error-codes';
import { TransactionCoordinator } from '../../../../src/testing/mock-broker/transactions/coordinator';
import { lastStableOffset, producerState } from '../../../../src/testing/mock-broker/transactions/producer-state';
import { batch, clusterState } from './helpers';
import { until } from '../../../helpers/until';


describe('transaction coordinator', () => {
  let state: ClusterState;
  let tc: TransactionCoordinator;
  beforeEach(() => {
    state = clusterState();
    tc = state.transactions;
  });
  afterEach(() => state.close());

  const init = (id: string | null, expected: { producerId: bigint; producerEpoch: number } | null = null, timeoutMs = 60_000) =>
    tc.initProducerId(id, timeoutMs, expected);
  const transitions = (id: string) => state.events.entries({ type: 'txn.transition' })
    .filter((e) => e.data.transactionalId === id).map((e) => `${e.data.from}->${e.data.to}`);

  /** Writes one transactional record to t-0 as the Produce handler would. */
  function produceTxn(pid: bigint, epoch: number, seq: number): number {
    const log = state.partition('t', 0)!;
    const b = batch({ pid, epoch, seq, txn: true });
    const check = producerState(log).checkAppend([b], (p, e) => tc.verifyPartition(p, e, 't', 0));
    if (check.kind !== 'ok') return check.kind === 'error' ? check.errorCode : -999;
    check.apply(log.append([b], Date.now()));
    return ErrorCode.NONE;
  }

  test('idempotent producers get fresh ids at epoch 0', () => {
    const a = init(null);
    const b = init(null);
    expect(a).toMatchObject({ errorCode: 0, producerEpoch: 0 });
    expect(b.producerId).not.toBe(a.producerId);
  });

  test('InitProducerId validates the id and the timeout', () => {
    expect(init('').errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(init('x', null, 0).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    expect(init('x', null, 900_001).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
  });

  test('commit: Empty -> Ongoing -> PrepareCommit -> CompleteCommit, markers, LSO released, retry is NONE', () => {
    const { producerId, producerEpoch } = init('tx');
    expect(producerEpoch).toBe(0);
    expect(tc.transaction('tx')!.state).toBe('Empty');
    expect(produceTxn(producerId, 0, 0)).toBe(ErrorCode.INVALID_TXN_STATE); // not added yet
    expect(tc.addPartitions('tx', producerId, 0, [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }])).toBe(0);
    expect(tc.transaction('tx')!.state).toBe('Ongoing');
    expect(produceTxn(producerId, 0, 0)).toBe(0);
    expect(lastStableOffset(state.partition('t', 0)!)).toBe(0);
    expect(tc.endTxn('tx', producerId, 0, true)).toBe(0);
    expect(tc.transaction('tx')).toMatchObject({ state: 'CompleteCommit', partitions: [] });
    // A marker on both partitions, the one without data too.
    expect(state.partition('t', 0)!.logEndOffset).toBe(2);
    expect(state.partition('t', 1)!.logEndOffset).toBe(1);
    expect(lastStableOffset(state.partition('t', 0)!)).toBe(2);
    expect(tc.endTxn('tx', producerId, 0, true)).toBe(0);
    expect(tc.endTxn('tx', producerId, 0, false)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(transitions('tx')).toEqual(['Empty->Ongoing', 'Ongoing->PrepareCommit', 'PrepareCommit->CompleteCommit']);
  });

  test('EndTxn and AddPartitions errors: mapping, epoch, empty transaction', () => {
    const { producerId } = init('tx');
    expect(tc.endTxn('tx', producerId, 0, true)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(tc.endTxn('nope', producerId, 0, true)).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(tc.addPartitions('tx', producerId + 1n, 0, [{ topic: 't', partition: 0 }])).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(tc.addPartitions('tx', producerId, 1, [{ topic: 't', partition: 0 }])).toBe(ErrorCode.PRODUCER_FENCED);
    expect(tc.addOffsets('tx', producerId, 0, 'g')).toBe(0);
    expect(tc.verifyOffsetCommit('tx', producerId, 0, 'g')).toBe(0);
    expect(tc.verifyOffsetCommit('tx', producerId, 0, 'other')).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(tc.endTxn('tx', producerId, 0, false)).toBe(0);
    expect(tc.transaction('tx')!.state).toBe('CompleteAbort');
  });

  test('with a marker delay, Prepare* answers CONCURRENT_TRANSACTIONS until the markers are written', async () => {
    tc.config.markerDelayMs = 50;
    const { producerId } = init('tx');
    tc.addPartitions('tx', producerId, 0, [{ topic: 't', partition: 0 }]);
    expect(tc.endTxn('tx', producerId, 0, true)).toBe(0);
    expect(tc.transaction('tx')!.state).toBe('PrepareCommit');
    expect(tc.endTxn('tx', producerId, 0, true)).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(tc.endTxn('tx', producerId, 0, false)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(tc.addPartitions('tx', producerId, 0, [{ topic: 't', partition: 1 }])).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(init('tx').errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    await until(() => tc.transaction('tx')!.state === 'CompleteCommit', 'the commit markers', 5000);
    expect(tc.transaction('tx')!.state).toBe('CompleteCommit');
    expect(tc.addPartitions('tx', producerId, 0, [{ topic: 't', partition: 1 }])).toBe(0);
  });

  test('a new instance fences the old one: its open transaction is aborted with a bumped epoch', () => {
    const old = init('tx');
    tc.addPartitions('tx', old.producerId, 0, [{ topic: 't', partition: 0 }]);
    expect(produceTxn(old.producerId, 0, 0)).toBe(0);
    expect(init('tx').errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
    expect(tc.transaction('tx')).toMatchObject({ state: 'CompleteAbort', producerEpoch: 1 });
    const fresh = init('tx');
    expect(fresh).toMatchObject({ errorCode: 0, producerId: old.producerId, producerEpoch: 2 });
    const log = state.partition('t', 0)!;
    expect(producerState(log).abortedIn(0, 10)).toEqual([{ producerId: old.producerId, firstOffset: 0, lastOffset: 1 }]);
    expect(lastStableOffset(log)).toBe(2);
    // The old instance is fenced at the coordinator and at the partition.
    expect(tc.addPartitions('tx', old.producerId, 0, [{ topic: 't', partition: 0 }])).toBe(ErrorCode.PRODUCER_FENCED);
    expect(tc.endTxn('tx', old.producerId, 0, true)).toBe(ErrorCode.PRODUCER_FENCED);
    expect(produceTxn(old.producerId, 0, 1)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(transitions('tx')).toEqual([
      'Empty->Ongoing', 'Ongoing->PrepareEpochFence', 'PrepareEpochFence->PrepareAbort', 'PrepareAbort->CompleteAbort',
      'CompleteAbort->Empty',
    ]);
  });

  test('KIP-360: a producer may bump its own epoch; a stale expected epoch is fenced; a lost answer is retried', () => {
    const first = init('tx');
    const bumped = init('tx', { producerId: first.producerId, producerEpoch: 0 });
    expect(bumped).toMatchObject({ errorCode: 0, producerEpoch: 1 });
    // The answer was lost; the producer retries with the epoch it had: same result, no second bump.
    expect(init('tx', { producerId: first.producerId, producerEpoch: 0 })).toMatchObject({ errorCode: 0, producerEpoch: 1 });
    expect(init('tx', { producerId: first.producerId + 5n, producerEpoch: 1 }).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    init('tx'); // epoch 2 by another instance
    expect(init('tx', { producerId: first.producerId, producerEpoch: 0 }).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
  });

  test('an expired transaction is aborted and its producer fenced', async () => {
    const p = init('tx', null, 100);
    tc.addPartitions('tx', p.producerId, 0, [{ topic: 't', partition: 0 }]);
    expect(produceTxn(p.producerId, 0, 0)).toBe(0);
    await until(() => tc.transaction('tx')!.state === 'CompleteAbort', 'the timeout to abort the transaction', 10_000);
    expect(tc.transaction('tx')).toMatchObject({ state: 'CompleteAbort', producerEpoch: 1 });
    expect(lastStableOffset(state.partition('t', 0)!)).toBe(2);
    expect(tc.endTxn('tx', p.producerId, 0, true)).toBe(ErrorCode.PRODUCER_FENCED);
  });

  test('a producer fenced by its transaction timeout: its own InitProducerId is PRODUCER_FENCED, a new instance is not', async () => {
    const p = init('tx', null, 100);
    tc.addPartitions('tx', p.producerId, 0, [{ topic: 't', partition: 0 }]);
    await until(() => tc.transaction('tx')!.state === 'CompleteAbort', 'the timeout to abort the transaction', 10_000);
    // TransactionMetadata.prepareFenceProducerEpoch sets lastProducerEpoch to -1: the old epoch is neither current nor last.
    expect(init('tx', { producerId: p.producerId, producerEpoch: 0 }, 100).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    expect(init('tx', null, 100)).toMatchObject({ errorCode: ErrorCode.NONE, producerId: p.producerId, producerEpoch: 2 });
  });

  test('group offsets in a transaction become visible only on commit', () => {
    const { producerId } = init('tx');
    expect(tc.addOffsets('tx', producerId, 0, 'g')).toBe(0);
    const req = {
      groupId: 'g', producerId, generationId: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 42n, committedMetadata: null }] }],
    };
    expect(state.groups.txnCommitOffsets(req).topics[0].partitions[0].errorCode).toBe(0);
    const fetch = (requireStable: boolean) => state.groups.fetchOffsets({
      groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }], requireStable } as never).topics[0].partitions[0];
    expect(fetch(false)).toMatchObject({ committedOffset: -1n, errorCode: 0 });
    expect(fetch(true)).toMatchObject({ committedOffset: -1n, errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    expect(tc.endTxn('tx', producerId, 0, true)).toBe(0);
    expect(fetch(true)).toMatchObject({ committedOffset: 42n, errorCode: 0 });
    // Aborted offsets are dropped.
    tc.addOffsets('tx', producerId, 0, 'g');
    state.groups.txnCommitOffsets({
      ...req, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 99n, committedMetadata: null }] }] });
    expect(tc.endTxn('tx', producerId, 0, false)).toBe(0);
    expect(fetch(true)).toMatchObject({ committedOffset: 42n, errorCode: 0 });
  });
});
