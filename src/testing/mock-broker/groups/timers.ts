/**
 * Keyed one-shot timers, like the coordinator runtime's timer in Kafka (`CoordinatorTimer`): scheduling
 * a key replaces the timer already under that key. Built on the global `setTimeout` so jest fake timers
 * drive it. Timers are unref'd: a forgotten coordinator does not keep the process alive.
 */
export class KeyedTimers {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  schedule(key: string, delayMs: number, fn: () => void): void {
    this.cancel(key);
    const handle = setTimeout(() => {
      // Only the timer still registered under the key may run (a replaced one was cleared anyway).
      if (this.timers.get(key) !== handle) return;
      this.timers.delete(key);
      fn();
    }, Math.max(0, delayMs));
    (handle as { unref?: () => void }).unref?.();
    this.timers.set(key, handle);
  }

  cancel(key: string): void {
    const handle = this.timers.get(key);
    if (handle !== undefined) {
      clearTimeout(handle);
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
    for (const handle of this.timers.values()) clearTimeout(handle);
    this.timers.clear();
  }

  get size(): number {
    return this.timers.size;
  }
}
