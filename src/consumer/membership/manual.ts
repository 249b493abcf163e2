/**
 * Manual assignment (Kafka's `KafkaConsumer.assign()`): the member consumes exactly the partitions it was given,
 * in no group at all (the SDK's own fetch loop needs none). Positions come from the sink (exactly-once) or from the
 * offsets committed under `groupId`, where commits are "simple" ones (generation -1, no member id), which Kafka
 * accepts while that group has no active members.
 *
 * States (one table): `unjoined` → `assigning` (positions) → `stable` → `leaving` (stop: the strategy commits) →
 * `left`; `failed` → `left`.
 */
import { partitionKey, TopicPartition } from '../../records';
import type { ManualAssignment } from '../options';
import { MembershipBase } from './base';
import type { CommitIdentity, MembershipTransition, PartitionHost } from './types';

/** The partitions of a manual assignment, in the order given. */
export function manualPartitions(assign: ManualAssignment[]): TopicPartition[] {
  return assign.flatMap((a) => a.partitions.map((partition) => ({ topic: a.topic, partition })));
}

/** States of {@link ManualMembership}. */
export type ManualState = 'unjoined' | 'assigning' | 'stable' | 'leaving' | 'left' | 'failed';

const TRANSITIONS: Readonly<Record<ManualState, readonly ManualState[]>> = {
  unjoined: ['assigning', 'leaving', 'left', 'failed'],
  assigning: ['stable', 'leaving', 'left', 'failed'],
  stable: ['leaving', 'left', 'failed'],
  leaving: ['left', 'failed'],
  failed: ['left'],
  left: [],
};

/** Manual assignment (see the module comment). */
export class ManualMembership extends MembershipBase<ManualState> {
  readonly protocol = 'manual' as const;

  constructor(host: PartitionHost, private readonly partitions: TopicPartition[], onTransition?: (t: MembershipTransition) => void) {
    super('manual assignment', 'unjoined', TRANSITIONS, host, onTransition);
  }

  get generation(): number {
    return -1;
  }

  get memberId(): string {
    return '';
  }

  protected isSettled(): boolean {
    return true;
  }

  protected isTerminal(): boolean {
    return this.machine.is('left', 'failed');
  }

  async start(): Promise<void> {
    this.beginRound();
    this.machine.to('assigning', `assign ${this.partitions.map(partitionKey).join(', ')}`);
    try {
      await this.host.assign(this.partitions, 'manual assignment');
    } catch (e) {
      if (this.machine.can('failed')) this.machine.to('failed', (e as Error).message);
      throw e;
    }
    if (!this.machine.is('assigning')) return;
    this.machine.to('stable', 'positions set');
    this.endRound();
  }

  async stop(): Promise<void> {
    if (this.isTerminal() || this.machine.is('leaving')) return;
    this.machine.to('leaving', 'stop');
    const owned = this.host.owned();
    if (owned.length > 0) await this.host.revoke(owned, 'stop');
    this.machine.to('left', 'stopped');
  }

  async abandon(): Promise<void> {
    if (this.machine.can('left')) this.machine.to('left', 'stopped after a failure');
  }

  commitIdentity(): CommitIdentity {
    return { generationId: -1, memberId: '', groupInstanceId: null, minCommitVersion: 0 };
  }

  generationLost(): void {
    // No generation to lose: simple commits are refused only while the group has active members (a failure).
  }
}
