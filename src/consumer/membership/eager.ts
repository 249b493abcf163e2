/**
 * The eager rebalance protocol (Java's ConsumerCoordinator with eager assignors: range, roundrobin, sticky): before
 * every JoinGroup the member revokes every partition it owns (its handlers' signals abort, the batches in hand
 * finish, the strategy commits, onPartitionsRevoked runs), so when the new assignment arrives nobody owns anything
 * and it is taken on whole.
 *
 * States (one table, util/state-machine.ts):
 * - `unjoined` → `joining` (JoinGroup in flight) → `syncing` (SyncGroup; the leader assigns) → `assigning` (positions
 *   are read, onPartitionsAssigned runs) → `stable`;
 * - `stable`/`assigning` → `revoking` when a rejoin is needed (a heartbeat answered REBALANCE_IN_PROGRESS), then
 *   `joining` again;
 * - `lost`: the generation is gone (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION): partitions were lost without a commit;
 *   the member joins again;
 * - `leaving` (stop: revoke everything, LeaveGroup) → `left`; `failed` (fenced, refused) → `left`.
 * Heartbeats go out in `stable`, `assigning` and `revoking`.
 */
import type { TopicPartition } from '../../records';
import { ClassicMembership, ClassicOptions, ClassicState } from './classic';
import type { PartitionHost } from './types';

/** States of {@link EagerMembership}. */
export type EagerState = ClassicState | 'revoking' | 'assigning';

const END = ['failed', 'leaving', 'left'] as const;
const TRANSITIONS: Readonly<Record<EagerState, readonly EagerState[]>> = {
  unjoined: ['joining', ...END],
  revoking: ['joining', 'lost', ...END],
  joining: ['joining', 'syncing', 'lost', ...END],
  syncing: ['joining', 'assigning', 'lost', ...END],
  assigning: ['stable', 'revoking', 'lost', ...END],
  stable: ['revoking', 'lost', ...END],
  lost: ['joining', 'lost', ...END],
  leaving: ['left', 'failed'],
  failed: ['left'],
  left: [],
};

/** The eager classic membership (see the module comment). */
export class EagerMembership extends ClassicMembership<EagerState> {
  readonly protocol = 'eager' as const;

  constructor(host: PartitionHost, options: ClassicOptions) {
    super(`eager membership of group ${options.groupId}`, 'unjoined', TRANSITIONS, host, options);
  }

  protected beats(): boolean {
    return this.machine.is('stable', 'assigning', 'revoking');
  }

  protected isSettled(): boolean {
    return this.machine.is('stable', 'assigning', 'revoking', 'leaving');
  }

  protected override rebalanceInProgress(): void {
    // Every partition will be revoked: the handlers in hand may finish early.
    this.host.abortHandlers(this.host.owned());
    super.rebalanceInProgress();
  }

  protected async prepareJoin(reason: string): Promise<void> {
    if (!this.machine.is('stable', 'assigning')) return;
    this.machine.to('revoking', reason);
    const owned = this.host.owned();
    if (owned.length === 0) return;
    this.roundRevoked(owned);
    await this.host.revoke(owned, reason);
  }

  protected async completeJoin(assigned: TopicPartition[]): Promise<void> {
    const token = this.token;
    this.machine.to('assigning', `assigned ${assigned.map((tp) => `${tp.topic}:${tp.partition}`).join(', ') || 'nothing'}`);
    await this.host.assign(assigned, `generation ${this.generationId}`);
    if (token !== this.token || !this.machine.is('assigning')) return;
    this.machine.to('stable', 'positions set');
    this.endRound();
    this.firstAssignmentDone();
  }
}
