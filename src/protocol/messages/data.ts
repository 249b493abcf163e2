/**
 * Data-plane and discovery messages: ApiVersions, Metadata, Produce, Fetch, ListOffsets.
 * Field names and version ranges follow Apache Kafka's message definitions
 * (clients/src/main/resources/common/message/*.json).
 */
import { arr, arrOf, f, Field, message, struct } from '../schema';

/** KIP-951's LeaderIdAndEpoch (Produce v10+, Fetch v12+): the partition's current leader, sent with NOT_LEADER_OR_FOLLOWER. */
const leaderIdAndEpoch = (v: string): Field[] => [
  f('leaderId', 'int32', v, { default: -1 }), f('leaderEpoch', 'int32', v, { default: -1 }),
];

/** KIP-951's NodeEndpoint (Produce v10+, Fetch v16+): how to reach the leaders named in currentLeader. */
const nodeEndpoint = (v: string): Field[] => [
  f('nodeId', 'int32', v), f('host', 'string', v), f('port', 'int32', v), f('rack', 'string', v, { nullable: v, default: null }),
];

export const ApiVersions = message('ApiVersions', 18, '0-4', '3+', [
  f('clientSoftwareName', 'string', '3+'),
  f('clientSoftwareVersion', 'string', '3+'),
], [
  f('errorCode', 'int16', '0+'),
  arr('apiKeys', '0+', [f('apiKey', 'int16', '0+'), f('minVersion', 'int16', '0+'), f('maxVersion', 'int16', '0+')]),
  f('throttleTimeMs', 'int32', '1+'),
  arr('supportedFeatures', '3+', [f('name', 'string', '3+'), f('minVersion', 'int16', '3+'), f('maxVersion', 'int16', '3+')], { tag: 0 }),
  f('finalizedFeaturesEpoch', 'int64', '3+', { tag: 1, default: -1n }),
  arr(
    'finalizedFeatures', '3+', [f('name', 'string', '3+'), f('maxVersionLevel', 'int16', '3+'), f('minVersionLevel', 'int16', '3+')],
    { tag: 2 },
  ),
  f('zkMigrationReady', 'bool', '3+', { tag: 3, default: false }),
]);

export const Metadata = message('Metadata', 3, '0-12', '9+', [
  arr('topics', '0+', [f('topicId', 'uuid', '10+'), f('name', 'string', '0+', { nullable: '10+' })], { nullable: '1+' }),
  f('allowAutoTopicCreation', 'bool', '4+', { default: true }),
  f('includeClusterAuthorizedOperations', 'bool', '8-10'),
  f('includeTopicAuthorizedOperations', 'bool', '8+'),
], [
  f('throttleTimeMs', 'int32', '3+'),
  arr('brokers', '0+', [
    f('nodeId', 'int32', '0+'), f('host', 'string', '0+'), f('port', 'int32', '0+'),
    f('rack', 'string', '1+', { nullable: '1+' }),
  ]),
  f('clusterId', 'string', '2+', { nullable: '2+' }),
  f('controllerId', 'int32', '1+', { default: -1 }),
  arr('topics', '0+', [
    f('errorCode', 'int16', '0+'),
    f('name', 'string', '0+', { nullable: '12+' }),
    f('topicId', 'uuid', '10+'),
    f('isInternal', 'bool', '1+'),
    arr('partitions', '0+', [
      f('errorCode', 'int16', '0+'),
      f('partitionIndex', 'int32', '0+'),
      f('leaderId', 'int32', '0+'),
      f('leaderEpoch', 'int32', '7+', { default: -1 }),
      arrOf('replicaNodes', 'int32', '0+'),
      arrOf('isrNodes', 'int32', '0+'),
      arrOf('offlineReplicas', 'int32', '5+'),
    ]),
    f('topicAuthorizedOperations', 'int32', '8+', { default: -2147483648 }),
  ]),
  f('clusterAuthorizedOperations', 'int32', '8-10', { default: -2147483648 }),
]);

export const Produce = message('Produce', 0, '0-11', '9+', [
  f('transactionalId', 'string', '3+', { nullable: '3+' }),
  f('acks', 'int16', '0+'),
  f('timeoutMs', 'int32', '0+'),
  arr('topicData', '0+', [
    f('name', 'string', '0+'),
    arr('partitionData', '0+', [f('index', 'int32', '0+'), f('records', 'records', '0+', { nullable: '0+' })]),
  ]),
], [
  arr('responses', '0+', [
    f('name', 'string', '0+'),
    arr('partitionResponses', '0+', [
      f('index', 'int32', '0+'),
      f('errorCode', 'int16', '0+'),
      f('baseOffset', 'int64', '0+'),
      f('logAppendTimeMs', 'int64', '2+', { default: -1n }),
      f('logStartOffset', 'int64', '5+', { default: -1n }),
      arr('recordErrors', '8+', [f('batchIndex', 'int32', '8+'), f('batchIndexErrorMessage', 'string', '8+', { nullable: '8+' })]),
      f('errorMessage', 'string', '8+', { nullable: '8+' }),
      struct('currentLeader', '10+', leaderIdAndEpoch('10+'), { tag: 0 }),
    ]),
  ]),
  f('throttleTimeMs', 'int32', '1+'),
  arr('nodeEndpoints', '10+', nodeEndpoint('10+'), { tag: 0 }),
]);

