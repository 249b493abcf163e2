/**
 * DescribeProducers (key 61), v0 (KIP-664, flexible). For each partition this broker leads: the
 * producers the partition keeps state for (idempotent and transactional), with epoch, last
 * sequence, the coordinator epoch of their last marker and the first offset of their open
 * transaction (-1 if none). lastTimestamp is -1: the mock does not keep it. Unknown partitions
 * are UNKNOWN_TOPIC_OR_PARTITION, others' NOT_LEADER_OR_FOLLOWER.
 */
import { DescribeProducers } from '../../../protocol/messages/transactions';
import { producerState } from '../transactions/producer-state';
import { Body, defineHandler, leaderLog } from './types';

export const describeProducersHandler = defineHandler(DescribeProducers, {
  minVersion: 0,
  maxVersion: 0,
  handle(req, ctx) {
    const topics = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => {
        const answer = (errorCode: number, errorMessage: string | null = null) =>
          ({ partitionIndex, errorCode, errorMessage, activeProducers: [] as object[] });
        const log = leaderLog(ctx, t.name, partitionIndex);
        if (typeof log === 'number') return answer(log);
        const activeProducers = producerState(log).activeProducers().map((p) => ({
          producerId: p.producerId, producerEpoch: p.epoch, lastSequence: p.lastSequence, lastTimestamp: -1n,
          coordinatorEpoch: p.coordinatorEpoch, currentTxnStartOffset: BigInt(p.txnStartOffset),
        }));
        return { ...answer(0), activeProducers };
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
});
