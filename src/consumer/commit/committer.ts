/**
 * The commit path of every strategy (`StrategyContext.commitToKafka`): which partitions may be committed, with which
 * identity, and what a refusal means.
 * - Only partitions this member owns now: a commit for a partition that moved on would move its committed offset
 *   backwards under its new owner.
 * - The identity is the membership's of the moment (a classic generation, a KIP-848 member epoch, or none for a
 *   manual assignment). While a rebalance is under way there is none the coordinator would accept (between JoinGroup
 *   and SyncGroup it refuses the old generation; a KIP-848 epoch moves on): the commit waits for the membership to
 *   settle, then goes out with the new identity for the partitions still owned (Java's RebalanceInProgressException,
 *   retried). With `{ wait: false }` it fails at once with CommitDeferredError instead.
 * - Retriable errors (a moved coordinator, a dropped connection, COORDINATOR_LOAD_IN_PROGRESS) are retried with
 *   back-off (kafka-calls.ts) until the commit lands, is refused, the consumer fails, or COMMIT_TIMEOUT_MS passes.
 *   REBALANCE_IN_PROGRESS and STALE_MEMBER_EPOCH, and ILLEGAL_GENERATION when the generation changed while the commit
 *   was in flight, wait for the membership and try again. UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION and FENCED_MEMBER_EPOCH
 *   mean the generation is gone: the membership loses the partitions and rejoins, and the error is thrown (Java's
 *   CommitFailedException); FENCED_INSTANCE_ID fails the consumer.
 */
import { KafkaEosError } from '../../errors';
import { kafkaErrorOf } from '../../protocol/kafka-errors';
import { partitionKey, TopicPartition } from '../../records';
import { kafkaCall } from '../kafka-calls';
import { CommitDeferredError } from '../errors';
import type { Membership } from '../membership/types';
import type { GroupOffsets, PartitionOffset } from './offsets';

/**
 * How long an offset commit is retried (ms): Java's `default.api.timeout.ms`, which bounds
 * `KafkaConsumer.commitSync()`. Retriable errors (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, a
 * dropped connection, the coordinator's broker gone from KafkaJS's metadata) are retried with backoff
 * (100 ms doubling to 2 s) within it; the commit then fails as KafkaCallError (KAFKA_CALL_FAILED).
 */
export const COMMIT_TIMEOUT_MS = 60000;

/** Kafka errors after which the commit is tried again once the membership settles. */
const AFTER_REBALANCE = new Set(['REBALANCE_IN_PROGRESS', 'STALE_MEMBER_EPOCH']);

/** What the committer needs from the consumer. */
export interface CommitterOptions {
  offsets: GroupOffsets;
  membership: () => Membership | null;
  owns: (tp: TopicPartition) => boolean;
  /** Aborted when the consumer fails: commits being retried give up. */
  signal: AbortSignal;
  /** Why the consumer cannot commit any more (failed, stopped), or null. */
  notRunning: () => Error | null;
  onCommitted: (offsets: PartitionOffset[]) => void;
  forgetCoordinator: () => void;
}

/** The commit path (see the module comment). */
export class Committer {
  constructor(private readonly o: CommitterOptions) {}

  /**
   * Commits `offsets` (next offsets to consume) for the partitions owned now. Throws KafkaCallError, CommitDeferredError
   * (`wait: false` during a rebalance), NOT_RUNNING (the consumer failed or stopped), the fencing error.
   */
  async commit(offsets: readonly PartitionOffset[], options: { wait?: boolean } = {}): Promise<void> {
    const o = this.o;
    const deadline = Date.now() + COMMIT_TIMEOUT_MS;
    for (let attempt = 1; ; attempt++) {
      const stopped = o.notRunning();
      if (stopped) throw new KafkaEosError('NOT_RUNNING', `cannot commit: ${stopped.message}`, { cause: stopped });
      const mine = offsets.filter((x) => o.owns(x));
      if (mine.length === 0) return;
      const membership = o.membership();
      if (!membership) throw new KafkaEosError('NOT_RUNNING', 'consumer is not running');
      const identity = membership.commitIdentity();
      const call = `OffsetCommit ${mine.map((x) => `${partitionKey(x)}@${x.offset}`).join(', ')}`;
      if (identity === null) {
        if (options.wait === false) throw new CommitDeferredError(`${call}: a rebalance is under way`);
        await this.settle(membership, deadline, call);
        continue;
      }
      try {
        await kafkaCall(call, () => o.offsets.commit(mine, identity), {
          retries: Infinity, maxRetryTimeMs: Math.max(0, deadline - Date.now()), signal: o.signal,
          refresh: async () => o.forgetCoordinator(),
        });
        o.onCommitted(mine);
        return;
      } catch (e) {
        const k = kafkaErrorOf(e);
        const moved = k?.name === 'ILLEGAL_GENERATION' && membership.generation !== identity.generationId;
        if (k && (AFTER_REBALANCE.has(k.name) || moved) && attempt < 20) {
          if (options.wait === false) throw new CommitDeferredError(`${call}: ${k.name}`);
          await this.settle(membership, deadline, call);
          await new Promise((r) => setTimeout(r, Math.min(1000, 50 * attempt)));
          continue;
        }
        if (k?.needsRejoin || k?.fenced) membership.generationLost(e as Error);
        throw e;
      }
    }
  }

  private async settle(membership: Membership, deadline: number, call: string): Promise<void> {
    const left = deadline - Date.now();
    if (left <= 0) throw new KafkaEosError('KAFKA_CALL_FAILED', `${call}: the rebalance did not end within ${COMMIT_TIMEOUT_MS} ms`);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([membership.settled(), new Promise((r) => { timer = setTimeout(r, left); })]).finally(() => clearTimeout(timer));
  }
}
