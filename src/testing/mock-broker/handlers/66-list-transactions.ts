/**
 * ListTransactions (key 66), v0-v1 (KIP-664, flexible; v1 adds durationFilter, KIP-994). Lists the
 * transactional ids this broker coordinates (an admin client asks every broker), filtered by
 * state names (unknown names are echoed in unknownStateFilters, as Kafka does), producer ids, and
 * (v1) by having run at least durationFilter ms.
 */
import { ListTransactions } from '../../../protocol/messages/transactions';
import { TXN_TRANSITIONS, TxnState } from '../transactions/state-machine';
import { isCoordinator } from './group-common';
import { defineHandler } from './types';

export const listTransactionsHandler = defineHandler(ListTransactions, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    const stateFilters = req.stateFilters;
    const known = new Set(Object.keys(TXN_TRANSITIONS));
    const states = new Set(stateFilters.filter((s) => known.has(s)) as TxnState[]);
    const producerIds = new Set(req.producerIdFilters as bigint[]);
    const duration = Number(req.durationFilter);
    const now = Date.now();
    const transactionStates = ctx.cluster.transactions.transactions()
      .filter((t) => isCoordinator(ctx, t.transactionalId))
      .filter((t) => stateFilters.length === 0 || states.has(t.state))
      .filter((t) => producerIds.size === 0 || producerIds.has(t.producerId))
      .filter((t) => duration < 0 || now - t.startTimeMs >= duration)
      .map((t) => ({ transactionalId: t.transactionalId, producerId: t.producerId, transactionState: t.state }));
    return { throttleTimeMs: 0, errorCode: 0, unknownStateFilters: stateFilters.filter((s) => !known.has(s)), transactionStates };
  },
});
