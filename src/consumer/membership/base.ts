/**
 * What every membership protocol shares: its state machine (util/state-machine.ts) with a history of transitions,
 * the waiters of {@link MembershipBase.settled}, the bookkeeping of one rebalance round (for the `rebalance` event),
 * a wake-up for the protocol's loop, and the retry back-off of its coordinator requests.
 */
import { StateMachine, Transition } from '../../util/state-machine';
import type { TopicPartition } from '../../records';
import type { CommitIdentity, Membership, MembershipProtocolName, MembershipTransition, PartitionHost } from './types';

/** Longest back-off between coordinator retries, ms (Java's retry.backoff.max.ms is 1000). */
export const MAX_RETRY_BACKOFF_MS = 1000;

/**
 * The heartbeat period of an incremental member for one heartbeat interval after each round, ms: a follow-up
 * rebalance (KIP-429) or a partition another member revoked (KIP-848) is seen at once, not a full interval later.
 */
export const QUICK_BEAT_MS = 100;

/** What start() waits for: the first assignment taken on (resolve) or the membership failing first (reject). */
export interface FirstAssignment {
  resolve: () => void;
  reject: (e: Error) => void;
  promise: Promise<void>;
}

/** A {@link FirstAssignment} not yet settled; a rejection nobody awaits is not reported as unhandled. */
export function firstAssignment(): FirstAssignment {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  promise.catch(() => undefined);
  return { resolve, reject, promise };
}

/** The base of eager, cooperative, consumer and manual memberships: state, history, rounds, waits. */
export abstract class MembershipBase<S extends string> implements Membership {
  abstract readonly protocol: MembershipProtocolName;
  readonly history: MembershipTransition[] = [];
  protected readonly machine: StateMachine<S>;
  private transitions = 0;
  private settledWaiters: (() => void)[] = [];
  private wakeUp: (() => void) | null = null;
  private round: { startedAt: number; revoked: TopicPartition[] } | null = null;
  private backoffMs = 0;

  constructor(
    name: string, initial: S, transitions: Readonly<Record<S, readonly S[]>>,
    protected readonly host: PartitionHost, private readonly onTransition?: (t: MembershipTransition) => void,
  ) {
    this.machine = new StateMachine<S>({ name, initial, transitions, onTransition: (t) => this.record(t) });
  }

  get state(): S {
    return this.machine.state;
  }

  abstract get generation(): number;
  abstract get memberId(): string;
  abstract start(): Promise<void>;
  abstract stop(leave: boolean): Promise<void>;
  abstract abandon(leave: boolean): Promise<void>;
  abstract commitIdentity(): CommitIdentity | null;
  abstract generationLost(error: Error): void;

  /** Whether the member is between rebalances (commits of the current generation go through). */
  protected abstract isSettled(): boolean;

  settled(): Promise<void> {
    if (this.isSettled()) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Wakes the {@link settled} waiters (after a transition into a settled or terminal state). */
  protected releaseSettled(): void {
    for (const w of this.settledWaiters.splice(0)) w();
  }

  private record(t: Transition<S>): void {
    const entry: MembershipTransition = { from: t.from, to: t.to, reason: t.reason, epoch: ++this.transitions, at: Date.now() };
    this.history.push(entry);
    if (this.history.length > 50) this.history.shift();
    this.onTransition?.(entry);
    if (this.isSettled() || this.isTerminal()) this.releaseSettled();
  }

  /** Whether the machine can no longer leave its state (left, failed). */
  protected abstract isTerminal(): boolean;

  /** A rebalance round begins (its start time is kept until {@link endRound}). */
  protected beginRound(): void {
    this.round ??= { startedAt: Date.now(), revoked: [] };
  }

  /** Partitions revoked (or lost) during the round under way. */
  protected roundRevoked(partitions: TopicPartition[]): void {
    this.beginRound();
    this.round!.revoked.push(...partitions);
  }

  /** The round is over: reports it to the host (the `rebalance` event). */
  protected endRound(): void {
    const round = this.round ?? { startedAt: Date.now(), revoked: [] };
    this.round = null;
    this.host.roundDone({ startedAt: round.startedAt, revoked: round.revoked, assigned: this.host.owned() });
  }

  /** Sleeps up to `ms`, or until {@link wake} is called. */
  protected nap(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      const previous = this.wakeUp;
      this.wakeUp = () => { previous?.(); done(); };
    }).finally(() => { this.wakeUp = null; });
  }

  /** Ends the current {@link nap} early. */
  protected wake(): void {
    this.wakeUp?.();
  }

  /** The next retry back-off (100 ms doubling up to MAX_RETRY_BACKOFF_MS); {@link resetBackoff} after a success. */
  protected nextBackoff(): number {
    this.backoffMs = Math.min(MAX_RETRY_BACKOFF_MS, this.backoffMs === 0 ? 100 : this.backoffMs * 2);
    return this.backoffMs;
  }

  protected resetBackoff(): void {
    this.backoffMs = 0;
  }
}
