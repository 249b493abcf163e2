import { assignRange, assignRoundRobin } from '../../../src/consumer/assignors';
import { short, subs, topics } from './helpers';

describe('range', () => {
  it("follows Java's Javadoc example", () => {
    const result = assignRange(subs({ C1: ['t0', 't1'], C0: ['t0', 't1'] }), topics({ t0: 3, t1: 3 }));
    expect(short(result)).toEqual({ C0: ['t0p0', 't0p1', 't1p0', 't1p1'], C1: ['t0p2', 't1p2'] });
  });

  it('gives each topic only to its subscribers, in member-id order', () => {
    const result = assignRange(subs({ C0: ['t0'], C1: ['t0', 't1'], C2: ['t1'] }), topics({ t0: 3, t1: 5 }));
    expect(short(result)).toEqual({ C0: ['t0p0', 't0p1'], C1: ['t0p2', 't1p0', 't1p1', 't1p2'], C2: ['t1p3', 't1p4'] });
  });

  it('orders static members by group.instance.id first (Java MemberInfo)', () => {
    const result = assignRange(
      subs({ A: { topics: ['t'], groupInstanceId: 'I1' }, B: { topics: ['t'], groupInstanceId: 'I0' }, C: ['t'] }),
      topics({ t: 3 }),
    );
    expect(short(result)).toEqual({ A: ['tp1'], B: ['tp0'], C: ['tp2'] });
  });

  it('skips unknown and empty topics and returns every member', () => {
    expect(short(assignRange(subs({ C0: ['nope'], C1: ['t'] }), topics({ t: 0 })))).toEqual({ C0: [], C1: [] });
    expect(short(assignRange(subs({}), topics({ t: 4 })))).toEqual({});
  });

  it('rejects an invalid partition count', () => {
    expect(() => assignRange(subs({ C0: ['t'] }), topics({ t: -1 }))).toThrow(/invalid partition count/);
  });
});

describe('roundrobin', () => {
  it("follows Java's Javadoc example with identical subscriptions", () => {
    const result = assignRoundRobin(subs({ C0: ['t0', 't1'], C1: ['t0', 't1'] }), topics({ t0: 3, t1: 3 }));
    expect(short(result)).toEqual({ C0: ['t0p0', 't0p2', 't1p1'], C1: ['t0p1', 't1p0', 't1p2'] });
  });

  it("follows Java's Javadoc example with different subscriptions", () => {
    const result = assignRoundRobin(
      subs({ C2: ['t0', 't1', 't2'], C0: ['t0'], C1: ['t0', 't1'] }),
      topics({ t0: 1, t1: 2, t2: 3 }),
    );
    expect(short(result)).toEqual({ C0: ['t0p0'], C1: ['t1p0'], C2: ['t1p1', 't2p0', 't2p1', 't2p2'] });
  });

  it('honours group.instance.id order (Java static membership example)', () => {
    const result = assignRoundRobin(
      subs({
        C5: { topics: ['t0', 't1'], groupInstanceId: 'I0' },
        C3: { topics: ['t0', 't1'], groupInstanceId: 'I1' },
        C4: { topics: ['t0', 't1'], groupInstanceId: 'I2' },
      }),
      topics({ t0: 3, t1: 3 }),
    );
    expect(short(result)).toEqual({ C3: ['t0p1', 't1p1'], C4: ['t0p2', 't1p2'], C5: ['t0p0', 't1p0'] });
  });
});
