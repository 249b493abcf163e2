/** Reconciliation of a KIP-848 member (CurrentAssignmentBuilder) and the two state tables. */
import { EMPTY, assignmentOf } from '../../../../../src/testing/mock-broker/groups/consumer/assignment';
import {
  CONSUMER_GROUP_TRANSITIONS, ConsumerGroup, IllegalConsumerGroupTransitionError,
} from '../../../../../src/testing/mock-broker/groups/consumer/group';
import {
  ConsumerGroupMember, IllegalMemberTransitionError, MEMBER_TRANSITIONS, reconcile,
} from '../../../../../src/testing/mock-broker/groups/consumer/member';

const T = 'c'.repeat(32);
const a = (...parts: number[]) => assignmentOf([[T, parts]]);
const nobodyElse = () => false;

describe('reconcile', () => {
  test('a new member at epoch 0 gets its free target partitions and the target epoch (stable)', () => {
    const m = new ConsumerGroupMember('m', null, 'c', 'h');
    const r = reconcile(m, 3, a(0, 1), null, nobodyElse);
    expect(r).toMatchObject({ state: 'stable', memberEpoch: 3, previousMemberEpoch: 0, pendingRevocation: EMPTY });
    expect(r.assigned).toEqual(a(0, 1));
  });

  test('partitions leaving the target are revoked first: the epoch stays and nothing new is given', () => {
    const m = Object.assign(new ConsumerGroupMember('m', null, 'c', 'h'), { state: 'stable', memberEpoch: 2, assigned: a(0, 1, 2) });
    const r = reconcile(m, 3, a(0, 3), null, nobodyElse);
    expect(r.state).toBe('unrevoked_partitions');
    expect(r.memberEpoch).toBe(2);
    expect(r.assigned).toEqual(a(0));
    expect(r.pendingRevocation).toEqual(a(1, 2));
  });

  test('an unrevoked member progresses only once its heartbeat no longer lists the revoked partitions', () => {
    const m = Object.assign(new ConsumerGroupMember('m', null, 'c', 'h'),
      { state: 'unrevoked_partitions', memberEpoch: 2, assigned: a(0), pendingRevocation: a(1, 2) });
    expect(reconcile(m, 3, a(0, 3), null, nobodyElse).state).toBe('unrevoked_partitions');
    expect(reconcile(m, 3, a(0, 3), a(0, 1), nobodyElse).state).toBe('unrevoked_partitions');
    const r = reconcile(m, 3, a(0, 3), a(0), nobodyElse);
    expect(r).toMatchObject({ state: 'stable', memberEpoch: 3, previousMemberEpoch: 2 });
    expect(r.assigned).toEqual(a(0, 3));
  });

  test('a partition another member still owns is withheld (unreleased) until released', () => {
    const m = Object.assign(new ConsumerGroupMember('m', null, 'c', 'h'), { state: 'stable', memberEpoch: 2, assigned: a(0) });
    const ownedElsewhere = (_t: string, p: number) => p === 1;
    const r = reconcile(m, 3, a(0, 1, 2), null, ownedElsewhere);
    expect(r).toMatchObject({ state: 'unreleased_partitions', memberEpoch: 3 });
    expect(r.assigned).toEqual(a(0, 2));
    const later = reconcile({ ...m, ...r }, 3, a(0, 1, 2), null, nobodyElse);
    expect(later.state).toBe('stable');
    expect(later.assigned).toEqual(a(0, 1, 2));
  });

  test('a stable member at the target epoch is left as it is', () => {
    const m = Object.assign(new ConsumerGroupMember('m', null, 'c', 'h'), { state: 'stable', memberEpoch: 3, assigned: a(0) });
    const r = reconcile(m, 3, a(0, 1), null, nobodyElse);
    expect(r.assigned).toBe(m.assigned);
    expect(r.memberEpoch).toBe(3);
  });
});

describe('state tables', () => {
  test('a live member may go back to unknown (rejoin) from every reconciliation state and from static_left', () => {
    for (const from of ['unknown', 'stable', 'unrevoked_partitions', 'unreleased_partitions', 'static_left'] as const) {
      expect(MEMBER_TRANSITIONS[from]).toContain('unknown');
    }
  });

  test('left is terminal and static_left only returns or leaves: other transitions throw IllegalMemberTransitionError', () => {
    const m = new ConsumerGroupMember('m', 'i', 'c', 'h');
    m.transition('static_left');
    expect(() => m.transition('stable')).toThrow(IllegalMemberTransitionError);
    m.transition('left');
    expect(() => m.transition('unknown')).toThrow(IllegalMemberTransitionError);
    expect(m.state).toBe('left');
  });

  test('a Dead group cannot change state; Empty can only start assigning, settle, or die', () => {
    const g = new ConsumerGroup('g', 0);
    expect(CONSUMER_GROUP_TRANSITIONS.Empty).toEqual(['Assigning', 'Reconciling', 'Stable', 'Dead']);
    g.transition('Dead');
    expect(() => g.transition('Empty')).toThrow(IllegalConsumerGroupTransitionError);
  });

  test('the derived state follows Kafka: Empty, Assigning, Reconciling, Stable', () => {
    const g = new ConsumerGroup('g', 0);
    expect(g.derivedState()).toBe('Empty');
    const m = new ConsumerGroupMember('m', null, 'c', 'h');
    g.add(m);
    g.groupEpoch = 1;
    expect(g.derivedState()).toBe('Assigning');
    g.assignmentEpoch = 1;
    expect(g.derivedState()).toBe('Reconciling');
    Object.assign(m, { state: 'stable', memberEpoch: 1 });
    expect(g.derivedState()).toBe('Stable');
    m.state = 'unreleased_partitions';
    expect(g.derivedState()).toBe('Reconciling');
  });
});
