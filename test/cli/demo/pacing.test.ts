/**
 * The demo's kill plan and production pacing (src/cli/demo/pacing.ts): the producer never sends a record at or past its
 * allowance, and while a kill point is pending it is never allowed the last records, so the run (which ends only once
 * every record is produced and stored) cannot finish before a planned kill, however fast the consumers are and however
 * late the parent learns what they sunk; consumption can always reach the kill point (no stall).
 */
import { CHUNK, HOLD_BACK, nextSendEnd, paceWindow, planKills, productionAllowance } from '../../../src/cli/demo/pacing';
import { mulberry32 } from '../../../src/util/prng';

test('the producer sends at most CHUNK records and never one at or past its allowance', () => {
  expect(nextSendEnd(0, 0, 10000)).toBe(0); // nothing allowed yet: wait
  expect(nextSendEnd(0, 2000, 10000)).toBe(2000);
  expect(nextSendEnd(2000, 2000, 10000)).toBe(2000); // records < 2000 may be sent: 2000 itself waits
  expect(nextSendEnd(2000, 2600, 10000)).toBe(2600);
  expect(nextSendEnd(2000, 9000, 10000)).toBe(2000 + CHUNK);
  expect(nextSendEnd(9000, Infinity, 10000)).toBe(10000);
  expect(nextSendEnd(10000, Infinity, 10000)).toBe(10000); // done
});

test('seed 3, 10k rows, one kill at 6541: the last records wait for the kill, whatever is sunk', () => {
  const killAt = planKills(10000, 1, mulberry32(3));
  expect(killAt).toEqual([6541]);
  const window = paceWindow(10000, 1);
  expect(productionAllowance(10000, 0, window, 6541)).toBe(2000);
  expect(productionAllowance(10000, 1, window, 6541)).toBe(4000); // whole chunks
  expect(productionAllowance(10000, 5000, window, 6541)).toBe(8000);
  expect(productionAllowance(10000, 6540, window, 6541)).toBe(10000 - 10000 * HOLD_BACK); // was 10000: all produced
  expect(productionAllowance(10000, 10000, window, 6541)).toBe(10000 - 10000 * HOLD_BACK);
  expect(productionAllowance(20000, 20000, window, 6541)).toBe(10000); // the kill point + window, rounded up
  expect(productionAllowance(10000, 6541, window, undefined)).toBe(Infinity); // the kill happened: run free
});

/**
 * Steps the demo's loop with the fastest possible consumers (everything produced is sunk before the next tick, as on the
 * run that missed its kill): the producer sends what it is allowed, one kill per tick once sunk reaches the kill point.
 * Returns the records not yet produced at each kill.
 */
function simulate(rows: number, kills: number, seed: number): number[] {
  const killAt = planKills(rows, kills, mulberry32(seed));
  const window = paceWindow(rows, kills);
  let sent = 0;
  let sunk = 0;
  const leftAtKill: number[] = [];
  for (let tick = 0; sunk < rows || leftAtKill.length < kills; tick++) {
    if (tick > 10 * rows + 100) throw new Error(`stalled: rows ${rows}, kills ${kills}, seed ${seed}, sunk ${sunk}, sent ${sent}`);
    const allowed = productionAllowance(rows, sunk, window, killAt[leftAtKill.length]);
    for (let end; (end = nextSendEnd(sent, allowed, rows)) > sent; sent = end) {
      expect(end).toBeLessThanOrEqual(allowed);
      expect(end - sent).toBeLessThanOrEqual(CHUNK);
    }
    // The run ends only once every record is produced: impossible while a kill is pending.
    if (leftAtKill.length < kills) expect(sent).toBeLessThan(rows);
    sunk = sent;
    if (leftAtKill.length < kills && sunk >= killAt[leftAtKill.length]!) leftAtKill.push(rows - sent);
  }
  return leftAtKill;
}

test.each([1, 2, 7, 100, 1000, 10000, 200000])('%i rows: every planned kill happens while records are still to come', (rows) => {
  for (let kills = 0; kills <= 6; kills++) {
    for (let seed = 1; seed <= 25; seed++) {
      const left = simulate(rows, kills, seed);
      expect(left).toHaveLength(kills);
      for (const l of left) expect(l).toBeGreaterThanOrEqual(Math.max(1, Math.floor(rows * HOLD_BACK)));
    }
  }
});
