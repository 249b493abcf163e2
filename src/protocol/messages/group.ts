/**
 * Group coordination messages: FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
 * OffsetCommit, OffsetFetch. Field names and version ranges follow Apache Kafka's message
 * definitions. OffsetCommit's `GenerationIdOrMemberEpoch` is called `generationId` here,
 * its name in the classic protocol (v9+: the member epoch for a KIP-848 consumer group).
 * OffsetFetch v8 asks for several groups at once; v9 adds each group's memberId and memberEpoch (KIP-848).
 */
import { arr, arrOf, f, message } from '../schema';

export const FindCoordinator = message('FindCoordinator', 10, '0-6', '3+', [
  f('key', 'string', '0-3'),
  f('keyType', 'int8', '1+'),
  arrOf('coordinatorKeys', 'string', '4+'),
], [
  f('throttleTimeMs', 'int32', '1+'),
  f('errorCode', 'int16', '0-3'),
  f('errorMessage', 'string', '1-3', { nullable: '1-3' }),
  f('nodeId', 'int32', '0-3'),
  f('host', 'string', '0-3'),
  f('port', 'int32', '0-3'),
  arr('coordinators', '4+', [
    f('key', 'string', '4+'), f('nodeId', 'int32', '4+'), f('host', 'string', '4+'), f('port', 'int32', '4+'),
    f('errorCode', 'int16', '4+'), f('errorMessage', 'string', '4+', { nullable: '4+' }),
  ]),
]);

export const JoinGroup = message('JoinGroup', 11, '0-9', '6+', [
  f('groupId', 'string', '0+'),
  f('sessionTimeoutMs', 'int32', '0+'),
  f('rebalanceTimeoutMs', 'int32', '1+', { default: -1 }),
  f('memberId', 'string', '0+'),
  f('groupInstanceId', 'string', '5+', { nullable: '5+' }),
  f('protocolType', 'string', '0+'),
  arr('protocols', '0+', [f('name', 'string', '0+'), f('metadata', 'bytes', '0+')]),
  f('reason', 'string', '8+', { nullable: '8+' }),
], [
  f('throttleTimeMs', 'int32', '2+'),
  f('errorCode', 'int16', '0+'),
  f('generationId', 'int32', '0+', { default: -1 }),
  f('protocolType', 'string', '7+', { nullable: '7+' }),
  f('protocolName', 'string', '0+', { nullable: '7+' }),
  f('leader', 'string', '0+'),
  f('skipAssignment', 'bool', '9+'),
  f('memberId', 'string', '0+'),
  arr('members', '0+', [
    f('memberId', 'string', '0+'),
    f('groupInstanceId', 'string', '5+', { nullable: '5+' }),
    f('metadata', 'bytes', '0+'),
  ]),
]);

export const SyncGroup = message('SyncGroup', 14, '0-5', '4+', [
  f('groupId', 'string', '0+'),
  f('generationId', 'int32', '0+'),
  f('memberId', 'string', '0+'),
  f('groupInstanceId', 'string', '3+', { nullable: '3+' }),
  f('protocolType', 'string', '5+', { nullable: '5+' }),
  f('protocolName', 'string', '5+', { nullable: '5+' }),
  arr('assignments', '0+', [f('memberId', 'string', '0+'), f('assignment', 'bytes', '0+')]),
], [
  f('throttleTimeMs', 'int32', '1+'),
  f('errorCode', 'int16', '0+'),
  f('protocolType', 'string', '5+', { nullable: '5+' }),
  f('protocolName', 'string', '5+', { nullable: '5+' }),
  f('assignment', 'bytes', '0+'),
]);

export const Heartbeat = message('Heartbeat', 12, '0-4', '4+', [
  f('groupId', 'string', '0+'),
  f('generationId', 'int32', '0+'),
  f('memberId', 'string', '0+'),
  f('groupInstanceId', 'string', '3+', { nullable: '3+' }),
], [
  f('throttleTimeMs', 'int32', '1+'),
  f('errorCode', 'int16', '0+'),
]);

export const LeaveGroup = message('LeaveGroup', 13, '0-5', '4+', [
  f('groupId', 'string', '0+'),
  f('memberId', 'string', '0-2'),
  arr('members', '3+', [
    f('memberId', 'string', '3+'),
    f('groupInstanceId', 'string', '3+', { nullable: '3+' }),
    f('reason', 'string', '5+', { nullable: '5+' }),
  ]),
], [
  f('throttleTimeMs', 'int32', '1+'),
  f('errorCode', 'int16', '0+'),
  arr('members', '3+', [
    f('memberId', 'string', '3+'),
    f('groupInstanceId', 'string', '3+', { nullable: '3+' }),
    f('errorCode', 'int16', '3+'),
  ]),
]);

export const OffsetCommit = message('OffsetCommit', 8, '0-9', '8+', [
  f('groupId', 'string', '0+'),
  f('generationId', 'int32', '1+', { default: -1 }),
  f('memberId', 'string', '1+'),
  f('groupInstanceId', 'string', '7+', { nullable: '7+' }),
  f('retentionTimeMs', 'int64', '2-4', { default: -1n }),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [
      f('partitionIndex', 'int32', '0+'),
      f('committedOffset', 'int64', '0+'),
      f('committedLeaderEpoch', 'int32', '6+', { default: -1 }),
      f('commitTimestamp', 'int64', '1', { default: -1n }),
      f('committedMetadata', 'string', '0+', { nullable: '0+' }),
    ]),
  ]),
], [
  f('throttleTimeMs', 'int32', '3+'),
  arr('topics', '0+', [
    f('name', 'string', '0+'),
    arr('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')]),
  ]),
]);

export const OffsetFetch = message('OffsetFetch', 9, '0-9', '6+', [
  f('groupId', 'string', '0-7'),
  arr('topics', '0-7', [f('name', 'string', '0-7'), arrOf('partitionIndexes', 'int32', '0-7')], { nullable: '2-7' }),
  arr('groups', '8+', [
    f('groupId', 'string', '8+'),
    f('memberId', 'string', '9+', { nullable: '9+' }),
    f('memberEpoch', 'int32', '9+', { default: -1 }),
    arr('topics', '8+', [f('name', 'string', '8+'), arrOf('partitionIndexes', 'int32', '8+')], { nullable: '8+' }),
  ]),
  f('requireStable', 'bool', '7+'),
], [
  f('throttleTimeMs', 'int32', '3+'),
  arr('topics', '0-7', [
    f('name', 'string', '0-7'),
    arr('partitions', '0-7', [
      f('partitionIndex', 'int32', '0-7'),
      f('committedOffset', 'int64', '0-7'),
      f('committedLeaderEpoch', 'int32', '5-7', { default: -1 }),
      f('metadata', 'string', '0-7', { nullable: '0-7' }),
      f('errorCode', 'int16', '0-7'),
    ]),
  ]),
  f('errorCode', 'int16', '2-7'),
  arr('groups', '8+', [
    f('groupId', 'string', '8+'),
    arr('topics', '8+', [
      f('name', 'string', '8+'),
      arr('partitions', '8+', [
        f('partitionIndex', 'int32', '8+'),
        f('committedOffset', 'int64', '8+'),
        f('committedLeaderEpoch', 'int32', '8+', { default: -1 }),
        f('metadata', 'string', '8+', { nullable: '8+' }),
        f('errorCode', 'int16', '8+'),
      ]),
    ]),
    f('errorCode', 'int16', '8+'),
  ]),
]);
