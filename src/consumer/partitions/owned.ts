/**
 * What this member owns, partition by partition, and the three ways a partition comes and goes (the membership
 * protocols call them: membership/types.ts PartitionHost):
 * - `assign`: a new incarnation of the partition (`positioning`): the strategy says where it resumes (the sink's
 *   stored position for exactly-once), else the offset committed to the group, else the log start or end
 *   (`fromBeginning`); the fetch loop starts there; onPartitionsAssigned runs; then it is `active` and its batches
 *   are handled. Java's order: the listener runs before any record of the partition is handled.
 * - `revoke` (`revoking`): no more fetches, the handler in hand sees its signal abort and finishes, the strategy
 *   commits the finished work while the member still owns the partition (onRevoked), onPartitionsRevoked runs, then
 *   the partition is gone and `revoked` names it. Only the partitions given are touched; the others keep being
 *   fetched and handled.
 * - `lose`: gone at once, nothing committed (the generation or member epoch is gone, another member may own it):
 *   the strategy forgets it (onLost), onPartitionsLost runs, `lost` names it. A batch in hand finishes, but its outcome
 *   is dropped (its incarnation is gone).
 * Each partition's progress is one state value (util/state-machine.ts): positioning → active → revoking → gone;
 * positioning/active/revoking → gone (lost).
 */
import { KafkaEosError } from '../../errors';
import { needsRejoin } from '../../protocol/kafka-errors';
import { partitionKey, TopicPartition } from '../../records';
import { StateMachine } from '../../util/state-machine';
import type { ConsumerMetrics } from '../metrics';
import type { RebalanceListeners } from '../options';
import type { CommitStrategy, StrategyContext } from '../strategies/types';
import type { FetchPartition } from '../fetch/partition';
import type { Fetcher } from '../fetch/fetcher';
import type { GroupConsumerEvents } from '../events';
import { toError } from '../events';
import type { PartitionHost } from '../membership/types';

/** States of one owned partition (see the module comment). */
export type OwnedState = 'positioning' | 'active' | 'revoking' | 'gone';

const TRANSITIONS: Readonly<Record<OwnedState, readonly OwnedState[]>> = {
  positioning: ['active', 'revoking', 'gone'],
  active: ['revoking', 'gone'],
  revoking: ['gone'],
  gone: [],
};

/** One incarnation of an owned partition. */
export class OwnedPartition {
  readonly key: string;
  readonly machine: StateMachine<OwnedState>;

  constructor(readonly tp: TopicPartition, readonly fetch: FetchPartition) {
    this.key = partitionKey(tp);
    this.machine = new StateMachine<OwnedState>({ name: `partition ${this.key}`, initial: 'positioning', transitions: TRANSITIONS });
  }

  get state(): OwnedState {
    return this.machine.state;
  }

  /** Still this member's (not lost, not revoked to the end). */
  get current(): boolean {
    return !this.machine.is('gone');
  }
}

/** What {@link OwnedPartitions} needs from the consumer. */
export interface OwnedPartitionsOptions {
  fetcher: Fetcher;
  strategy: CommitStrategy;
  context: () => StrategyContext;
  listeners: RebalanceListeners;
  /** Where partitions without a position from the strategy resume: the committed offset, else the log start or end. */
  fallbackPositions: (partitions: TopicPartition[]) => Promise<Map<string, bigint>>;
  /** Runs `fn` (a listener, the strategy's assignment work) under the processing time limit. */
  timed: <T>(label: string, fn: () => Promise<T>) => Promise<T>;
  /** Batches of these partitions: abort their handlers' signals. */
  abortHandlers: (keys: ReadonlySet<string>) => void;
  /** Resolves when no batch of these partitions is being handled. */
  idle: (keys: ReadonlySet<string>) => Promise<void>;
  /** These partitions are active now: their waiting chunks may be handled. */
  activated: (partitions: OwnedPartition[]) => void;
  emit: <E extends keyof GroupConsumerEvents>(event: E, payload: GroupConsumerEvents[E]) => void;
  metrics: ConsumerMetrics;
  fail: (error: Error) => void;
  log: (message: string, extra?: Record<string, unknown>) => void;
}

/** The partitions this member owns (see the module comment). */
export class OwnedPartitions implements PartitionHost {
  private readonly partitions = new Map<string, OwnedPartition>();

  constructor(private readonly o: OwnedPartitionsOptions) {}

  owned(): TopicPartition[] {
    return [...this.partitions.values()].map((p) => p.tp);
  }

  /** The current incarnation of `tp`, if owned. */
  get(tp: TopicPartition): OwnedPartition | undefined {
    return this.partitions.get(partitionKey(tp));
  }

  owns(tp: TopicPartition): boolean {
    return this.partitions.has(partitionKey(tp));
  }

