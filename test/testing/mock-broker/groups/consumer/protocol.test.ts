/**
 * KIP-848 on the wire: ConsumerGroupHeartbeat and ConsumerGroupDescribe, OffsetCommit v9 / OffsetFetch v9 with
 * member epochs, ListGroups v5 and DescribeGroups of a consumer group, and the classic/consumer boundary,
 * sent with the raw client at exact versions against a one-broker mock cluster (so it coordinates every group).
 */
import type { MockCluster } from '../../../../../src/testing/mock-broker';
import { startCluster, waitForEvent, waitForStableGroup } from '../../../../../src/testing/mock-broker/testing';
import { ErrorCode } from '../../../../../src/protocol/error-codes';
import { ConsumerGroupDescribe, ConsumerGroupHeartbeat } from '../../../../../src/protocol/messages/consumer-group';
import { DescribeGroups, ListGroups } from '../../../../../src/protocol/messages/admin';
import { JoinGroup, OffsetCommit, OffsetFetch } from '../../../../../src/protocol/messages/group';
import { Metadata } from '../../../../../src/protocol/messages/data';
import { decodeAssignment } from '../../../../../src/protocol/consumer-protocol';
import { subscription } from '../helpers';
import { RawClient } from '../../raw-client';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let cluster: MockCluster;
let client: RawClient;
let topicId: string;
let seq = 0;

beforeAll(async () => {
  cluster = await startCluster({ brokers: 1, group: { consumerHeartbeatIntervalMs: 250, consumerSessionTimeoutMs: 1500 } });
  topicId = cluster.createTopic('cg-t', 4).topicId;
});
afterAll(async () => {
  await cluster.stop();
});
beforeEach(async () => {
  client = await RawClient.connect(cluster.bootstrap[0]);
});
afterEach(() => client.close());

const newGroup = () => `cg-${++seq}`;

