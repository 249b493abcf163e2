/** The classic group model: Kafka's state table with guards on one StateMachine, membership bookkeeping, protocol choice. */
import { ClassicGroup, ClassicGroupMember, GUARDS, TRANSITIONS } from '../../../../../src/testing/mock-broker/groups/classic/group';
import { IllegalTransitionError } from '../../../../../src/util/state-machine';

const member = (id: string, protocols: string[], instanceId: string | null = null) => new ClassicGroupMember(
  id, instanceId, 'client', '/127.0.0.1', 30_000, 10_000, 'consumer', protocols.map((name) => ({ name, metadata: Buffer.from(name) })),
);

test('the table is Kafka\'s validPreviousStates; guards refuse by name before the table moves', () => {
  expect(TRANSITIONS.Stable).toEqual(['CompletingRebalance']);
  expect(TRANSITIONS.Dead).toEqual(['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead']);
  const g = new ClassicGroup('g', 0);
  expect(g.state).toBe('Empty');
  expect(() => g.transitionTo('Stable', 1)).toThrow(/group g: illegal transition Empty -> Stable/);
  g.transitionTo('PreparingRebalance', 2, 'first join');
  expect(() => g.transitionTo('CompletingRebalance', 3)).toThrow(expect.objectContaining({
    code: 'ILLEGAL_GROUP_TRANSITION', machine: 'group g', from: 'PreparingRebalance', to: 'CompletingRebalance',
  }));
  expect(GUARDS.CompletingRebalance!(g)).toBe('group has no members');
  expect(g).toMatchObject({ state: 'PreparingRebalance', previousState: 'Empty', stateTimestampMs: 2 });
  g.add(member('m1', ['range']), null);
  expect(() => g.transitionTo('Empty', 4)).toThrow(IllegalTransitionError);
  g.transitionTo('CompletingRebalance', 5);
  expect(g.canRebalance()).toBe(true);
  expect(g.isEmpty()).toBe(false);
});

test('members: the first is the leader, a removed leader is replaced, static ids map to one member, parked joins are counted', () => {
  const g = new ClassicGroup('g', 0);
  const answered: string[] = [];
  g.add(member('a', ['range', 'roundrobin']), (r) => answered.push(`a:${r.errorCode}`));
  g.add(member('b', ['roundrobin'], 'inst-b'), null);
  expect(g.leaderId).toBe('a');
  expect(g.numAwaitingJoinResponse).toBe(1);
  expect(g.hasAllMembersJoined()).toBe(false);
  expect(g.staticMemberId('inst-b')).toBe('b');
  expect(g.validateMember('x', 'inst-b')).not.toBe(0); // FENCED_INSTANCE_ID: the instance is bound to b
  expect(g.selectProtocol()).toBe('roundrobin'); // the only protocol every member supports
  g.remove('a');
  expect(g.leaderId).toBe('b');
  expect(g.numAwaitingJoinResponse).toBe(0);
  const replaced = g.replaceStaticMember('inst-b', 'b', 'b2');
  expect(replaced.memberId).toBe('b2');
  expect(g.leaderId).toBe('b2');
  expect(g.staticMemberId('inst-b')).toBe('b2');
  expect(answered).toEqual([]);
});
