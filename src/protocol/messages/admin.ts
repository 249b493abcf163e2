/** Topic, group and SASL administration messages. Fields follow Apache Kafka's message definitions. */
import { arr, arrOf, f, message } from '../schema';

export const CreateTopics = message('CreateTopics', 19, '0-7', '5+', [
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    f('numPartitions', 'int32', '0+'),
    f('replicationFactor', 'int16', '0+'),
    arr('assignments', '0+', [f('partitionIndex', 'int32', '0+'), arrOf('brokerIds', 'int32', '0+')]),
    arr('configs', '0+', [f('name', 'string', '0+'), f('value', 'string', '0+', { nullable: '0+' })]),
  ]),
  f('timeoutMs', 'int32', '0+', { default: 60000 }),
  f('validateOnly', 'bool', '1+'),
], [
  f('throttleTimeMs', 'int32', '2+'),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    f('topicId', 'uuid', '7+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '1+', { nullable: '0+' }),
    f('topicConfigErrorCode', 'int16', '5+', { tag: 0 }),
    f('numPartitions', 'int32', '5+', { default: -1 }),
    f('replicationFactor', 'int16', '5+', { default: -1 }),
    arr('configs', '5+', [
      f('name', 'string', '5+'), f('value', 'string', '5+', { nullable: '5+' }), f('readOnly', 'bool', '5+'),
      f('configSource', 'int8', '5+', { default: -1 }), f('isSensitive', 'bool', '5+'),
    ], { nullable: '5+' }),
  ]),
]);

/*
 * Admin messages served by handlers 15, 16, 17, 20, 21, 32, 36, 37, 42 and 47. Field names and
 * version ranges follow Apache Kafka's message definitions (see each handler for what is served).
 */

export const DescribeGroups = message('DescribeGroups', 15, '0-5', '5+', [
  arrOf('groups', 'string', '0+'),
  f('includeAuthorizedOperations', 'bool', '3+'),
], [
  f('throttleTimeMs', 'int32', '1+'),
  arr('groups', '0+', [
    f('errorCode', 'int16', '0+'),
    f('groupId', 'string', '0+'),
    f('groupState', 'string', '0+'),
    f('protocolType', 'string', '0+'),
    f('protocolData', 'string', '0+'),
    arr('members', '0+', [
      f('memberId', 'string', '0+'),
      f('groupInstanceId', 'string', '4+', { nullable: '4+' }),
      f('clientId', 'string', '0+'),
      f('clientHost', 'string', '0+'),
      f('memberMetadata', 'bytes', '0+'),
      f('memberAssignment', 'bytes', '0+'),
    ]),
    f('authorizedOperations', 'int32', '3+', { default: -2147483648 }),
  ]),
]);

export const ListGroups = message('ListGroups', 16, '0-5', '3+', [
  arrOf('statesFilter', 'string', '4+'),
  arrOf('typesFilter', 'string', '5+'),
], [
  f('throttleTimeMs', 'int32', '1+'),
  f('errorCode', 'int16', '0+'),
  arr('groups', '0+', [
    f('groupId', 'string', '0+'),
    f('protocolType', 'string', '0+'),
    f('groupState', 'string', '4+'),
    f('groupType', 'string', '5+'),
  ]),
]);

export const SaslHandshake = message('SaslHandshake', 17, '0-1', 'none', [
  f('mechanism', 'string', '0+'),
], [
  f('errorCode', 'int16', '0+'),
  arrOf('mechanisms', 'string', '0+'),
]);

export const DeleteTopics = message('DeleteTopics', 20, '0-6', '4+', [
  arr('topics', '6+', [f('name', 'string', '6+', { nullable: '6+', default: null }), f('topicId', 'uuid', '6+')]),
  arrOf('topicNames', 'string', '0-5'),
  f('timeoutMs', 'int32', '0+'),
], [
  f('throttleTimeMs', 'int32', '1+'),
  arr('responses', '0+', [
    f('name', 'string', '0+', { nullable: '6+' }),
    f('topicId', 'uuid', '6+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '5+', { nullable: '5+' }),
  ]),
]);

export const DeleteRecords = message('DeleteRecords', 21, '0-2', '2+', [
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('offset', 'int64', '0+')]),
  ]),
  f('timeoutMs', 'int32', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('lowWatermark', 'int64', '0+'), f('errorCode', 'int16', '0+')]),
  ]),
]);

export const DescribeConfigs = message('DescribeConfigs', 32, '0-4', '4+', [
  arr('resources', '0+', [
    f('resourceType', 'int8', '0+'),
    f('resourceName', 'string', '0+'),
    arrOf('configurationKeys', 'string', '0+', { nullable: '0+' }),
  ]),
  f('includeSynonyms', 'bool', '1+'),
  f('includeDocumentation', 'bool', '3+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('results', '0+', [
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+' }),
    f('resourceType', 'int8', '0+'),
    f('resourceName', 'string', '0+'),
    arr('configs', '0+', [
      f('name', 'string', '0+'),
      f('value', 'string', '0+', { nullable: '0+' }),
      f('readOnly', 'bool', '0+'),
      f('isDefault', 'bool', '0'),
      f('configSource', 'int8', '1+', { default: -1 }),
      f('isSensitive', 'bool', '0+'),
      arr('synonyms', '1+', [f('name', 'string', '1+'), f('value', 'string', '1+', { nullable: '0+' }), f('source', 'int8', '1+')]),
      f('configType', 'int8', '3+'),
      f('documentation', 'string', '3+', { nullable: '0+' }),
    ]),
  ]),
]);

export const SaslAuthenticate = message('SaslAuthenticate', 36, '0-2', '2+', [
  f('authBytes', 'bytes', '0+'),
], [
  f('errorCode', 'int16', '0+'),
  f('errorMessage', 'string', '0+', { nullable: '0+' }),
  f('authBytes', 'bytes', '0+'),
  f('sessionLifetimeMs', 'int64', '1+'),
]);

export const CreatePartitions = message('CreatePartitions', 37, '0-3', '2+', [
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    f('count', 'int32', '0+'),
    arr('assignments', '0+', [arrOf('brokerIds', 'int32', '0+')], { nullable: '0+' }),
  ]),
  f('timeoutMs', 'int32', '0+'),
  f('validateOnly', 'bool', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('results', '0+', [
    f('name', 'string', '0+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+' }),
  ]),
]);

export const DeleteGroups = message('DeleteGroups', 42, '0-2', '2+', [
  arrOf('groupsNames', 'string', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('results', '0+', [f('groupId', 'string', '0+'), f('errorCode', 'int16', '0+')]),
]);

export const OffsetDelete = message('OffsetDelete', 47, '0', 'none', [
  f('groupId', 'string', '0+'),
  arr('topics', '0+', [f('name', 'string', '0+'), arr('partitions', '0+', [f('partitionIndex', 'int32', '0+')])]),
], [
  f('errorCode', 'int16', '0+'),
  f('throttleTimeMs', 'int32', '0+'),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')]),
  ]),
]);
