/**
 * Java-compatible partition assignors for KafkaJS 2.2.4.
 *
 * Each assignor is a pure function (`assignRange`, `assignRoundRobin`, `assignSticky`) plus a thin
 * KafkaJS `PartitionAssigner` factory registered under Java's protocol name (`range`,
 * `roundrobin`, `sticky`) and speaking Java's ConsumerProtocol, so KafkaJS members can share a
 * group with Java, librdkafka and kafka-python consumers: whichever member the coordinator picks as
 * leader, every member decodes the others' subscriptions and the leader's assignment.
 *
 * ```ts
 * const state = createStickyAssignorState();
 * const consumer = kafka.consumer({ groupId, partitionAssigners: [createStickyAssignor({ state }), range] });
 * consumer.on(consumer.events.GROUP_JOIN, (e) => state.update(e.payload.memberAssignment));
 * consumer.on(consumer.events.STOP, () => state.reset());
 * ```
 *
 * As leader, like Java's `ConsumerCoordinator`: the assignor decodes every member's subscription,
 * asks the cluster for metadata of topics only other members subscribe to, assigns, and returns an
 * assignment for every member (an empty one included: Java consumers reject a missing assignment).
 */
import type { Assigner, GroupMember, GroupMemberAssignment, PartitionAssigner } from 'kafkajs';
import {
  CONSUMER_PROTOCOL_MAX_VERSION,
  ConsumerProtocolDecodeError,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  type ConsumerProtocolSubscription,
  type GroupAssignment,
  type GroupSubscriptions,
  type MemberSubscription,
  type PartitionsPerTopic,
} from '../../protocol/consumer-protocol';
import { assignRange, RANGE_ASSIGNOR_NAME } from './range';
import { assignRoundRobin, ROUND_ROBIN_ASSIGNOR_NAME } from './round-robin';
import { assignSticky, STICKY_ASSIGNOR_NAME, stickyUserData, type StickyAssignorState } from './sticky';

export {
  CONSUMER_PROTOCOL_MAX_VERSION,
  ConsumerProtocolDecodeError,
  ConsumerProtocolEncodeError,
  decodeAssignment,
  decodeStickyUserData,
  decodeSubscription,
  encodeAssignment,
  encodeStickyUserData,
  encodeSubscription,
} from '../../protocol/consumer-protocol';
export type {
  AssignmentInput,
  ConsumerProtocolAssignment,
  ConsumerProtocolSubscription,
  GroupAssignment,
  GroupSubscriptions,
  MemberSubscription,
  PartitionsPerTopic,
  StickyUserData,
  SubscriptionInput,
  TopicPartition,
} from '../../protocol/consumer-protocol';
export { assignRange, RANGE_ASSIGNOR_NAME } from './range';
export { assignRoundRobin, ROUND_ROBIN_ASSIGNOR_NAME } from './round-robin';
export {
  assignSticky,
  createStickyAssignorState,
  DEFAULT_GENERATION,
  STICKY_ASSIGNOR_NAME,
  stickyUserData,
} from './sticky';
export type { MutableStickyAssignorState, StickyAssignorState } from './sticky';

/** Options shared by the three factories. */
export interface AssignorOptions {
  /** ConsumerProtocol version of the Subscription this member sends, 0..3 (higher is written as 3). Default 3. */
  subscriptionVersion?: number;
  /** Version written on Assignments when this member leads. Default 3, as Java's leader. */
  assignmentVersion?: number;
  /** `client.rack`, sent in Subscription v3+. Assignment itself is not rack-aware. */
  rackId?: string | null;
  /**
   * The member's current assignment and generation, reported as OwnedPartitions (v1+) and
   * GenerationId (v2+); the sticky assignor also writes them as its userData. See
   * `createStickyAssignorState` for how the group consumer feeds it.
   */
  state?: StickyAssignorState;
  /**
   * As leader, fetch metadata for topics that other members subscribe to but this one does not
   * (adds them to KafkaJS's target topics, as Java's leader does). Default true. When false, or if
   * the fetch fails, such topics are left unassigned.
   */
  fetchMetadataForAllSubscriptions?: boolean;
}

type Core = (subscriptions: GroupSubscriptions, partitionsPerTopic: PartitionsPerTopic) => GroupAssignment;

interface AdapterSpec {
  name: string;
  core: Core;
  userData: (state: StickyAssignorState | undefined) => Buffer | null;
  member: (sub: ConsumerProtocolSubscription, groupInstanceId: string | null) => MemberSubscription;
}

