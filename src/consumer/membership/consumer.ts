/**
 * KIP-848's consumer group protocol (`groupProtocol: 'consumer'`; Java's `ConsumerMembershipManager` and
 * `ConsumerHeartbeatRequestManager` in words): membership is one ConsumerGroupHeartbeat, sent every heartbeat
 * interval the broker sets, and the broker computes the assignment (`groupRemoteAssignor`: uniform or range).
 *
 * - Joining: member epoch 0 with the subscription (topic names, or one regular expression the broker evaluates:
 *   ConsumerGroupHeartbeat v1+, which also lets the member make its own member id, a UUID), the rebalance timeout,
 *   the server assignor, and no partitions. A static member sends its instance id (KIP-345) on every heartbeat.
 * - Reconciling (Java's reconciliation order): a new target assignment names topics by id (Metadata v10+ resolves
 *   them). What the member owns and the target no longer holds is revoked (the handlers' signals abort, the batches
 *   finish, the strategy commits, onPartitionsRevoked names only those); what the target adds is taken on; what both
 *   hold is not touched and keeps being fetched and processed. The broker gives a partition to a member only when no
 *   other member owns it, and its old owner stops owning it only by heartbeating without it: the member heartbeats
 *   its new ownership at once after reconciling (acknowledging). A newer target arriving meanwhile is reconciled next.
 * - Heartbeats go out at the interval the broker sets, and every 100 ms for one interval after each round: partitions
 *   another member revokes in that round come free a heartbeat later, and are taken on without waiting a full interval.
 * - Only changed fields are sent; after any failed heartbeat the next one is full (every field, owned partitions
 *   included), so a lost response is recognised by the broker (the previous epoch with partitions it may keep).
 * - Fencing: FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID: every partition is lost (no commit), the member joins again
 *   at epoch 0. Coordinator errors and dropped connections find the coordinator again and retry (100 ms doubling to
 *   1 s). Fatal: FENCED_INSTANCE_ID (FencedInstanceIdError), UNRELEASED_INSTANCE_ID (the static member's previous
 *   process has not left), GROUP_ID_NOT_FOUND (a classic group with members has this id: Kafka's online migration
 *   between the protocols is not done by this client), UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION,
 *   GROUP_MAX_SIZE_REACHED, UNSUPPORTED_VERSION (a broker without KIP-848), INVALID_REQUEST, authorization errors.
 * - Leaving: member epoch -1, or -2 for a static member that does not leave (its partitions wait for it until its
 *   session times out). Commits carry the member epoch (OffsetCommit v9+, see commit/offsets.ts).
 *
 * States (one table): `unjoined` → `joining` → `reconciling` → `acknowledging` → `stable`; `stable` → `reconciling`
 * on a new target; `fenced` → `joining`; `leaving` → `left`; `failed` → `left`.
 */
import { randomUUID } from 'node:crypto';
import { ConsumerGroupHeartbeat } from '../../protocol/messages/consumer-group';
import { KafkaProtocolError, kafkaErrorOf, needsMetadataRefresh } from '../../protocol/kafka-errors';
import { ErrorCode } from '../../protocol/error-codes';
import { partitionKey, TopicPartition } from '../../records';
import type { KafkaTransport } from '../kafka/transport';
import { TopicIds } from '../kafka/topic-ids';
import { FencedInstanceIdError } from '../errors';
import { firstAssignment, FirstAssignment, MembershipBase, QUICK_BEAT_MS } from './base';
import type { CommitIdentity, MembershipTransition, PartitionHost } from './types';

/** States of {@link ConsumerMembership}. */
export type ConsumerState = 'unjoined' | 'joining' | 'reconciling' | 'acknowledging' | 'stable' | 'fenced' | 'leaving' | 'left' | 'failed';

const END = ['failed', 'leaving', 'left'] as const;
const TRANSITIONS: Readonly<Record<ConsumerState, readonly ConsumerState[]>> = {
  unjoined: ['joining', ...END],
  joining: ['joining', 'reconciling', 'stable', 'fenced', ...END],
  reconciling: ['reconciling', 'acknowledging', 'fenced', ...END],
  acknowledging: ['acknowledging', 'stable', 'reconciling', 'fenced', ...END],
  stable: ['reconciling', 'fenced', ...END],
  fenced: ['joining', ...END],
  leaving: ['left', 'failed'],
  failed: ['left'],
  left: [],
};

