/** Reconciliation of a KIP-848 member (CurrentAssignmentBuilder) and the two state tables. */
import { EMPTY, assignmentOf } from '../../../../../src/testing/mock-broker/groups/consumer/assignment';
import { CONSUMER_GROUP_TRANSITIONS, ConsumerGroup } from '../../../../../src/testing/mock-broker/groups/consumer/group';
import { ConsumerGroupMember, MEMBER_TRANSITIONS, reconcile } from '../../../../../src/testing/mock-broker/groups/consumer/member';
import { IllegalTransitionError } from '../../../../../src/util/state-machine';

const T = 'c'.repeat(32);
const a = (...parts: number[]) => assignmentOf([[T, parts]]);
const nobodyElse = () => false;

/** A member's reconciliation fields as a new member has them (reconcile() reads only these). */
const fresh = () => ({ state: 'unknown' as const, memberEpoch: 0, previousMemberEpoch: -1, assigned: EMPTY, pendingRevocation: EMPTY });

describe('reconcile', () => {
  test('a new member at epoch 0 gets its free target partitions and the target epoch (stable)', () => {
    const m = new ConsumerGroupMember('m', null, 'c', 'h');
    const r = reconcile(m, 3, a(0, 1), null, nobodyElse);
    expect(r).toMatchObject({ state: 'stable', memberEpoch: 3, previousMemberEpoch: 0, pendingRevocation: EMPTY });
    expect(r.assigned).toEqual(a(0, 1));
  });

  test('partitions leaving the target are revoked first: the epoch stays and nothing new is given', () => {
    const m = { ...fresh(), state: 'stable' as const, memberEpoch: 2, assigned: a(0, 1, 2) };
    const r = reconcile(m, 3, a(0, 3), null, nobodyElse);
    expect(r.state).toBe('unrevoked_partitions');
    expect(r.memberEpoch).toBe(2);
    expect(r.assigned).toEqual(a(0));
    expect(r.pendingRevocation).toEqual(a(1, 2));
  });

  test('an unrevoked member progresses only once its heartbeat no longer lists the revoked partitions', () => {
    const m = { ...fresh(), state: 'unrevoked_partitions' as const, memberEpoch: 2, assigned: a(0), pendingRevocation: a(1, 2) };
    expect(reconcile(m, 3, a(0, 3), null, nobodyElse).state).toBe('unrevoked_partitions');
    expect(reconcile(m, 3, a(0, 3), a(0, 1), nobodyElse).state).toBe('unrevoked_partitions');
    const r = reconcile(m, 3, a(0, 3), a(0), nobodyElse);
    expect(r).toMatchObject({ state: 'stable', memberEpoch: 3, previousMemberEpoch: 2 });
    expect(r.assigned).toEqual(a(0, 3));
  });

  test('a partition another member still owns is withheld (unreleased) until released', () => {
    const m = { ...fresh(), state: 'stable' as const, memberEpoch: 2, assigned: a(0) };
    const ownedElsewhere = (_t: string, p: number) => p === 1;
    const r = reconcile(m, 3, a(0, 1, 2), null, ownedElsewhere);
    expect(r).toMatchObject({ state: 'unreleased_partitions', memberEpoch: 3 });
    expect(r.assigned).toEqual(a(0, 2));
    const later = reconcile({ ...m, ...r }, 3, a(0, 1, 2), null, nobodyElse);
    expect(later.state).toBe('stable');
    expect(later.assigned).toEqual(a(0, 1, 2));
  });

  test('a stable member at the target epoch is left as it is', () => {
    const m = { ...fresh(), state: 'stable' as const, memberEpoch: 3, assigned: a(0) };
    const r = reconcile(m, 3, a(0, 1), null, nobodyElse);
    expect(r.assigned).toBe(m.assigned);
    expect(r.memberEpoch).toBe(3);
  });
});

describe('state tables', () => {
  const reconciled = (state: 'stable' | 'unrevoked_partitions' | 'unreleased_partitions', memberEpoch: number) => ({
    state, memberEpoch, previousMemberEpoch: 0, assigned: EMPTY, pendingRevocation: EMPTY,
  });

  test('the reconciliation moves are those of CurrentAssignmentBuilder; unknown is entered again only by a rejoin', () => {
    for (const from of ['stable', 'unrevoked_partitions', 'unreleased_partitions'] as const) {
      const others = (['stable', 'unrevoked_partitions', 'unreleased_partitions'] as const).filter((s) => s !== from);
      expect(MEMBER_TRANSITIONS[from]).toEqual(expect.arrayContaining([...others, 'unknown', 'static_left', 'left']));
      expect(MEMBER_TRANSITIONS[from]).not.toContain(from);
    }
    expect(MEMBER_TRANSITIONS.unknown).not.toContain('unknown');
    expect(MEMBER_TRANSITIONS.static_left).toEqual(['unknown', 'left']);
    expect(MEMBER_TRANSITIONS.left).toEqual([]);
  });

  test('left is terminal and static_left only returns or leaves: other moves throw ILLEGAL_GROUP_TRANSITION by name', () => {
    const m = new ConsumerGroupMember('m', 'i', 'c', 'h');
    m.apply(reconciled('stable', 1), 'heartbeat');
    m.leaveStatic('left with -2');
    expect(m).toMatchObject({ state: 'static_left', memberEpoch: -2, previousMemberEpoch: 1 });
    expect(() => m.apply(reconciled('stable', 1), 'heartbeat')).toThrow(IllegalTransitionError);
    expect(() => m.apply(reconciled('stable', 1), 'heartbeat'))
      .toThrow(/consumer group member m: illegal transition static_left -> stable/);
    m.leave('session expired');
    expect(() => m.rejoin('epoch 0')).toThrow(expect.objectContaining({ code: 'ILLEGAL_GROUP_TRANSITION' }));
    expect(m.state).toBe('left');
  });

  test('a rejoin starts over: epoch 0, nothing owned', () => {
    const m = new ConsumerGroupMember('m', null, 'c', 'h');
    m.apply({ ...reconciled('stable', 4), assigned: a(0, 1) }, 'heartbeat');
    m.rejoin('epoch 0');
    expect(m).toMatchObject({ state: 'unknown', memberEpoch: 0, assigned: EMPTY, pendingRevocation: EMPTY });
  });

  test('a Dead group cannot change state; Empty can only start assigning, settle, or die; every move is reported', () => {
    const seen: string[] = [];
    const g = new ConsumerGroup('g', 0, (t) => seen.push(`${t.from}->${t.to}: ${t.reason}`));
    expect(CONSUMER_GROUP_TRANSITIONS.Empty).toEqual(['Assigning', 'Reconciling', 'Stable', 'Dead']);
    g.transition('Dead', 'deleted');
    expect(() => g.transition('Empty', 'revived')).toThrow(IllegalTransitionError);
    expect(seen).toEqual(['Empty->Dead: deleted']);
  });

  test('the derived state follows Kafka: Empty, Assigning, Reconciling, Stable', () => {
    const g = new ConsumerGroup('g', 0);
    expect(g.derivedState()).toBe('Empty');
    const m = new ConsumerGroupMember('m', null, 'c', 'h');
    g.add(m);
    g.bumpGroupEpoch();
    expect(g.derivedState()).toBe('Assigning');
    g.setTargetAssignment('uniform', new Map());
    expect(g.derivedState()).toBe('Reconciling');
    m.apply(reconciled('stable', 1), 'heartbeat');
    expect(g.derivedState()).toBe('Stable');
    m.apply(reconciled('unreleased_partitions', 1), 'heartbeat');
    expect(g.derivedState()).toBe('Reconciling');
  });
});