  async assign(partitions: TopicPartition[], reason: string): Promise<void> {
    const o = this.o;
    const mine = partitions.map((tp) => {
      this.partitions.get(partitionKey(tp))?.machine.tryTo('gone', 'assigned again');
      const p = new OwnedPartition({ topic: tp.topic, partition: tp.partition }, o.fetcher.add(tp));
      this.partitions.set(p.key, p);
      return p;
    });
    o.metrics.assigned(partitions);
    o.log(`assigning ${partitions.map(partitionKey).join(', ') || 'nothing'} (${reason})`);
    const fromStrategy = await o.timed('(onAssigned)', () => o.strategy.onAssigned(o.context(), partitions));
    const missing = partitions.filter((tp) => fromStrategy?.get(partitionKey(tp)) === undefined);
    const fallback = missing.length > 0 ? await o.fallbackPositions(missing) : new Map<string, bigint>();
    for (const p of mine) {
      const position = fromStrategy?.get(p.key) ?? fallback.get(p.key);
      if (p.current && position !== undefined) o.fetcher.seek(p.fetch, position);
    }
    if (o.listeners.onPartitionsAssigned) {
      await o.timed('(onPartitionsAssigned)', async () => { await o.listeners.onPartitionsAssigned!(partitions); });
    }
    const active = mine.filter((p) => p.machine.is('positioning'));
    for (const p of active) p.machine.to('active', reason);
    o.activated(active);
    o.emit('assigned', { partitions, positions: fromStrategy });
  }

  async revoke(partitions: TopicPartition[], reason: string): Promise<void> {
    const o = this.o;
    const mine = this.current(partitions);
    if (mine.length === 0) return;
    const keys = new Set(mine.map((p) => p.key));
    for (const p of mine) {
      if (p.machine.can('revoking')) p.machine.to('revoking', reason);
      o.fetcher.release(p.fetch, `revoking: ${reason}`);
    }
    o.abortHandlers(keys);
    await o.idle(keys);
    const still = () => mine.filter((p) => p.machine.is('revoking')).map((p) => p.tp);
    try {
      if (still().length > 0) await o.strategy.onRevoked?.(o.context(), still());
    } catch (e) {
      if (needsRejoin(e)) {
        // The commit found the generation gone: the membership reports them lost (lose()).
      } else {
        const message = `commit before giving up ${still().map(partitionKey).join(', ')} failed: ${(e as Error).message}`;
        o.emit('error', new KafkaEosError('COMMIT_ON_REVOKE_FAILED', message, { cause: e }));
      }
    }
    const revoked = still();
    if (revoked.length === 0) return;
    try {
      await o.listeners.onPartitionsRevoked?.(revoked);
    } catch (e) {
      o.emit('error', toError(e));
    }
    for (const p of mine) {
      if (p.machine.tryTo('gone', `revoked: ${reason}`) && this.partitions.get(p.key) === p) this.partitions.delete(p.key);
    }
    o.metrics.removed(revoked);
    o.emit('revoked', { partitions: revoked });
  }

  lose(partitions: TopicPartition[], error: Error): void {
    const o = this.o;
    const mine = this.current(partitions);
    if (mine.length === 0) return;
    for (const p of mine) {
      p.machine.to('gone', `lost: ${error.message}`);
      this.partitions.delete(p.key);
      o.fetcher.release(p.fetch, 'lost');
    }
    o.abortHandlers(new Set(mine.map((p) => p.key)));
    const lost = mine.map((p) => p.tp);
    o.strategy.onLost?.(lost);
    o.metrics.removed(lost);
    o.emit('lost', { partitions: lost, error });
    Promise.resolve(o.listeners.onPartitionsLost?.(lost)).catch((e: unknown) => o.emit('error', toError(e)));
  }

  /** The current incarnations of `partitions` that are still owned. */
  private current(partitions: TopicPartition[]): OwnedPartition[] {
    return partitions.map((tp) => this.partitions.get(partitionKey(tp))).filter((p): p is OwnedPartition => p !== undefined && p.current);
  }

  abortHandlers(partitions: TopicPartition[]): void {
    this.o.abortHandlers(new Set(partitions.map(partitionKey)));
  }

  fail(error: Error): void {
    this.o.fail(error);
  }

  roundDone(round: { startedAt: number; revoked: TopicPartition[]; assigned: TopicPartition[] }): void {
    const { startedAt, revoked, assigned } = round;
    const record = { startedAt, durationMs: Date.now() - startedAt, revoked, assigned };
    this.o.metrics.recordRebalance(record);
    this.o.emit('rebalance', record);
  }

  log(message: string, extra?: Record<string, unknown>): void {
    this.o.log(message, extra);
  }
}
