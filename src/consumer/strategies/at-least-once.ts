/**
 * At-least-once: process, then commit the offset after the last *finished* record (Kafka's
 * `enable.auto.commit` done right). Commits go out at most every `commitIntervalMs`, and always
 * for a partition before it is revoked (rebalance, stop), while this member still owns it. A crash
 * repeats at most the work finished since the last commit plus the record in hand; nothing is lost.
 *
 * When the interval has passed is checked after every batch, and a timer armed for the end of the interval commits the
 * finished work no batch has committed, records or not (Java's auto-commit commits on every poll): the last work of a
 * partition gone quiet is committed within one interval. A handler that waits for I/O lets the timer fire, so a long
 * batch commits as it goes; a batch of records that never yield to the event loop commits at its end. Reading the
 * clock per record instead cost more than the rest of the bookkeeping.
 */
import { partitionKey, TopicPartition } from '../../records';
import { isDropped, type CommitStrategy, type StrategyContext } from './types';

/** setTimeout's longest delay, ms. */
const MAX_TIMER_MS = 0x7fffffff;

/** Options of {@link atLeastOnce}. */
export interface AtLeastOnceOptions {
  /** Commit at most this often, ms (default 5000, Java's auto.commit.interval.ms); 0 = after every batch. */
  commitIntervalMs?: number;
  /** Clock, ms (tests; default Date.now). A clock that goes back counts as a commit being due. */
  now?: () => number;
}

