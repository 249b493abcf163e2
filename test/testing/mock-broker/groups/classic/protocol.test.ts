import { ClassicGroup } from '../../../../../src/testing/mock-broker/groups/classic/group';
import { IllegalTransitionError } from '../../../../../src/util/state-machine';
import { ErrorCode } from '../../../../../src/protocol/error-codes';
import { ctx, flush, joinReq, joinWithId, setup, subscription, syncAll, track } from '../helpers';

beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
});

describe('transition table', () => {
  test('illegal transitions throw a typed error naming both states', () => {
    const g = new ClassicGroup('g', 0);
    expect(() => g.transitionTo('Stable', 0)).toThrow(IllegalTransitionError);
    expect(() => g.transitionTo('Stable', 0)).toThrow(/Empty -> Stable/);
    expect(() => g.transitionTo('CompletingRebalance', 0)).toThrow(IllegalTransitionError); // table ok? no: from Empty not allowed
    g.transitionTo('PreparingRebalance', 0);
    // guard: CompletingRebalance needs members
    expect(() => g.transitionTo('CompletingRebalance', 0)).toThrow(/no members/);
    g.transitionTo('Empty', 1);
    expect(g.state).toBe('Empty');
    expect(g.previousState).toBe('PreparingRebalance');
    try {
      g.transitionTo('Stable', 2);
    } catch (e) {
      expect((e as IllegalTransitionError).code).toBe('ILLEGAL_GROUP_TRANSITION');
      expect((e as IllegalTransitionError).retriable).toBe(false);
    }
  });
});

