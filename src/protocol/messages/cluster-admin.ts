/**
 * Configuration, ACL, quota, log-dir, cluster and leader-epoch messages: AlterConfigs,
 * IncrementalAlterConfigs, DescribeLogDirs, DescribeCluster, OffsetForLeaderEpoch, DescribeAcls,
 * CreateAcls, DeleteAcls, DescribeClientQuotas, AlterClientQuotas, DescribeUserScramCredentials,
 * AlterUserScramCredentials. Transcribed from Apache Kafka's message
 * definitions (clients/src/main/resources/common/message/*.json, Kafka 3.9): field names in
 * lowerCamelCase, the same version ranges, nullable versions, defaults and flexible versions.
 */
import { arr, arrOf, f, message } from '../schema';

const alterResponse = [
  f('errorCode', 'int16', '0+'),
  f('errorMessage', 'string', '0+', { nullable: '0+' }),
  f('resourceType', 'int8', '0+'),
  f('resourceName', 'string', '0+'),
];

export const AlterConfigs = message('AlterConfigs', 33, '0-2', '2+', [
  arr('resources', '0+', [
    f('resourceType', 'int8', '0+'),
    f('resourceName', 'string', '0+'),
    arr('configs', '0+', [f('name', 'string', '0+'), f('value', 'string', '0+', { nullable: '0+' })]),
  ]),
  f('validateOnly', 'bool', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('responses', '0+', alterResponse),
]);

export const IncrementalAlterConfigs = message('IncrementalAlterConfigs', 44, '0-1', '1+', [
  arr('resources', '0+', [
    f('resourceType', 'int8', '0+'),
    f('resourceName', 'string', '0+'),
    arr('configs', '0+', [
      f('name', 'string', '0+'), f('configOperation', 'int8', '0+'), f('value', 'string', '0+', { nullable: '0+' }),
    ]),
  ]),
  f('validateOnly', 'bool', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('responses', '0+', alterResponse),
]);

export const DescribeLogDirs = message('DescribeLogDirs', 35, '0-4', '2+', [
  arr('topics', '0+', [f('topic', 'string', '0+'), arrOf('partitions', 'int32', '0+')], { nullable: '0+' }),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '3+'),
  arr('results', '0+', [
    f('errorCode', 'int16', '0+'),
    f('logDir', 'string', '0+'),
    arr('topics', '0+', [
      f('name', 'string', '0+'),
      arr('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'), f('partitionSize', 'int64', '0+'),
        f('offsetLag', 'int64', '0+'), f('isFutureKey', 'bool', '0+'),
      ]),
    ]),
    f('totalBytes', 'int64', '4+', { default: -1n }),
    f('usableBytes', 'int64', '4+', { default: -1n }),
  ]),
]);

export const DescribeCluster = message('DescribeCluster', 60, '0-1', '0+', [
  f('includeClusterAuthorizedOperations', 'bool', '0+'),
  f('endpointType', 'int8', '1+', { default: 1 }),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
  f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
  f('endpointType', 'int8', '1+', { default: 1 }),
  f('clusterId', 'string', '0+'),
  f('controllerId', 'int32', '0+', { default: -1 }),
  arr('brokers', '0+', [
    f('brokerId', 'int32', '0+'), f('host', 'string', '0+'), f('port', 'int32', '0+'),
    f('rack', 'string', '0+', { nullable: '0+', default: null }),
  ]),
  f('clusterAuthorizedOperations', 'int32', '0+', { default: -2147483648 }),
]);

export const OffsetForLeaderEpoch = message('OffsetForLeaderEpoch', 23, '0-4', '4+', [
  f('replicaId', 'int32', '3+', { default: -2 }),
  arr('topics', '0+', [
    f('topic', 'string', '0+'),
    arr('partitions', '0+', [
      f('partition', 'int32', '0+'), f('currentLeaderEpoch', 'int32', '2+', { default: -1 }), f('leaderEpoch', 'int32', '0+'),
    ]),
  ]),
], [
  f('throttleTimeMs', 'int32', '2+'),
  arr('topics', '0+', [
    f('topic', 'string', '0+'),
    arr('partitions', '0+', [
      f('errorCode', 'int16', '0+'), f('partition', 'int32', '0+'),
      f('leaderEpoch', 'int32', '1+', { default: -1 }), f('endOffset', 'int64', '0+', { default: -1n }),
    ]),
  ]),
]);

/** The filter fields DescribeAcls and each DeleteAcls filter share. */
const aclFilter = [
  f('resourceTypeFilter', 'int8', '0+'),
  f('resourceNameFilter', 'string', '0+', { nullable: '0+' }),
  f('patternTypeFilter', 'int8', '1+', { default: 3 }),
  f('principalFilter', 'string', '0+', { nullable: '0+' }),
  f('hostFilter', 'string', '0+', { nullable: '0+' }),
  f('operation', 'int8', '0+'),
  f('permissionType', 'int8', '0+'),
];

export const DescribeAcls = message('DescribeAcls', 29, '0-3', '2+', aclFilter, [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
  f('errorMessage', 'string', '0+', { nullable: '0+' }),
  arr('resources', '0+', [
    f('resourceType', 'int8', '0+'),
    f('resourceName', 'string', '0+'),
    f('patternType', 'int8', '1+', { default: 3 }),
    arr('acls', '0+', [
      f('principal', 'string', '0+'), f('host', 'string', '0+'), f('operation', 'int8', '0+'), f('permissionType', 'int8', '0+'),
    ]),
  ]),
]);