/** The at-least-once strategy (see the module comment): commits finished offsets to the Kafka group. */
export function atLeastOnce(options: AtLeastOnceOptions = {}): CommitStrategy {
  const interval = options.commitIntervalMs ?? 5000;
  // Date.now() costs a fraction of performance.now() (a native call in Node 20). It is not monotonic: a clock set back
  // makes the commit due at once (and restarts the interval) instead of delaying it.
  const now = options.now ?? Date.now;
  /** key → { tp, finished: offset after the last finished record, committed } */
  const progress = new Map<string, { tp: TopicPartition; finished: bigint; committed: bigint }>();
  let lastCommit = now();

  async function commit(ctx: StrategyContext, keys: Iterable<string>, wait = true): Promise<void> {
    const due = [...keys].map((k) => progress.get(k)).filter((p) => p !== undefined && p.finished > p.committed);
    if (due.length === 0) return;
    // The offsets sent, not the progress when the answer comes: records finished while the commit was out are not
    // committed by it, and must stay due.
    const sent = due.map((p) => ({ entry: p!, offset: p!.finished }));
    await ctx.commitToKafka(sent.map(({ entry, offset }) => ({ topic: entry.tp.topic, partition: entry.tp.partition, offset })), { wait });
    for (const { entry, offset } of sent) if (offset > entry.committed) entry.committed = offset;
  }

  /** The commit waiting for a rebalance to end (see commitDue), or null. */
  let afterRebalance: Promise<void> | null = null;
  /** A periodic commit was deferred since the commit waiting for the rebalance took its offsets. */
  let deferredAgain = false;

  /**
   * The periodic commit of the batches' progress: during a rebalance it is deferred, so processing is not held up for
   * the length of a rebalance. The deferred progress is committed once the rebalance ends, for the partitions still
   * owned then (a later batch or a revoke may commit it first): without that, a member whose partitions went quiet
   * during the rebalance (an incremental one keeps them) would leave its last work uncommitted until it stops, as
   * Java's auto-commit does not (it commits on the next poll whether or not records came).
   */
  async function commitDue(ctx: StrategyContext, keys: Iterable<string>): Promise<void> {
    try {
      await commit(ctx, keys, false);
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'COMMIT_DEFERRED') throw e;
      deferredAgain = true;
      afterRebalance ??= (async () => {
        // Work deferred while this commit waited goes out after it.
        while (deferredAgain) {
          deferredAgain = false;
          await commit(ctx, progress.keys(), true);
        }
      })()
        // A failure here leaves the progress due: the next batch, the revoke or the stop commits it (or the membership
        // already reacted to a lost generation, which the committer reported to it).
        .catch(() => undefined)
        .finally(() => { afterRebalance = null; });
    }
  }

  /**
   * The entry last finished, by the identity of the TopicPartition it was finished for: a record handler finishes
   * the same batch object record after record, so the key is built once per batch, not once per record. Cleared
   * whenever an entry leaves `progress`.
   */
  let lastTp: TopicPartition | undefined;
  let lastEntry: { tp: TopicPartition; finished: bigint; committed: bigint } | undefined;

  /** Whether the periodic commit is due; when it is, the interval restarts now. */
  function due(): boolean {
    const t = now();
    if (t - lastCommit < interval && t >= lastCommit) return false;
    lastCommit = t;
    if (interval > 0) ripe = false;
    return true;
  }

  /**
   * Set when the interval may have passed since the last commit: onProgress reads the clock (due()) only then, so a
   * record finished between commits costs no clock read. Always set with an interval of 0 (every record commits).
   */
  let ripe = interval <= 0;
  /** The timer that sets `ripe` at the end of the interval (unref'd: it never keeps the process alive). */
  let timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Arms the timer for the end of the current interval: at most `interval` from now, even when the clock went back, and
   * at most setTimeout's longest delay (2^31 - 1 ms, about 24.8 days: Node fires a longer one after 1 ms).
   */
  function arm(): void {
    const wait = Math.min(interval, MAX_TIMER_MS, Math.max(0, lastCommit + interval - now()));
    timer = setTimeout(() => {
      timer = undefined;
      ripe = true;
      commitIdle();
    }, wait);
    timer.unref?.();
  }

  /** The context of the last batch (commits from the timer go through it). */
  let lastCtx: StrategyContext | undefined;

  /** Whether some partition has finished work not committed yet. */
  function anyUncommitted(): boolean {
    for (const p of progress.values()) if (p.finished > p.committed) return true;
    return false;
  }

  /**
   * At the end of the interval, commits the finished work that no batch has committed: the last work of a partition
   * that went quiet would otherwise wait for its next batch, a revoke or stop (Java's auto-commit commits it on the next
   * poll, records or not). A failure leaves it due: the timer is armed again for the next interval.
   */
  function commitIdle(): void {
    const ctx = lastCtx;
    if (ctx === undefined || !anyUncommitted()) return;
    // Not due (a timer that fired a moment early by the wall clock, or an interval a batch's commit restarted): wait
    // for the end of this interval, or the work of a partition gone quiet would never be committed.
    if (!due()) {
      if (timer === undefined) arm();
      return;
    }
    void commitDue(ctx, progress.keys())
      .catch(() => undefined)
      .finally(() => { if (timer === undefined && anyUncommitted()) arm(); });
  }

  function finish(tp: TopicPartition, offset: bigint): void {
    if (tp === lastTp && lastEntry !== undefined) {
      if (offset > lastEntry.finished) lastEntry.finished = offset;
      return;
    }
    const key = partitionKey(tp);
    let p = progress.get(key);
    if (!p) {
      p = { tp: { topic: tp.topic, partition: tp.partition }, finished: offset, committed: -1n };
      progress.set(key, p);
    } else if (offset > p.finished) {
      p.finished = offset;
    }
    lastTp = tp;
    lastEntry = p;
  }

  function forget(key: string): void {
    progress.delete(key);
    lastTp = undefined;
    lastEntry = undefined;
  }

  return {
    name: 'at-least-once',
    async onAssigned() {
      return null;
    },
    async handleBatch(ctx, batch, process) {
      if (isDropped(batch)) return { kind: 'dropped' };
      const result = await process();
      // Lost or revoked while the handler ran: its progress is not this member's to commit.
      if (isDropped(batch)) return { kind: 'dropped' };
      finish(batch, result.processedUpTo);
      lastCtx = ctx;
      if (due()) {
        await commitDue(ctx, progress.keys());
      } else if (timer === undefined) {
        arm(); // the work finished now is committed at the end of the interval even if no batch comes (commitIdle)
      }
      return result.complete ? { kind: 'done' } : { kind: 'seek', offset: result.processedUpTo };
    },
    // Not async: a record that finishes between commits costs no promise and no clock read (see `ripe`).
    onProgress(ctx, tp, processedUpTo) {
      finish(tp, processedUpTo);
      lastCtx = ctx;
      if (ripe && due()) return commitDue(ctx, [partitionKey(tp)]);
      // Not due yet (or the timer fired for an interval a batch's commit has restarted since): wait for the next timer.
      ripe = false;
      if (timer === undefined) arm();
      return undefined;
    },
    onFailed(batch, processedUpTo) {
      if (processedUpTo > batch.fetchOffset) finish(batch, processedUpTo);
    },
    async onRevoked(ctx, partitions) {
      const keys = partitions.map(partitionKey);
      try {
        await commit(ctx, keys);
      } finally {
        // Even when the commit failed: progress kept past a revocation would be committed when
        // the partition returns, moving its committed offset back below its next owner's.
        for (const k of keys) forget(k);
      }
    },
    onLost(partitions) {
      for (const tp of partitions) forget(partitionKey(tp));
    },
    // The seek is the partition's committed position at once: progress finished before it is not committed over it
    // later, and a rebalance right after resumes the next owner from the seek (records before it are skipped forward,
    // or processed again back: the user asked for it).
    async seek(ctx, tp, offset) {
      const key = partitionKey(tp);
      // A commit waiting for a rebalance to end carries older progress: it goes first, never over the seek.
      if (afterRebalance) await afterRebalance;
      forget(key);
      await ctx.commitToKafka([{ topic: tp.topic, partition: tp.partition, offset }]);
      progress.set(key, { tp: { topic: tp.topic, partition: tp.partition }, finished: offset, committed: offset });
    },
  };
}