const FATAL = new Set<number>([
  ErrorCode.UNRELEASED_INSTANCE_ID, ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.UNSUPPORTED_ASSIGNOR, ErrorCode.INVALID_REGULAR_EXPRESSION,
  ErrorCode.GROUP_MAX_SIZE_REACHED, ErrorCode.UNSUPPORTED_VERSION, ErrorCode.INVALID_REQUEST, ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.INVALID_GROUP_ID,
]);
const FENCING = new Set<number>([ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID]);
const LEAVE_EPOCH = -1;
const STATIC_LEAVE_EPOCH = -2;

/** How a KIP-848 member joins (times in ms). */
export interface ConsumerOptions {
  transport: KafkaTransport;
  groupId: string;
  groupInstanceId: string | null;
  rebalanceTimeoutMs: number;
  /** Topic names, or one regular expression the broker matches (RE2/J syntax, full match). */
  subscription: { names: string[] } | { regex: string };
  /** The server assignor (Kafka's group.remote.assignor): 'uniform' or 'range'; null lets the broker choose. */
  serverAssignor: string | null;
  onTransition?: (t: MembershipTransition) => void;
}

const names = (tps: TopicPartition[]) => tps.map(partitionKey).join(', ') || 'nothing';

/** The KIP-848 membership (see the module comment). */
export class ConsumerMembership extends MembershipBase<ConsumerState> {
  readonly protocol = 'consumer' as const;
  private member = '';
  private epoch = 0;
  private intervalMs = 0;
  private running = false;
  private loop: Promise<void> | null = null;
  /** The next heartbeat sends every field (first join, after any failure). */
  private full = true;
  /** Reconciliations finished, and the last one a heartbeat acknowledged (the broker learns ownership by heartbeat). */
  private reconciled = 0;
  private acknowledged = 0;
  private target: TopicPartition[] | null = null;
  private reconciling: Promise<void> | null = null;
  private token = 0;
  private fencedInstance: FencedInstanceIdError | null = null;
  private readonly topicIds: TopicIds;
  private version = 0;
  /** Until when (epoch ms) heartbeats go out every QUICK_BEAT_MS: one interval after each round. */
  private quickBeatsUntil = 0;
  private first: FirstAssignment;

  constructor(host: PartitionHost, private readonly options: ConsumerOptions) {
    super(`consumer-protocol membership of group ${options.groupId}`, 'unjoined', TRANSITIONS, host, options.onTransition);
    this.topicIds = new TopicIds(options.transport);
    this.first = firstAssignment();
  }

  get generation(): number {
    return this.epoch;
  }

  get memberId(): string {
    return this.member;
  }

  protected isSettled(): boolean {
    return this.epoch > 0 && this.machine.is('stable', 'reconciling', 'acknowledging', 'leaving');
  }

  protected isTerminal(): boolean {
    return this.machine.is('left', 'failed');
  }

