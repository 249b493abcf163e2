/** Topic administration messages: CreateTopics. Fields follow Apache Kafka's message definitions. */
import { arr, arrOf, f, message } from '../schema';

export const CreateTopics = message('CreateTopics', 19, '0-5', '5+', [
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