describe('join and rebalance', () => {
  test('seed scenario: members join one at a time, each join rebalances with everyone rejoining', async () => {
    const { coordinator, events } = setup();
    // A
    const a = await joinWithId(coordinator, 'A');
    expect(a.memberId).toMatch(/^A-[0-9a-f-]{36}$/);
    expect(a.join.done).toBe(false); // initial rebalance: delayed (0 ms) join
    jest.advanceTimersByTime(1);
    await flush();
    expect(a.join.value)
      .toMatchObject({ errorCode: 0, generationId: 1, leader: a.memberId, protocolName: 'range', protocolType: 'consumer' });
    expect(a.join.value!.members.map((m) => m.memberId)).toEqual([a.memberId]);
    expect(coordinator.group('g')!.state).toBe('CompletingRebalance');
    await syncAll(coordinator, [a.join.value!]);
    expect(coordinator.group('g')!.state).toBe('Stable');

    // B joins: the group rebalances; A learns it from its heartbeat and rejoins.
    const b = await joinWithId(coordinator, 'B');
    expect(coordinator.group('g')!.state).toBe('PreparingRebalance');
    expect(b.join.done).toBe(false);
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId, groupInstanceId: null }, ctx()).errorCode)
      .toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const a2 = track(coordinator.joinGroup(joinReq({ memberId: a.memberId }), ctx('A')));
    await flush(); // completes as soon as all known members rejoined: no timer needed
    expect(a2.value).toMatchObject({ errorCode: 0, generationId: 2, leader: a.memberId });
    expect(a2.value!.members.map((m) => m.memberId)).toEqual([a.memberId, b.memberId]);
    expect(b.join.value).toMatchObject({ errorCode: 0, generationId: 2, leader: a.memberId, members: [] });
    const s2 = await syncAll(coordinator, [a2.value!, b.join.value!]);
    expect(s2.get(b.memberId)!.assignment.toString()).toBe(`assignment-${b.memberId}`);

    // C joins: third generation with all three.
    const c = await joinWithId(coordinator, 'C');
    const a3 = track(coordinator.joinGroup(joinReq({ memberId: a.memberId }), ctx('A')));
    await flush();
    expect(a3.done).toBe(false); // B has not rejoined yet
    const b3 = track(coordinator.joinGroup(joinReq({ memberId: b.memberId }), ctx('B')));
    await flush();
    expect(a3.value!.generationId).toBe(3);
    expect(a3.value!.members).toHaveLength(3);
    expect(b3.value!.generationId).toBe(3);
    expect(c.join.value!.generationId).toBe(3);
    await syncAll(coordinator, [a3.value!, b3.value!, c.join.value!]);

    const transitions = events.entries({ type: 'group.state', groupId: 'g' }).map((e) => `${e.data.from}->${e.data.to}`);
    expect(transitions).toEqual([
      'Empty->PreparingRebalance', 'PreparingRebalance->CompletingRebalance', 'CompletingRebalance->Stable',
      'Stable->PreparingRebalance', 'PreparingRebalance->CompletingRebalance', 'CompletingRebalance->Stable',
      'Stable->PreparingRebalance', 'PreparingRebalance->CompletingRebalance', 'CompletingRebalance->Stable',
    ]);
    expect(events.entries({ type: 'group.state' })[3]!.data.reason).toMatch(/adding new member B-/);
    expect(events.entries({ type: 'group.generation' }).map((e) => e.data.generationId)).toEqual([1, 2, 3]);
    expect(events.entries({ type: 'member.joined' }).map((e) => e.data.clientId)).toEqual(['A', 'B', 'C']);
    expect(events.entries({ type: 'member.assignment' }).filter((e) => e.data.generationId === 3)).toHaveLength(3);
    coordinator.close();
  });

  test('initial delayed join extends while members arrive, bounded by the rebalance timeout', async () => {
    const { coordinator } = setup({ initialRebalanceDelayMs: 3000 });
    const a = track(coordinator.joinGroup(joinReq({ rebalanceTimeoutMs: 10_000 }), ctx('A', 3)));
    jest.advanceTimersByTime(2000);
    const b = track(coordinator.joinGroup(joinReq({ rebalanceTimeoutMs: 10_000 }), ctx('B', 3)));
    jest.advanceTimersByTime(3999); // t = 5999: first delay (3000) extended by another 3000
    await flush();
    expect(a.done || b.done).toBe(false);
    jest.advanceTimersByTime(1); // t = 6000
    await flush();
    expect(a.value!.generationId).toBe(1);
    expect(b.value!.generationId).toBe(1);
    expect(a.value!.members).toHaveLength(2);
    coordinator.close();
  });

  test('a member that does not rejoin is removed at the rebalance timeout', async () => {
    const { coordinator, events } = setup();
    const a = track(coordinator.joinGroup(joinReq(), ctx('A', 3)));
    const b = track(coordinator.joinGroup(joinReq(), ctx('B', 3)));
    jest.advanceTimersByTime(1);
    await flush();
    await syncAll(coordinator, [a.value!, b.value!]);
    const aId = a.value!.memberId;
    const bId = b.value!.memberId;
    const c = track(coordinator.joinGroup(joinReq(), ctx('C', 3)));
    const a2 = track(coordinator.joinGroup(joinReq({ memberId: aId }), ctx('A', 3)));
    // B keeps heartbeating (so its session stays alive) but never rejoins.
    for (let t = 0; t < 29_000; t += 3000) {
      jest.advanceTimersByTime(3000);
      if (t < 27_000) expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: bId }, ctx()).errorCode)
        .toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    }
    await flush();
    expect(a2.done).toBe(true);
    expect(a2.value!.generationId).toBe(2);
    expect(a2.value!.members.map((m) => m.memberId).sort()).toEqual([aId, c.value!.memberId].sort());
    expect(coordinator.group('g')!.members.map((m) => m.memberId)).not.toContain(bId);
    expect(events.entries({ type: 'member.expired' }).map((e) => [e.data.memberId, e.data.cause])).toEqual([[bId, 'not-rejoined']]);
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 2, memberId: bId }, ctx()).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    coordinator.close();
  });

  test('session expiry removes the member and triggers a rebalance', async () => {
    const { coordinator, events } = setup();
    const a = track(coordinator.joinGroup(joinReq(), ctx('A', 3)));
    const b = track(coordinator.joinGroup(joinReq(), ctx('B', 3)));
    jest.advanceTimersByTime(1);
    await flush();
    await syncAll(coordinator, [a.value!, b.value!]);
    const aId = a.value!.memberId;
    const bId = b.value!.memberId;
    for (let i = 0; i < 3; i++) {
      jest.advanceTimersByTime(3000);
      expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: aId }, ctx()).errorCode).toBe(0);
    }
    expect(coordinator.group('g')!.state).toBe('Stable');
    jest.advanceTimersByTime(1000); // t = 10 000: B's session (10 s) is over
    expect(coordinator.group('g')!.state).toBe('PreparingRebalance');
    expect(events.entries({ type: 'member.expired' })[0]!.data).toMatchObject({ memberId: bId, cause: 'session-timeout' });
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: aId }, ctx()).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const a2 = track(coordinator.joinGroup(joinReq({ memberId: aId }), ctx('A', 3)));
    await flush();
    expect(a2.value).toMatchObject({ generationId: 2, leader: aId });
    expect(a2.value!.members).toHaveLength(1);
    coordinator.close();
  });

  test('the leader leaving: the next member is elected; the last member leaving empties the group', async () => {
    const { coordinator } = setup();
    const a = track(coordinator.joinGroup(joinReq(), ctx('A', 3)));
    const b = track(coordinator.joinGroup(joinReq(), ctx('B', 3)));
    jest.advanceTimersByTime(1);
    await flush();
    await syncAll(coordinator, [a.value!, b.value!]);
    const res =
      coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: a.value!.memberId, groupInstanceId: null, reason: 'bye' }] }, ctx());
    expect(res).toEqual({ errorCode: 0, members: [{ memberId: a.value!.memberId, groupInstanceId: null, errorCode: 0 }] });
    expect(coordinator.group('g')!.leader).toBe(b.value!.memberId);
    const b2 = track(coordinator.joinGroup(joinReq({ memberId: b.value!.memberId }), ctx('B', 3)));
    await flush();
    expect(b2.value).toMatchObject({ generationId: 2, leader: b.value!.memberId });
    await syncAll(coordinator, [b2.value!]);
    coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: b.value!.memberId, groupInstanceId: null }] }, ctx());
    const g = coordinator.group('g')!;
    expect(g).toMatchObject({ state: 'Empty', generationId: 3, leader: null, protocolName: null, members: [] });
    expect(coordinator.pendingTimers).toBe(0);
    // unknown members and unknown groups
    expect(coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: 'nope', groupInstanceId: null }] }, ctx())
      .members[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(coordinator.leaveGroup({ groupId: 'nope', members: [{ memberId: 'x', groupInstanceId: null }] }, ctx())).toEqual({
      errorCode: 0, members: [{ memberId: 'x', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID }],
    });
    coordinator.close();
  });

  test('a follower parked in SyncGroup is released with REBALANCE_IN_PROGRESS when a rebalance starts', async () => {
    const { coordinator } = setup();
    const a = track(coordinator.joinGroup(joinReq(), ctx('A', 3)));
    const b = track(coordinator.joinGroup(joinReq(), ctx('B', 3)));
    jest.advanceTimersByTime(1);
    await flush();
    const follower = [a.value!, b.value!].find((j) => j.leader !== j.memberId)!;
    const sync = track(coordinator.syncGroup({
      groupId: 'g', generationId: 1, memberId: follower.memberId, groupInstanceId: null, assignments: [] }, ctx()));
    await flush();
    expect(sync.done).toBe(false);
    track(coordinator.joinGroup(joinReq(), ctx('C', 3)));
    await flush();
    expect(sync.value).toMatchObject({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS, protocolName: null });
    coordinator.close();
  });
});

