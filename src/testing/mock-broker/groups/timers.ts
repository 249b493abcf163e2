/**
 * Keyed one-shot timers, like the coordinator runtime's timer in Kafka (`CoordinatorTimer`): scheduling
 * a key replaces the timer already under that key. They run on the injected {@link Clock} (the group
 * coordinator's `clock` option; default the system clock, which jest's fake timers drive), and never keep
 * the process alive.
 */
import { systemClock } from '../../../util/clock';
import type { Clock, TimerHandle } from '../../../util/clock';

/** Timers by key on one Clock: scheduling a key replaces its timer; `size` counts the live ones. */
export class KeyedTimers {
  private readonly timers = new Map<string, TimerHandle>();

  constructor(private readonly clock: Clock = systemClock) {}

  /** Runs `fn` after `delayMs` (negative counts as 0), replacing the timer under `key`. */
  schedule(key: string, delayMs: number, fn: () => void): void {
    this.cancel(key);
    const handle = this.clock.setTimeout(() => {
      // Only the timer still registered under the key may run (a replaced one was cleared anyway).
      if (this.timers.get(key) !== handle) return;
      this.timers.delete(key);
      fn();
    }, Math.max(0, delayMs));
    this.timers.set(key, handle);
  }

  cancel(key: string): void {
    const handle = this.timers.get(key);
    if (handle !== undefined) {
      this.clock.clearTimeout(handle);
      this.timers.delete(key);
    }
  }

  /** Cancel every key starting with `prefix`. */
  cancelPrefix(prefix: string): void {
    for (const key of [...this.timers.keys()]) if (key.startsWith(prefix)) this.cancel(key);
  }

  has(key: string): boolean {
    return this.timers.has(key);
  }

  cancelAll(): void {
    for (const handle of this.timers.values()) this.clock.clearTimeout(handle);
    this.timers.clear();
  }

  get size(): number {
    return this.timers.size;
  }
}
