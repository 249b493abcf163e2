import { EventLog } from '../../../../../src/testing/mock-broker/event-log';
import { ErrorCode } from '../../../../../src/protocol/error-codes';
import { OFFSET_METADATA_TOO_LARGE } from '../../../../../src/testing/mock-broker/groups/offsets/api';
import { ctx, flush, joinReq, setup, syncAll, track } from '../helpers';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const part = (partitionIndex: number, committedOffset: bigint, committedMetadata: string | null = null) =>
  ({ partitionIndex, committedOffset, committedMetadata });

async function stableGroup(coordinator: ReturnType<typeof setup>['coordinator'], groupId = 'g', protocolType = 'consumer') {
  const a = track(coordinator.joinGroup(joinReq({ groupId, protocolType }), ctx('A', 3)));
  jest.advanceTimersByTime(1);
  await flush();
  await syncAll(coordinator, [a.value!], groupId);
  return a.value!;
}

describe('offset commit and fetch', () => {
  test('a simple commit (generation -1, no member) creates an Empty group and is accepted only while Empty', async () => {
    const { coordinator, events } = setup();
    const simple = (groupId = 'g') => coordinator.commitOffsets({
      groupId, generationId: -1, memberId: '', groupInstanceId: null, topics: [{ name: 't', partitions: [part(0, 42n, 'meta')] }] }, ctx());
    expect(simple().topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect(coordinator.group('g')).toMatchObject({ state: 'Empty', protocolType: null });
    expect(events.entries({ type: 'group.created' })).toHaveLength(1);
    const fetched = coordinator.fetchOffsets({ groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }] }, ctx());
    expect(fetched).toEqual({
      errorCode: 0,
      topics: [{ name: 't', partitions: [
        { partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: -1, metadata: 'meta', errorCode: 0 },
        { partitionIndex: 1, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
      ] }],
    });
    expect(coordinator.fetchOffsets({ groupId: 'g', topics: null }).topics)
      .toEqual([{ name: 't', partitions: [fetched.topics[0]!.partitions[0]] }]);
    // a consumer group that is Stable refuses simple commits
    await stableGroup(coordinator, 'g2');
    expect(simple('g2').topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    coordinator.close();
  });

  test('unknown group with a generation: ILLEGAL_GENERATION before v9, GROUP_ID_NOT_FOUND from v9', () => {
    const { coordinator } = setup();
    const req =
      { groupId: 'nope', generationId: 3, memberId: 'm', groupInstanceId: null, topics: [{ name: 't', partitions: [part(0, 1n)] }] };
    expect(coordinator.commitOffsets(req, ctx('c', 8)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(coordinator.commitOffsets(req, ctx('c', 9)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(coordinator.groups()).toEqual([]);
  });

  test('unknown partitions and oversized metadata are per-partition errors', () => {
    const { coordinator } = setup({ partitionExists: (t, p) => t === 't' && p < 2, offsetMetadataMaxBytes: 4 });
    const res = coordinator.commitOffsets({
      groupId: 'g', generationId: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 't', partitions: [part(0, 1n), part(1, 1n, 'too long'), part(7, 1n)] }, { name: 'x', partitions: [part(0, 1n)] }],
    }, ctx());
    expect(res.topics.map((t) => t.partitions.map((p) => p.errorCode)))
      .toEqual([[0, OFFSET_METADATA_TOO_LARGE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION], [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]);
    // only unknown partitions: the group is not created
    coordinator.commitOffsets({
      groupId: 'other', generationId: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'x', partitions: [part(0, 1n)] }] }, ctx());
    expect(coordinator.group('other')).toBeUndefined();
  });

  test('a commit from a member counts as a heartbeat in Stable', async () => {
    const { coordinator } = setup();
    const a = await stableGroup(coordinator);
    for (let i = 0; i < 5; i++) {
      jest.advanceTimersByTime(6000);
      const r = coordinator.commitOffsets({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null,
        topics: [{ name: 't', partitions: [part(0, BigInt(i))] }] }, ctx());
      expect(r.topics[0]!.partitions[0]!.errorCode).toBe(0);
    }
    expect(coordinator.group('g')!.state).toBe('Stable');
    coordinator.close();
  });
});

describe('describe, list, delete groups', () => {
  test('describe: metadata only when Stable; unknown groups are Dead', async () => {
    const { coordinator } = setup();
    const a = await stableGroup(coordinator);
    const [d, unknown] = coordinator.describeGroups(['g', 'nope']);
    expect(d).toMatchObject({ errorCode: 0, groupId: 'g', groupState: 'Stable', protocolType: 'consumer', protocolData: 'range' });
    expect(d!.members).toHaveLength(1);
    expect(d!.members[0]).toMatchObject({ memberId: a.memberId, clientId: 'A', clientHost: '/127.0.0.1', groupInstanceId: null });
    expect(d!.members[0]!.memberMetadata.length).toBeGreaterThan(0);
    expect(d!.members[0]!.memberAssignment.toString()).toBe(`assignment-${a.memberId}`);
    expect(unknown).toMatchObject({ errorCode: 0, groupId: 'nope', groupState: 'Dead', members: [] });
    coordinator.close();
  });

  test('list with a case-insensitive state filter', async () => {
    const { coordinator } = setup();
    await stableGroup(coordinator, 'stable');
    coordinator.commitOffsets({ groupId: 'simple', generationId: -1, memberId: '', groupInstanceId: null,
      topics: [{ name: 't', partitions: [part(0, 1n)] }] }, ctx());
    expect(coordinator.listGroups()).toEqual([
      { groupId: 'stable', protocolType: 'consumer', groupState: 'Stable', groupType: 'classic' },
      { groupId: 'simple', protocolType: '', groupState: 'Empty', groupType: 'classic' },
    ]);
    expect(coordinator.listGroups(['empty']).map((g) => g.groupId)).toEqual(['simple']);
    expect(coordinator.listGroups(['STABLE', 'Dead']).map((g) => g.groupId)).toEqual(['stable']);
    coordinator.close();
  });

  test('delete: only Empty groups, with their offsets', async () => {
    const { coordinator, events } = setup();
    await stableGroup(coordinator, 'busy');
    coordinator.commitOffsets({
      groupId: 'idle', generationId: -1, memberId: '', groupInstanceId: null, topics: [{ name: 't', partitions: [part(0, 1n)] }] }, ctx());
    expect(coordinator.deleteGroups(['busy', 'idle', 'nope', ''])).toEqual([
      { groupId: 'busy', errorCode: ErrorCode.NON_EMPTY_GROUP },
      { groupId: 'idle', errorCode: 0 },
      { groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
      { groupId: '', errorCode: ErrorCode.INVALID_GROUP_ID },
    ]);
    expect(coordinator.group('idle')).toBeUndefined();
    expect(coordinator.fetchOffsets({ groupId: 'idle', topics: null }).topics).toEqual([]);
    expect(events.entries({ type: 'group.state', groupId: 'idle' }).map((e) => e.data.to)).toEqual(['Dead']);
    coordinator.close();
  });
});

describe('deleteOffsets (KIP-496)', () => {
  test('consumer groups: GROUP_SUBSCRIBED_TO_TOPIC for subscribed topics, deletion otherwise', async () => {
    const { coordinator } = setup();
    const a = await stableGroup(coordinator); // subscribes to 't'
    coordinator.commitOffsets({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null,
      topics: [{ name: 't', partitions: [part(0, 1n)] }, { name: 'old', partitions: [part(0, 9n)] }] }, ctx());
    expect(coordinator.group('g')!.subscribedTopics).toEqual(['t']);
    const res = coordinator.deleteOffsets({
      groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }, { name: 'old', partitions: [{ partitionIndex: 0 }] }] });
    expect(res).toEqual({ errorCode: 0, topics: [
      { name: 't', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC }] },
      { name: 'old', partitions: [{ partitionIndex: 0, errorCode: 0 }] },
    ] });
    expect(coordinator.group('g')!.offsets.map((o) => o.topic)).toEqual(['t']);
    coordinator.close();
  });

  test('non-consumer non-empty groups, missing groups, and Empty groups', async () => {
    const { coordinator } = setup();
    await stableGroup(coordinator, 'connect', 'connect');
    expect(coordinator.deleteOffsets({ groupId: 'connect', topics: [] }).errorCode).toBe(ErrorCode.NON_EMPTY_GROUP);
    expect(coordinator.deleteOffsets({ groupId: 'nope', topics: [] }).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    coordinator.commitOffsets({
      groupId: 'e', generationId: -1, memberId: '', groupInstanceId: null, topics: [{ name: 't', partitions: [part(0, 1n)] }] }, ctx());
    expect(coordinator.deleteOffsets({ groupId: 'e', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] })
      .topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect(coordinator.group('e')!.offsets).toEqual([]);
    coordinator.close();
  });
});

describe('EventLog', () => {
  test('bounded, filtered, observable', () => {
    let t = 1000;
    const log = new EventLog({ maxEntries: 3, now: () => t++ });
    const seen: string[] = [];
    const off = log.on((e) => seen.push(e.type));
    for (let i = 0; i < 5; i++) log.record(i % 2 ? 'b' : 'a', { groupId: `g${i % 2}`, i });
    expect(log.entries().map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(log.entries({ type: 'a' }).map((e) => e.data.i)).toEqual([2, 4]);
    expect(log.entries({ groupId: 'g1' }).map((e) => e.data.i)).toEqual([3]);
    expect(log.entries()[0]!.ts).toBe(1002);
    off();
    log.record('c', {});
    expect(seen).toEqual(['a', 'b', 'a', 'b', 'a']);
    log.clear();
    expect(log.entries()).toEqual([]);
    log.record('d', {});
    expect(log.entries()[0]!.seq).toBe(7);
  });
});