describe('MEMBER_ID_REQUIRED (KIP-394)', () => {
  test('v4+ without member id: a pending id that expires after the session timeout', async () => {
    const { coordinator, events } = setup();
    const r = await coordinator.joinGroup(joinReq(), ctx('app', 4));
    expect(r).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED, generationId: -1, leader: '', members: [] });
    expect(r.memberId).toMatch(/^app-/);
    expect(coordinator.group('g')!.pendingMemberIds).toEqual([r.memberId]);
    expect(coordinator.group('g')!.state).toBe('Empty');
    jest.advanceTimersByTime(10_000);
    expect(coordinator.group('g')!.pendingMemberIds).toEqual([]);
    expect(events.entries({ type: 'member.expired' })[0]!.data).toMatchObject({ memberId: r.memberId, cause: 'pending-member-timeout' });
    coordinator.close();
  });

  test('a pending member blocks early completion of a rebalance until it joins', async () => {
    const { coordinator } = setup();
    const a = await joinWithId(coordinator, 'A');
    jest.advanceTimersByTime(1);
    await flush();
    await syncAll(coordinator, [a.join.value!]);
    const b = await joinWithId(coordinator, 'B'); // now PreparingRebalance
    const pending = await coordinator.joinGroup(joinReq(), ctx('C', 5)); // C holds a pending id
    const a2 = track(coordinator.joinGroup(joinReq({ memberId: a.memberId }), ctx('A')));
    await flush();
    expect(a2.done).toBe(false);
    const c = track(coordinator.joinGroup(joinReq({ memberId: pending.memberId }), ctx('C')));
    await flush();
    expect(a2.value!.members).toHaveLength(3);
    expect(b.join.done && c.done).toBe(true);
    coordinator.close();
  });

  test('v3 and static members join directly', async () => {
    const { coordinator } = setup();
    const dyn = track(coordinator.joinGroup(joinReq(), ctx('old', 3)));
    const stat = track(coordinator.joinGroup(joinReq({ groupInstanceId: 'i-1' }), ctx('s', 5)));
    jest.advanceTimersByTime(1);
    await flush();
    expect(dyn.value!.errorCode).toBe(0);
    expect(stat.value!.errorCode).toBe(0);
    expect(stat.value!.memberId).toMatch(/^i-1-/);
    coordinator.close();
  });
});

