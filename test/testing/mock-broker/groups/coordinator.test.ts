/**
 * One group-id namespace (coordinator.ts over registry.ts): where the classic and the KIP-848 protocol meet a group
 * of the other kind. An empty group is converted (its offsets kept), a live one answers GROUP_ID_NOT_FOUND.
 */
import { EventLog } from '../../../../src/testing/mock-broker/event-log';
import { GroupCoordinator } from '../../../../src/testing/mock-broker/groups/coordinator';
import type { TopicSource } from '../../../../src/testing/mock-broker/groups/consumer/assignment';
import { ErrorCode } from '../../../../src/protocol/error-codes';
import { ManualClock } from '../../../../src/util/clock';
import { ctx, flush, joinReq, syncAll, track } from './helpers';

const topic = { topicId: 'c'.repeat(32), name: 't', numPartitions: 1 };
const topics: TopicSource = { byName: () => topic, byId: () => topic, all: () => [topic], version: () => 1 };

function setup() {
  const clock = new ManualClock();
  const events = new EventLog();
  const coordinator = new GroupCoordinator({ clock, minSessionTimeoutMs: 1000, topics }, events);
  const beat = (groupId: string, memberEpoch: number) => coordinator.consumerGroupHeartbeat({
    groupId, memberId: 'm', memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'],
    subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  }, { clientId: 'c', clientHost: '/h', apiVersion: 1 });
  const commit = (groupId: string) => coordinator.commitOffsets({
    groupId, generationId: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedMetadata: null }] }],
  }, ctx('admin', 9));
  return { clock, events, coordinator, beat, commit };
}

test('a live consumer group refuses a classic JoinGroup; an empty one becomes a classic group and keeps its offsets', async () => {
  const { clock, events, coordinator, beat, commit } = setup();
  expect(beat('g', 0).errorCode).toBe(0);
  expect((await coordinator.joinGroup(joinReq({ groupId: 'g' }), ctx('A', 3))).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  expect(beat('g', -1).errorCode).toBe(0);
  expect(commit('g').topics[0]!.partitions[0]!.errorCode).toBe(0);
  const join = track(coordinator.joinGroup(joinReq({ groupId: 'g' }), ctx('A', 3)));
  clock.advance(1);
  await flush();
  expect(join.value).toMatchObject({ errorCode: 0, generationId: 1 });
  expect(coordinator.consumerGroup('g')).toBeUndefined();
  expect(coordinator.group('g')).toMatchObject({
    state: 'CompletingRebalance', offsets: [expect.objectContaining({ committedOffset: 3n })],
  });
  expect(events.entries({ type: 'group.converted', groupId: 'g' }).map((e) => e.data)).toEqual([
    { groupId: 'g', groupType: 'classic', from: 'consumer' },
  ]);
  coordinator.close();
});

test('a live classic group refuses a ConsumerGroupHeartbeat; an empty one becomes a consumer group', async () => {
  const { clock, coordinator, beat } = setup();
  const join = track(coordinator.joinGroup(joinReq({ groupId: 'g' }), ctx('A', 3)));
  clock.advance(1);
  await flush();
  await syncAll(coordinator, [join.value!], 'g');
  expect(beat('g', 0)).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group g is not a consumer group.' });
  expect(coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: join.value!.memberId }] }, ctx()).errorCode).toBe(0);
  expect(coordinator.group('g')?.state).toBe('Empty');
  expect(beat('g', 0).errorCode).toBe(0);
  expect(coordinator.group('g')).toBeUndefined();
  expect(coordinator.consumerGroup('g')?.members.map((m) => m.memberId)).toEqual(['m']);
  coordinator.close();
});
