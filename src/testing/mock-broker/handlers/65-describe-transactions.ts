/**
 * DescribeTransactions (key 65), v0 (KIP-664, flexible). For each transactional id this broker
 * coordinates: state (Kafka's names: Empty, Ongoing, PrepareCommit, ...), timeout, start time (-1
 * when no transaction is open), producer id and epoch, and the partitions of the transaction by
 * topic. Another broker's ids are NOT_COORDINATOR; unknown ids TRANSACTIONAL_ID_NOT_FOUND.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { DescribeTransactions } from '../../../protocol/messages/transactions';
import { isCoordinator } from './group-common';
import { defineHandler } from './types';

export const describeTransactionsHandler = defineHandler(DescribeTransactions, {
  minVersion: 0,
  maxVersion: 0,
  handle(req, ctx) {
    const transactionStates = req.transactionalIds.map((transactionalId) => {
      const base = {
        errorCode: 0, transactionalId, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: -1n,
        producerId: -1n, producerEpoch: -1, topics: [] as { topic: string; partitions: number[] }[],
      };
      if (!isCoordinator(ctx, transactionalId)) return { ...base, errorCode: ErrorCode.NOT_COORDINATOR };
      const txn = ctx.cluster.transactions.transaction(transactionalId);
      if (!txn) return { ...base, errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
      const byTopic = new Map<string, number[]>();
      for (const p of txn.partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
      return {
        ...base, transactionState: txn.state, transactionTimeoutMs: txn.timeoutMs, transactionStartTimeMs: BigInt(txn.startTimeMs),
        producerId: txn.producerId, producerEpoch: txn.producerEpoch,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      };
    });
    return { throttleTimeMs: 0, transactionStates };
  },
});
