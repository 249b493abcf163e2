/**
 * A sink that refuses every write (SINK_WRITE_REFUSED: a missing table or column, a privilege revoked, a read-only
 * database, a CHECK or trigger refusing every row) is *blocked*: no record is at fault and waiting alone will not
 * fix it; someone must. {@link guardBlockedSink} wraps an exactly-once sink so that such a block is reported
 * (`sink-blocked` events: the first refusal, then every refusal, each with how long it lasts and the table and
 * column the database named) and bounded: once it has lasted `timeoutMs`, the next refused write throws
 * SINK_BLOCKED (not retriable), and the consumer fails as Kafka Connect marks a task FAILED once `max.retries`
 * is spent. Nothing is skipped or dead-lettered meanwhile: each refused write leaves the position where it was.
 * A write that commits ends the block (`sink-unblocked`); positions read meanwhile do not. An outage (the store unreachable, a failover,
 * SINK_UNAVAILABLE / SINK_RETRIES_EXHAUSTED) is not a block: it is waited out without a bound, as before.
 */
import { causesOf, KafkaEosError } from '../errors';
import type { ExactlyOnceSink } from '../sink-contract';

/** Default of `sinkBlockedTimeoutMs`, ms: 5 minutes (see {@link SinkBlockedOptions.timeoutMs}). */
export const DEFAULT_SINK_BLOCKED_TIMEOUT_MS = 300_000;

/** What the database named in its refusal, as far as its message says (PostgreSQL's and SQLite's wording). */
export interface RefusalTarget { table: string | null; column: string | null }

/** Payload of the consumer's `sink-blocked` event. */
export interface SinkBlockedInfo extends RefusalTarget {
  /** When the first refused write of this block failed, epoch ms. */
  since: number;
  /** How long the block has lasted, ms. */
  blockedForMs: number;
  /** Refused writes (and position reads) since the block began, this one included (1 = it just began). */
  refusals: number;
  /** The bound: past it the consumer fails with SINK_BLOCKED; 0 = no bound. */
  timeoutMs: number;
  /** The refusal (a SINK_WRITE_REFUSED in its cause chain). */
  error: Error;
}

/** Options of {@link guardBlockedSink}. */
export interface SinkBlockedOptions {
  /**
   * How long a block may last before the consumer fails, ms (default {@link DEFAULT_SINK_BLOCKED_TIMEOUT_MS},
   * 5 minutes; 0 = wait forever). Long enough to ride out a schema migration deployed just after the consumer
   * (a column added a minute later), a privilege granted by hand, or a failover that is read-only for a while;
   * short enough that a supervisor or an alert on the failed state learns of a block nobody is fixing.
   */
  timeoutMs?: number;
  /** Called on every refused write while blocked (the first one starts the block). */
  onBlocked?: (info: SinkBlockedInfo) => void;
  /** Called when a write commits after a block, with how long it lasted (ms). */
  onUnblocked?: (info: { blockedForMs: number; refusals: number }) => void;
  /** Epoch ms (tests). */
  now?: () => number;
}

const TARGET_PATTERNS: { re: RegExp; table?: number; column?: number }[] = [
  { re: /column "([^"]+)" of relation "([^"]+)" does not exist/, column: 1, table: 2 }, // PostgreSQL 42703 on INSERT
  { re: /column "([^"]+)" does not exist/, column: 1 }, // PostgreSQL 42703 elsewhere
  { re: /relation "([^"]+)" does not exist/, table: 1 }, // PostgreSQL 42P01
  { re: /permission denied for (?:table|relation) "?([^"\s]+)"?/, table: 1 }, // PostgreSQL 42501
  { re: /table "?([^"\s]+)"? has no column named "?([^"\s]+)"?/, table: 1, column: 2 }, // SQLite
  { re: /no such table: (\S+)/, table: 1 }, // SQLite
  { re: /no such column: (\S+)/, column: 1 }, // SQLite
];

