/**
 * KIP-848 consumer group messages: ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69), after
 * Apache Kafka 4.x's message definitions (clients/src/main/resources/common/message). Both are flexible
 * from v0. ConsumerGroupHeartbeat v1 has the same fields as v0; it means the client generates its member
 * id and may use SubscribedTopicRegex (INVALID_REGULAR_EXPRESSION, v1+). Topics are named by topic id.
 */
import { arr, arrOf, f, message, struct } from '../schema';

const topicPartitions = (versions: string) => [f('topicId', 'uuid', versions), arrOf('partitions', 'int32', versions)];

export const ConsumerGroupHeartbeat = message('ConsumerGroupHeartbeat', 68, '0-1', '0+', [
  f('groupId', 'string', '0+'),
  f('memberId', 'string', '0+'),
  f('memberEpoch', 'int32', '0+'),
  f('instanceId', 'string', '0+', { nullable: '0+' }),
  f('rackId', 'string', '0+', { nullable: '0+' }),
  f('rebalanceTimeoutMs', 'int32', '0+', { default: -1 }),
  arrOf('subscribedTopicNames', 'string', '0+', { nullable: '0+' }),
  f('subscribedTopicRegex', 'string', '0+', { nullable: '0+' }),
  f('serverAssignor', 'string', '0+', { nullable: '0+' }),
  arr('topicPartitions', '0+', topicPartitions('0+'), { nullable: '0+' }),
], [
  f('throttleTimeMs', 'int32', '0+'),
  f('errorCode', 'int16', '0+'),
  f('errorMessage', 'string', '0+', { nullable: '0+' }),
  f('memberId', 'string', '0+', { nullable: '0+' }),
  f('memberEpoch', 'int32', '0+'),
  f('heartbeatIntervalMs', 'int32', '0+'),
  struct('assignment', '0+', [arr('topicPartitions', '0+', topicPartitions('0+'))], { nullable: '0+' }),
]);

const describedAssignment = (name: string) => struct(name, '0+', [
  arr('topicPartitions', '0+', [f('topicId', 'uuid', '0+'), f('topicName', 'string', '0+'), arrOf('partitions', 'int32', '0+')]),
]);

export const ConsumerGroupDescribe = message('ConsumerGroupDescribe', 69, '0', '0+', [
  arrOf('groupIds', 'string', '0+'),
  f('includeAuthorizedOperations', 'bool', '0+'),
], [
  f('throttleTimeMs', 'int32', '0+'),
  arr('groups', '0+', [
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+' }),
    f('groupId', 'string', '0+'),
    f('groupState', 'string', '0+'),
    f('groupEpoch', 'int32', '0+'),
    f('assignmentEpoch', 'int32', '0+'),
    f('assignorName', 'string', '0+'),
    arr('members', '0+', [
      f('memberId', 'string', '0+'),
      f('instanceId', 'string', '0+', { nullable: '0+' }),
      f('rackId', 'string', '0+', { nullable: '0+' }),
      f('memberEpoch', 'int32', '0+'),
      f('clientId', 'string', '0+'),
      f('clientHost', 'string', '0+'),
      arrOf('subscribedTopicNames', 'string', '0+'),
      f('subscribedTopicRegex', 'string', '0+', { nullable: '0+' }),
      describedAssignment('assignment'),
      describedAssignment('targetAssignment'),
    ]),
    f('authorizedOperations', 'int32', '0+', { default: -2147483648 }),
  ]),
]);
