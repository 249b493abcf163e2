/**
 * The cooperative rebalance protocol of KIP-429 (Java's ConsumerCoordinator when every assignor supports it, e.g.
 * `cooperative-sticky` alone): the member keeps fetching and processing its partitions through the whole
 * JoinGroup/SyncGroup round, and its subscription tells the leader what it owns (OwnedPartitions) in which
 * generation. After SyncGroup it compares the assignment with what it owns:
 * - partitions it no longer has are revoked (their handlers' signals abort, their batches finish, the strategy
 *   commits, onPartitionsRevoked names only them), and since the leader withheld them from their new owners, the
 *   member then asks for a follow-up rebalance, in which they are given out;
 * - partitions it gained are taken on (positions, onPartitionsAssigned names only them);
 * - partitions it keeps are not touched: no revoke, no flush, no position read, no pause.
 * The revocations and the new partitions are disjoint, so both run at once.
 *
 * States (one table): `unjoined` → `joining` → `syncing` → `reconciling` (revoking and assigning the difference) →
 * `stable`; `stable` → `joining` on a rejoin (REBALANCE_IN_PROGRESS, a follow-up rebalance), keeping every partition;
 * `lost` (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION: everything owned is lost, the member joins again owning nothing);
 * `leaving` → `left`; `failed` → `left`. Heartbeats go out in `stable` and `reconciling`, every 100 ms for one heartbeat
 * interval after each round (a follow-up rebalance is seen at once, so withheld partitions reach their new owner
 * without waiting for a heartbeat); commits wait while a JoinGroup/SyncGroup is in flight (the coordinator refuses the
 * old generation then) and go out with the new one.
 */
import { partitionKey, TopicPartition } from '../../records';
import { ClassicMembership, ClassicOptions, ClassicState } from './classic';
import type { PartitionHost } from './types';

/** States of {@link CooperativeMembership}. */
export type CooperativeState = ClassicState | 'reconciling';

const END = ['failed', 'leaving', 'left'] as const;
const TRANSITIONS: Readonly<Record<CooperativeState, readonly CooperativeState[]>> = {
  unjoined: ['joining', ...END],
  joining: ['joining', 'syncing', 'lost', ...END],
  syncing: ['joining', 'reconciling', 'lost', ...END],
  reconciling: ['stable', 'lost', ...END],
  stable: ['joining', 'lost', ...END],
  lost: ['joining', 'lost', ...END],
  leaving: ['left', 'failed'],
  failed: ['left'],
  left: [],
};

const names = (tps: TopicPartition[]) => tps.map(partitionKey).join(', ') || 'nothing';

/** The cooperative classic membership (see the module comment). */
export class CooperativeMembership extends ClassicMembership<CooperativeState> {
  readonly protocol = 'cooperative' as const;

  constructor(host: PartitionHost, options: ClassicOptions) {
    super(`cooperative membership of group ${options.groupId}`, 'unjoined', TRANSITIONS, host, options);
  }

  protected beats(): boolean {
    return this.machine.is('stable', 'reconciling');
  }

  protected isSettled(): boolean {
    return this.machine.is('stable', 'reconciling', 'leaving');
  }

  protected async prepareJoin(): Promise<void> {
    // Nothing is revoked before a cooperative JoinGroup.
  }

  protected async completeJoin(assigned: TopicPartition[]): Promise<void> {
    const token = this.token;
    const owned = this.host.owned();
    const now = new Set(assigned.map(partitionKey));
    const before = new Set(owned.map(partitionKey));
    const revoked = owned.filter((tp) => !now.has(partitionKey(tp)));
    const added = assigned.filter((tp) => !before.has(partitionKey(tp)));
    this.machine.to('reconciling', `generation ${this.generationId}: revoke ${names(revoked)}; add ${names(added)}`);
    if (revoked.length > 0) this.roundRevoked(revoked);
    const reason = `generation ${this.generationId}`;
    await Promise.all([
      revoked.length > 0 ? this.host.revoke(revoked, reason) : Promise.resolve(),
      this.host.assign(added, reason),
    ]);
    if (token !== this.token || !this.machine.is('reconciling')) return;
    this.machine.to('stable', revoked.length > 0 ? `revoked ${names(revoked)}` : 'assignment taken on');
    this.endRound();
    this.firstAssignmentDone();
    // Another member may have revoked partitions this round and be rejoining for the follow-up: see it at once.
    this.watchForFollowUp();
    // KIP-429: the partitions revoked here were withheld from their new owners; a follow-up rebalance gives them out.
    if (revoked.length > 0) this.requestRejoin(`follow-up rebalance: revoked ${names(revoked)}`);
  }
}
