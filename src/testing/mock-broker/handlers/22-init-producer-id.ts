/**
 * InitProducerId (key 22), v0-v5 (KIP-98). v1 = v0; v2 is flexible; v3 adds producerId and
 * producerEpoch so a producer can bump its own epoch after an error (KIP-360: -1/-1 means "none",
 * one of them -1 alone is INVALID_REQUEST); v4 may answer PRODUCER_FENCED, which older versions
 * receive as INVALID_PRODUCER_EPOCH (KIP-588); v5 = v4 (its clients accept TRANSACTION_ABORTABLE,
 * KIP-890). v6 (KIP-939, two-phase commit) is not in Kafka 4.0's definitions.
 *
 * A null transactionalId asks for an idempotent producer id (any broker answers, epoch 0). A
 * transactional id must be sent to its transaction coordinator (FindCoordinator keyType 1), else
 * NOT_COORDINATOR. An open transaction of an older instance is fenced and aborted first, and the
 * caller gets CONCURRENT_TRANSACTIONS to retry (see transactions/coordinator.ts).
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { InitProducerId } from '../../../protocol/messages/transactions';
import { isCoordinator } from './group-common';
import { defineHandler } from './types';

export const initProducerIdHandler = defineHandler(InitProducerId, {
  minVersion: 0,
  maxVersion: 5,
  handle(req, ctx) {
    const error = (errorCode: number) => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 });
    const transactionalId: string | null = req.transactionalId;
    if (transactionalId !== null && transactionalId !== '' && !isCoordinator(ctx, transactionalId)) return error(ErrorCode.NOT_COORDINATOR);
    const pid: bigint = req.producerId;
    const epoch: number = req.producerEpoch;
    if ((pid === -1n) !== (epoch === -1)) return error(ErrorCode.INVALID_REQUEST);
    const expected = pid === -1n ? null : { producerId: pid, producerEpoch: epoch };
    const res = ctx.cluster.transactions.initProducerId(transactionalId, req.transactionTimeoutMs, expected);
    const errorCode = res.errorCode === ErrorCode.PRODUCER_FENCED && ctx.version < 4 ? ErrorCode.INVALID_PRODUCER_EPOCH : res.errorCode;
    return { throttleTimeMs: 0, errorCode, producerId: res.producerId, producerEpoch: res.producerEpoch };
  },
});
