/**
 * Exactly-once: the sink stores the output and the partition's next offset together, in one
 * transaction, guarded by a compare-and-set on the offset it expects (see the invariant in
 * docs/architecture.md). Positions come from the sink on every assignment; Kafka's group
 * offsets are only updated afterwards, for monitoring (lag tools), never read back.
 *
 * A batch is written only when the consumer's fetch position is exactly where the sink says
 * the partition stands, so a batch fetched from a stale position (Kafka's committed offset,
 * or a fetch begun before a rebalance) is dropped and the consumer seeks instead.
 *
 * A staging sink (files open until rotation) answers `staged`: the fetch position moves on, the
 * durable position does not, and the monitoring commit to Kafka never passes the durable position.
 * On revoke (rebalance, stop) the sink is flushed; on loss, what it staged is discarded.
 */
import { KafkaEosError } from '../../errors';
import { isRetriable } from '../../protocol/kafka-errors';
import { ExactlyOnceSink, rejectedRecord, WriteResult } from '../../sink-contract';
import { DurablePosition, partitionKey, SinkRecord, TopicPartition } from '../../records';
import { StateMachine } from '../../util/state-machine';
import { isDropped, type BatchOutcome, type CommitStrategy, type ProcessResult, type StrategyBatch, type StrategyContext } from './types';

/** Options of {@link exactlyOnce}. */
export interface ExactlyOnceOptions {
  /** Stores the output and the next offsets in one transaction (CAS on the expected offset). */
  sink: ExactlyOnceSink;
  /** Also commit each written position to the Kafka group, for lag monitoring (default true). */
  commitToKafkaForMonitoring?: boolean;
  /** Called when the sink refuses a write because another writer moved the partition on. */
  onFenced?: (info: { topic: string; partition: number; expected: bigint; stored: bigint }) => void;
  /**
   * Called when the sink rejects one record of a write (see {@link rejectedRecord}); nothing of
   * the write was committed. Resolve to write the batch again without that record (skip,
   * dead-letter); throw to fail. Without it, the sink's error is thrown.
   */
  onRejected?: (batch: StrategyBatch, record: SinkRecord, error: unknown) => Promise<void>;
  /**
   * Called when the sink stays unavailable past its own retries (a retriable error such as
   * SINK_RETRIES_EXHAUSTED: the outcome of the last write is unknown; or SINK_WRITE_REFUSED: the
   * database refuses every row, which is never a poison record), on a write or on reading the
   * positions of a new assignment. The consumer keeps its
   * partitions, waits `sinkRetryDelayMs`, re-reads the stored positions and fetches again from
   * there, for as long as the outage lasts.
   */
  onSinkUnavailable?: (info: { topic: string; partition: number; error: unknown }) => void;
  /** Wait before trying an unavailable sink again, ms (default 1000). */
  sinkRetryDelayMs?: number;
}

/** `resumeFrom` before the stored position could be read (the sink was unavailable at assignment). */
const UNKNOWN = -1n;


/**
 * The sink's stored position for a partition lies outside the partition's log: the records from
 * there on were deleted (DeleteRecords, retention) before they were sunk, or the topic was
 * recreated. Writing on would lose or misplace data silently, so the consumer stops. Resolve it
 * by hand: move `next_offset` in the offsets table to where consumption should resume.
 */
export class StoredOffsetOutOfRangeError extends KafkaEosError {
  constructor(readonly tp: TopicPartition, readonly stored: bigint, readonly earliest: bigint, readonly latest: bigint) {
    super(
      'STORED_OFFSET_OUT_OF_RANGE',
      `${tp.topic}:${tp.partition}: the sink's stored next offset ${stored} is outside the log [${earliest}, ${latest}]:`
        + ' the records were deleted or the topic was recreated;'
        + ' set next_offset in the offsets table to where consumption should resume',
    );
  }
}


interface PartitionState {
  /** The sink's durable next_offset as this consumer knows it (-1n: nothing stored yet). */
  stored: bigint;
  /** The end of what a staging sink accepted but has not made durable (null: nothing staged). */
  staged: bigint | null;
  /** Where fetching must resume for the next write to be contiguous. */
  resumeFrom: bigint;
  /** How the consumer's fetch position relates to the sink's: one state machine, see {@link FetchSync}. */
  fetch: StateMachine<FetchSync>;
}