  async start(): Promise<void> {
    const o = this.options;
    const coordinator = await o.transport.coordinator(o.groupId);
    // v1: the member makes its own id (KIP-1082) and may subscribe by regular expression.
    this.version = o.transport.versionFor(coordinator, ConsumerGroupHeartbeat, 'regex' in o.subscription ? { minVersion: 1 } : {});
    if (this.version >= 1) this.member = randomUUID();
    if ('names' in o.subscription) await this.topicIds.resolve(o.subscription.names).catch(() => undefined);
    if (!this.machine.is('unjoined')) return this.first.promise; // stop() came first
    this.running = true;
    this.machine.to('joining', 'start');
    this.beginRound();
    this.loop = this.run();
    return this.first.promise;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const wait = await this.heartbeat();
      if (!this.running) break;
      if (wait > 0) await this.nap(wait);
    }
  }

  /** One heartbeat; returns how long to wait before the next one (0: at once). */
  private async heartbeat(): Promise<number> {
    const o = this.options;
    const token = this.token;
    const full = this.full || this.machine.is('joining');
    const ack = this.reconciled;
    const owned = this.host.owned();
    try {
      const coordinator = await o.transport.coordinator(o.groupId);
      const joining = this.machine.is('joining');
      const sub = o.subscription;
      const { response } = await o.transport.request(coordinator, ConsumerGroupHeartbeat, {
        groupId: o.groupId, memberId: this.member, memberEpoch: joining ? 0 : this.epoch, instanceId: o.groupInstanceId,
        rackId: null, rebalanceTimeoutMs: full ? o.rebalanceTimeoutMs : -1,
        subscribedTopicNames: full && 'names' in sub ? sub.names : null,
        subscribedTopicRegex: full && 'regex' in sub ? sub.regex : null,
        serverAssignor: full ? o.serverAssignor : null,
        topicPartitions: joining ? [] : full || ack > this.acknowledged ? this.toWire(owned) : null,
      }, { minVersion: this.version, maxVersion: this.version });
      if (token !== this.token) return 0;
      if (response.errorCode === ErrorCode.NONE) {
        // Kept even when stop() came meanwhile: leaving needs the member id and epoch the broker knows.
        if (response.memberId) this.member = response.memberId;
        this.epoch = response.memberEpoch;
      }
      if (!this.running) return 0;
      if (response.errorCode !== ErrorCode.NONE) {
        return this.onError(KafkaProtocolError.answered('ConsumerGroupHeartbeat', response.errorCode, response.errorMessage));
      }
      this.full = false;
      this.resetBackoff();
      this.intervalMs = response.heartbeatIntervalMs > 0 ? response.heartbeatIntervalMs : this.intervalMs || 1000;
      this.acknowledged = Math.max(this.acknowledged, ack);
      if (response.assignment) await this.newTarget(response.assignment.topicPartitions);
      if (this.machine.is('joining', 'acknowledging') && !this.ackPending() && this.reconciling === null) this.settle();
      if (this.ackPending()) return 0;
      // Right after a round, partitions revoked by other members come free one heartbeat later: look sooner.
      return Date.now() < this.quickBeatsUntil ? Math.min(QUICK_BEAT_MS, this.intervalMs) : this.intervalMs;
    } catch (e) {
      if (token !== this.token || !this.running) return 0;
      if (kafkaErrorOf(e)?.name === 'UNSUPPORTED_VERSION') {
        this.failWith(e as Error);
        return 0;
      }
      o.transport.forgetCoordinator(o.groupId);
      this.full = true;
      this.host.log(`ConsumerGroupHeartbeat failed: ${(e as Error).message}; trying again`);
      return Math.min(this.nextBackoff(), this.intervalMs || 1000);
    }
  }

  private onError(error: KafkaProtocolError): number {
    const code = error.errorCode;
    this.full = true;
    if (code === ErrorCode.FENCED_INSTANCE_ID) {
      this.fencedInstance = new FencedInstanceIdError(this.options.groupId, this.options.groupInstanceId, { cause: error });
      this.failWith(this.fencedInstance);
      return 0;
    }
    if (FENCING.has(code)) {
      this.fence(error);
      return 0;
    }
    if (FATAL.has(code)) {
      this.failWith(error);
      return 0;
    }
    if (needsMetadataRefresh(error)) this.options.transport.forgetCoordinator(this.options.groupId);
    this.host.log(`ConsumerGroupHeartbeat: ${error.message}; trying again`);
    return Math.min(this.nextBackoff(), this.intervalMs || 1000);
  }

  /** Fenced (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID): everything owned is lost; join again at epoch 0. */
  private fence(error: Error): void {
    this.token += 1;
    this.target = null;
    this.reconciling = null;
    this.acknowledged = this.reconciled;
    const owned = this.host.owned();
    this.roundRevoked(owned);
    if (owned.length > 0) this.host.lose(owned, error);
    this.epoch = 0;
    if (this.version === 0) this.member = '';
    this.machine.to('fenced', error.message);
    this.machine.to('joining', 'rejoin at epoch 0 after fencing');
  }

  generationLost(error: Error): void {
    if (this.isTerminal()) return;
    if (kafkaErrorOf(error)?.fenced) {
      this.fencedInstance ??= new FencedInstanceIdError(this.options.groupId, this.options.groupInstanceId, { cause: error });
      this.failWith(this.fencedInstance);
      return;
    }
    if (!this.running || this.machine.is('leaving', 'fenced', 'joining')) return;
    this.fence(error);
    this.wake();
  }

  private toWire(owned: TopicPartition[]): { topicId: string; partitions: number[] }[] {
    const byTopic = new Map<string, number[]>();
    for (const tp of owned) {
      const id = this.topicIds.idOf(tp.topic);
      if (!id) continue;
      const list = byTopic.get(id) ?? [];
      list.push(tp.partition);
      byTopic.set(id, list);
    }
    return [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions: partitions.sort((a, b) => a - b) }));
  }

  /** A new target assignment (by topic id): resolve the names, then reconcile (now, or after the reconciliation under way). */
  private async newTarget(wire: { topicId: string; partitions: number[] }[]): Promise<void> {
    if (wire.some((t) => !this.topicIds.nameOf(t.topicId))) await this.topicIds.resolve(null).catch(() => undefined);
    const target: TopicPartition[] = [];
    for (const t of wire) {
      const topic = this.topicIds.nameOf(t.topicId);
      if (!topic) {
        this.host.log(`assignment names unknown topic id ${t.topicId}; waiting for metadata`);
        this.full = true;
        continue;
      }
      for (const partition of t.partitions) target.push({ topic, partition });
    }
    this.target = target;
    if (this.reconciling === null) this.reconciling = this.reconcile().finally(() => { this.reconciling = null; });
  }

  private async reconcile(): Promise<void> {
    const token = this.token;
    while (this.target !== null && token === this.token && this.running) {
      const target = this.target;
      this.target = null;
      const owned = this.host.owned();
      const want = new Set(target.map(partitionKey));
      const have = new Set(owned.map(partitionKey));
      const revoked = owned.filter((tp) => !want.has(partitionKey(tp)));
      const added = target.filter((tp) => !have.has(partitionKey(tp)));
      if (revoked.length === 0 && added.length === 0 && !this.machine.is('joining')) {
        if (this.machine.is('reconciling')) this.machine.to('acknowledging', 'target unchanged');
        continue;
      }
      this.beginRound();
      this.machine.to('reconciling', `epoch ${this.epoch}: revoke ${names(revoked)}; add ${names(added)}`);
      if (revoked.length > 0) this.roundRevoked(revoked);
      const reason = `member epoch ${this.epoch}`;
      try {
        await Promise.all([revoked.length > 0 ? this.host.revoke(revoked, reason) : Promise.resolve(), this.host.assign(added, reason)]);
      } catch (e) {
        if (token === this.token) this.failWith(e as Error);
        return;
      }
      if (token !== this.token || !this.running) return;
      this.machine.to('acknowledging', `now owns ${names(this.host.owned())}`);
      this.reconciled += 1;
      this.wake();
    }
  }

  private ackPending(): boolean {
    return this.reconciled > this.acknowledged;
  }

  /** Acknowledged (or joined) with nothing left to reconcile: the round is over. */
  private settle(): void {
    this.machine.to('stable', `acknowledged at epoch ${this.epoch}`);
    this.quickBeatsUntil = Date.now() + this.intervalMs;
    this.endRound();
    this.first.resolve();
  }

  private failWith(error: Error): void {
    if (this.isTerminal()) return;
    this.token += 1;
    this.running = false;
    const owned = this.host.owned();
    if (owned.length > 0) this.host.lose(owned, error);
    this.machine.to('failed', error.message);
    this.first.reject(error);
    this.wake();
    this.host.fail(error);
  }

  commitIdentity(): CommitIdentity | null {
    if (!this.isSettled() || this.fencedInstance) return null;
    return { generationId: this.epoch, memberId: this.member, groupInstanceId: this.options.groupInstanceId, minCommitVersion: 9 };
  }

  async stop(leave: boolean): Promise<void> {
    if (this.isTerminal() || this.machine.is('leaving')) return this.finish(leave);
    this.running = false;
    this.wake();
    await this.loop?.catch(() => undefined);
    await this.reconciling?.catch(() => undefined);
    this.first.resolve();
    if (this.isTerminal()) return;
    this.machine.to('leaving', 'stop');
    const owned = this.host.owned();
    if (owned.length > 0) {
      this.roundRevoked(owned);
      await this.host.revoke(owned, 'stop');
    }
    await this.finish(leave);
  }

  async abandon(leave: boolean): Promise<void> {
    this.running = false;
    this.wake();
    this.first.resolve();
    await this.finish(leave);
  }

  /** Leaves (epoch -1; a static member that does not leave: -2), then `left`. */
  private async finish(leave: boolean): Promise<void> {
    await this.loop?.catch(() => undefined);
    if (this.machine.is('left')) return;
    const o = this.options;
    const epoch = leave ? LEAVE_EPOCH : o.groupInstanceId !== null ? STATIC_LEAVE_EPOCH : null;
    if (epoch !== null && !this.fencedInstance && this.member !== '' && this.epoch > 0) {
      try {
        const coordinator = await o.transport.coordinator(o.groupId);
        await o.transport.request(coordinator, ConsumerGroupHeartbeat, {
          groupId: o.groupId, memberId: this.member, memberEpoch: epoch, instanceId: o.groupInstanceId, rebalanceTimeoutMs: -1,
        }, { minVersion: this.version, maxVersion: this.version, timeoutMs: 5000 });
      } catch (e) {
        this.host.log(`leaving the group failed: ${(e as Error).message}`);
      }
    }
    if (this.machine.can('left')) this.machine.to('left', epoch === LEAVE_EPOCH ? 'left the group' : 'stopped without leaving');
  }
}
