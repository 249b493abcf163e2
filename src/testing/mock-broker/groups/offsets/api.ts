/**
 * OffsetCommit, OffsetFetch and OffsetDelete for classic groups, after Kafka's `OffsetMetadataManager`
 * and `ClassicGroup.validateOffsetCommit` / `validateOffsetDelete`, plus the per-partition checks that
 * `KafkaApis` makes before calling the coordinator (unknown partitions).
 *
 * Notes on Kafka behaviour kept here:
 * - generationId < 0 with no member id is a "simple" commit (admin client, `assign()` consumers): accepted
 *   only when the group is Empty, creating it if missing. Otherwise the member and generation are checked.
 * - Commits are accepted in PreparingRebalance (the generation has not moved yet: consumers commit in
 *   onPartitionsRevoked) but rejected with REBALANCE_IN_PROGRESS in CompletingRebalance.
 * - A commit from a member in Stable or PreparingRebalance also counts as a heartbeat.
 */
import { ErrorCode } from '../../../../protocol/error-codes';
import type { ClassicGroup, ClassicGroupMember } from '../classic/group';
import type { OffsetStore } from './store';
import type {
  GroupCoordinatorConfig, OffsetCommitRequest, OffsetCommitResponse, OffsetDeleteRequest, OffsetDeleteResponse,
  OffsetFetchRequest, OffsetFetchResponse, OffsetFetchResponsePartition, RequestContext,
} from '../types';

export const OFFSET_METADATA_TOO_LARGE = ErrorCode.OFFSET_METADATA_TOO_LARGE;

/** A TxnOffsetCommit after the transaction checks (KafkaApis and the transaction coordinator). */
export interface TxnOffsetCommitRequest {
  groupId: string;
  producerId: bigint;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  topics: {
    name: string;
    partitions: { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch?: number; committedMetadata: string | null }[];
  }[];
}

/** OffsetCommit v9+ answers GROUP_ID_NOT_FOUND for a missing group (KIP-848); older versions ILLEGAL_GENERATION. */
const GROUP_ID_NOT_FOUND_MIN_COMMIT_VERSION = 9;

export interface OffsetApiDeps {
  config: Readonly<Pick<GroupCoordinatorConfig, 'partitionExists' | 'now'> & { offsetMetadataMaxBytes: number }>;
  offsets: OffsetStore;
  /** The classic group `groupId`, if there is one (the registry's view). */
  classicGroup(groupId: string): ClassicGroup | undefined;
  getOrCreateGroup(groupId: string): ClassicGroup;
  touchMember(group: ClassicGroup, member: ClassicGroupMember): void;
  record(type: string, data: Record<string, unknown>): void;
  /** KIP-848 groups (../consumer/protocol.ts): their commits are checked by member epoch. */
  consumerGroups?: {
    has(groupId: string): boolean;
    validateOffsetCommit(groupId: string, memberId: string, memberEpoch: number, apiVersion: number, transactional?: boolean): number;
  };
}

export class OffsetApi {
  constructor(private readonly deps: OffsetApiDeps) {}

  failCommit(req: OffsetCommitRequest, errorCode: number): OffsetCommitResponse {
    return {
      topics: req.topics.map((t) => ({
        name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
      })),
    };
  }