function hb(groupId: string, over: Body = {}, version = 1): Promise<Body> {
  return client.request(ConsumerGroupHeartbeat, version, {
    groupId, memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['cg-t'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [], ...over,
  });
}

/** A heartbeat of an existing member: only member id, epoch and (optionally) owned partitions. */
function beat(groupId: string, memberId: string, memberEpoch: number, owned: number[] | null = null): Promise<Body> {
  return hb(groupId, {
    memberId, memberEpoch, rebalanceTimeoutMs: -1, subscribedTopicNames: null, topicPartitions: owned === null ? null : [{
      topicId, partitions: owned,
    }],
  });
}

const parts = (res: Body): number[] | undefined => res.assignment?.topicPartitions.flatMap((t: Body) => t.partitions).sort();

describe('ConsumerGroupHeartbeat', () => {
  test('v0 join: the coordinator makes the member id; epoch 1, the heartbeat interval and every partition by topic id', async () => {
    const res = await hb(newGroup(), {}, 0);
    expect(res).toMatchObject({ errorCode: 0, memberEpoch: 1, heartbeatIntervalMs: 250 });
    expect(res.memberId).toMatch(/.+/);
    expect(res.assignment.topicPartitions).toEqual([{ topicId, partitions: [0, 1, 2, 3] }]);
  });

  test.each([
    ['v1 without a member id', { memberId: '' }, ErrorCode.INVALID_REQUEST],
    ['an empty group id', { groupId: '', memberId: 'm' }, ErrorCode.INVALID_REQUEST],
    ['a join without rebalance timeout', { memberId: 'm', rebalanceTimeoutMs: -1 }, ErrorCode.INVALID_REQUEST],
    [
      'a join with owned partitions', { memberId: 'm', topicPartitions: [{ topicId: '0'.repeat(32), partitions: [0] }] },
      ErrorCode.INVALID_REQUEST,
    ],
    ['a join without subscription', { memberId: 'm', subscribedTopicNames: null }, ErrorCode.INVALID_REQUEST],
    ['an epoch below -2', { memberId: 'm', memberEpoch: -3 }, ErrorCode.INVALID_REQUEST],
    ['a static leave without instance id', { memberId: 'm', memberEpoch: -2 }, ErrorCode.INVALID_REQUEST],
    ['an unknown server assignor', { memberId: 'm', serverAssignor: 'sticky' }, ErrorCode.UNSUPPORTED_ASSIGNOR],
    ['a regex that does not compile', { memberId: 'm', subscribedTopicRegex: 'cg-(' }, ErrorCode.INVALID_REGULAR_EXPRESSION],
    // RE2J (Kafka's engine) cannot run backreferences or lookaround: Kafka refuses them, so does the mock.
    ['a regex with a backreference', { memberId: 'm', subscribedTopicRegex: '(cg)\\1' }, ErrorCode.INVALID_REGULAR_EXPRESSION],
    ['a regex with a lookahead', { memberId: 'm', subscribedTopicRegex: '(?=cg).*' }, ErrorCode.INVALID_REGULAR_EXPRESSION],
    ['an instance id of spaces', { memberId: 'm', instanceId: '  ' }, ErrorCode.INVALID_REQUEST],
    ['epoch 1 to a group that does not exist', { memberId: 'm', memberEpoch: 1 }, ErrorCode.GROUP_ID_NOT_FOUND],
  ])('%s is refused as Kafka refuses it', async (_what, over, errorCode) => {
    const res = await hb((over as Body).groupId ?? newGroup(), over);
    expect(res.errorCode).toBe(errorCode);
    expect(res.errorMessage).toEqual(expect.any(String));
  });

  test('a partition is revoked from its owner before another member gets it', async () => {
    const g = newGroup();
    const a = await hb(g, { memberId: 'a' });
    expect(parts(a)).toEqual([0, 1, 2, 3]);
    const b = await hb(g, { memberId: 'b' });
    expect(b).toMatchObject({ errorCode: 0, memberEpoch: 2 });
    expect(parts(b)).toEqual([]); // its target partitions are still a's
    const aRevoking = await beat(g, 'a', 1, [0, 1, 2, 3]);
    expect(aRevoking.memberEpoch).toBe(1);
    const kept = parts(aRevoking)!;
    expect(kept).toHaveLength(2);
    expect(parts(await beat(g, 'b', 2))).toBeUndefined(); // nothing released yet, nothing changed
    expect(cluster.inspect.group(g)!.state).toBe('Reconciling');
    const aDone = await beat(g, 'a', 1, kept);
    expect(aDone.memberEpoch).toBe(2);
    const bDone = await beat(g, 'b', 2, []);
    expect(parts(bDone)!.concat(kept).sort()).toEqual([0, 1, 2, 3]);
    const stable = await waitForStableGroup(cluster, g, { members: 2, allAssigned: ['cg-t'], timeoutMs: 5000 });
    expect(stable.consumer!.assignmentEpoch).toBe(2);
    expect(cluster.inspect.events({ groupId: g, type: 'member.reconciled' }).map((e) => e.data.to)).toEqual(
      expect.arrayContaining(['stable', 'unreleased_partitions', 'unrevoked_partitions']));
  });

  test('an epoch ahead of the coordinator, or behind it without a lost response, is FENCED_MEMBER_EPOCH', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a' });
    await hb(g, { memberId: 'b' });
    await beat(g, 'a', 1, [0, 1, 2, 3]);
    const a = await beat(g, 'a', 1, [0, 1]);
    expect(a.memberEpoch).toBe(2);
    expect((await beat(g, 'a', 7)).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    // The previous epoch with owned partitions inside the assignment is a lost response: accepted.
    expect((await beat(g, 'a', 1, [0, 1])).errorCode).toBe(0);
    expect((await beat(g, 'a', 1, null)).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    expect((await beat(g, 'nobody', 1)).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  test('leave with epoch -1 removes the member and bumps the group epoch', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a' });
    const left = await beat(g, 'a', -1);
    expect(left).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    const view = cluster.inspect.group(g)!;
    expect(view.state).toBe('Empty');
    expect(view.consumer!.groupEpoch).toBe(2);
  });

  test('static membership: UNRELEASED_INSTANCE_ID while held; after -2 a new member id takes over epoch and partitions', async () => {
    const g = newGroup();
    const a = await hb(g, { memberId: 'a', instanceId: 'i1' });
    expect((await hb(g, { memberId: 'a2', instanceId: 'i1' })).errorCode).toBe(ErrorCode.UNRELEASED_INSTANCE_ID);
    const leave = { memberId: 'a', memberEpoch: -2, instanceId: 'i1', rebalanceTimeoutMs: -1 };
    Object.assign(leave, { subscribedTopicNames: null, topicPartitions: null });
    expect((await hb(g, leave)).memberEpoch).toBe(-2);
    const back = await hb(g, { memberId: 'a2', instanceId: 'i1' });
    expect(back).toMatchObject({ errorCode: 0, memberId: 'a2', memberEpoch: a.memberEpoch });
    expect(parts(back)).toEqual([0, 1, 2, 3]);
    expect(cluster.inspect.group(g)!.consumer!.groupEpoch).toBe(1);
    expect((await beat(g, 'a', 1)).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  test('a member that stops heartbeating is removed after group.consumer.session.timeout.ms', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a' });
    const expired = await waitForEvent(cluster, { type: 'member.expired', groupId: g }, { timeoutMs: 10_000 });
    expect(expired.data).toMatchObject({ memberId: 'a', cause: 'session-timeout' });
    expect(cluster.inspect.group(g)!.state).toBe('Empty');
  });

  test('a member that does not revoke within its rebalance timeout is removed', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a', rebalanceTimeoutMs: 300 });
    await hb(g, { memberId: 'b' });
    await beat(g, 'a', 1, [0, 1, 2, 3]); // told to revoke; never acks
    const expired = await waitForEvent(cluster, { type: 'member.expired', groupId: g }, { timeoutMs: 10_000 });
    expect(expired.data).toMatchObject({ memberId: 'a', cause: 'rebalance-timeout' });
    const b = await beat(g, 'b', 2, []);
    expect(b.memberEpoch).toBe(3);
    expect(parts(b)).toEqual([0, 1, 2, 3]);
  });

  test('serverAssignor range: contiguous ranges, a member keeping what fits its quota', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'm2', serverAssignor: 'range' });
    await beat(g, 'm2', 1, [0, 1, 2, 3]);
    await hb(g, { memberId: 'm1', serverAssignor: 'range' });
    const view = cluster.inspect.group(g)!;
    expect(view.protocolName).toBe('range');
    const target = Object.fromEntries(view.consumer!.members.map((m) => [m.memberId, m.target['cg-t']]));
    expect(target).toEqual({ m1: [2, 3], m2: [0, 1] });
  });

  test('a catastrophic-backtracking regex runs in linear time: the cluster keeps answering (issue 19, item 3)', async () => {
    cluster.createTopic('a'.repeat(30), 1);
    const g = newGroup();
    const started = Date.now();
    const res = await hb(g, { memberId: 'evil', subscribedTopicNames: null, subscribedTopicRegex: '(a+)+b' });
    expect(res.errorCode).toBe(0);
    await beat(g, 'evil', res.memberEpoch, []); // a heartbeat with nothing changed does not re-run the pattern
    const other = await RawClient.connect(cluster.bootstrap[0]);
    try {
      const meta =
        await other.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      expect(meta.topics.map((t: Body) => t.name)).toContain('a'.repeat(30));
    } finally {
      other.close();
    }
    // A backtracking engine takes minutes here (about 2x per extra 'a'); RE2J's takes microseconds.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(cluster.inspect.group(g)!.members[0].assignment).toEqual({});
  });

  test('a member id over 32767 bytes closes the connection, as Kafka\'s generated reader refuses it (issue 19, item 7)', async () => {
    const probe = await RawClient.connect(cluster.bootstrap[0]);
    const sent = probe.request(ConsumerGroupHeartbeat, 1, {
      groupId: newGroup(), memberId: 'm'.repeat(100_000), memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['cg-t'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    });
    await expect(sent).rejects.toThrow(/connection closed/);
    await probe.waitClosed();
    expect(cluster.inspect.groups().some((x) => x.members.some((m) => m.memberId.length > 0x7fff))).toBe(false);
    // The longest id Kafka reads is accepted.
    const longest = await hb(newGroup(), { memberId: 'm'.repeat(0x7fff) });
    expect(longest.errorCode).toBe(0);
  });

  test('a negative rebalance timeout is kept as Kafka keeps it: a member asked to revoke expires at once', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a', rebalanceTimeoutMs: -5 });
    await hb(g, { memberId: 'b' });
    await beat(g, 'a', 1, [0, 1, 2, 3]); // told to revoke
    const expired = await waitForEvent(cluster, { type: 'member.expired', groupId: g }, { timeoutMs: 2000 });
    expect(expired.data).toMatchObject({ memberId: 'a', cause: 'rebalance-timeout' });
  });

  test('a regular expression subscribes to the topics it fully matches', async () => {
    cluster.createTopic('cg-re-1', 1);
    cluster.createTopic('cg-re-2', 1);
    const g = newGroup();
    const res = await hb(g, { memberId: 'a', subscribedTopicNames: [], subscribedTopicRegex: 'cg-re-.*' });
    expect(res.assignment.topicPartitions).toHaveLength(2);
    expect(Object.keys(cluster.inspect.group(g)!.members[0].assignment!).sort()).toEqual(['cg-re-1', 'cg-re-2']);
  });
});

describe('offsets with member epochs (OffsetCommit v9, OffsetFetch v9)', () => {
  const commit = (groupId: string, memberId: string, epoch: number, version = 9) => client.request(OffsetCommit, version, {
    groupId, generationId: epoch, memberId, groupInstanceId: null,
    topics: [{ name: 'cg-t', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: null }] }],
  });
  const fetch = (groupId: string, memberId: string | null, memberEpoch: number) => client.request(OffsetFetch, 9, {
    groups: [{ groupId, memberId, memberEpoch, topics: [{ name: 'cg-t', partitionIndexes: [0] }] }], requireStable: false,
  });
  const code = (res: Body) => res.topics[0].partitions[0].errorCode;

  test('a commit needs the member and its exact epoch, at v9', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a' });
    expect(code(await commit(g, 'a', 1))).toBe(0);
    expect(code(await commit(g, 'a', 0))).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    expect(code(await commit(g, 'a', 2))).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    expect(code(await commit(g, 'x', 1))).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(code(await commit(g, 'a', 1, 8))).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(code(await commit(newGroup(), 'a', 1))).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(cluster.inspect.committedOffset(g, 'cg-t', 0)).toBe(5);
  });

  test('a fetch checks member id and epoch when given; null and -1 (admin) always read', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a' });
    await commit(g, 'a', 1);
    const ok = await fetch(g, 'a', 1);
    expect(ok.groups[0]).toMatchObject({ groupId: g, errorCode: 0 });
    expect(ok.groups[0].topics[0].partitions[0].committedOffset).toBe(5n);
    expect((await fetch(g, 'a', 3)).groups[0].errorCode).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    expect((await fetch(g, 'b', 1)).groups[0].errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await fetch(g, null, -1)).groups[0].topics[0].partitions[0].committedOffset).toBe(5n);
  });
});

