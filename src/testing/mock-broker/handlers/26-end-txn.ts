/**
 * EndTxn (key 26), v0-v4 (KIP-98). v1 = v0; v2 may answer PRODUCER_FENCED (older versions get
 * INVALID_PRODUCER_EPOCH, KIP-588); v3 is flexible; v4 = v3 (its clients accept
 * TRANSACTION_ABORTABLE, KIP-890). v5 (KIP-890 part 2, an epoch bump per transaction, with
 * producerId and producerEpoch in the answer) is marked unstable in Kafka's definitions, which
 * Kafka does not serve by default, so neither does the mock.
 *
 * committed=true writes COMMIT markers, false ABORT markers, to every partition of the transaction
 * and ends its group offsets (see transactions/coordinator.ts). A retry of a completed end with the
 * same result answers NONE; the opposite result INVALID_TXN_STATE; an end while the previous one is
 * still being written CONCURRENT_TRANSACTIONS; EndTxn with no transaction open INVALID_TXN_STATE.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { EndTxn } from '../../../protocol/messages/transactions';
import { isCoordinator } from './group-common';
import { defineHandler } from './types';

export const endTxnHandler = defineHandler(EndTxn, {
  minVersion: 0,
  maxVersion: 4,
  handle(req, ctx) {
    if (!req.transactionalId) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST };
    if (!isCoordinator(ctx, req.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR };
    const code = ctx.cluster.transactions.endTxn(req.transactionalId, req.producerId, req.producerEpoch, req.committed);
    return {
      throttleTimeMs: 0, errorCode: code === ErrorCode.PRODUCER_FENCED && ctx.version < 2 ? ErrorCode.INVALID_PRODUCER_EPOCH : code,
    };
  },
});