/**
 * - `reread`: the stored position is unknown (the sink was unavailable: the last write's outcome is
 *   unknown, or the positions could not be read on assignment): re-read it before anything else → seeking.
 * - `seeking`: after an assignment, a seek or a partial write, until a batch fetched from exactly
 *   `resumeFrom` arrives → following.
 * - `following`: the fetch position follows the sink; a later fetch offset is only the consumer
 *   stepping over batches it filtered itself (control records, aborted transactions), which the next
 *   write's CAS range covers. Any seek → seeking; the sink unavailable → reread.
 */
type FetchSync = 'reread' | 'seeking' | 'following';

const FETCH_SYNC: Readonly<Record<FetchSync, readonly FetchSync[]>> = {
  reread: ['seeking', 'reread'],
  seeking: ['seeking', 'following', 'reread'],
  following: ['following', 'seeking', 'reread'],
};

function partitionState(tp: TopicPartition, stored: bigint, resumeFrom: bigint, fetch: FetchSync): PartitionState {
  return {
    stored, staged: null, resumeFrom,
    fetch: new StateMachine<FetchSync>({
      name: `exactly-once fetch position of ${partitionKey(tp)}`, initial: fetch, transitions: FETCH_SYNC,
    }),
  };
}

/** Tries of a failed monitoring commit, and the wait between them (ms). */
const MONITOR_RETRIES = 3;
const MONITOR_RETRY_DELAY_MS = 300;

/**
 * The exactly-once strategy (see the module comment). `positions()` returns the stored (durable) next offset per
 * partition, keyed `${topic}:${partition}`, as this member last read or wrote it (-1n: nothing stored yet).
 */
