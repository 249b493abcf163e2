/** util/state-machine.ts: the one transition helper every state machine uses. */
import { IllegalTransitionError, StateMachine, type Transition } from '../../src/util/state-machine';

type Light = 'red' | 'green' | 'amber';
const TABLE = { red: ['green'], green: ['amber'], amber: ['red'] } as const;

describe('StateMachine', () => {
  test('moves along its table and reports each transition with its reason', () => {
    const seen: Transition<Light>[] = [];
    const m = new StateMachine<Light>({ name: 'light', initial: 'red', transitions: TABLE, onTransition: (t) => seen.push(t) });
    m.to('green', 'timer');
    m.to('amber');
    expect(m.state).toBe('amber');
    expect(seen).toEqual([
      { machine: 'light', from: 'red', to: 'green', reason: 'timer' },
      { machine: 'light', from: 'green', to: 'amber', reason: '' },
    ]);
  });

  test('an illegal move throws by name, with the code, and changes nothing', () => {
    const m = new StateMachine<Light>({ name: 'light', initial: 'red', transitions: TABLE });
    let err: unknown;
    try { m.to('amber', 'button'); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(IllegalTransitionError);
    expect(err).toMatchObject({ code: 'ILLEGAL_STATE', machine: 'light', from: 'red', to: 'amber' });
    expect((err as Error).message).toBe('light: illegal transition red -> amber (button)');
    expect(m.state).toBe('red');
  });

  test('staying put is allowed only where the table lists it', () => {
    const m = new StateMachine<Light>({ name: 'light', initial: 'red', transitions: TABLE });
    expect(m.can('red')).toBe(false);
    const loop = new StateMachine<'a' | 'b'>({ name: 'loop', initial: 'a', transitions: { a: ['a', 'b'], b: [] } });
    expect(loop.tryTo('a')).toBe(true);
    expect(loop.tryTo('b')).toBe(true);
    expect(loop.tryTo('a')).toBe(false);
    expect(loop.state).toBe('b');
  });

  test("a table of previous states (Kafka's validPreviousStates) means the same moves", () => {
    const m = new StateMachine<Light>({ name: 'light', initial: 'red', previous: { green: ['red'], amber: ['green'], red: ['amber'] } });
    expect(m.can('green')).toBe(true);
    expect(m.can('amber')).toBe(false);
    m.to('green');
    m.to('amber');
    m.to('red');
    expect(m.state).toBe('red');
  });

  test('a machine can name its own error code, and assertIn guards an action by state', () => {
    const m = new StateMachine<Light>({ name: "group 'g'", initial: 'red', transitions: TABLE, errorCode: 'ILLEGAL_GROUP_TRANSITION' });
    expect(() => m.to('amber')).toThrow(expect.objectContaining({ code: 'ILLEGAL_GROUP_TRANSITION' }));
    expect(() => m.assertIn(['green'], 'commit')).toThrow("group 'g': cannot commit in state red (only in green)");
    expect(() => m.assertIn(['red'], 'commit')).not.toThrow();
    expect(m.is('green', 'red')).toBe(true);
  });
});
