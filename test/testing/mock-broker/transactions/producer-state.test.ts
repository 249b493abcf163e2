import { ErrorCode } from '../../../../src/protocol/error-codes';
import { decodeBatch } from '../../../../src/protocol/record-batch';
import type { PartitionLog } from '../../../../src/testing/mock-broker/partition-log';
import {
  ControlType, INVALID_RECORD, lastSequence, lastStableOffset, NUM_BATCHES_TO_RETAIN, producerState, TxnVerifier,
} from '../../../../src/testing/mock-broker/transactions/producer-state';
import { batch, BatchSpec, clusterState } from './helpers';

const allow: TxnVerifier = () => ErrorCode.NONE;

describe('per-partition producer state (sequence checks, LSO, aborted index)', () => {
  let log: PartitionLog;
  let close: () => void;
  beforeEach(() => {
    const state = clusterState();
    log = state.partition('t', 0)!;
    close = () => state.close();
  });
  afterEach(() => close());

  /** Produces one batch through the checks as the Produce handler does; returns the outcome. */
  function produce(spec: BatchSpec, verify: TxnVerifier = allow): { kind: string; offset?: number; errorCode?: number } {
    const b = batch(spec);
    const check = producerState(log).checkAppend([b], verify);
    if (check.kind === 'error') return { kind: 'error', errorCode: check.errorCode };
    if (check.kind === 'duplicate') return { kind: 'duplicate', offset: check.firstOffset };
    const offset = log.append([b], Date.now());
    check.apply(offset);
    return { kind: 'ok', offset };
  }

  test('in-order batches append; a retried batch is answered with its original offset and not appended', () => {
    expect(produce({ pid: 7n, epoch: 0, seq: 0, count: 3 })).toEqual({ kind: 'ok', offset: 0 });
    expect(produce({ pid: 7n, epoch: 0, seq: 3, count: 2 })).toEqual({ kind: 'ok', offset: 3 });
    expect(produce({ pid: 7n, epoch: 0, seq: 0, count: 3 })).toEqual({ kind: 'duplicate', offset: 0 });
    expect(produce({ pid: 7n, epoch: 0, seq: 3, count: 2 })).toEqual({ kind: 'duplicate', offset: 3 });
    expect(log.logEndOffset).toBe(5);
    expect(producerState(log).producer(7n)).toEqual({ epoch: 0, lastSequence: 4 });
  });

  test('only the last 5 batches are remembered: an older retry is out of order', () => {
    for (let i = 0; i < NUM_BATCHES_TO_RETAIN + 1; i++) expect(produce({ pid: 1n, epoch: 0, seq: i }).kind).toBe('ok');
    expect(produce({ pid: 1n, epoch: 0, seq: 1 }).kind).toBe('duplicate');
    expect(produce({ pid: 1n, epoch: 0, seq: 0 })).toEqual({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
  });

  test('a gap is OUT_OF_ORDER_SEQUENCE_NUMBER and changes nothing', () => {
    produce({ pid: 1n, epoch: 0, seq: 0 });
    expect(produce({ pid: 1n, epoch: 0, seq: 2 })).toEqual({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(log.logEndOffset).toBe(1);
    expect(produce({ pid: 1n, epoch: 0, seq: 1 }).kind).toBe('ok');
  });

  test('an unknown producer is accepted at any sequence (KIP-360), a new epoch must start at 0, an old epoch is fenced', () => {
    expect(produce({ pid: 9n, epoch: 3, seq: 42 }).kind).toBe('ok');
    expect(produce({ pid: 9n, epoch: 4, seq: 5 })).toEqual({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(produce({ pid: 9n, epoch: 4, seq: 0 }).kind).toBe('ok');
    expect(produce({ pid: 9n, epoch: 3, seq: 43 })).toEqual({ kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
  });

  test('sequence numbers wrap from Int32 max to 0', () => {
    expect(lastSequence(0x7ffffffe, 2)).toBe(0);
    expect(produce({ pid: 2n, epoch: 0, seq: 0x7ffffffe, count: 3 }).kind).toBe('ok'); // sequences 0x7ffffffe, 0x7fffffff, 0
    expect(produce({ pid: 2n, epoch: 0, seq: 1 }).kind).toBe('ok');
  });

  test('several batches of one request are checked against each other, and all fail together', () => {
    const s = producerState(log);
    const bad = s.checkAppend([batch({ pid: 3n, epoch: 0, seq: 0 }), batch({ pid: 3n, epoch: 0, seq: 5 })], allow);
    expect(bad).toMatchObject({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(s.producer(3n)).toBeUndefined();
    const two = [batch({ pid: 3n, epoch: 0, seq: 0, count: 2 }), batch({ pid: 3n, epoch: 0, seq: 2 })];
    const ok = s.checkAppend(two, allow);
    if (ok.kind !== 'ok') throw new Error(`expected ok, got ${ok.kind}`);
    ok.apply(log.append(two, Date.now()));
    expect(s.producer(3n)).toEqual({ epoch: 0, lastSequence: 2 });
    expect(produce({ pid: 3n, epoch: 0, seq: 2 })).toEqual({ kind: 'duplicate', offset: 2 });
  });

  test('client control batches are INVALID_RECORD', () => {
    expect(produce({ pid: 1n, epoch: 0, seq: 0, txn: true, control: true })).toEqual({ kind: 'error', errorCode: INVALID_RECORD });
  });

  test('a transaction holds the LSO at its first offset until its marker; aborted ranges are indexed', () => {
    produce({ count: 2 }); // offsets 0-1, plain
    expect(produce({ pid: 5n, epoch: 0, seq: 0, txn: true, count: 3 })).toEqual({ kind: 'ok', offset: 2 });
    expect(produce({ pid: 6n, epoch: 0, seq: 0, txn: true })).toEqual({ kind: 'ok', offset: 5 });
    expect(log.highWatermark).toBe(6);
    expect(lastStableOffset(log)).toBe(2);
    const s = producerState(log);
    expect(s.writeMarker(5n, 0, ControlType.Abort, 0)).toBe(6);
    expect(lastStableOffset(log)).toBe(5);
    expect(s.writeMarker(6n, 0, ControlType.Commit, 0)).toBe(7);
    expect(lastStableOffset(log)).toBe(8);
    expect(s.abortedIn(0, 8)).toEqual([{ producerId: 5n, firstOffset: 2, lastOffset: 6 }]);
    expect(s.abortedIn(7, 8)).toEqual([]);
    expect(s.abortedIn(0, 2)).toEqual([]);
    const marker = decodeBatch(log.liveBatches()[log.liveBatches().length - 1].bytes);
    expect(marker.header).toMatchObject({ isControl: true, isTransactional: true, producerId: 6n, producerEpoch: 0 });
    expect([...marker.records[0].key!]).toEqual([0, 0, 0, 1]); // version 0, COMMIT
    expect([...marker.records[0].value!]).toEqual([0, 0, 0, 0, 0, 0]); // version 0, coordinator epoch 0
  });

  test('transactional writes need the coordinator\'s say-so; a plain write during a transaction is INVALID_TXN_STATE', () => {
    const deny: TxnVerifier = () => ErrorCode.INVALID_TXN_STATE;
    expect(produce({ pid: 5n, epoch: 0, seq: 0, txn: true }, deny)).toEqual({ kind: 'error', errorCode: ErrorCode.INVALID_TXN_STATE });
    expect(produce({ pid: 5n, epoch: 0, seq: 0, txn: true })).toEqual({ kind: 'ok', offset: 0 });
    // Once open here, later batches of the transaction are not re-verified.
    expect(produce({ pid: 5n, epoch: 0, seq: 1, txn: true }, deny)).toEqual({ kind: 'ok', offset: 1 });
    expect(produce({ pid: 5n, epoch: 0, seq: 2 })).toEqual({ kind: 'error', errorCode: ErrorCode.INVALID_TXN_STATE });
  });

  test('a marker with a bumped epoch fences the old epoch at the partition', () => {
    produce({ pid: 5n, epoch: 0, seq: 0, txn: true });
    producerState(log).writeMarker(5n, 1, ControlType.Abort, 0);
    expect(produce({ pid: 5n, epoch: 0, seq: 1, txn: true })).toEqual({ kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
    expect(produce({ pid: 5n, epoch: 2, seq: 0, txn: true }).kind).toBe('ok');
  });
});
