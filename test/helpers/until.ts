/**
 * The one waiting helper of the tests: wait for a condition, never for a fixed time. Re-exported by
 * test/consumer/helpers.ts (where other branches' tests import it from).
 */

/**
 * Resolves once `cond()` is true (it may be async); polls every 20 ms; throws naming `what` after `timeoutMs`.
 * A condition that throws fails at once.
 */
export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