export function exactlyOnce(options: ExactlyOnceOptions): CommitStrategy & { positions(): ReadonlyMap<string, bigint> } {
  const { sink } = options;
  // A sink whose positions are the group's committed offsets (KafkaSink) commits them itself, in its transaction.
  const monitor = (options.commitToKafkaForMonitoring ?? true) && sink.offsetsInGroup !== true;
  // Partitions come and go one by one (incremental rebalancing): this map is only ever added to and deleted from.
  const states = new Map<string, PartitionState>();

  /** The stored position, or for a partition with none, the log start or end (fromBeginning). */
  async function resumePoint(ctx: StrategyContext, tp: TopicPartition, stored: bigint): Promise<bigint> {
    if (stored >= 0n) return stored;
    const range = await ctx.offsetRange(tp);
    return ctx.startFrom === 'earliest' ? range.earliest : range.latest;
  }

  /**
   * A fetch came from somewhere other than the stored position. If the stored position is no
   * longer inside the log (the records after it were deleted, or the topic was recreated
   * smaller), seeking to it again would loop forever: fail by name instead.
   */
  async function assertInLog(ctx: StrategyContext, tp: TopicPartition, state: PartitionState): Promise<void> {
    if (state.stored < 0n) return;
    const { earliest, latest } = await ctx.offsetRange(tp);
    if (state.stored < earliest || state.stored > latest) throw new StoredOffsetOutOfRangeError(tp, state.stored, earliest, latest);
  }

  async function writeBatch(
    ctx: StrategyContext, batch: StrategyBatch, state: PartitionState, process: () => Promise<ProcessResult>,
  ): Promise<BatchOutcome> {
    if (state.fetch.is('reread')) {
      const stored = (await sink.open(ctx.groupId, [batch], ctx.sinkContext)).get(partitionKey(batch)) ?? -1n;
      // The unknown outcome was a commit (a lost acknowledgement): the position moved on.
      if (stored !== state.stored) monitorCommit(ctx, [{ topic: batch.topic, partition: batch.partition, storedOffset: stored }]);
      state.stored = stored;
      state.staged = null;
      state.resumeFrom = await resumePoint(ctx, batch, stored);
      state.fetch.to('seeking', `stored position re-read: ${stored}`);
    }
    const inStep = state.fetch.is('following') ? batch.fetchOffset >= state.resumeFrom : batch.fetchOffset === state.resumeFrom;
    if (!inStep) {
      state.fetch.to('seeking', `fetched from ${batch.fetchOffset}, the sink expects ${state.resumeFrom}`);
      await assertInLog(ctx, batch, state);
      return { kind: 'seek', offset: state.resumeFrom };
    }
    state.fetch.to('following', `fetched from ${batch.fetchOffset}`);
    const processed = await process();
    // Lost or revoked to the end while the handler ran: its output is not this member's to write.
    if (isDropped(batch)) return { kind: 'dropped' };
    if (processed.processedUpTo <= batch.fetchOffset) {
      // Nothing done (stopped before the first record): write nothing, fetch again from here.
      return { kind: 'seek', offset: state.resumeFrom };
    }
    // One atomic unit: the processed records and the new position (dead-lettered and skipped
    // records are not written, but the position moves over them). Partial processing writes a
    // consistent prefix, never half a batch without its offset.
    let output = processed.output;
    let result: WriteResult;
    for (;;) {
      try {
        result = await sink.write(ctx.groupId, [{
          topic: batch.topic, partition: batch.partition,
          expectedOffset: state.staged ?? state.stored, nextOffset: processed.processedUpTo, records: output,
          ...(processed.produced ? { outputs: processed.produced } : {}),
        }], ctx.sinkContext);
        break;
      } catch (e) {
        // A poison record the sink refused: apply the policy, then write the rest (the CAS
        // range still covers its offset). Policy `fail` throws and nothing is written.
        const rejected = rejectedRecord(e, output);
        if (!rejected || !options.onRejected) throw e;
        await options.onRejected(batch, rejected, e);
        output = output.filter((r) => r !== rejected);
      }
    }
    if (result.status === 'fenced') {
      const f = result.fenced.find((x) => x.topic === batch.topic && x.partition === batch.partition) ?? result.fenced[0];
      options.onFenced?.({ topic: batch.topic, partition: batch.partition, expected: state.stored, stored: f.storedOffset });
      state.stored = f.storedOffset;
      state.staged = null;
      state.resumeFrom = await resumePoint(ctx, batch, f.storedOffset);
      state.fetch.to('seeking', `fenced: stored ${f.storedOffset}`);
      return { kind: 'seek', offset: state.resumeFrom };
    }
    const before = state.stored;
    if (result.status === 'staged') {
      const d = result.durable.find((x) => x.topic === batch.topic && x.partition === batch.partition);
      if (d) state.stored = d.storedOffset;
      state.staged = state.stored === processed.processedUpTo ? null : processed.processedUpTo;
    } else {
      state.stored = processed.processedUpTo;
      state.staged = null;
    }
    state.resumeFrom = processed.processedUpTo;
    if (state.stored !== before) monitorCommit(ctx, [{ topic: batch.topic, partition: batch.partition, storedOffset: state.stored }]);
    if (!processed.complete) {
      state.fetch.to('seeking', `partly processed up to ${processed.processedUpTo}`);
      return { kind: 'seek', offset: state.resumeFrom };
    }
    return { kind: 'done' };
  }

  /**
   * Commits durable positions (never staged ones) to the Kafka group, for lag monitoring only, off the
   * write path: the batch does not wait for it. At most one commit is in flight; positions arriving
   * meanwhile are coalesced (the latest per partition) into the next one. A failed commit is tried again
   * a few times (the last position of an idle partition would otherwise stay uncommitted), then given up:
   * the sink's positions are the truth, and every assignment commits them again.
   */
  const monitorPending = new Map<string, { topic: string; partition: number; offset: bigint }>();
  let monitorInFlight: Promise<void> | null = null;
  function monitorCommit(ctx: StrategyContext, positions: DurablePosition[]): void {
    if (!monitor) return;
    for (const p of positions) {
      if (p.storedOffset >= 0n) monitorPending.set(partitionKey(p), { topic: p.topic, partition: p.partition, offset: p.storedOffset });
    }
    if (monitorInFlight === null && monitorPending.size > 0) {
      monitorInFlight = (async () => {
        let failures = 0;
        while (monitorPending.size > 0) {
          const offsets = [...monitorPending.values()];
          monitorPending.clear();
          try {
            await ctx.commitToKafka(offsets);
            failures = 0;
          } catch {
            if (++failures > MONITOR_RETRIES) continue;
            // Put them back unless a later position arrived meanwhile, and try again shortly.
            for (const o of offsets) if (!monitorPending.has(partitionKey(o))) monitorPending.set(partitionKey(o), o);
            await new Promise((r) => setTimeout(r, MONITOR_RETRY_DELAY_MS));
          }
        }
      })().finally(() => { monitorInFlight = null; });
    }
  }
  /** Waits for the monitoring commits under way (revoke, stop). */
  async function monitorSettled(): Promise<void> {
    while (monitorInFlight !== null) await monitorInFlight;
  }

  /** Revoke/stop: make what the sink staged durable (or discarded, if fenced) before giving the partitions up. */
  async function flushStaged(ctx: StrategyContext, partitions: TopicPartition[]): Promise<void> {
    const staged = partitions.filter((tp) => states.get(partitionKey(tp))?.staged != null);
    if (!sink.flush || staged.length === 0) return;
    const result = await sink.flush(ctx.groupId, staged);
    const durable: DurablePosition[] = [];
    for (const tp of staged) {
      const state = states.get(partitionKey(tp))!;
      const same = (x: TopicPartition) => x.topic === tp.topic && x.partition === tp.partition;
      if (result.status === 'fenced' && result.fenced.some(same)) {
        const f = result.fenced.find(same)!;
        options.onFenced?.({ topic: tp.topic, partition: tp.partition, expected: state.staged!, stored: f.storedOffset });
        continue;
      }
      const d = result.status === 'staged' ? result.durable.find(same) : undefined;
      const stored = result.status === 'committed' ? state.staged! : d?.storedOffset;
      if (stored !== undefined && stored !== state.stored) durable.push({ topic: tp.topic, partition: tp.partition, storedOffset: stored });
    }
    monitorCommit(ctx, durable);
  }

  return {
    name: 'exactly-once',
    positions() {
      return new Map([...states].map(([k, s]) => [k, s.stored]));
    },
    async onAssigned(ctx, partitions) {
      let stored: Map<string, bigint>;
      try {
        stored = await sink.open(ctx.groupId, partitions, ctx.sinkContext);
      } catch (e) {
        if (!isRetriable(e)) throw e;
        // The database is down during the rebalance: keep the partitions and read their positions
        // on the first batch, waiting as writes do (handleBatch). No seek until they are known.
        for (const tp of partitions) states.set(partitionKey(tp), partitionState(tp, -1n, UNKNOWN, 'reread'));
        for (const tp of partitions) options.onSinkUnavailable?.({ topic: tp.topic, partition: tp.partition, error: e });
        return new Map();
      }
      const out = new Map<string, bigint>();
      for (const tp of partitions) {
        const key = partitionKey(tp);
        const s = stored.get(key) ?? -1n;
        const resumeFrom = await resumePoint(ctx, tp, s);
        states.set(key, partitionState(tp, s, resumeFrom, 'seeking'));
        out.set(key, resumeFrom);
      }
      // Kafka's committed offsets follow the sink's (lag monitoring), also when the last commit of
      // them was lost (a rejoin after the generation was gone, a lost acknowledgement).
      monitorCommit(ctx, partitions.map((tp) => ({
        topic: tp.topic, partition: tp.partition, storedOffset: stored.get(partitionKey(tp)) ?? -1n,
      })));
      return out;
    },
    async handleBatch(ctx, batch: StrategyBatch, process): Promise<BatchOutcome> {
      const key = partitionKey(batch);
      // Revoked or lost while the batch waited (for a converter's schema, say): the state it was fetched under is gone.
      if (isDropped(batch)) return { kind: 'dropped' };
      const state = states.get(key);
      if (!state) throw new KafkaEosError('NOT_ASSIGNED', `batch for ${key}, which is not assigned to this member`);
      try {
        return await writeBatch(ctx, batch, state, process);
      } catch (e) {
        if (!isRetriable(e)) throw e;
        // Revoked or lost meanwhile (a transaction aborted because its partition was lost): the new owner writes it.
        if (isDropped(batch)) return { kind: 'dropped' };
        // The sink is down (its own retries are spent): keep the partition, re-read its position
        // when the sink is back, and fetch again from there. Never write on a guess.
        state.fetch.to('reread', `the sink is unavailable: ${(e as Error).message}`);
        options.onSinkUnavailable?.({ topic: batch.topic, partition: batch.partition, error: e });
        await new Promise((r) => setTimeout(r, options.sinkRetryDelayMs ?? 1000));
        return { kind: 'seek', offset: state.resumeFrom === UNKNOWN ? batch.fetchOffset : state.resumeFrom };
      }
    },
    async onRevoked(ctx, partitions) {
      try {
        await flushStaged(ctx, partitions);
        await monitorSettled();
      } finally {
        for (const tp of partitions) states.delete(partitionKey(tp));
      }
    },
    onLost(partitions) {
      for (const tp of partitions) states.delete(partitionKey(tp));
      // Commit nothing: what was staged for them is dropped (the new owner re-reads the durable position).
      sink.discard?.(partitions).catch(() => undefined);
    },
  };
}
