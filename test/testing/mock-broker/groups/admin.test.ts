/** The admin APIs over the one registry: both kinds of group described, listed and deleted the same way. */
import { EventLog } from '../../../../src/testing/mock-broker/event-log';
import { GroupCoordinator } from '../../../../src/testing/mock-broker/groups/coordinator';
import type { TopicSource } from '../../../../src/testing/mock-broker/groups/consumer/assignment';
import { ErrorCode } from '../../../../src/protocol/error-codes';
import { ManualClock } from '../../../../src/util/clock';
import { ctx, flush, joinReq, syncAll, track } from './helpers';

const topic = { topicId: 'b'.repeat(32), name: 't', numPartitions: 1 };
const topics: TopicSource = { byName: () => topic, byId: () => topic, all: () => [topic], version: () => 1 };

async function twoKinds() {
  const clock = new ManualClock();
  const coordinator = new GroupCoordinator({ clock, minSessionTimeoutMs: 1000, topics }, new EventLog());
  const join = track(coordinator.joinGroup(joinReq({ groupId: 'classic' }), ctx('A', 3)));
  clock.advance(1);
  await flush();
  await syncAll(coordinator, [join.value!], 'classic');
  const beat = (groupId: string, memberEpoch: number) => coordinator.consumerGroupHeartbeat({
    groupId, memberId: 'm', memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'],
    subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  }, { clientId: 'c', clientHost: '/h', apiVersion: 1 });
  expect(beat('consumer', 0).errorCode).toBe(0);
  return { coordinator, beat };
}

test('ListGroups lists classic groups first, filters by state and type; DescribeGroups describes both kinds', async () => {
  const { coordinator } = await twoKinds();
  expect(coordinator.listGroups().map((g) => [g.groupId, g.groupType, g.groupState])).toEqual([
    ['classic', 'classic', 'Stable'], ['consumer', 'consumer', 'Stable'],
  ]);
  expect(coordinator.listGroups(undefined, ['CONSUMER']).map((g) => g.groupId)).toEqual(['consumer']);
  expect(coordinator.listGroups(['stable'], ['classic']).map((g) => g.groupId)).toEqual(['classic']);
  const [classic, consumer, unknown] = coordinator.describeGroups(['classic', 'consumer', 'nope']);
  expect(classic).toMatchObject({ groupState: 'Stable', protocolType: 'consumer', protocolData: 'range' });
  expect(consumer).toMatchObject({ groupState: 'Stable', protocolType: 'consumer', protocolData: 'uniform' });
  expect(unknown).toMatchObject({ errorCode: 0, groupState: 'Dead' });
  expect(coordinator.describeConsumerGroups(['classic'])[0]).toMatchObject({
    errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group classic is not a consumer group.',
  });
  coordinator.close();
});

test('DeleteGroups refuses a group with members of either kind and deletes an empty one with its offsets', async () => {
  const { coordinator, beat } = await twoKinds();
  expect(coordinator.deleteGroups(['classic', 'consumer', 'nope', ''])).toEqual([
    { groupId: 'classic', errorCode: ErrorCode.NON_EMPTY_GROUP }, { groupId: 'consumer', errorCode: ErrorCode.NON_EMPTY_GROUP },
    { groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND }, { groupId: '', errorCode: ErrorCode.INVALID_GROUP_ID },
  ]);
  expect(beat('consumer', -1).errorCode).toBe(0);
  expect(coordinator.deleteGroups(['consumer'])).toEqual([{ groupId: 'consumer', errorCode: 0 }]);
  expect(coordinator.groupIds()).toEqual(['classic']);
  coordinator.close();
  expect(coordinator.deleteGroups(['classic'])).toEqual([{ groupId: 'classic', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE }]);
});
