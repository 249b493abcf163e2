/** The injectable clock: ManualClock runs due timers in order, only when advanced; systemClock is wall time. */
import { ManualClock, systemClock } from '../../src/util/clock';

test('ManualClock: nothing runs until advanced; due timers run earliest first, ties in the order set, each at its own time', () => {
  const clock = new ManualClock(1000);
  const ran: string[] = [];
  clock.setTimeout(() => ran.push(`b@${clock.now()}`), 20);
  clock.setTimeout(() => ran.push(`a@${clock.now()}`), 10);
  clock.setTimeout(() => ran.push(`c@${clock.now()}`), 20);
  const cancelled = clock.setTimeout(() => ran.push('never'), 5);
  clock.clearTimeout(cancelled);
  expect(ran).toEqual([]);
  clock.advance(15);
  expect(ran).toEqual(['a@1010']);
  expect(clock.now()).toBe(1015);
  clock.advance(100);
  expect(ran).toEqual(['a@1010', 'b@1020', 'c@1020']);
  expect(clock.now()).toBe(1115);
  expect(clock.pending).toBe(0);
});

test('ManualClock: a timer set by a running timer runs in the same advance when it falls due within it; negative delays are 0', () => {
  const clock = new ManualClock();
  const ran: number[] = [];
  clock.setTimeout(() => {
    ran.push(clock.now());
    clock.setTimeout(() => ran.push(clock.now()), 10);
    clock.setTimeout(() => ran.push(clock.now()), 100);
  }, 10);
  clock.setTimeout(() => ran.push(clock.now()), -5);
  clock.advance(50);
  expect(ran).toEqual([0, 10, 20]);
  expect(clock.pending).toBe(1);
});

test('systemClock: wall time and timers that do not keep the process alive', async () => {
  const before = Date.now();
  expect(systemClock.now()).toBeGreaterThanOrEqual(before);
  const fired = await new Promise<boolean>((resolve) => {
    const h = systemClock.setTimeout(() => resolve(true), 1);
    expect((h as NodeJS.Timeout).hasRef()).toBe(false);
  });
  expect(fired).toBe(true);
});