describe('protocol selection', () => {
  test('each member votes for its first protocol supported by all; most votes wins', async () => {
    const { coordinator } = setup();
    const p = (name: string) => ({ name, metadata: subscription(['t']) });
    const joins = [
      track(coordinator.joinGroup(joinReq({ protocols: [p('range'), p('roundrobin'), p('sticky')] }), ctx('A', 3))),
      track(coordinator.joinGroup(joinReq({ protocols: [p('roundrobin'), p('range')] }), ctx('B', 3))),
      track(coordinator.joinGroup(joinReq({ protocols: [p('sticky'), p('roundrobin'), p('range')] }), ctx('C', 3))),
    ];
    jest.advanceTimersByTime(1);
    await flush();
    // candidates: range, roundrobin (sticky is not supported by B). Votes: A range, B roundrobin, C roundrobin.
    for (const j of joins) expect(j.value!.protocolName).toBe('roundrobin');
    coordinator.close();
  });

  test('INCONSISTENT_GROUP_PROTOCOL for another protocol type or no common protocol', async () => {
    const { coordinator } = setup();
    track(coordinator.joinGroup(joinReq(), ctx('A', 3)));
    jest.advanceTimersByTime(1);
    await flush();
    expect((await coordinator.joinGroup(joinReq({ protocolType: 'connect' }), ctx('B', 3))).errorCode)
      .toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const other = [{ name: 'cooperative-sticky', metadata: Buffer.alloc(0) }];
    expect((await coordinator.joinGroup(joinReq({ protocols: other }), ctx('B', 3))).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await coordinator.joinGroup(joinReq({ groupId: 'empty-type', protocolType: '' }), ctx('B', 3))).errorCode)
      .toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    coordinator.close();
  });
});

