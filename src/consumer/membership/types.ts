/**
 * The one interface behind which the consumer's group membership protocols live, and what they ask of the
 * consumer in return:
 * - `eager` (eager.ts): the classic JoinGroup/SyncGroup protocol as Java's ConsumerCoordinator runs it with eager
 *   assignors: every partition is revoked before every JoinGroup.
 * - `cooperative` (cooperative.ts): the same requests with KIP-429's incremental protocol: a member keeps its
 *   partitions through the rebalance, revokes only those the new assignment takes away, and a partition reaches its
 *   new owner only in a follow-up rebalance, after its old owner revoked it.
 * - `consumer` (consumer.ts): KIP-848's ConsumerGroupHeartbeat: the broker assigns; the member revokes what its
 *   target assignment no longer holds, acknowledges on its next heartbeat, then gets the rest.
 * - `manual` (manual.ts): Kafka's `assign()`: no group at all.
 * Each has one state value with its own transition table (util/state-machine.ts); `history` keeps the last
 * transitions with their reasons.
 */
import type { TopicPartition } from '../../records';

/** Which membership protocol a consumer runs (see the module comment). */
export type MembershipProtocolName = 'eager' | 'cooperative' | 'consumer' | 'manual';

/** One logged transition of a membership state machine. `epoch` counts transitions (1 = the first). */
export interface MembershipTransition {
  from: string;
  to: string;
  reason: string;
  epoch: number;
  /** Epoch ms. */
  at: number;
}

/** What an OffsetCommit carries to be accepted by the coordinator (classic generation, or KIP-848 member epoch). */
export interface CommitIdentity {
  /** Classic: the generation id; KIP-848: the member epoch (OffsetCommit v9's GenerationIdOrMemberEpoch); -1: none. */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** The lowest OffsetCommit version the coordinator accepts from this member (9 for KIP-848 members). */
  minCommitVersion: number;
}

/**
 * What a membership protocol asks of the consumer (consumer/partitions/owned.ts implements it). Partitions are
 * owned from `assign` to `revoke` or `lose`.
 */
export interface PartitionHost {
  /** The partitions owned now. */
  owned(): TopicPartition[];
  /**
   * Gives `partitions` up cleanly: stops fetching them, aborts their handlers' signals, waits for their batches,
   * lets the strategy commit (onRevoked), runs onPartitionsRevoked and emits `revoked`. Never throws.
   */
  revoke(partitions: TopicPartition[], reason: string): Promise<void>;
  /**
   * Takes `partitions` on: reads their positions (the strategy or the committed offsets), runs
   * onPartitionsAssigned, emits `assigned`, then they are fetched. Throws what fails (the consumer then fails).
   */
  assign(partitions: TopicPartition[], reason: string): Promise<void>;
  /** `partitions` are gone without a commit (generation lost, fenced): onPartitionsLost, `lost`. */
  lose(partitions: TopicPartition[], error: Error): void;
  /** A rebalance will revoke `partitions`: their handlers' signals abort, so the batches in hand finish early. */
  abortHandlers(partitions: TopicPartition[]): void;
  /** The membership cannot go on (fenced, refused by the broker): the consumer fails with `error`. */
  fail(error: Error): void;
  /** A round of the membership protocol finished (for the `rebalance` event and metrics). */
  roundDone(round: { startedAt: number; revoked: TopicPartition[]; assigned: TopicPartition[] }): void;
  /** Debug lines (the consumer's logger). */
  log(message: string, extra?: Record<string, unknown>): void;
}

/** A membership protocol (see the module comment). */
export interface Membership {
  readonly protocol: MembershipProtocolName;
  /** The state machine's current state. */
  readonly state: string;
  /** The last transitions (at most 50), oldest first. */
  readonly history: readonly MembershipTransition[];
  /** Classic: the generation id; KIP-848: the member epoch; -1 while there is none. */
  readonly generation: number;
  /** The member id the coordinator knows this member by ('' before the first join). */
  readonly memberId: string;
  /** Joins the group. Resolves once the first assignment is taken on; rejects when the membership fails first. */
  start(): Promise<void>;
  /**
   * Revokes every partition (the strategy commits) and leaves the group, unless `leave` is false (a static
   * member's restart-style stop: Java's close() of a static member). Idempotent; never rejects.
   */
  stop(leave: boolean): Promise<void>;
  /** Stops at once without revoking (the consumer failed): leaves the group if `leave`, sends nothing more otherwise. */
  abandon(leave: boolean): Promise<void>;
  /** The identity an OffsetCommit needs now, or null when this member may not commit (no generation). */
  commitIdentity(): CommitIdentity | null;
  /**
   * Resolves once the member is past the rebalance under way (a commit refused with REBALANCE_IN_PROGRESS or
   * STALE_MEMBER_EPOCH is tried again then, with the new generation or epoch). Immediate when nothing is under way.
   */
  settled(): Promise<void>;
  /** A commit saw the generation gone (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, FENCED_MEMBER_EPOCH): lose and rejoin. */
  generationLost(error: Error): void;
}
