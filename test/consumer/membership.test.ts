/** The membership state machine: transitions with reasons, epochs, seeks refused when stale, illegal moves named. */
import { IllegalMembershipTransitionError, Membership, MembershipTransition } from '../../src/consumer/membership';

const P0 = { topic: 't', partition: 0 };
const P1 = { topic: 't', partition: 1 };

function setup() {
  const transitions: MembershipTransition[] = [];
  const m = new Membership((t) => transitions.push(t));
  const seeks: string[] = [];
  let cleared = 0;
  m.attach({ seek: (tp, o) => seeks.push(`${tp.topic}:${tp.partition}@${o}`), clearPendingSeeks: () => { cleared += 1; } });
  return { m, transitions, seeks, cleared: () => cleared };
}

test('a round: revoking -> joining -> assigning -> stable, each transition with its reason and a new epoch', () => {
  const { m, transitions } = setup();
  expect(m.beginRevoke('join')).toEqual([]);
  m.revoked([]);
  const epoch = m.assigned([P0, P1], 3);
  expect(m.state).toBe('assigning');
  const record = m.positioned(epoch);
  expect(m.state).toBe('stable');
  expect(record?.assigned).toEqual([P0, P1]);
  expect(transitions.map((t) => `${t.from}->${t.to}: ${t.reason}`)).toEqual([
    'unjoined->revoking: join', 'revoking->joining: nothing to revoke', 'joining->assigning: generation 3: assigned t:0, t:1',
    'assigning->stable: positions set',
  ]);
  expect(transitions.map((t) => t.epoch)).toEqual([1, 2, 3, 4]);
  expect(m.epoch).toBe(4);
});

test('a seek from an older epoch, or for a partition no longer owned, never reaches KafkaJS; assignments clear its pending seeks', () => {
  const { m, seeks, cleared } = setup();
  m.beginRevoke('join');
  m.revoked([]);
  const e1 = m.positioned(m.assigned([P0], 1))!;
  expect(e1).not.toBeNull();
  expect(m.seek(P0, 40n, m.epoch)).toBe(true);
  const stale = m.epoch;
  const owned = m.beginRevoke('rebalance');
  expect(owned).toEqual([P0]);
  expect(m.seek(P0, 41n, stale)).toBe(false); // the batch was fetched before the round began
  m.revoked(owned);
  m.assigned([P1], 2);
  expect(m.seek(P0, 42n, m.epoch)).toBe(false); // P0 moved to another member
  expect(seeks).toEqual(['t:0@40']);
  expect(cleared()).toBe(2);
});

test('lost partitions are reported once and the member can rejoin; left is terminal', () => {
  const { m } = setup();
  m.beginRevoke('join');
  m.revoked([]);
  m.positioned(m.assigned([P0], 1));
  expect(m.lose('generation lost: UNKNOWN_MEMBER_ID')).toEqual([P0]);
  expect(m.owned()).toEqual([]);
  m.requestRejoin(new Error('UNKNOWN_MEMBER_ID'));
  expect(m.pendingRejoin?.message).toBe('UNKNOWN_MEMBER_ID');
  expect(m.beginRevoke('rejoin')).toEqual([]);
  expect(m.pendingRejoin).toBeNull();
  m.leave('stopped');
  expect(m.state).toBe('left');
  expect(() => m.beginRevoke('join')).toThrow(IllegalMembershipTransitionError);
  expect(m.lose('late')).toEqual([]);
});

test('an illegal transition fails by name', () => {
  const { m } = setup();
  expect(() => m.revoked([])).toThrow(/membership cannot go from unjoined to joining/);
});
