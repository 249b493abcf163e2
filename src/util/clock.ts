/**
 * The clock that timers and timestamps read, injectable where timers decide behaviour (the mock's group
 * coordinator: session, rebalance, join and sync timeouts, offsets retention). {@link systemClock} is
 * wall time on the global `setTimeout` (looked up at each call, so jest's fake timers still drive it);
 * {@link ManualClock} moves only when a test advances it, firing due timers in order, synchronously.
 */

/** A timer a {@link Clock} handed out; give it back to {@link Clock.clearTimeout}. */
export type TimerHandle = { readonly __timer: unique symbol } | ReturnType<typeof setTimeout>;

/** Time and one-shot timers (ms). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `delayMs` (negative counts as 0). A timer never keeps the process alive. */
  setTimeout(fn: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Wall time: `Date.now` and the global `setTimeout`, unref'd. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, delayMs) {
    const handle = setTimeout(fn, Math.max(0, delayMs));
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

interface ManualTimer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/**
 * A clock that moves only when told: `advance(ms)` runs every timer due by then, earliest first (ties in the
 * order they were set), each with `now()` at its own due time; timers set by a running timer run in the same
 * advance when they fall due within it.
 */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new Map<number, ManualTimer>();

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    const seq = ++this.seq;
    this.timers.set(seq, { at: this.current + Math.max(0, delayMs), seq, fn });
    return seq as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as unknown as number);
  }

  /** Timers not yet run. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms` (≥ 0), running the timers that fall due on the way. */
  advance(ms: number): void {
    const end = this.current + Math.max(0, ms);
    for (;;) {
      let next: ManualTimer | undefined;
      for (const t of this.timers.values()) {
        if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      }
      if (!next) break;
      this.timers.delete(next.seq);
      this.current = Math.max(this.current, next.at);
      next.fn();
    }
    this.current = end;
  }
}
