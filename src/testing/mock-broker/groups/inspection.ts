/**
 * The shapes `inspect.group()` answers for both kinds of group (classic and KIP-848 consumer groups), apart from
 * inspect.ts so that consumer-group/inspection.ts can build them without importing inspect.ts back.
 */
import type { ConsumerGroupState } from './consumer/group';
import type { ConsumerGroupView } from './consumer/types';
import type { GroupState } from './types';

/** A member's assignment decoded with Java's ConsumerProtocol: topic → sorted partition indexes. */
export type DecodedAssignment = Record<string, number[]>;

export interface MemberInspection {
  memberId: string;
  clientId: string;
  clientHost: string;
  groupInstanceId: string | null;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** Protocol (assignor) names the member offered, in its order of preference. */
  protocols: string[];
  /**
   * The assignment of the current generation, decoded when the group's protocol type is
   * `consumer`; `{}` before the leader's SyncGroup (or for an idle member); null when the bytes
   * are not a consumer-protocol assignment.
   */
  assignment: DecodedAssignment | null;
  /** The assignment's user data (assignor-specific), or null. */
  userData: Buffer | null;
  /** The assignment bytes as the leader sent them. */
  rawAssignment: Buffer;
  awaitingJoin: boolean;
  awaitingSync: boolean;
}

export interface CommittedOffset {
  topic: string;
  partition: number;
  /** The next offset the group will consume. */
  offset: number;
  leaderEpoch: number;
  metadata: string;
  commitTimestampMs: number;
}

export interface GroupInspection {
  groupId: string;
  /** `classic` (JoinGroup/SyncGroup) or `consumer` (KIP-848 ConsumerGroupHeartbeat). */
  groupType: 'classic' | 'consumer';
  /** Classic states, or a consumer group's Empty, Assigning, Reconciling, Stable, Dead. */
  state: GroupState | ConsumerGroupState;
  /** The generation; for a consumer group, the group epoch. */
  generationId: number;
  protocolType: string | null;
  /** The selected protocol (assignor), null before the first generation. */
  protocolName: string | null;
  /** Leader member id, null when the group has no members. */
  leader: string | null;
  members: MemberInspection[];
  /** Member ids handed out with MEMBER_ID_REQUIRED that have not joined yet. */
  pendingMemberIds: string[];
  subscribedTopics: string[] | null;
  offsets: CommittedOffset[];
  /** KIP-848 groups only: epochs, assignor, and each member's epoch, reconciliation state and target. */
  consumer?: Pick<ConsumerGroupView, 'groupEpoch' | 'assignmentEpoch' | 'assignorName' | 'members'>;
}
