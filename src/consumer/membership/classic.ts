/**
 * The classic group protocol as the SDK drives it (Java's `AbstractCoordinator` and `ConsumerCoordinator` in words):
 * JoinGroup, SyncGroup, Heartbeat and LeaveGroup to the group coordinator, encoded by src/protocol and sent on
 * KafkaJS's connections (kafka/transport.ts). The eager and cooperative protocols (eager.ts, cooperative.ts) share
 * these requests and differ in what happens before a JoinGroup and after a SyncGroup: {@link prepareJoin} and
 * {@link completeJoin}.
 *
 * - One loop joins whenever a join is needed (no generation yet, the generation was lost, or a rejoin was asked
 *   for: a heartbeat answered REBALANCE_IN_PROGRESS, a cooperative follow-up rebalance). Heartbeats run on their own
 *   timer every `heartbeatIntervalMs` while the member has a generation, also while partitions are being revoked or
 *   positioned and while handlers run (Java's heartbeat thread): a slow handler or listener never lets the session
 *   expire; only `maxProcessingTimeMs` bounds it.
 * - JoinGroup: MEMBER_ID_REQUIRED (KIP-394) joins again at once with the id given; UNKNOWN_MEMBER_ID joins as a new
 *   member; coordinator errors and dropped connections find the coordinator again and retry (100 ms doubling to
 *   1 s); FENCED_INSTANCE_ID (KIP-345) and refusals (INCONSISTENT_GROUP_PROTOCOL, GROUP_MAX_SIZE_REACHED, ...) are
 *   fatal. The leader runs the assignor the coordinator chose over every member's subscription.
 * - SyncGroup: REBALANCE_IN_PROGRESS joins again with the same member id; UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION
 *   lose the generation (partitions owned are lost, not revoked: another member may own them by now).
 * - Heartbeat: REBALANCE_IN_PROGRESS asks for a rejoin; UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION lose the generation;
 *   FENCED_INSTANCE_ID is fatal; anything else is tried again on the next beat (the session decides).
 * - A static member (`groupInstanceId`) joins with JoinGroup v5+ and sends its instance id on every request; after
 *   FENCED_INSTANCE_ID nothing more is sent.
 */
import { Heartbeat, JoinGroup, LeaveGroup, SyncGroup } from '../../protocol/messages/group';
import { KafkaProtocolError, kafkaErrorOf, needsMetadataRefresh } from '../../protocol/kafka-errors';
import { ErrorCode } from '../../protocol/error-codes';
import { KafkaEosError } from '../../errors';
import { decodeAssignment, type TopicPartition } from '../../protocol/consumer-protocol';
import type { BrokerRef, KafkaTransport } from '../kafka/transport';
import { FencedInstanceIdError } from '../errors';
import type { ClassicAssignor, JoinedMember } from './assignors';
import { firstAssignment, FirstAssignment, MembershipBase, QUICK_BEAT_MS } from './base';
import type { CommitIdentity, MembershipTransition, PartitionHost } from './types';

/** States every classic membership has (eager and cooperative add their own). */
export type ClassicState = 'unjoined' | 'joining' | 'syncing' | 'stable' | 'lost' | 'leaving' | 'left' | 'failed';