describe('error matrix', () => {
  async function stableGroupOfTwo() {
    const env = setup();
    const a = track(env.coordinator.joinGroup(joinReq(), ctx('A', 3)));
    const b = track(env.coordinator.joinGroup(joinReq(), ctx('B', 3)));
    jest.advanceTimersByTime(1);
    await flush();
    const leader = [a.value!, b.value!].find((j) => j.leader === j.memberId)!;
    const follower = [a.value!, b.value!].find((j) => j.leader !== j.memberId)!;
    return { ...env, leader, follower };
  }

  test('JoinGroup: session timeout bounds, unknown member of unknown group, invalid group id', async () => {
    const { coordinator } = setup({ minSessionTimeoutMs: 6000, maxSessionTimeoutMs: 60_000 });
    expect((await coordinator.joinGroup(joinReq({ sessionTimeoutMs: 5999 }), ctx())).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect((await coordinator.joinGroup(joinReq({ sessionTimeoutMs: 60_001 }), ctx())).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect((await coordinator.joinGroup(joinReq({ memberId: 'ghost' }), ctx())).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await coordinator.joinGroup(joinReq({ groupId: '' }), ctx())).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
    expect(coordinator.groups()).toEqual([]);
  });

  test('Heartbeat and SyncGroup in each state', async () => {
    const { coordinator, leader, follower } = await stableGroupOfTwo();
    const hb = (memberId: string, generationId = 1) =>
      coordinator.heartbeat({ groupId: 'g', generationId, memberId, groupInstanceId: null }, ctx()).errorCode;
    const sync = (memberId: string, generationId = 1, extra = {}) =>
      coordinator.syncGroup({ groupId: 'g', generationId, memberId, groupInstanceId: null, assignments: [], ...extra }, ctx());
    // CompletingRebalance
    expect(hb(follower.memberId)).toBe(ErrorCode.NONE);
    expect(hb(follower.memberId, 0)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(hb('ghost')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(coordinator.heartbeat({ groupId: 'nope', generationId: 1, memberId: 'x' }, ctx()).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await sync(follower.memberId, 2)).errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await sync('ghost')).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await sync(follower.memberId, 1, { protocolName: 'roundrobin' })).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await sync(follower.memberId, 1, { protocolType: 'connect' })).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await coordinator.syncGroup({ groupId: 'nope', generationId: 1, memberId: 'x', assignments: [] }, ctx())).errorCode)
      .toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const commit = (memberId: string, generationId: number) =>
      coordinator.commitOffsets({ groupId: 'g', generationId, memberId, groupInstanceId: null,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedMetadata: null }] }] }, ctx())
        .topics[0]!.partitions[0]!.errorCode;
    expect(commit(follower.memberId, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    await syncAll(coordinator, [leader, follower]);
    // Stable
    expect(hb(follower.memberId)).toBe(ErrorCode.NONE);
    expect(commit(follower.memberId, 1)).toBe(ErrorCode.NONE);
    expect(commit(follower.memberId, 0)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(commit('ghost', 1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const again = await sync(follower.memberId);
    expect(again).toMatchObject({ errorCode: 0, protocolName: 'range', protocolType: 'consumer' });
    expect(again.assignment.toString()).toBe(`assignment-${follower.memberId}`);
    // PreparingRebalance (a new member joins)
    track(coordinator.joinGroup(joinReq(), ctx('C', 3)));
    await flush();
    expect(hb(follower.memberId)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect((await sync(follower.memberId)).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(commit(follower.memberId, 1)).toBe(ErrorCode.NONE); // previous generation may still commit
    coordinator.close();
  });

  test('GROUP_MAX_SIZE_REACHED', async () => {
    const { coordinator } = setup({ maxGroupSize: 1 });
    const a = track(coordinator.joinGroup(joinReq(), ctx('A', 3)));
    jest.advanceTimersByTime(1);
    await flush();
    expect(a.value!.errorCode).toBe(0);
    expect((await coordinator.joinGroup(joinReq(), ctx('B', 3))).errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    coordinator.close();
  });
});

describe('pending sync', () => {
  test('members that do not SyncGroup within the rebalance timeout are removed and the group rebalances', async () => {
    const { coordinator, events } = setup();
    const a = track(coordinator.joinGroup(joinReq(), ctx('A', 3)));
    const b = track(coordinator.joinGroup(joinReq(), ctx('B', 3)));
    jest.advanceTimersByTime(1);
    await flush();
    const leader = [a.value!, b.value!].find((j) => j.leader === j.memberId)!;
    const follower = [a.value!, b.value!].find((j) => j.leader !== j.memberId)!;
    const ls = track(coordinator.syncGroup({ groupId: 'g', generationId: 1, memberId: leader.memberId, assignments: [] }, ctx()));
    await flush();
    expect(ls.value!.errorCode).toBe(0);
    expect(coordinator.group('g')!.state).toBe('Stable');
    expect(coordinator.group('g')!.pendingSyncMemberIds).toEqual([follower.memberId]);
    for (let t = 0; t < 30_000; t += 3000) {
      jest.advanceTimersByTime(3000);
      if (t + 3000 < 30_000) {
        for (const id of [leader.memberId, follower.memberId])
          coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: id }, ctx());
      }
    }
    expect(events.entries({ type: 'member.expired' }).map((e) => [e.data.memberId, e.data.cause]))
      .toEqual([[follower.memberId, 'pending-sync-timeout']]);
    expect(coordinator.group('g')!.state).toBe('PreparingRebalance');
    expect(coordinator.group('g')!.members.map((m) => m.memberId)).toEqual([leader.memberId]);
    coordinator.close();
  });
});

describe('pending sync with a rebalance timeout of 0', () => {
  test('the member is removed before its SyncGroup, which answers UNKNOWN_MEMBER_ID (no timer race)', async () => {
    const { coordinator, events } = setup();
    const a = track(coordinator.joinGroup(joinReq({ rebalanceTimeoutMs: 0 }), ctx('A', 3)));
    // Only the timer that completes the join runs: nothing else may run between the JoinGroup answer and the SyncGroup.
    jest.advanceTimersToNextTimer();
    await flush();
    expect(a.value!.errorCode).toBe(0);
    const memberId = a.value!.memberId;
    const expired = events.entries({ type: 'member.expired' }).map((e) => [e.data.memberId, e.data.cause]);
    expect(expired).toEqual([[memberId, 'pending-sync-timeout']]);
    const sync = track(coordinator.syncGroup({ groupId: 'g', generationId: 1, memberId, assignments: [] }, ctx()));
    await flush();
    expect(sync.value!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    coordinator.close();
  });
});

describe('static membership (KIP-345)', () => {
  async function staticGroup(apiVersion = 5) {
    const env = setup();
    const s1 = track(env.coordinator.joinGroup(joinReq({ groupInstanceId: 'i1' }), ctx('c1', apiVersion)));
    const s2 = track(env.coordinator.joinGroup(joinReq({ groupInstanceId: 'i2' }), ctx('c2', apiVersion)));
    jest.advanceTimersByTime(1);
    await flush();
    await syncAll(env.coordinator, [s1.value!, s2.value!]);
    return { ...env, s1: s1.value!, s2: s2.value! };
  }

  test('a restarted follower gets a new id without rebalance, keeps its assignment; the old id is fenced', async () => {
    const { coordinator, events, s1, s2 } = await staticGroup();
    expect(s1.leader).toBe(s1.memberId);
    const restarted = await coordinator.joinGroup(joinReq({ groupInstanceId: 'i2' }), ctx('c2'));
    expect(restarted).toMatchObject({ errorCode: 0, generationId: 1, leader: s1.memberId, members: [], protocolName: 'range' });
    expect(restarted.memberId).not.toBe(s2.memberId);
    expect(coordinator.group('g')).toMatchObject({ state: 'Stable', generationId: 1 });
    const sync = await coordinator.syncGroup({
      groupId: 'g', generationId: 1, memberId: restarted.memberId, groupInstanceId: 'i2', assignments: [] }, ctx());
    expect(sync.assignment.toString()).toBe(`assignment-${s2.memberId}`);
    const old = { groupId: 'g', generationId: 1, memberId: s2.memberId, groupInstanceId: 'i2' };
    expect(coordinator.heartbeat(old, ctx()).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await coordinator.syncGroup({ ...old, assignments: [] }, ctx())).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(coordinator.commitOffsets({
      ...old, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }] }, ctx())
      .topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await coordinator.joinGroup(joinReq({ memberId: s2.memberId, groupInstanceId: 'i2' }), ctx('c2'))).errorCode)
      .toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(events.entries({ type: 'member.replaced' })[0]!.data)
      .toMatchObject({ groupInstanceId: 'i2', oldMemberId: s2.memberId, newMemberId: restarted.memberId, rebalance: false });
    expect(events.entries({ type: 'group.state' }).filter((e) => e.data.to === 'PreparingRebalance')).toHaveLength(1);
    coordinator.close();
  });

  test('a restarted leader: v9 gets the members with skipAssignment, older versions are told the old leader id', async () => {
    const v9 = await staticGroup(9);
    const r9 = await v9.coordinator.joinGroup(joinReq({ groupInstanceId: 'i1' }), ctx('c1', 9));
    expect(r9).toMatchObject({ errorCode: 0, leader: r9.memberId, skipAssignment: true });
    expect(r9.members.map((m) => m.groupInstanceId).sort()).toEqual(['i1', 'i2']);
    expect(v9.coordinator.group('g')!.state).toBe('Stable');
    v9.coordinator.close();

    const v5 = await staticGroup(5);
    const r5 = await v5.coordinator.joinGroup(joinReq({ groupInstanceId: 'i1' }), ctx('c1', 5));
    expect(r5).toMatchObject({ errorCode: 0, leader: v5.s1.memberId, skipAssignment: false, members: [] });
    expect(v5.coordinator.group('g')!.leader).toBe(r5.memberId);
    v5.coordinator.close();
  });

  test('a restart with new metadata that keeps the selected protocol does not rebalance', async () => {
    const { coordinator } = await staticGroup();
    const p = track(coordinator.joinGroup(joinReq({ groupInstanceId: 'i2',
      protocols: [{ name: 'roundrobin', metadata: subscription(['t']) }, { name: 'range', metadata: subscription(['t']) }] }), ctx('c2')));
    await flush();
    // selected protocol stays range (i1 only supports range), so no rebalance even with new metadata
    expect(p.done).toBe(true);
    expect(coordinator.group('g')!.state).toBe('Stable');
    coordinator.close();
  });

  test('static members expire by session timeout and can be removed by instance id', async () => {
    const { coordinator, events, s1, s2 } = await staticGroup();
    const res = coordinator.leaveGroup({
      groupId: 'g', members: [{ memberId: '', groupInstanceId: 'i1' }, { memberId: '', groupInstanceId: 'nope' }] }, ctx());
    expect(res.members.map((m) => m.errorCode)).toEqual([0, ErrorCode.UNKNOWN_MEMBER_ID]);
    expect(coordinator.group('g')!.members.map((m) => m.memberId)).toEqual([s2.memberId]);
    jest.advanceTimersByTime(10_000);
    expect(events.entries({ type: 'member.expired' }).map((e) => e.data.memberId)).toContain(s2.memberId);
    expect(s1.memberId).toBeDefined();
    coordinator.close();
  });

  test('static members that do not rejoin are kept through the join phase (only dynamic ones are dropped)', async () => {
    const { coordinator, s1, s2 } = await staticGroup();
    const j1 = track(coordinator.joinGroup(joinReq({ memberId: s1.memberId, groupInstanceId: 'i1' }), ctx('c1')));
    await flush();
    expect(coordinator.group('g')!.state).toBe('PreparingRebalance'); // leader rejoin
    for (let t = 0; t < 30_000; t += 3000) {
      jest.advanceTimersByTime(3000);
      coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: s2.memberId, groupInstanceId: 'i2' }, ctx());
    }
    await flush();
    expect(j1.value!.generationId).toBe(2);
    expect(j1.value!.members.map((m) => m.memberId)).toEqual([s1.memberId, s2.memberId]);
    coordinator.close();
  });
});

describe('close and moveAway', () => {
  test('close answers parked requests with COORDINATOR_NOT_AVAILABLE and leaves no timers', async () => {
    const { coordinator } = setup({ initialRebalanceDelayMs: 3000 });
    const a = track(coordinator.joinGroup(joinReq(), ctx('A', 3)));
    await flush();
    expect(coordinator.pendingTimers).toBeGreaterThan(0);
    coordinator.close();
    await flush();
    expect(a.value!.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(coordinator.pendingTimers).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
    expect((await coordinator.joinGroup(joinReq(), ctx())).errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 0, memberId: 'x' }, ctx()).errorCode)
      .toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  test('moveAway answers parked requests with NOT_COORDINATOR and keeps the group', async () => {
    const { coordinator } = setup({ initialRebalanceDelayMs: 3000 });
    const a = track(coordinator.joinGroup(joinReq(), ctx('A', 3)));
    await flush();
    coordinator.moveAway();
    await flush();
    expect(a.value!.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(coordinator.group('g')!.members).toHaveLength(1);
    coordinator.close();
  });
});