export const CreateAcls = message('CreateAcls', 30, '0-3', '2+', [
  arr('creations', '0+', [
    f('resourceType', 'int8', '0+'),
    f('resourceName', 'string', '0+'),
    f('resourcePatternType', 'int8', '1+', { default: 3 }),
    f('principal', 'string', '0+'),
    f('host', 'string', '0+'),
    f('operation', 'int8', '0+'),
    f('permissionType', 'int8', '0+'),
  ]),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('results', '0+', [f('errorCode', 'int16', '0+'), f('errorMessage', 'string', '0+', { nullable: '0+' })]),
]);

export const DeleteAcls = message('DeleteAcls', 31, '0-3', '2+', [
  arr('filters', '0+', aclFilter),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('filterResults', '0+', [
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+' }),
    arr('matchingAcls', '0+', [
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '0+', { nullable: '0+' }),
      f('resourceType', 'int8', '0+'),
      f('resourceName', 'string', '0+'),
      f('patternType', 'int8', '1+', { default: 3 }),
      f('principal', 'string', '0+'),
      f('host', 'string', '0+'),
      f('operation', 'int8', '0+'),
      f('permissionType', 'int8', '0+'),
    ]),
  ]),
]);

/** A client quota entity's parts (user, client-id, ip), as DescribeClientQuotas and AlterClientQuotas spell them. */
const quotaEntity = [f('entityType', 'string', '0+'), f('entityName', 'string', '0+', { nullable: '0+' })];

export const DescribeClientQuotas = message('DescribeClientQuotas', 48, '0-1', '1+', [
  arr('components', '0+', [
    f('entityType', 'string', '0+'), f('matchType', 'int8', '0+'), f('match', 'string', '0+', { nullable: '0+' }),
  ]),
  f('strict', 'bool', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
  f('errorMessage', 'string', '0+', { nullable: '0+' }),
  arr('entries', '0+', [
    arr('entity', '0+', quotaEntity),
    arr('values', '0+', [f('key', 'string', '0+'), f('value', 'float64', '0+')]),
  ], { nullable: '0+' }),
]);

/** AlterClientQuotas (key 49, KIP-546): per entity (null name = the default), set or remove quota keys. */
export const AlterClientQuotas = message('AlterClientQuotas', 49, '0-1', '1+', [
  arr('entries', '0+', [
    arr('entity', '0+', quotaEntity),
    arr('ops', '0+', [f('key', 'string', '0+'), f('value', 'float64', '0+'), f('remove', 'bool', '0+')]),
  ]),
  f('validateOnly', 'bool', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('entries', '0+', [
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+' }),
    arr('entity', '0+', quotaEntity),
  ]),
]);

/** DescribeUserScramCredentials (key 50, KIP-554): the SCRAM mechanisms and iterations of users (null or [] = all). */
export const DescribeUserScramCredentials = message('DescribeUserScramCredentials', 50, '0', '0+', [
  arr('users', '0+', [f('name', 'string', '0+')], { nullable: '0+' }),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
  f('errorMessage', 'string', '0+', { nullable: '0+' }),
  arr('results', '0+', [
    f('user', 'string', '0+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+' }),
    arr('credentialInfos', '0+', [f('mechanism', 'int8', '0+'), f('iterations', 'int32', '0+')]),
  ]),
]);

/** AlterUserScramCredentials (key 51, KIP-554): delete or upsert (salt, salted password, iterations) SCRAM credentials. */
export const AlterUserScramCredentials = message('AlterUserScramCredentials', 51, '0', '0+', [
  arr('deletions', '0+', [f('name', 'string', '0+'), f('mechanism', 'int8', '0+')]),
  arr('upsertions', '0+', [
    f('name', 'string', '0+'), f('mechanism', 'int8', '0+'), f('iterations', 'int32', '0+'),
    f('salt', 'bytes', '0+'), f('saltedPassword', 'bytes', '0+'),
  ]),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('results', '0+', [
    f('user', 'string', '0+'), f('errorCode', 'int16', '0+'), f('errorMessage', 'string', '0+', { nullable: '0+' }),
  ]),
]);

/** AlterPartitionReassignments (key 45, KIP-455): per partition the target replicas, or null to cancel. */
export const AlterPartitionReassignments = message('AlterPartitionReassignments', 45, '0', '0+', [
  f('timeoutMs', 'int32', '0+', { default: 60000 }),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [f('partitionIndex', 'int32', '0+'), arrOf('replicas', 'int32', '0+', { nullable: '0+', default: null })]),
  ]),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
  f('errorMessage', 'string', '0+', { nullable: '0+' }),
  arr('responses', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [
      f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+'), f('errorMessage', 'string', '0+', { nullable: '0+' }),
    ]),
  ]),
]);

/** ListPartitionReassignments (key 46, KIP-455): the reassignments in progress, of every topic (null) or of the ones named. */
export const ListPartitionReassignments = message('ListPartitionReassignments', 46, '0', '0+', [
  f('timeoutMs', 'int32', '0+', { default: 60000 }),
  arr('topics', '0+', [f('name', 'string', '0+'), arrOf('partitionIndexes', 'int32', '0+')], { nullable: '0+', default: null }),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
  f('errorMessage', 'string', '0+', { nullable: '0+' }),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [
      f('partitionIndex', 'int32', '0+'), arrOf('replicas', 'int32', '0+'), arrOf('addingReplicas', 'int32', '0+'),
      arrOf('removingReplicas', 'int32', '0+'),
    ]),
  ]),
]);
