/**
 * One member's view of the group, as an explicit state machine: one `state` field, a transition
 * table with guards, and every transition logged with its reason. It owns what one rebalance round
 * is made of: the fetch epoch, the owned partitions, a rejoin that is pending, the round's start
 * time and revoked partitions, and the seeks issued to KafkaJS.
 *
 * States (eager protocol, Java's ConsumerCoordinator in words):
 * - `unjoined`: never joined, or left and not rejoining.
 * - `revoking`: KafkaJS is about to (re)join; owned partitions are being committed and revoked.
 * - `joining`: JoinGroup/SyncGroup in flight; nothing is owned.
 * - `assigning`: SyncGroup gave an assignment; positions are read and set, onPartitionsAssigned runs.
 * - `stable`: the assignment is positioned; batches are handled.
 * - `lost`: the partitions were lost without a commit (session expired, fenced, a crash, the time
 *   limit): Java's onPartitionsLost. A rejoin (→ revoking) follows unless the consumer failed.
 * - `left`: stopped; terminal.
 *
 * The epoch: every transition starts a new epoch. A batch is handled only if its fetch began in the
 * current epoch, and a seek reaches KafkaJS only from the epoch in which its batch was fetched, while
 * the partition is still owned. On every new assignment KafkaJS's own pending seeks are cleared: it
 * keeps them for the consumer's lifetime, so a seek issued just before a partition was revoked would
 * otherwise win when the partition comes back (the stale-position replay of issue 8).
 */
import { KafkaEosError } from '../errors';
import { partitionKey, TopicPartition } from '../records';
import type { RebalanceRecord } from './metrics';

/** States of {@link Membership} (see the module comment). */
export type MembershipState = 'unjoined' | 'revoking' | 'joining' | 'assigning' | 'stable' | 'lost' | 'left';

/** Allowed transitions. `left` is reachable from everywhere (stop, disconnect). */
const TRANSITIONS: Record<MembershipState, readonly MembershipState[]> = {
  unjoined: ['revoking', 'lost', 'left'],
  revoking: ['joining', 'lost', 'left'],
  joining: ['assigning', 'revoking', 'lost', 'left'],
  assigning: ['stable', 'revoking', 'lost', 'left'],
  stable: ['revoking', 'lost', 'left'],
  lost: ['revoking', 'lost', 'left'],
  left: [],
};

/** An illegal membership transition: a bug in the consumer, never the user's input. */
export class IllegalMembershipTransitionError extends KafkaEosError {
  constructor(readonly from: MembershipState, readonly to: MembershipState, readonly reason: string) {
    super('ILLEGAL_STATE', `membership cannot go from ${from} to ${to} (${reason})`);
  }
}

/** One logged transition. `epoch` is the epoch the transition started. */
export interface MembershipTransition {
  from: MembershipState;
  to: MembershipState;
  reason: string;
  epoch: number;
  at: number;
}


/** Where seeks go: KafkaJS's consumer.seek, and the clearing of its pending-seek map. */
export interface SeekTarget {
  seek(tp: TopicPartition, offset: bigint): void;
  /** Drops every seek KafkaJS has not applied yet. */
  clearPendingSeeks(): void;
}

/** The member's rebalance state machine (see the module comment). Transitions throw IllegalMembershipTransitionError. */
export class Membership {
  private current: MembershipState = 'unjoined';
  private currentEpoch = 0;
  private ownedPartitions = new Map<string, TopicPartition>();
  private rejoin: Error | null = null;
  private roundStartedAt: number | null = null;
  private roundRevoked: TopicPartition[] = [];
  private target: SeekTarget | null = null;
  /** The last transitions, newest last (at most 50), for diagnostics and tests. */
  readonly history: MembershipTransition[] = [];

  constructor(private readonly onTransition?: (t: MembershipTransition) => void) {}

  get state(): MembershipState {
    return this.current;
  }

  get epoch(): number {
    return this.currentEpoch;
  }

  /** The error that asks KafkaJS to rejoin (a heartbeat or commit saw a rebalance or expiry), or null. */
  get pendingRejoin(): Error | null {
    return this.rejoin;
  }

  can(to: MembershipState): boolean {
    return TRANSITIONS[this.current].includes(to);
  }