/** The table and column named by the database's message in `error`'s cause chain (null where it names none). */
export function refusalTarget(error: unknown): RefusalTarget {
  for (const e of causesOf(error)) {
    const message = (e as { message?: unknown }).message;
    if (typeof message !== 'string') continue;
    for (const p of TARGET_PATTERNS) {
      const m = p.re.exec(message);
      if (m) return { table: p.table ? m[p.table]! : null, column: p.column ? m[p.column]! : null };
    }
  }
  return { table: null, column: null };
}

/** The SINK_WRITE_REFUSED in `error`'s cause chain, if any. */
function refusalIn(error: unknown): Error | undefined {
  return causesOf(error).find((e) => (e as { code?: unknown }).code === 'SINK_WRITE_REFUSED') as Error | undefined;
}

/**
 * `sink` with its blocks reported and bounded (see the module comment). `open` (the positions read at an
 * assignment) and `write` are watched; other calls pass through.
 * @throws (from write and open) KafkaEosError SINK_BLOCKED, not retriable, once a block has lasted `timeoutMs`;
 *   every other error as the sink threw it.
 */
export function guardBlockedSink(sink: ExactlyOnceSink, options: SinkBlockedOptions = {}): ExactlyOnceSink {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SINK_BLOCKED_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  let block: { since: number; refusals: number } | null = null;
  // `ends`: whether success ends a block. Only a write that commits does: the positions read again between two
  // refused writes (the strategy re-reads them after each) succeed while the table still refuses rows.
  const watch = async <T>(call: () => Promise<T>, ends: boolean): Promise<T> => {
    let result: T;
    try {
      result = await call();
    } catch (e) {
      const refusal = refusalIn(e);
      if (!refusal) throw e; // an outage or a record's fault: not a block (an outage leaves a block as it was)
      const t = now();
      block ??= { since: t, refusals: 0 };
      block.refusals += 1;
      const blockedForMs = t - block.since;
      const target = refusalTarget(e);
      options.onBlocked?.({ since: block.since, blockedForMs, refusals: block.refusals, timeoutMs, error: e as Error, ...target });
      if (timeoutMs > 0 && blockedForMs >= timeoutMs) {
        const named = [target.table && `table ${target.table}`, target.column && `column ${target.column}`].filter(Boolean).join(', ');
        throw new KafkaEosError('SINK_BLOCKED', `the sink refused every write for ${Math.round(blockedForMs / 1000)} s `
          + `(${block.refusals} refusals${named ? `; ${named}` : ''}), past sinkBlockedTimeoutMs ${timeoutMs}: ${refusal.message}`,
        { cause: e });
      }
      throw e;
    }
    if (block && ends) {
      const ended = block;
      block = null;
      options.onUnblocked?.({ blockedForMs: now() - ended.since, refusals: ended.refusals });
    }
    return result;
  };
  const guarded: ExactlyOnceSink = {
    get atomicAcrossPartitions() { return sink.atomicAcrossPartitions; },
    get offsetsInGroup() { return sink.offsetsInGroup; },
    get transactionalOutput() { return sink.transactionalOutput; },
    open: (groupId, partitions, context) => watch(() => sink.open(groupId, partitions, context), false),
    write: (groupId, batches, context) => watch(() => sink.write(groupId, batches, context), true),
    close: () => sink.close(),
  };
  if (sink.flush) guarded.flush = (groupId, partitions) => sink.flush!(groupId, partitions);
  if (sink.discard) guarded.discard = (partitions) => sink.discard!(partitions);
  if (sink.checkOutputs) guarded.checkOutputs = (outputs, source) => sink.checkOutputs!(outputs, source);
  if (sink.onDurable) guarded.onDurable = (listener) => sink.onDurable!(listener);
  if (sink.seek) guarded.seek = (groupId, request) => sink.seek!(groupId, request);
  return guarded;
}
