/**
 * AddPartitionsToTxn (key 24), v0-v3 (KIP-98): the client form, one transaction per request.
 * v1 = v0; v2 may answer PRODUCER_FENCED (older versions get INVALID_PRODUCER_EPOCH, KIP-588);
 * v3 is flexible. v4+ (KIP-890, broker-to-broker batches and VerifyOnly) is not served.
 *
 * Sent to the transaction coordinator (else NOT_COORDINATOR on every partition). Unknown
 * partitions get UNKNOWN_TOPIC_OR_PARTITION and the others OPERATION_NOT_ATTEMPTED, as KafkaApis
 * answers; otherwise one error for all: INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
 * CONCURRENT_TRANSACTIONS (commit or abort still in progress), or NONE.
 */
import { ErrorCode } from '../../protocol/error-codes';
import { AddPartitionsToTxn } from '../../protocol/messages/transactions';
import { isCoordinator } from './group-common';
import { Body, defineHandler } from './types';

/** OPERATION_NOT_ATTEMPTED (55): the request failed because of another partition. */
export const OPERATION_NOT_ATTEMPTED = 55;

export const addPartitionsToTxnHandler = defineHandler(AddPartitionsToTxn, {
  minVersion: 0,
  maxVersion: 3,
  handle(req, ctx) {
    const topics = req.topics;
    const answer = (code: (topic: string, partition: number) => number) => ({
      throttleTimeMs: 0,
      resultsByTopic: topics.map((t) => ({
        name: t.name,
        resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: code(t.name, p) })),
      })),
    });
    if (!req.transactionalId) return answer(() => ErrorCode.INVALID_REQUEST);
    if (!isCoordinator(ctx, req.transactionalId)) return answer(() => ErrorCode.NOT_COORDINATOR);
    const exists = (topic: string, partition: number) => ctx.cluster.partition(topic, partition) !== undefined;
    if (topics.some((t) => t.partitions.some((p) => !exists(t.name, p)))) {
      return answer((topic, p) => (exists(topic, p) ? OPERATION_NOT_ATTEMPTED : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
    }
    const partitions = topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
    const code = ctx.cluster.transactions.addPartitions(req.transactionalId, req.producerId, req.producerEpoch, partitions);
    const errorCode = code === ErrorCode.PRODUCER_FENCED && ctx.version < 2 ? ErrorCode.INVALID_PRODUCER_EPOCH : code;
    return answer(() => errorCode);
  },
});