export const Fetch = message('Fetch', 1, '0-17', '12+', [
  f('clusterId', 'string', '12+', { nullable: '12+', tag: 0 }),
  f('replicaId', 'int32', '0-14', { default: -1 }),
  struct('replicaState', '15+', [
    f('replicaId', 'int32', '15+', { default: -1 }), f('replicaEpoch', 'int64', '15+', { default: -1n }),
  ], { tag: 1 }),
  f('maxWaitMs', 'int32', '0+'),
  f('minBytes', 'int32', '0+'),
  f('maxBytes', 'int32', '3+', { default: 0x7fffffff }),
  f('isolationLevel', 'int8', '4+'),
  f('sessionId', 'int32', '7+'),
  f('sessionEpoch', 'int32', '7+', { default: -1 }),
  arr('topics', '0+', [
    f('topic', 'string', '0-12'),
    f('topicId', 'uuid', '13+'),
    arr('partitions', '0+', [
      f('partition', 'int32', '0+'),
      f('currentLeaderEpoch', 'int32', '9+', { default: -1 }),
      f('fetchOffset', 'int64', '0+'),
      f('lastFetchedEpoch', 'int32', '12+', { default: -1 }),
      f('logStartOffset', 'int64', '5+', { default: -1n }),
      f('partitionMaxBytes', 'int32', '0+'),
      f('replicaDirectoryId', 'uuid', '17+', { tag: 0 }),
    ]),
  ]),
  arr('forgottenTopicsData', '7+', [f('topic', 'string', '7-12'), f('topicId', 'uuid', '13+'), arrOf('partitions', 'int32', '7+')]),
  f('rackId', 'string', '11+'),
], [
  f('throttleTimeMs', 'int32', '1+'),
  f('errorCode', 'int16', '7+'),
  f('sessionId', 'int32', '7+'),
  arr('responses', '0+', [
    f('topic', 'string', '0-12'),
    f('topicId', 'uuid', '13+'),
    arr('partitions', '0+', [
      f('partitionIndex', 'int32', '0+'),
      f('errorCode', 'int16', '0+'),
      f('highWatermark', 'int64', '0+'),
      f('lastStableOffset', 'int64', '4+', { default: -1n }),
      f('logStartOffset', 'int64', '5+', { default: -1n }),
      struct(
        'divergingEpoch', '12+', [f('epoch', 'int32', '12+', { default: -1 }), f('endOffset', 'int64', '12+', { default: -1n })],
        { tag: 0 },
      ),
      struct('currentLeader', '12+', leaderIdAndEpoch('12+'), { tag: 1 }),
      struct(
        'snapshotId', '12+', [f('endOffset', 'int64', '0+', { default: -1n }), f('epoch', 'int32', '0+', { default: -1 })],
        { tag: 2 },
      ),
      arr('abortedTransactions', '4+', [f('producerId', 'int64', '4+'), f('firstOffset', 'int64', '4+')], { nullable: '4+' }),
      f('preferredReadReplica', 'int32', '11+', { default: -1 }),
      f('records', 'records', '0+', { nullable: '0+' }),
    ]),
  ]),
  arr('nodeEndpoints', '16+', nodeEndpoint('16+'), { tag: 0 }),
]);

export const ListOffsets = message('ListOffsets', 2, '0-10', '6+', [
  f('replicaId', 'int32', '0+'),
  f('isolationLevel', 'int8', '2+'),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [
      f('partitionIndex', 'int32', '0+'),
      f('currentLeaderEpoch', 'int32', '4+', { default: -1 }),
      f('timestamp', 'int64', '0+'),
      f('maxNumOffsets', 'int32', '0', { default: 1 }),
    ]),
  ]),
  f('timeoutMs', 'int32', '10+'),
], [
  f('throttleTimeMs', 'int32', '2+'),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [
      f('partitionIndex', 'int32', '0+'),
      f('errorCode', 'int16', '0+'),
      arrOf('oldStyleOffsets', 'int64', '0'),
      f('timestamp', 'int64', '1+', { default: -1n }),
      f('offset', 'int64', '1+', { default: -1n }),
      f('leaderEpoch', 'int32', '4+', { default: -1 }),
    ]),
  ]),
]);