function decodeMember(member: GroupMember): ConsumerProtocolSubscription {
  try {
    return decodeSubscription(member.memberMetadata);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ConsumerProtocolDecodeError(`Subscription of member ${member.memberId}: ${message}`, { cause: err });
  }
}

function createAdapter(spec: AdapterSpec, options: AssignorOptions): PartitionAssigner {
  const subscriptionVersion = options.subscriptionVersion ?? CONSUMER_PROTOCOL_MAX_VERSION;
  const assignmentVersion = options.assignmentVersion ?? CONSUMER_PROTOCOL_MAX_VERSION;
  const fetchAll = options.fetchMetadataForAllSubscriptions ?? true;
  return ({ cluster, logger }): Assigner => ({
    name: spec.name,
    version: subscriptionVersion,

    protocol({ topics }) {
      const { state } = options;
      return {
        name: spec.name,
        metadata: encodeSubscription(
          {
            topics,
            userData: spec.userData(state),
            ownedPartitions: state?.current() ?? [],
            generationId: state?.generation() ?? -1,
            rackId: options.rackId ?? null,
          },
          subscriptionVersion,
        ),
      };
    },

    async assign({ members, topics }): Promise<GroupMemberAssignment[]> {
      const subscriptions = new Map<string, MemberSubscription>();
      const allTopics = new Set<string>(topics);
      for (const m of members) {
        const sub = decodeMember(m);
        const instanceId = (m as GroupMember & { groupInstanceId?: string | null }).groupInstanceId ?? null;
        subscriptions.set(m.memberId, spec.member(sub, instanceId));
        for (const t of sub.topics) allTopics.add(t);
      }
      const known = new Set(topics);
      const missing = [...allTopics].filter((t) => !known.has(t));
      if (missing.length > 0 && fetchAll) {
        try {
          await cluster.addMultipleTargetTopics(missing);
        } catch (err) {
          logger.warn('Could not fetch metadata for topics other members subscribe to; leaving them unassigned', {
            topics: missing,
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }
      const partitionsPerTopic = new Map<string, number>();
      for (const topic of allTopics) {
        if (!fetchAll && !known.has(topic)) continue;
        const count = cluster.findTopicPartitionMetadata(topic).length;
        if (count > 0) partitionsPerTopic.set(topic, count);
      }
      const assignment = spec.core(subscriptions, partitionsPerTopic);
      return [...assignment].map(([memberId, assignedPartitions]) => ({
        memberId,
        memberAssignment: encodeAssignment({ assignedPartitions }, assignmentVersion),
      }));
    },
  });
}

const plainMember = (sub: ConsumerProtocolSubscription, groupInstanceId: string | null): MemberSubscription => ({
  topics: sub.topics,
  groupInstanceId,
});

/** `range` (Java `RangeAssignor`) as a KafkaJS `PartitionAssigner`. */
export function createRangeAssignor(options: AssignorOptions = {}): PartitionAssigner {
  return createAdapter({ name: RANGE_ASSIGNOR_NAME, core: assignRange, userData: () => null, member: plainMember }, options);
}

/** `roundrobin` (Java `RoundRobinAssignor`) as a KafkaJS `PartitionAssigner`. */
export function createRoundRobinAssignor(options: AssignorOptions = {}): PartitionAssigner {
  return createAdapter({ name: ROUND_ROBIN_ASSIGNOR_NAME, core: assignRoundRobin, userData: () => null, member: plainMember }, options);
}

/**
 * `sticky` (Java `StickyAssignor`, eager) as a KafkaJS `PartitionAssigner`. Without `options.state`
 * the member never reports a previous assignment: the group stays balanced but this member's
 * partitions are not kept across rebalances.
 */
export function createStickyAssignor(options: AssignorOptions = {}): PartitionAssigner {
  return createAdapter(
    {
      name: STICKY_ASSIGNOR_NAME,
      core: assignSticky,
      userData: stickyUserData,
      // Previous assignment and generation come from the sticky userData (Java's StickyAssignor.memberData);
      // the subscription's GenerationId is only a fallback for V0 userData.
      member: (sub) => ({
        topics: sub.topics,
        userData: sub.userData,
        generation: sub.generationId >= 0 ? sub.generationId : undefined,
      }),
    },
    options,
  );
}

/** Ready-made factories with default options. */
export const range: PartitionAssigner = createRangeAssignor();
export const roundRobin: PartitionAssigner = createRoundRobinAssignor();
export const sticky: PartitionAssigner = createStickyAssignor();
