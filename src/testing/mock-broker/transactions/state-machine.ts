/**
 * The transaction state of one transactional id, as Apache Kafka's `TransactionState`
 * (core/.../coordinator/transaction/TransactionMetadata.scala): one state value and a table of
 * legal previous states. An illegal transition throws {@link IllegalTxnTransitionError} by name
 * rather than leaving the metadata half-changed.
 *
 *   Empty ──AddPartitions/AddOffsets──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers──▶ CompleteCommit
 *                                          │ ╲──EndTxn(abort) / timeout──▶ PrepareAbort ──markers──▶ CompleteAbort
 *                                          ╰──InitProducerId (new producer)──▶ PrepareEpochFence ──▶ PrepareAbort
 *   CompleteCommit / CompleteAbort / Empty ──InitProducerId──▶ Empty;  ──AddPartitions──▶ Ongoing
 *
 * Dead exists for completeness (transactional-id expiration), which the mock never performs.
 */
import { KafkaEosError } from '../../../errors';

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

export class IllegalTxnTransitionError extends KafkaEosError {
  constructor(readonly transactionalId: string, readonly from: TxnState, readonly to: TxnState) {
    super('ILLEGAL_TXN_TRANSITION', `transactional id '${transactionalId}': illegal transition ${from} -> ${to}`);
  }
}

export function canTransition(from: TxnState, to: TxnState): boolean {
  return TXN_TRANSITIONS[to].includes(from);
}

/** Throws {@link IllegalTxnTransitionError} unless `from -> to` is in the table. */
export function checkTransition(transactionalId: string, from: TxnState, to: TxnState): void {
  if (!canTransition(from, to)) throw new IllegalTxnTransitionError(transactionalId, from, to);
}

/** States in which the transaction has partitions whose markers are not yet written. */
export function isInFlight(state: TxnState): boolean {
  return state === 'Ongoing' || state === 'PrepareCommit' || state === 'PrepareAbort' || state === 'PrepareEpochFence';
}
