/**
 * TxnOffsetCommit (key 28), v0-v4 (KIP-98). v1 = v0; v2 adds committedLeaderEpoch; v3 (KIP-447)
 * adds generationId, memberId and groupInstanceId, checked like an OffsetCommit's when given
 * (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID), and is flexible; v4 = v3 (its
 * clients accept TRANSACTION_ABORTABLE, KIP-890).
 *
 * Sent to the group coordinator (else NOT_COORDINATOR). Unknown partitions get
 * UNKNOWN_TOPIC_OR_PARTITION. The producer must hold the current epoch (else
 * INVALID_PRODUCER_EPOCH) and have added the group with AddOffsetsToTxn in its open transaction
 * (else INVALID_TXN_STATE, as Kafka's transaction verification answers older clients). The offsets
 * are staged and become visible in OffsetFetch only when the transaction commits.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { TxnOffsetCommit } from '../../../protocol/messages/transactions';
import { isCoordinator } from './group-common';
import { Body, defineHandler } from './types';

export const txnOffsetCommitHandler = defineHandler(TxnOffsetCommit, {
  minVersion: 0,
  maxVersion: 4,
  handle(req, ctx) {
    const { cluster } = ctx;
    const topics = req.topics;
    const answerAll = (errorCode: number) => ({
      throttleTimeMs: 0,
      topics: topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
    });
    if (!isCoordinator(ctx, req.groupId)) return answerAll(ErrorCode.NOT_COORDINATOR);
    const txnError = cluster.transactions.verifyOffsetCommit(req.transactionalId, req.producerId, req.producerEpoch, req.groupId);
    if (txnError !== ErrorCode.NONE) return answerAll(txnError);
    const exists = (topic: string, partition: number) => cluster.partition(topic, partition) !== undefined;
    const known = topics
      .map((t) => ({ ...t, partitions: t.partitions.filter((p) => exists(t.name, p.partitionIndex)) }))
      .filter((t) => t.partitions.length > 0);
    const res = known.length === 0 ? { topics: [] } : cluster.groups.txnCommitOffsets({
      groupId: req.groupId, producerId: req.producerId, generationId: req.generationId, memberId: req.memberId,
      groupInstanceId: req.groupInstanceId, topics: known,
    });
    const codes = new Map<string, number>();
    for (const t of res.topics) for (const p of t.partitions) codes.set(`${t.name}\0${p.partitionIndex}`, p.errorCode);
    return {
      throttleTimeMs: 0,
      topics: topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: codes.get(`${t.name}\0${p.partitionIndex}`) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        })),
      })),
    };
  },
});
