/**
 * One fetched chunk of one partition through the commit strategy and the user's handler (retry.ts: retries and the
 * poison policy), then its outcome applied: `done` (the fetch position already moved past the chunk) or `seek` (the
 * fetch loop goes back to the offset the strategy names, e.g. the sink's stored position after a fenced write).
 *
 * A chunk belongs to one incarnation of its partition: once that is lost or revoked to the end, nothing of the batch
 * reaches the strategy's progress, the fetch position or the events (a seek made for an older assignment would win
 * when the partition comes back). A commit that found the generation gone has already made the membership lose the
 * partitions (commit/committer.ts); the batch is dropped. A poison record under policy `fail` commits the work
 * finished before it, then fails the consumer.
 */
import { needsRejoin } from '../../protocol/kafka-errors';
import type { FetchedChunk } from '../fetch/partition';
import type { Fetcher } from '../fetch/fetcher';
import type { ConsumerMetrics } from '../metrics';
import type { GroupConsumerEvents } from '../events';
import type { OwnedPartition } from '../partitions/owned';
import { PoisonMessageError } from '../errors';
import { processBatch, ProcessorOptions } from '../retry';
import type { CommitStrategy, StrategyBatch, StrategyContext } from '../strategies/types';
import type { ProcessingWatch } from '../watch';

/** What handling a chunk needs from the consumer. */
export interface BatchContext {
  strategy: CommitStrategy;
  processor: ProcessorOptions;
  context: () => StrategyContext;
  fetcher: Fetcher;
  metrics: ConsumerMetrics;
  emit: <E extends keyof GroupConsumerEvents>(event: E, payload: GroupConsumerEvents[E]) => void;
  /** Poison record, policy `fail`: commit what is finished (every owned partition), then fail with `error`. */
  failAfterCommit: (error: Error) => Promise<void>;
  fail: (error: Error) => void;
}

/** Handles `chunk` of `owned` (see the module comment). Never throws. */
export async function handleChunk(c: BatchContext, owned: OwnedPartition, chunk: FetchedChunk, watch: ProcessingWatch): Promise<void> {
  const current = () => owned.current;
  const sb: StrategyBatch = {
    topic: owned.tp.topic, partition: owned.tp.partition,
    fetchOffset: chunk.fetchOffset, records: chunk.records, nextOffset: chunk.nextOffset, assigned: current,
  };
  const shouldStop = () => watch.aborted || !current();
  let outcome;
  try {
    const ctx = c.context();
    const onProgress = c.strategy.onProgress?.bind(c.strategy);
    // Progress of a partition that was lost or revoked meanwhile is not this member's to commit.
    // No async wrapper: processBatch awaits only what onProgress returns (a commit), not every record.
    const onRecordDone = onProgress ? (upTo: bigint) => (current() ? onProgress(ctx, sb, upTo) : undefined) : undefined;
    outcome = await c.strategy.handleBatch(ctx, sb, () => processBatch(c.processor, sb, watch.signal, shouldStop, onRecordDone));
  } catch (e) {
    if (needsRejoin(e) || watch.timedOut) return;
    if (e instanceof PoisonMessageError && current()) {
      c.strategy.onFailed?.(sb, e.processedUpTo);
      await c.failAfterCommit(e);
      return;
    }
    if (current()) c.fail(e as Error);
    return;
  }
  if (!current() || outcome.kind === 'dropped') return;
  if (outcome.kind === 'seek') c.fetcher.seek(owned.fetch, outcome.offset);
  const position = outcome.kind === 'seek' ? outcome.offset : sb.nextOffset;
  const lag = chunk.highWatermark - position;
  // A seek (the write was refused, fenced or partly done) counts only the records before the new position.
  const counted = outcome.kind === 'seek' ? sb.records.filter((r) => r.offset < position) : sb.records;
  const records = counted.length;
  c.metrics.recordBatch(sb, records, position, chunk.highWatermark, counted.filter((r) => r.value === null).length);
  c.emit('batch', { topic: sb.topic, partition: sb.partition, records, nextOffset: position, lag: lag < 0n ? 0n : lag });
}
