/** Kafka's transaction state table (TransactionState.validPreviousStates) on the one StateMachine. */
import {
  canTransition, TXN_TRANSITIONS, TxnState, txnStateMachine,
} from '../../../../src/testing/mock-broker/transactions/state-machine';
import { IllegalTransitionError } from '../../../../src/util/state-machine';

const ALL: TxnState[] =
  ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'];

describe('transaction state machine table', () => {
  test('follows Kafka\'s validPreviousStates', () => {
    const legal = ALL.flatMap((from) => ALL.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`));
    expect(legal.sort()).toEqual([
      'CompleteAbort->Dead', 'CompleteAbort->Empty', 'CompleteAbort->Ongoing',
      'CompleteCommit->Dead', 'CompleteCommit->Empty', 'CompleteCommit->Ongoing',
      'Empty->Dead', 'Empty->Empty', 'Empty->Ongoing',
      'Ongoing->Ongoing', 'Ongoing->PrepareAbort', 'Ongoing->PrepareCommit', 'Ongoing->PrepareEpochFence',
      'PrepareAbort->CompleteAbort', 'PrepareCommit->CompleteCommit', 'PrepareEpochFence->PrepareAbort',
    ].sort());
    expect(Object.keys(TXN_TRANSITIONS).sort()).toEqual([...ALL].sort());
  });

  test('an illegal transition throws a typed error naming the transactional id and both states; every move is reported', () => {
    const seen: string[] = [];
    const m = txnStateMachine('tx', ({ from, to, reason }) => seen.push(`${from}->${to} (${reason})`));
    expect(() => m.to('PrepareCommit', 'EndTxn')).toThrow(IllegalTransitionError);
    m.to('Ongoing', 'AddPartitionsToTxn');
    m.to('PrepareCommit', 'EndTxn');
    m.to('CompleteCommit', 'markers written');
    expect(() => m.to('CompleteAbort', 'EndTxn')).toThrow(expect.objectContaining({
      code: 'ILLEGAL_TXN_TRANSITION', machine: "transactional id 'tx'", from: 'CompleteCommit', to: 'CompleteAbort',
    }));
    expect(seen).toEqual([
      'Empty->Ongoing (AddPartitionsToTxn)', 'Ongoing->PrepareCommit (EndTxn)', 'PrepareCommit->CompleteCommit (markers written)',
    ]);
  });
});

