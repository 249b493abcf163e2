/**
 * offsets.retention.minutes on an injected clock: offsets of groups without members expire, and a group left without
 * members and offsets is deleted (Kafka's cleanupGroupMetadata), so a long-lived mock does not keep every group ever named.
 */
import { EventLog } from '../../../../src/testing/mock-broker/event-log';
import { GroupCoordinator } from '../../../../src/testing/mock-broker/groups/coordinator';
import type { TopicSource } from '../../../../src/testing/mock-broker/groups/consumer/assignment';
import { ManualClock } from '../../../../src/util/clock';
import { ctx, flush, joinReq, syncAll, track } from './helpers';

const CHECK_MS = 1000;
const RETENTION_MS = 60_000;
const topic = { topicId: 'a'.repeat(32), name: 't', numPartitions: 2 };
const topics: TopicSource = { byName: (n) => (n === 't' ? topic : undefined), byId: () => topic, all: () => [topic], version: () => 1 };

function setup() {
  const clock = new ManualClock(1_000_000);
  const events = new EventLog();
  const coordinator = new GroupCoordinator({
    clock, minSessionTimeoutMs: 1000, offsetsRetentionMs: RETENTION_MS, offsetsRetentionCheckIntervalMs: CHECK_MS, topics,
  }, events);
  const commit = (groupId: string, generationId = -1, memberId = '') => coordinator.commitOffsets({
    groupId, generationId, memberId, groupInstanceId: null,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedMetadata: null }] }],
  }, ctx('c', 9));
  const kip848 = (groupId: string, memberEpoch: number) => coordinator.consumerGroupHeartbeat({
    groupId, memberId: 'm', memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
    subscribedTopicNames: memberEpoch === 0 ? ['t'] : null, subscribedTopicRegex: null, serverAssignor: null,
    topicPartitions: memberEpoch === 0 ? [] : null,
  }, { clientId: 'c', clientHost: '/127.0.0.1', apiVersion: 1 });
  return { clock, events, coordinator, commit, kip848 };
}

test('an empty consumer group keeps its offsets for the retention, then both go; a group with members keeps them', () => {
  const { clock, events, coordinator, commit, kip848 } = setup();
  expect(kip848('kept', 0).errorCode).toBe(0);
  expect(kip848('left', 0).errorCode).toBe(0);
  expect(commit('left', 1, 'm').topics[0]!.partitions[0]!.errorCode).toBe(0);
  expect(kip848('left', -1).errorCode).toBe(0); // leaves: the group is empty, its offset stays
  const beatFor = (ms: number) => {
    for (let t = 0; t < ms; t += 10_000) {
      clock.advance(Math.min(10_000, ms - t));
      expect(kip848('kept', 1).errorCode).toBe(0); // heartbeats keep the member (session 45 s)
    }
  };
  beatFor(RETENTION_MS - CHECK_MS);
  expect(coordinator.consumerGroup('left')?.offsets).toHaveLength(1);
  beatFor(2 * CHECK_MS);
  expect(coordinator.consumerGroup('left')).toBeUndefined();
  expect(events.entries({ type: 'offsets.expired', groupId: 'left' })).toHaveLength(1);
  expect(events.entries({ type: 'group.deleted', groupId: 'left' })[0]!.data).toMatchObject({ reason: 'expired' });
  expect(coordinator.consumerGroup('kept')?.members).toHaveLength(1);
  coordinator.close();
});

test('an empty group with no offsets goes at the next check; an open transaction holds a group\'s offsets', () => {
  const { clock, coordinator, kip848 } = setup();
  kip848('idle', 0);
  kip848('idle', -1);
  coordinator.txnCommitOffsets({
    groupId: 'txn', producerId: 7n, generationId: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: 't', partitions: [{ partitionIndex: 1, committedOffset: 3n, committedMetadata: null }] }],
  });
  clock.advance(CHECK_MS);
  expect(coordinator.consumerGroup('idle')).toBeUndefined();
  clock.advance(RETENTION_MS * 2);
  expect(coordinator.group('txn')).toBeDefined(); // the pending transactional offset keeps it
  coordinator.completeTxnOffsets('txn', 7n, false);
  clock.advance(CHECK_MS);
  expect(coordinator.group('txn')).toBeUndefined();
  coordinator.close();
});

test('a classic group\'s offsets expire from when it became Empty, not from the commit; timers follow the injected clock', async () => {
  const { clock, events, coordinator, commit } = setup();
  const a = track(coordinator.joinGroup(joinReq({ groupId: 'cl' }), ctx('A', 3)));
  clock.advance(1); // the initial rebalance delay (0 ms) runs on the clock
  await flush();
  await syncAll(coordinator, [a.value!], 'cl');
  expect(commit('cl', 1, a.value!.memberId).topics[0]!.partitions[0]!.errorCode).toBe(0);
  clock.advance(15_000); // the member stops heartbeating: its session (10 s) expires on the clock
  expect(events.entries({ type: 'member.expired', groupId: 'cl' })[0]!.data).toMatchObject({ cause: 'session-timeout' });
  expect(coordinator.group('cl')).toMatchObject({ state: 'Empty', offsets: [expect.objectContaining({ committedOffset: 5n })] });
  clock.advance(RETENTION_MS - 15_000 + 2 * CHECK_MS); // a retention since the commit, not since it became Empty
  expect(coordinator.group('cl')?.offsets).toHaveLength(1);
  clock.advance(10_000);
  expect(coordinator.group('cl')).toBeUndefined();
  coordinator.close();
  expect(coordinator.pendingTimers).toBe(0);
});