describe('classic and consumer groups side by side', () => {
  const join = (groupId: string) => client.request(JoinGroup, 6, {
    groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription(['cg-t']) }],
  });

  test('a classic JoinGroup to a consumer group with members is GROUP_ID_NOT_FOUND; to an empty one converts it', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a' });
    expect((await join(g)).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    await beat(g, 'a', -1);
    expect((await join(g)).errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(cluster.inspect.group(g)!.groupType).toBe('classic');
  });

  test('a ConsumerGroupHeartbeat to a classic group with members is GROUP_ID_NOT_FOUND', async () => {
    const g = newGroup();
    const first = await join(g);
    await client.request(JoinGroup, 6, {
      groupId: g, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: first.memberId, groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: subscription(['cg-t']) }],
    });
    const res = await hb(g, { memberId: 'a' });
    expect(res.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(res.errorMessage).toMatch(/not a consumer group/);
  });

  test('ListGroups v5 reports each group type and filters by type', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a' });
    const all = await client.request(ListGroups, 5, { statesFilter: [], typesFilter: [] });
    expect(all.groups.find((x: Body) => x.groupId === g)).toEqual({
      groupId: g, protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer',
    });
    const classic = await client.request(ListGroups, 5, { statesFilter: [], typesFilter: ['classic'] });
    expect(classic.groups.some((x: Body) => x.groupId === g)).toBe(false);
    expect(classic.groups.every((x: Body) => x.groupType === 'classic')).toBe(true);
  });

  test('DescribeGroups describes a consumer group in ConsumerProtocol terms; ConsumerGroupDescribe in KIP-848 terms', async () => {
    const g = newGroup();
    await hb(g, { memberId: 'a', instanceId: 'inst' });
    const d = (await client.request(DescribeGroups, 5, { groups: [g], includeAuthorizedOperations: false })).groups[0];
    expect(d).toMatchObject({ errorCode: 0, groupState: 'Stable', protocolType: 'consumer', protocolData: 'uniform' });
    const assigned = decodeAssignment(d.members[0].memberAssignment).assignedPartitions.map((tp) => tp.partition).sort();
    expect(assigned).toEqual([0, 1, 2, 3]);
    const c = (await client.request(ConsumerGroupDescribe, 0, { groupIds: [g, 'cg-none'], includeAuthorizedOperations: true })).groups;
    expect(c[0]).toMatchObject({ errorCode: 0, groupState: 'Stable', groupEpoch: 1, assignmentEpoch: 1, assignorName: 'uniform' });
    expect(c[0].members[0]).toMatchObject({ memberId: 'a', instanceId: 'inst', memberEpoch: 1, subscribedTopicNames: ['cg-t'] });
    expect(c[0].members[0].assignment.topicPartitions).toEqual([{ topicId, topicName: 'cg-t', partitions: [0, 1, 2, 3] }]);
    expect(c[0].authorizedOperations).toBeGreaterThan(0);
    expect(c[1].errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});