  /** Moves to `to` for `reason` and starts a new epoch. Throws IllegalMembershipTransitionError. */
  private to(to: MembershipState, reason: string): void {
    if (!this.can(to)) throw new IllegalMembershipTransitionError(this.current, to, reason);
    const t: MembershipTransition = { from: this.current, to, reason, epoch: ++this.currentEpoch, at: Date.now() };
    this.current = to;
    this.history.push(t);
    if (this.history.length > 50) this.history.shift();
    this.onTransition?.(t);
  }

  /** Where seeks are sent (the KafkaJS consumer of this run); null when disconnected. */
  attach(target: SeekTarget | null): void {
    this.target = target;
  }

  owns(tp: TopicPartition): boolean {
    return this.ownedPartitions.has(partitionKey(tp));
  }

  owned(): TopicPartition[] {
    return [...this.ownedPartitions.values()];
  }

  /** A rejoin is needed (REBALANCE_IN_PROGRESS and the like seen in the background). The first error wins. */
  requestRejoin(error: Error): void {
    this.rejoin ??= error;
  }

  /**
   * KafkaJS starts a (re)join: a new round begins. Returns the partitions to revoke (still owned
   * until {@link revoked}). From any state but `left`.
   */
  beginRevoke(reason: string): TopicPartition[] {
    this.roundStartedAt ??= Date.now();
    this.rejoin = null;
    this.to('revoking', reason);
    return this.owned();
  }

  /** The revoked partitions were committed and the listeners ran: nothing is owned; JoinGroup goes out. */
  revoked(partitions: TopicPartition[]): void {
    this.roundRevoked.push(...partitions);
    this.ownedPartitions.clear();
    this.to('joining', partitions.length > 0 ? `revoked ${partitions.map(partitionKey).join(', ')}` : 'nothing to revoke');
  }

  /**
   * SyncGroup answered with `partitions`. KafkaJS's pending seeks are dropped (they belong to an
   * earlier assignment). Returns the epoch of the assignment, for {@link positioned}.
   */
  assigned(partitions: TopicPartition[], generationId: number | null): number {
    // KafkaJS may rejoin without our beforeJoin hook (a restart after a crash): pass through revoking.
    if (this.current !== 'joining') {
      if (this.can('revoking')) this.beginRevoke('rejoined after a restart');
      if (this.current === 'revoking') this.revoked([]);
    }
    this.target?.clearPendingSeeks();
    this.ownedPartitions = new Map(partitions.map((tp) => [partitionKey(tp), { topic: tp.topic, partition: tp.partition }]));
    this.to('assigning', `generation ${generationId ?? '?'}: assigned ${partitions.map(partitionKey).join(', ') || 'nothing'}`);
    return this.currentEpoch;
  }

  /**
   * Seeks `tp` to `offset` if the assignment of `epoch` is still current and owns `tp`; otherwise
   * does nothing (the seek would be stale). Returns whether the seek was issued.
   */
  seek(tp: TopicPartition, offset: bigint, epoch: number): boolean {
    if (epoch !== this.currentEpoch || !this.owns(tp) || !this.target) return false;
    if (this.current !== 'assigning' && this.current !== 'stable') return false;
    this.target.seek(tp, offset);
    return true;
  }

  /**
   * The assignment of `epoch` is positioned and onPartitionsAssigned ran: batches may be handled
   * (those fetched before, from KafkaJS's own position, are dropped: the epoch moves on). Returns
   * the finished round's record, or null if the assignment is no longer current.
   */
  positioned(epoch: number): RebalanceRecord | null {
    if (epoch !== this.currentEpoch || this.current !== 'assigning') return null;
    this.to('stable', 'positions set');
    const startedAt = this.roundStartedAt ?? Date.now();
    const record = { startedAt, durationMs: Date.now() - startedAt, revoked: this.roundRevoked, assigned: this.owned() };
    this.roundStartedAt = null;
    this.roundRevoked = [];
    return record;
  }

  /**
   * The owned partitions are gone without a commit (`reason`: session expired, fenced, a crash,
   * the time limit). Returns them (empty if nothing was owned). From any state but `left`.
   */
  lose(reason: string): TopicPartition[] {
    if (this.current === 'left') return [];
    const partitions = this.owned();
    this.ownedPartitions.clear();
    this.roundStartedAt ??= Date.now();
    this.to('lost', reason);
    return partitions;
  }

  /** The consumer stopped: terminal. Nothing is owned and no seek is issued any more. */
  leave(reason: string): void {
    if (this.current === 'left') return;
    this.ownedPartitions.clear();
    this.target = null;
    this.to('left', reason);
  }
}
