/**
 * The lost-acknowledgement loop shared by the exactly-once sinks (SQL, HDFS). A commit whose answer is
 * lost (a dropped connection after COMMIT, a RENAME whose response never came) may or may not have
 * happened. Sending it again blindly could write it twice; giving up could report a failure for data
 * that is durable. So before every retry the store is re-read and decides (docs/architecture.md, "After a
 * lost acknowledgement, re-read the stored position before retrying"):
 *
 * - `landed`: the earlier attempt committed; it is not written again (the attempt's own return value was
 *   lost with its answer);
 * - `fenced`: the store shows another writer's position: reported, never retried;
 * - `not-landed`: nothing of it is visible: the attempt runs again.
 *
 * Retries use p-retry's exponential backoff; only errors `mayHaveHappened` accepts are retried.
 */
import { pRetry } from '../util/vendored';

/** What a re-read after an unknown outcome shows (see the module comment). `F` describes a fencing. */
export type LostAckVerdict<F> = { outcome: 'landed' } | { outcome: 'not-landed' } | { outcome: 'fenced'; fenced: F };

/**
 * Outcome of {@link commitWithReread}: `done` (an attempt answered: its value), `landed` (an attempt whose
 * answer was lost committed: re-read, not written again) or `fenced` (a re-read showed another writer).
 */
export type LostAckResult<T, F> = { outcome: 'done'; value: T } | { outcome: 'landed' } | { outcome: 'fenced'; fenced: F };

/** Retry budget: `retries` after the first attempt, delays from `minTimeoutMs` doubling up to `maxTimeoutMs` (ms). */
export interface LostAckRetry { retries: number; minTimeoutMs: number; maxTimeoutMs: number }

/** How {@link commitWithReread} retries. */
export interface LostAckOptions<F> {
  /** Re-reads the store after an attempt failed with an error `mayHaveHappened` accepts, before the next attempt. */
  reread: () => Promise<LostAckVerdict<F>>;
  /** True for an error after which the commit may have happened and may be tried again (no answer, a transient failure). */
  mayHaveHappened: (error: unknown) => boolean;
  retry: LostAckRetry;
  /** Randomise the delays (p-retry's `randomize`; default true). */
  randomize?: boolean;
}

/**
 * Runs `attempt`; after an error `mayHaveHappened` accepts, re-reads before trying again (see the module
 * comment). An error thrown by `reread` is judged like one of `attempt` (a transient one is retried, with a
 * re-read first again).
 * @returns the verdict (see {@link LostAckResult})
 * @throws the last error when it is not one to retry, or when the retry budget is spent (the outcome is then
 *   unknown: callers report it as such, e.g. SINK_RETRIES_EXHAUSTED)
 */
export async function commitWithReread<T, F>(attempt: () => Promise<T>, options: LostAckOptions<F>): Promise<LostAckResult<T, F>> {
  return pRetry(async (attemptNumber): Promise<LostAckResult<T, F>> => {
    if (attemptNumber > 1) {
      const verdict = await options.reread();
      if (verdict.outcome !== 'not-landed') return verdict;
    }
    return { outcome: 'done', value: await attempt() };
  }, {
    retries: options.retry.retries,
    minTimeout: options.retry.minTimeoutMs,
    maxTimeout: options.retry.maxTimeoutMs,
    factor: 2,
    randomize: options.randomize ?? true,
    shouldRetry: ({ error }) => options.mayHaveHappened(error),
  });
}