/** How a classic member joins (times in ms). */
export interface ClassicOptions {
  transport: KafkaTransport;
  groupId: string;
  groupInstanceId: string | null;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** The topics to subscribe to (patterns already resolved against the cluster's topics). */
  topics: () => Promise<string[]>;
  /** In order of preference; the first one every member supports is the group's. */
  assignors: ClassicAssignor[];
  onTransition?: (t: MembershipTransition) => void;
}

/** A rejoin is needed (not a failure): the join loop goes round again. Never leaves this module. */
class Rejoin extends KafkaEosError {
  constructor(message: string) {
    super('REJOIN_NEEDED', message);
  }
}

/**
 * Errors of a join round that end the membership. GROUP_ID_NOT_FOUND: the group is a live KIP-848 group that does
 * not take classic members (Kafka 3.7-3.9, and 4.x without online migration); Java's JoinGroup handler raises it as
 * unexpected, it never goes away by retrying.
 */
const FATAL_JOIN_ERRORS = new Set<number>([
  ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ErrorCode.GROUP_MAX_SIZE_REACHED, ErrorCode.INVALID_SESSION_TIMEOUT, ErrorCode.INVALID_GROUP_ID,
  ErrorCode.GROUP_AUTHORIZATION_FAILED, ErrorCode.UNSUPPORTED_VERSION, ErrorCode.INVALID_REQUEST, ErrorCode.GROUP_ID_NOT_FOUND,
]);

/** JoinGroup/SyncGroup/Heartbeat/LeaveGroup, shared by the eager and cooperative memberships (see the module comment). */
export abstract class ClassicMembership<S extends string> extends MembershipBase<S | ClassicState> {
  protected member = '';
  protected generationId = -1;
  private protocolName: string | null = null;
  private rejoinReason: string | null = 'first join';
  private running = false;
  private loop: Promise<void> | null = null;
  private beat: Promise<void> | null = null;
  private beatTimer: NodeJS.Timeout | null = null;
  private fenced: FencedInstanceIdError | null = null;
  /** Until when (epoch ms) heartbeats go out every QUICK_BEAT_MS (see watchForFollowUp). */
  private quickBeatsUntil = 0;
  /** Bumped whenever the generation is lost or the member fails: a round that sees it change stops. */
  protected token = 0;
  private first: FirstAssignment;

  constructor(
    name: string, initial: ClassicState, transitions: Readonly<Record<S | ClassicState, readonly (S | ClassicState)[]>>,
    host: PartitionHost, protected readonly options: ClassicOptions,
  ) {
    super(name, initial, transitions, host, options.onTransition);
    this.first = firstAssignment();
  }

  get generation(): number {
    return this.generationId;
  }

  get memberId(): string {
    return this.member;
  }

  /** Before a JoinGroup (eager: revoke everything). */
  protected abstract prepareJoin(reason: string): Promise<void>;
  /** After a SyncGroup gave `assigned` (eager: take it all; cooperative: revoke what left, take what came). */
  protected abstract completeJoin(assigned: TopicPartition[]): Promise<void>;

  protected isTerminal(): boolean {
    return this.machine.is('left', 'failed');
  }

  async start(): Promise<void> {
    this.running = true;
    this.loop = this.run();
    this.scheduleBeat();
    return this.first.promise;
  }

  /** Asks for a rejoin (the loop joins as soon as the round under way, if any, ends). */
  protected requestRejoin(reason: string): void {
    this.rejoinReason ??= reason;
    this.wake();
  }

  /** The first assignment was taken on (or the member stops first): start() resolves. */
  protected firstAssignmentDone(): void {
    this.first.resolve();
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (this.rejoinReason !== null || this.machine.is('unjoined', 'lost')) {
        await this.joinRound(this.rejoinReason ?? 'rejoin');
      } else {
        await this.nap(3600000);
      }
    }
  }

  private async joinRound(reason: string): Promise<void> {
    const token = this.token;
    this.beginRound();
    try {
      await this.prepareJoin(reason);
      if (!this.running || token !== this.token) return;
      this.machine.to('joining', reason);
      this.rejoinReason = null;
      const assigned = await this.joinAndSync(reason);
      if (!this.running || token !== this.token) return;
      this.resetBackoff();
      await this.completeJoin(assigned);
    } catch (e) {
      if (!this.running || token !== this.token) return;
      if (e instanceof Rejoin) {
        this.rejoinReason ??= e.message;
        if (this.machine.can('joining')) this.machine.to('joining', e.message);
        await this.nap(this.nextBackoff());
        return;
      }
      this.failWith(e as Error);
    }
  }

