/**
 * The demo's kill plan and production pacing, pure (no I/O), shared by the parent (demo.ts) and
 * the producer process (producer.ts).
 *
 * The promise: every planned kill interrupts real work. The parent breaks its loop only once the
 * producer has sent every record and every partition's durable position is its high watermark; so
 * while a kill point is pending the producer must never be allowed to send the last record. Then
 * the run cannot finish before the kill, however late the parent learns what was sunk (its `sunk`
 * comes from IPC messages, which a parent starved of CPU reads after its timer has already fired).
 */

/** Records per produce request (the producer may send fewer: never past its allowance). */
export const CHUNK = 2000;

/** The share of the records held back until the last planned kill has happened (at least one record). */
export const HOLD_BACK = 0.05;

/** Kill points drawn from `random`: `kills` record counts in [0.15, 0.85) of `rows`, ascending. */
export function planKills(rows: number, kills: number, random: () => number): number[] {
  return Array.from({ length: kills }, () => 0.15 + random() * 0.7).sort((a, b) => a - b).map((f) => Math.floor(f * rows));
}

/** How far (records) production may run ahead of what is sunk while kill points are pending. */
export function paceWindow(rows: number, kills: number): number {
  return Math.max(CHUNK, Math.floor(rows / (10 * Math.max(1, Math.sqrt(kills)))));
}

/**
 * The producer's allowance: records with index < the result may be sent. Infinity once no kill is
 * pending (`nextKill` undefined). While one is pending: `window` ahead of `sunk` and of the kill
 * point, rounded up to a whole CHUNK (so that the producer sends whole chunks, as many records per
 * request as when it runs free), and never all `rows`: the last max(1, HOLD_BACK × rows) are held
 * back, so that the run cannot finish before the kill. Never below the kill point (planKills's
 * points are < 0.85 × rows), so that consumption can reach it.
 */
export function productionAllowance(rows: number, sunk: number, window: number, nextKill: number | undefined): number {
  if (nextKill === undefined) return Infinity;
  const held = Math.max(1, Math.floor(rows * HOLD_BACK));
  return Math.min(Math.ceil((Math.min(sunk, nextKill) + window) / CHUNK) * CHUNK, rows - held);
}

/**
 * The end (exclusive) of the producer's next send, from record `sent` on: at most CHUNK records,
 * never at or past `allowed` nor past `rows`. Equal to `sent` when the producer must wait for a
 * larger allowance (or is done).
 */
export function nextSendEnd(sent: number, allowed: number, rows: number): number {
  return Math.max(sent, Math.min(sent + CHUNK, allowed, rows));
}
