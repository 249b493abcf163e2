/**
 * The transaction state of one transactional id, as Apache Kafka's `TransactionState`
 * (core/.../coordinator/transaction/TransactionMetadata.scala): one state value and a table of
 * legal previous states, run by the one {@link StateMachine}. An illegal transition throws by name
 * (ILLEGAL_TXN_TRANSITION) rather than leaving the metadata half-changed.
 *
 *   Empty ──AddPartitions/AddOffsets──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers──▶ CompleteCommit
 *                                          │ ╲──EndTxn(abort) / timeout──▶ PrepareAbort ──markers──▶ CompleteAbort
 *                                          ╰──InitProducerId (new producer)──▶ PrepareEpochFence ──▶ PrepareAbort
 *   CompleteCommit / CompleteAbort / Empty ──InitProducerId──▶ Empty;  ──AddPartitions──▶ Ongoing
 *
 * Dead exists for completeness (transactional-id expiration), which the mock never performs.
 */
import { StateMachine } from '../../../util/state-machine';
import type { Transition } from '../../../util/state-machine';

export type TxnState =
  | 'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort' | 'Dead' | 'PrepareEpochFence';

/** Legal previous states of each state (Kafka's `validPreviousStates`). */
export const TXN_TRANSITIONS: Readonly<Record<TxnState, readonly TxnState[]>> = {
  Empty: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  Ongoing: ['Ongoing', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareCommit: ['Ongoing'],
  PrepareAbort: ['Ongoing', 'PrepareEpochFence'],
  CompleteCommit: ['PrepareCommit'],
  CompleteAbort: ['PrepareAbort'],
  Dead: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareEpochFence: ['Ongoing'],
};

/** Whether the table allows `from -> to`. */
export function canTransition(from: TxnState, to: TxnState): boolean {
  return TXN_TRANSITIONS[to].includes(from);
}

/**
 * The state of one transactional id: a {@link StateMachine} over {@link TXN_TRANSITIONS}, starting Empty. An illegal
 * move throws IllegalTransitionError with code ILLEGAL_TXN_TRANSITION naming the transactional id; every move is
 * reported to `onTransition` (the coordinator puts the changes in the event log).
 */
export function txnStateMachine(transactionalId: string, onTransition: (t: Transition<TxnState>) => void): StateMachine<TxnState> {
  return new StateMachine<TxnState>({
    name: `transactional id '${transactionalId}'`, initial: 'Empty', previous: TXN_TRANSITIONS, errorCode: 'ILLEGAL_TXN_TRANSITION',
    onTransition,
  });
}

/** States in which the transaction has partitions whose markers are not yet written. */
export function isInFlight(state: TxnState): boolean {
  return state === 'Ongoing' || state === 'PrepareCommit' || state === 'PrepareAbort' || state === 'PrepareEpochFence';
}
