/**
 * Idempotent-producer and transaction messages (KIP-98): InitProducerId, AddPartitionsToTxn,
 * AddOffsetsToTxn, EndTxn, TxnOffsetCommit. Field names and version ranges follow Apache Kafka's
 * message definitions; AddPartitionsToTxn's `V3AndBelow*` fields are named without the prefix
 * (v4+ adds the batched form of KIP-890 beside them: `transactions` and `resultsByTransaction`).
 */
import { arr, arrOf, f, Field, message } from '../schema';

export const InitProducerId = message('InitProducerId', 22, '0-5', '2+', [
  f('transactionalId', 'string', '0+', { nullable: '0+' }),
  f('transactionTimeoutMs', 'int32', '0+'),
  f('producerId', 'int64', '3+', { default: -1n }),
  f('producerEpoch', 'int16', '3+', { default: -1 }),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
  f('producerId', 'int64', '0+', { default: -1n }),
  f('producerEpoch', 'int16', '0+'),
]);

const addPartitionsTopic = (): Field[] => [f('name', 'string', '0+'), arrOf('partitions', 'int32', '0+')];
const addPartitionsTopicResult = (): Field[] => [
  f('name', 'string', '0+'),
  arr('resultsByPartition', '0+', [f('partitionIndex', 'int32', '0+'), f('partitionErrorCode', 'int16', '0+')]),
];

export const AddPartitionsToTxn = message('AddPartitionsToTxn', 24, '0-5', '3+', [
  arr('transactions', '4+', [
    f('transactionalId', 'string', '4+'),
    f('producerId', 'int64', '4+'),
    f('producerEpoch', 'int16', '4+'),
    f('verifyOnly', 'bool', '4+'),
    arr('topics', '4+', addPartitionsTopic()),
  ]),
  f('transactionalId', 'string', '0-3'),
  f('producerId', 'int64', '0-3'),
  f('producerEpoch', 'int16', '0-3'),
  arr('topics', '0-3', addPartitionsTopic()),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '4+'),
  arr('resultsByTransaction', '4+', [f('transactionalId', 'string', '4+'), arr('topicResults', '4+', addPartitionsTopicResult())]),
  arr('resultsByTopic', '0-3', addPartitionsTopicResult()),
]);

export const AddOffsetsToTxn = message('AddOffsetsToTxn', 25, '0-4', '3+', [
  f('transactionalId', 'string', '0+'),
  f('producerId', 'int64', '0+'),
  f('producerEpoch', 'int16', '0+'),
  f('groupId', 'string', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
]);

export const EndTxn = message('EndTxn', 26, '0-5', '3+', [
  f('transactionalId', 'string', '0+'),
  f('producerId', 'int64', '0+'),
  f('producerEpoch', 'int16', '0+'),
  f('committed', 'bool', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
]);

export const TxnOffsetCommit = message('TxnOffsetCommit', 28, '0-4', '3+', [
  f('transactionalId', 'string', '0+'),
  f('groupId', 'string', '0+'),
  f('producerId', 'int64', '0+'),
  f('producerEpoch', 'int16', '0+'),
  f('generationId', 'int32', '3+', { default: -1 }),
  f('memberId', 'string', '3+'),
  f('groupInstanceId', 'string', '3+', { nullable: '3+' }),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [
      f('partitionIndex', 'int32', '0+'),
      f('committedOffset', 'int64', '0+'),
      f('committedLeaderEpoch', 'int32', '2+', { default: -1 }),
      f('committedMetadata', 'string', '0+', { nullable: '0+' }),
    ]),
  ]),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')]),
  ]),
]);

export const ListTransactions = message('ListTransactions', 66, '0-1', '0+', [
  arrOf('stateFilters', 'string', '0+'),
  arrOf('producerIdFilters', 'int64', '0+'),
  f('durationFilter', 'int64', '1+', { default: -1n }),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
  arrOf('unknownStateFilters', 'string', '0+'),
  arr('transactionStates', '0+', [
    f('transactionalId', 'string', '0+'), f('producerId', 'int64', '0+'), f('transactionState', 'string', '0+'),
  ]),
]);

export const DescribeTransactions = message('DescribeTransactions', 65, '0', '0+', [
  arrOf('transactionalIds', 'string', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('transactionStates', '0+', [
    f('errorCode', 'int16', '0+'),
    f('transactionalId', 'string', '0+'),
    f('transactionState', 'string', '0+'),
    f('transactionTimeoutMs', 'int32', '0+'),
    f('transactionStartTimeMs', 'int64', '0+'),
    f('producerId', 'int64', '0+'),
    f('producerEpoch', 'int16', '0+'),
    arr('topics', '0+', [f('topic', 'string', '0+'), arrOf('partitions', 'int32', '0+')]),
  ]),
]);

export const DescribeProducers = message('DescribeProducers', 61, '0', '0+', [
  arr('topics', '0+', [f('name', 'string', '0+'), arrOf('partitionIndexes', 'int32', '0+')]),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [
      f('partitionIndex', 'int32', '0+'),
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
      arr('activeProducers', '0+', [
        f('producerId', 'int64', '0+'),
        f('producerEpoch', 'int32', '0+'),
        f('lastSequence', 'int32', '0+', { default: -1 }),
        f('lastTimestamp', 'int64', '0+', { default: -1n }),
        f('coordinatorEpoch', 'int32', '0+'),
        f('currentTxnStartOffset', 'int64', '0+', { default: -1n }),
      ]),
    ]),
  ]),
]);
