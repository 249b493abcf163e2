/**
 * Where the demo's time goes: named phases with their durations (seconds), printed at the end
 * so a user sees setup, produce, worker start-up, settle, consume, recovery after each kill and
 * verify side by side. Phases may overlap (production runs beside consumption): each is timed
 * from its own start to its own end, not as slices of the wall time.
 */
export class PhaseTimes {
  private readonly phases: { name: string; seconds: number; note?: string }[] = [];
  private readonly open = new Map<string, number>();

  /** Starts timing `name` now (ms clock: Date.now()). */
  start(name: string, at = Date.now()): void {
    this.open.set(name, at);
  }

  /** Ends `name` (started before) and records it. No-op if it was never started or already ended. */
  end(name: string, note?: string, at = Date.now()): void {
    const t0 = this.open.get(name);
    if (t0 === undefined) return;
    this.open.delete(name);
    this.phases.push({ name, seconds: (at - t0) / 1000, note });
  }

  /** Records a phase measured elsewhere. */
  add(name: string, seconds: number, note?: string): void {
    this.phases.push({ name, seconds, note });
  }

  /** Phases still open (never ended), for a report of what did not finish. */
  unfinished(): string[] {
    return [...this.open.keys()];
  }

  /** One line per phase: `  name ....... 1.2 s  (note)`. */
  format(): string {
    const width = Math.max(0, ...this.phases.map((p) => p.name.length));
    const lines = this.phases.map((p) =>
      `  ${p.name.padEnd(width)}  ${p.seconds.toFixed(1).padStart(6)} s${p.note ? `  (${p.note})` : ''}`);
    for (const name of this.unfinished()) lines.push(`  ${name.padEnd(width)}       - (did not finish)`);
    return lines.join('\n');
  }
}
