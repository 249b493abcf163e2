/**
 * AddOffsetsToTxn (key 25), v0-v4 (KIP-98). v1 = v0; v2 may answer PRODUCER_FENCED (older
 * versions get INVALID_PRODUCER_EPOCH, KIP-588); v3 is flexible; v4 = v3 (its clients accept
 * TRANSACTION_ABORTABLE, KIP-890).
 *
 * Adds the group's offsets partition to the transaction, so that EndTxn later commits or drops
 * the offsets sent with TxnOffsetCommit. Sent to the transaction coordinator (else NOT_COORDINATOR);
 * errors as AddPartitionsToTxn.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { AddOffsetsToTxn } from '../../../protocol/messages/transactions';
import { isCoordinator } from './group-common';
import { defineHandler } from './types';

export const addOffsetsToTxnHandler = defineHandler(AddOffsetsToTxn, {
  minVersion: 0,
  maxVersion: 4,
  handle(req, ctx) {
    if (!req.transactionalId) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST };
    if (!isCoordinator(ctx, req.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR };
    if (!req.groupId) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_GROUP_ID };
    const code = ctx.cluster.transactions.addOffsets(req.transactionalId, req.producerId, req.producerEpoch, req.groupId);
    return {
      throttleTimeMs: 0, errorCode: code === ErrorCode.PRODUCER_FENCED && ctx.version < 2 ? ErrorCode.INVALID_PRODUCER_EPOCH : code,
    };
  },
});