  commit(req: OffsetCommitRequest, ctx: RequestContext): OffsetCommitResponse {
    if (!req.groupId) return this.failCommit(req, ErrorCode.INVALID_GROUP_ID);
    const exists = (topic: string, partition: number) => this.deps.config.partitionExists?.(topic, partition) ?? true;
    const anyKnown = req.topics.some((t) => t.partitions.some((p) => exists(t.name, p.partitionIndex)));

    let groupError: number = ErrorCode.NONE;
    let group: ClassicGroup | undefined;
    const consumerGroups = this.deps.consumerGroups;
    if (anyKnown && consumerGroups?.has(req.groupId)) {
      groupError = consumerGroups.validateOffsetCommit(req.groupId, req.memberId, req.generationId, ctx.apiVersion);
    } else if (anyKnown) {
      // KafkaApis does not call the coordinator when no partition is left: no simple group is created then.
      group = this.deps.classicGroup(req.groupId);
      if (!group) {
        if (req.generationId < 0) group = this.deps.getOrCreateGroup(req.groupId);
        else groupError = ctx.apiVersion >= GROUP_ID_NOT_FOUND_MIN_COMMIT_VERSION
          ? ErrorCode.GROUP_ID_NOT_FOUND
          : ErrorCode.ILLEGAL_GENERATION;
      }
      if (group) groupError = this.validateCommit(group, req);
      if (group && groupError === ErrorCode.NONE && (group.is('Stable') || group.is('PreparingRebalance'))) {
        const member = group.member(req.memberId);
        if (member) this.deps.touchMember(group, member);
      }
    }

    const now = this.deps.config.now!();
    const committed: { topic: string; partition: number; offset: bigint }[] = [];
    const response: OffsetCommitResponse = {
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          let errorCode: number;
          if (!exists(t.name, p.partitionIndex)) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          else if (groupError !== ErrorCode.NONE) errorCode = groupError;
          else if (p.committedMetadata !== null
            && Buffer.byteLength(p.committedMetadata, 'utf8') > this.deps.config.offsetMetadataMaxBytes) {
            errorCode = OFFSET_METADATA_TOO_LARGE;
          } else {
            this.deps.offsets.commit(req.groupId, t.name, p.partitionIndex, {
              committedOffset: p.committedOffset,
              committedLeaderEpoch: p.committedLeaderEpoch ?? -1,
              metadata: p.committedMetadata ?? '',
              commitTimestampMs: now,
            });
            committed.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset });
            errorCode = ErrorCode.NONE;
          }
          return { partitionIndex: p.partitionIndex, errorCode };
        }),
      })),
    };
    if (committed.length > 0) {
      this.deps.record('offsets.committed', {
        groupId: req.groupId, memberId: req.memberId, generationId: req.generationId, partitions: committed,
      });
    }
    return response;
  }

  /** Kafka's `ClassicGroup.validateOffsetCommit` (non-transactional). */
  private validateCommit(group: ClassicGroup, req: OffsetCommitRequest): number {
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (req.generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
    if (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId != null) {
      const error = group.validateMember(req.memberId, req.groupInstanceId);
      if (error !== ErrorCode.NONE) return error;
      if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    } else if (!group.is('Empty')) {
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    if (group.is('CompletingRebalance')) return ErrorCode.REBALANCE_IN_PROGRESS;
    return ErrorCode.NONE;
  }

  fetch(req: OffsetFetchRequest): OffsetFetchResponse {
    if (!req.groupId) return { errorCode: ErrorCode.INVALID_GROUP_ID, topics: [] };
    const group = this.deps.classicGroup(req.groupId);
    const known = (group !== undefined && !group.is('Dead')) || this.deps.consumerGroups?.has(req.groupId) === true;
    const none = (partitionIndex: number): OffsetFetchResponsePartition => ({
      partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE,
    });
    if (req.topics === null) {
      if (!known) return { errorCode: ErrorCode.NONE, topics: [] };
      return {
        errorCode: ErrorCode.NONE,
        topics: this.deps.offsets.all(req.groupId).map(([name, parts]) => ({
          name,
          partitions: parts.map(([partitionIndex, o]): OffsetFetchResponsePartition => {
            const unstable = req.requireStable && this.deps.offsets.hasPending(req.groupId, name, partitionIndex);
            if (unstable) return { ...none(partitionIndex), errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT }; // KIP-447
            return {
              partitionIndex, committedOffset: o.committedOffset, committedLeaderEpoch: o.committedLeaderEpoch,
              metadata: o.metadata, errorCode: ErrorCode.NONE,
            };
          }),
        })),
      };
    }
    return {
      errorCode: ErrorCode.NONE,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => {
          if (req.requireStable && this.deps.offsets.hasPending(req.groupId, t.name, partitionIndex)) {
            return { ...none(partitionIndex), errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT }; // KIP-447
          }
          const o = known ? this.deps.offsets.get(req.groupId, t.name, partitionIndex) : undefined;
          if (!o) return none(partitionIndex);
          return {
            partitionIndex, committedOffset: o.committedOffset, committedLeaderEpoch: o.committedLeaderEpoch,
            metadata: o.metadata, errorCode: ErrorCode.NONE,
          };
        }),
      })),
    };
  }

  /**
   * TxnOffsetCommit (KIP-98, KIP-447): the offsets are staged for the producer and become visible
   * only when its transaction commits ({@link completeTxn}). Kafka's `validateTransactionalOffsetCommit`:
   * a missing group is created only for generation -1 (else ILLEGAL_GENERATION); member and generation
   * are checked only when given (v3+); the group state is not enforced.
   */
  txnCommit(req: TxnOffsetCommitRequest): OffsetCommitResponse {
    if (!req.groupId) return this.failCommit(req, ErrorCode.INVALID_GROUP_ID);
    let group = this.deps.classicGroup(req.groupId);
    let groupError: number = ErrorCode.NONE;
    if (this.deps.consumerGroups?.has(req.groupId)) {
      groupError = this.deps.consumerGroups.validateOffsetCommit(req.groupId, req.memberId, req.generationId, 9, true);
    } else if (!group) {
      if (req.generationId < 0) group = this.deps.getOrCreateGroup(req.groupId);
      else groupError = ErrorCode.ILLEGAL_GENERATION;
    }
    if (group) {
      if (group.is('Dead')) groupError = ErrorCode.COORDINATOR_NOT_AVAILABLE;
      else if (!(req.generationId < 0 && group.is('Empty'))
        && (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId != null)) {
        groupError = group.validateMember(req.memberId, req.groupInstanceId);
        if (groupError === ErrorCode.NONE && req.generationId !== group.generationId) groupError = ErrorCode.ILLEGAL_GENERATION;
      }
    }
    const now = this.deps.config.now!();
    const staged: { topic: string; partition: number; offset: bigint }[] = [];
    const response: OffsetCommitResponse = {
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          if (groupError !== ErrorCode.NONE) return { partitionIndex: p.partitionIndex, errorCode: groupError };
          if (p.committedMetadata !== null && Buffer.byteLength(p.committedMetadata, 'utf8') > this.deps.config.offsetMetadataMaxBytes) {
            return { partitionIndex: p.partitionIndex, errorCode: OFFSET_METADATA_TOO_LARGE };
          }
          this.deps.offsets.stagePending(req.groupId, req.producerId, t.name, p.partitionIndex, {
            committedOffset: p.committedOffset, committedLeaderEpoch: p.committedLeaderEpoch ?? -1,
            metadata: p.committedMetadata ?? '', commitTimestampMs: now,
          });
          staged.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset });
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
        }),
      })),
    };
    if (staged.length > 0) {
      this.deps.record('offsets.txn-staged', { groupId: req.groupId, producerId: String(req.producerId), partitions: staged });
    }
    return response;
  }

  /** The transaction marker reached the group: staged offsets of `producerId` are committed or dropped. */
  completeTxn(groupId: string, producerId: bigint, commit: boolean): void {
    const done = this.deps.offsets.completePending(groupId, producerId, commit);
    if (done.length === 0) return;
    const partitions = done.map((d) => ({ topic: d.topic, partition: d.partition, offset: d.value.committedOffset }));
    if (commit) this.deps.record('offsets.committed', { groupId, producerId: String(producerId), transactional: true, partitions });
    else this.deps.record('offsets.txn-aborted', { groupId, producerId: String(producerId), partitions });
  }

  /** OffsetDelete (KIP-496): allowed for Empty groups, and for consumer groups on topics they do not subscribe to. */
  delete(req: OffsetDeleteRequest): OffsetDeleteResponse {
    if (!req.groupId) return { errorCode: ErrorCode.INVALID_GROUP_ID, topics: [] };
    const group = this.deps.classicGroup(req.groupId);
    if (!group || group.is('Dead')) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] };
    if (!group.is('Empty') && !group.usesConsumerProtocol()) return { errorCode: ErrorCode.NON_EMPTY_GROUP, topics: [] };
    const exists = (topic: string, partition: number) => this.deps.config.partitionExists?.(topic, partition) ?? true;
    const deleted: { topic: string; partition: number }[] = [];
    const topics = req.topics.map((t) => {
      const subscribed = group.isSubscribedToTopic(t.name);
      return {
        name: t.name,
        partitions: t.partitions.map(({ partitionIndex }) => {
          if (!exists(t.name, partitionIndex)) return { partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
          if (subscribed) return { partitionIndex, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
          if (this.deps.offsets.delete(req.groupId, t.name, partitionIndex)) deleted.push({ topic: t.name, partition: partitionIndex });
          return { partitionIndex, errorCode: ErrorCode.NONE };
        }),
      };
    });
    if (deleted.length > 0) this.deps.record('offsets.deleted', { groupId: req.groupId, partitions: deleted });
    return { errorCode: ErrorCode.NONE, topics };
  }
}
