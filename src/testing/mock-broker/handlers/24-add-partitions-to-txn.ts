/**
 * AddPartitionsToTxn (key 24), v0-v5 (KIP-98, KIP-890). v0-v3 are the client form, one transaction
 * per request: v1 = v0; v2 may answer PRODUCER_FENCED (older versions get INVALID_PRODUCER_EPOCH,
 * KIP-588); v3 is flexible. v4 (KIP-890, sent by partition leaders to the transaction coordinator)
 * batches transactions, each answered in resultsByTransaction, and adds verifyOnly: check that the
 * partitions are in the transaction without adding them (see TransactionCoordinator.verifyPartitions).
 * v5 = v4 (its callers accept TRANSACTION_ABORTABLE). Kafka requires CLUSTER_ACTION for v4+; the mock
 * has no authorizer, as a Kafka without one allows it. The top-level errorCode (v4+) stays NONE.
 *
 * Sent to the transaction coordinator (else NOT_COORDINATOR on every partition). Unknown
 * partitions get UNKNOWN_TOPIC_OR_PARTITION and the others OPERATION_NOT_ATTEMPTED, as KafkaApis
 * answers; otherwise one error for all: INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
 * CONCURRENT_TRANSACTIONS (commit or abort still in progress), or NONE.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { AddPartitionsToTxn } from '../../../protocol/messages/transactions';
import { isCoordinator } from './group-common';
import { Body, defineHandler, HandlerContext } from './types';

/** OPERATION_NOT_ATTEMPTED (55): the request failed because of another partition. */
export const OPERATION_NOT_ATTEMPTED = 55;

interface Txn { transactionalId: string; producerId: bigint; producerEpoch: number; verifyOnly: boolean; topics: Body[] }

/** One transaction's topic results, each partition answered by `code`. */
function results(txn: Txn, version: number, ctx: HandlerContext): Body[] {
  const answer = (code: (topic: string, partition: number, i: number) => number) => {
    let i = 0;
    return txn.topics.map((t) => ({
      name: t.name,
      resultsByPartition: (t.partitions as number[]).map((p) => ({ partitionIndex: p, partitionErrorCode: code(t.name, p, i++) })),
    }));
  };
  if (!txn.transactionalId) return answer(() => ErrorCode.INVALID_REQUEST);
  if (!isCoordinator(ctx, txn.transactionalId)) return answer(() => ErrorCode.NOT_COORDINATOR);
  const exists = (topic: string, partition: number) => ctx.cluster.partition(topic, partition) !== undefined;
  if (txn.topics.some((t) => (t.partitions as number[]).some((p) => !exists(t.name, p)))) {
    return answer((topic, p) => (exists(topic, p) ? OPERATION_NOT_ATTEMPTED : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
  }
  const partitions = txn.topics.flatMap((t) => (t.partitions as number[]).map((partition) => ({ topic: t.name as string, partition })));
  const { transactions } = ctx.cluster;
  if (txn.verifyOnly) {
    const verified = transactions.verifyPartitions(txn.transactionalId, txn.producerId, txn.producerEpoch, partitions);
    return answer((_t, _p, i) => (typeof verified === 'number' ? verified : verified[i]));
  }
  const code = transactions.addPartitions(txn.transactionalId, txn.producerId, txn.producerEpoch, partitions);
  const errorCode = code === ErrorCode.PRODUCER_FENCED && version < 2 ? ErrorCode.INVALID_PRODUCER_EPOCH : code;
  return answer(() => errorCode);
}

export const addPartitionsToTxnHandler = defineHandler(AddPartitionsToTxn, {
  minVersion: 0,
  maxVersion: 5,
  handle(req, ctx) {
    if (ctx.version < 4) {
      const { transactionalId, producerId, producerEpoch, topics } = req;
      const txn: Txn = { transactionalId, producerId, producerEpoch, verifyOnly: false, topics };
      return { throttleTimeMs: 0, resultsByTopic: results(txn, ctx.version, ctx) };
    }
    const resultsByTransaction = (req.transactions as Txn[])
      .map((txn) => ({ transactionalId: txn.transactionalId, topicResults: results(txn, ctx.version, ctx) }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction };
  },
});
