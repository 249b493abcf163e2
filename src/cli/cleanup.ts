/**
 * One cleanup stack for a command: each resource is registered as it is opened, and every exit path closes
 * what was registered, newest first (a consumer before the sink it writes to), each closer awaited before the
 * next. A closer that fails does not stop the others; its error is returned, named.
 */
import { KafkaEosError } from '../errors';

/** A closer's failure, as returned by {@link CleanupStack.closeAll}. */
export interface CleanupFailure { name: string; error: unknown }

/** Closers run newest first (see the module comment). Not reusable after closeAll. */
export class CleanupStack {
  private readonly closers: { name: string; close: () => unknown }[] = [];
  private closing: Promise<CleanupFailure[]> | undefined;

  /** Registers `close` (sync or async) under `name` (for the failure report). @throws KafkaEosError ILLEGAL_STATE after closeAll */
  defer(name: string, close: () => unknown): void {
    if (this.closing) throw new KafkaEosError('ILLEGAL_STATE', `CleanupStack: ${name} registered after closeAll`);
    this.closers.push({ name, close });
  }

  /** Runs every closer, newest first, once; resolves with the failures (never rejects). A second call awaits the first. */
  closeAll(): Promise<CleanupFailure[]> {
    this.closing ??= (async () => {
      const failures: CleanupFailure[] = [];
      for (const { name, close } of this.closers.reverse()) {
        try {
          await close();
        } catch (error) {
          failures.push({ name, error });
        }
      }
      return failures;
    })();
    return this.closing;
  }
}