  /** JoinGroup (then SyncGroup) until an assignment arrives. Throws Rejoin to go round again, or a fatal error. */
  private async joinAndSync(reason: string): Promise<TopicPartition[]> {
    const o = this.options;
    const topics = await o.topics();
    const owned = this.host.owned();
    const protocols = o.assignors.map((a) => ({ name: a.name, metadata: a.metadata({ topics, owned, generation: this.generationId }) }));
    const join = () => this.coordinatorCall('JoinGroup', async (coordinator) => {
      const minVersion = o.groupInstanceId !== null ? 5 : 0;
      return o.transport.request(coordinator, JoinGroup, {
        groupId: o.groupId, sessionTimeoutMs: o.sessionTimeoutMs, rebalanceTimeoutMs: o.rebalanceTimeoutMs, memberId: this.member,
        groupInstanceId: o.groupInstanceId, protocolType: 'consumer', protocols, reason,
      }, { minVersion, timeoutMs: o.rebalanceTimeoutMs + 5000 });
    });
    let r = (await join()).response;
    if (r.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
      // KIP-394: join again at once with the member id the coordinator gave.
      this.member = r.memberId;
      r = (await join()).response;
    }
    if (r.errorCode !== ErrorCode.NONE) this.joinError('JoinGroup', r.errorCode);
    this.member = r.memberId;
    this.generationId = r.generationId;
    this.protocolName = r.protocolName;
    const assignor = o.assignors.find((a) => a.name === r.protocolName);
    if (!assignor) {
      throw KafkaProtocolError.answered('JoinGroup', ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `the group chose ${r.protocolName}`);
    }
    this.machine.to('syncing', `generation ${r.generationId}, ${r.leader === r.memberId ? 'leader' : 'follower'}, ${r.protocolName}`);
    let assignments: { memberId: string; assignment: Buffer }[] = [];
    if (r.leader === r.memberId && !r.skipAssignment) {
      const members: JoinedMember[] = r.members.map((m) => ({
        memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata,
      }));
      const result = await assignor.assign(members, { partitionCounts: (ts) => this.partitionCounts(ts) });
      assignments = [...result].map(([memberId, assignment]) => ({ memberId, assignment }));
    }
    const synced = await this.coordinatorCall('SyncGroup', (coordinator) => o.transport.request(coordinator, SyncGroup, {
      groupId: o.groupId, generationId: this.generationId, memberId: this.member, groupInstanceId: o.groupInstanceId,
      protocolType: 'consumer', protocolName: this.protocolName, assignments,
    }, { minVersion: o.groupInstanceId !== null ? 3 : 0, timeoutMs: o.rebalanceTimeoutMs + 5000 }));
    const s = synced.response;
    if (s.errorCode !== ErrorCode.NONE) this.joinError('SyncGroup', s.errorCode);
    const partitions = s.assignment.length === 0 ? [] : decodeAssignment(s.assignment).assignedPartitions;
    assignor.assigned(partitions, this.generationId);
    return partitions.map((tp) => ({ topic: tp.topic, partition: tp.partition }));
  }

