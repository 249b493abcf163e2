/**
 * The state of KafkaSink's transactional producer: one state value and its transition table (util/state-machine.ts),
 * after Java's `TransactionManager.State` and KafkaJS's `transactionStateMachine.js`, with the states this producer
 * needs and no more:
 *
 * - `uninitialized`: it has no producer id and epoch it may use: before the first InitProducerId, and after a
 *   transaction whose outcome is unknown (retries of EndTxn spent) or an abort that failed. An EndTxn whose outcome
 *   is unknown is sent again first (→ `committing` / `aborting`, same epoch); then InitProducerId, with the last
 *   producer id and epoch when it had them (KIP-360).
 * - `initializing`: InitProducerId under way (CONCURRENT_TRANSACTIONS retried while an older instance's transaction
 *   is being fenced and aborted).
 * - `ready`: no transaction open; a write may begin one.
 * - `in-transaction`: AddPartitionsToTxn, Produce, AddOffsetsToTxn and TxnOffsetCommit of one write.
 * - `committing` / `aborting`: EndTxn under way.
 * - `fenced`: a producer with the same transactional id and a newer epoch exists, or the coordinator bumped the
 *   epoch when this producer's transaction timed out. It commits nothing more; it may only try InitProducerId
 *   with its producer id and epoch again (KIP-588), which succeeds only when no other instance took over.
 * - `closed`: close() was called; terminal.
 */
import { StateMachine, type Transition } from '../../util/state-machine';

/** A state of the transactional producer (see the module comment). */
export type TxnProducerState =
  | 'uninitialized' | 'initializing' | 'ready' | 'in-transaction' | 'committing' | 'aborting' | 'fenced' | 'closed';

/** The transition table: from → allowed next states. */
export const TXN_PRODUCER_TRANSITIONS: Readonly<Record<TxnProducerState, readonly TxnProducerState[]>> = {
  uninitialized: ['initializing', 'committing', 'aborting', 'closed'],
  initializing: ['ready', 'uninitialized', 'fenced', 'closed'],
  ready: ['in-transaction', 'initializing', 'closed'],
  'in-transaction': ['committing', 'aborting', 'uninitialized', 'fenced'],
  committing: ['ready', 'aborting', 'uninitialized', 'fenced'],
  aborting: ['ready', 'uninitialized', 'fenced'],
  fenced: ['initializing', 'closed'],
  closed: [],
};

/** A new state machine of one transactional producer, named after its transactional id. */
export function txnProducerStateMachine(
  transactionalId: string, onTransition?: (t: Transition<TxnProducerState>) => void,
): StateMachine<TxnProducerState> {
  return new StateMachine<TxnProducerState>({
    name: `transactional producer '${transactionalId}'`, initial: 'uninitialized', transitions: TXN_PRODUCER_TRANSITIONS, onTransition,
  });
}