  private async partitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    await this.options.transport.watchTopics(topics);
    return new Map(topics.map((t) => [t, this.options.transport.partitionsOf(t).length]));
  }

  /**
   * One coordinator request. UNSUPPORTED_VERSION (the broker is too old for what this member needs, e.g. JoinGroup v5
   * for a static member) is fatal; any other failure (a dropped connection, a timeout, a moved coordinator) forgets the
   * coordinator and is a Rejoin.
   */
  private async coordinatorCall<T>(api: string, send: (coordinator: BrokerRef) => Promise<T>): Promise<T> {
    this.assertNotFenced();
    try {
      return await send(await this.options.transport.coordinator(this.options.groupId));
    } catch (e) {
      if (kafkaErrorOf(e)?.name === 'UNSUPPORTED_VERSION' || e instanceof FencedInstanceIdError) throw e;
      this.options.transport.forgetCoordinator(this.options.groupId);
      throw new Rejoin(`${api}: ${(e as Error).message}`);
    }
  }

  /** A JoinGroup/SyncGroup error code: Rejoin (after resetting what the code says is gone) or a fatal error. */
  private joinError(api: string, code: number): never {
    const error = KafkaProtocolError.answered(api, code);
    if (code === ErrorCode.FENCED_INSTANCE_ID) throw this.markFenced(error);
    if (code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.ILLEGAL_GENERATION) {
      this.loseGeneration(error, code === ErrorCode.UNKNOWN_MEMBER_ID);
      throw new Rejoin(error.message);
    }
    if (FATAL_JOIN_ERRORS.has(code)) throw error;
    if (code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.COORDINATOR_NOT_AVAILABLE) {
      this.options.transport.forgetCoordinator(this.options.groupId);
    }
    throw new Rejoin(error.message);
  }

  // ------------------------------------------------------------------ heartbeats

  /** Whether heartbeats go out in the current state (the member has a generation and no JoinGroup/SyncGroup is in flight). */
  protected abstract beats(): boolean;

  private scheduleBeat(delayMs = this.options.heartbeatIntervalMs): void {
    if (!this.running) return;
    const quick = Date.now() < this.quickBeatsUntil ? Math.min(delayMs, QUICK_BEAT_MS) : delayMs;
    this.beatTimer = setTimeout(() => {
      this.beatTimer = null;
      this.beat = this.heartbeat().finally(() => { this.beat = null; });
    }, quick);
  }

  /**
   * For one heartbeat interval from now, heartbeats go out every QUICK_BEAT_MS: a follow-up rebalance (KIP-429: a
   * member that revoked partitions rejoins at once, so that they can be given out) is seen at once rather than at the
   * next heartbeat, and the partitions withheld for the round reach their new owner sooner.
   */
  protected watchForFollowUp(): void {
    this.quickBeatsUntil = Date.now() + this.options.heartbeatIntervalMs;
    if (this.beatTimer && this.beat === null) {
      clearTimeout(this.beatTimer);
      this.scheduleBeat(QUICK_BEAT_MS);
    }
  }

  private async heartbeat(): Promise<void> {
    let next = this.options.heartbeatIntervalMs;
    try {
      if (!this.beats() || this.generationId < 0 || this.fenced) return;
      const o = this.options;
      const generation = this.generationId;
      const coordinator = await o.transport.coordinator(o.groupId);
      const { response } = await o.transport.request(coordinator, Heartbeat, {
        groupId: o.groupId, generationId: generation, memberId: this.member, groupInstanceId: o.groupInstanceId,
      }, { minVersion: o.groupInstanceId !== null ? 3 : 0 });
      if (response.errorCode === ErrorCode.NONE || !this.running || generation !== this.generationId) return;
      const error = KafkaProtocolError.answered('Heartbeat', response.errorCode);
      const code = response.errorCode;
      if (code === ErrorCode.REBALANCE_IN_PROGRESS) this.rebalanceInProgress();
      else if (code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.ILLEGAL_GENERATION) this.generationLost(error);
      else if (code === ErrorCode.FENCED_INSTANCE_ID) this.failWith(this.markFenced(error));
      else {
        if (needsMetadataRefresh(error)) o.transport.forgetCoordinator(o.groupId);
        next = Math.min(next, this.nextBackoff());
        this.host.log(`heartbeat: ${error.message}; trying again`);
      }
    } catch (e) {
      if (e instanceof FencedInstanceIdError) return;
      this.options.transport.forgetCoordinator(this.options.groupId);
      next = Math.min(next, this.nextBackoff());
      this.host.log(`heartbeat failed: ${(e as Error).message}; trying again`);
    } finally {
      this.scheduleBeat(next);
    }
  }

  /** A heartbeat answered REBALANCE_IN_PROGRESS: the member must rejoin (eager: its handlers should finish early). */
  protected rebalanceInProgress(): void {
    this.requestRejoin('the coordinator is rebalancing the group (heartbeat: REBALANCE_IN_PROGRESS)');
  }

  // ------------------------------------------------------------------ losing, failing, leaving

  /** Forgets the generation (and the member id) and reports what was owned as lost. */
  private loseGeneration(error: Error, resetMemberId: boolean): void {
    this.token += 1;
    const owned = this.host.owned();
    this.generationId = -1;
    if (resetMemberId) this.member = '';
    for (const a of this.options.assignors) a.reset();
    this.roundRevoked(owned);
    if (owned.length > 0) this.host.lose(owned, error);
    if (this.machine.can('lost')) this.machine.to('lost', error.message);
  }

  generationLost(error: Error): void {
    if (this.isTerminal()) return;
    if (kafkaErrorOf(error)?.fenced) {
      this.failWith(this.markFenced(error));
      return;
    }
    if (!this.running || this.machine.is('leaving')) return;
    this.loseGeneration(error, kafkaErrorOf(error)?.name === 'UNKNOWN_MEMBER_ID');
    this.requestRejoin(`generation lost: ${error.message}`);
  }

  private markFenced(error: Error): FencedInstanceIdError {
    this.fenced ??= new FencedInstanceIdError(this.options.groupId, this.options.groupInstanceId, { cause: error });
    return this.fenced;
  }

  private assertNotFenced(): void {
    if (this.fenced) throw this.fenced;
  }

  /** The membership cannot go on: partitions are lost, the consumer fails. */
  protected failWith(error: Error): void {
    if (this.isTerminal()) return;
    this.token += 1;
    this.running = false;
    this.stopBeats();
    const owned = this.host.owned();
    if (owned.length > 0) this.host.lose(owned, error);
    this.machine.to('failed', error.message);
    this.first.reject(error);
    this.wake();
    this.host.fail(error);
  }

  private stopBeats(): void {
    if (this.beatTimer) clearTimeout(this.beatTimer);
    this.beatTimer = null;
  }

  commitIdentity(): CommitIdentity | null {
    if (this.generationId < 0 || !this.isSettled() || this.fenced) return null;
    return { generationId: this.generationId, memberId: this.member, groupInstanceId: this.options.groupInstanceId, minCommitVersion: 0 };
  }

  /** Whether a commit from this member is refused because it was fenced (FENCED_INSTANCE_ID): the consumer failed. */
  isFenced(): boolean {
    return this.fenced !== null;
  }

  async stop(leave: boolean): Promise<void> {
    if (this.isTerminal() || this.machine.is('leaving')) return this.finish(leave);
    this.running = false;
    this.token += 1;
    this.stopBeats();
    this.wake();
    await this.loop?.catch(() => undefined);
    this.first.resolve();
    if (this.isTerminal()) return;
    this.machine.to('leaving', 'stop');
    const owned = this.host.owned();
    if (owned.length > 0 && !this.fenced) {
      this.roundRevoked(owned);
      await this.host.revoke(owned, 'stop');
    }
    await this.finish(leave);
  }

  async abandon(leave: boolean): Promise<void> {
    this.running = false;
    this.token += 1;
    this.stopBeats();
    this.wake();
    this.first.resolve();
    await this.finish(leave);
  }

  /** LeaveGroup (when asked, not fenced, and the member joined), then `left`. */
  private async finish(leave: boolean): Promise<void> {
    await this.beat?.catch(() => undefined);
    if (this.machine.is('left')) return;
    if (leave && !this.fenced && this.member !== '') {
      const o = this.options;
      try {
        const coordinator = await o.transport.coordinator(o.groupId);
        await o.transport.request(coordinator, LeaveGroup, {
          groupId: o.groupId, memberId: this.member,
          members: [{ memberId: this.member, groupInstanceId: o.groupInstanceId, reason: 'the consumer is stopping' }],
        }, { minVersion: o.groupInstanceId !== null ? 3 : 0, timeoutMs: 5000 });
      } catch (e) {
        this.host.log(`LeaveGroup failed: ${(e as Error).message}`);
      }
    }
    if (this.machine.can('left')) this.machine.to('left', leave ? 'left the group' : 'stopped without leaving (static member)');
  }
}
