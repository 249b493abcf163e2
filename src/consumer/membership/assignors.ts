/**
 * The classic protocol's client-side assignors as the SDK's membership runs them: what a member puts in its
 * JoinGroup protocols (ConsumerProtocolSubscription v3: topics, userData, OwnedPartitions, GenerationId), and what
 * it assigns when the coordinator makes it the leader. Built in, under Java's names: `range`, `roundrobin`,
 * `sticky` (eager) and `cooperative-sticky` (cooperative or eager); any KafkaJS `PartitionAssigner` also works
 * (eager only: KafkaJS has no notion of the cooperative protocol).
 *
 * The rebalance protocol of a member is Java's rule (`ConsumerCoordinator`): cooperative when every assignor it
 * offers supports it, else eager. So `['cooperative-sticky', 'range']` joins as an eager member that prefers
 * cooperative-sticky (the first step of KIP-429's upgrade path), and `['cooperative-sticky']` as a cooperative one.
 */
import type { PartitionAssigner } from 'kafkajs';
import {
  decodeSubscription, encodeAssignment, encodeSubscription, type ConsumerProtocolSubscription, type GroupAssignment,
  type MemberSubscription, type TopicPartition,
} from '../../protocol/consumer-protocol';
import { ConsumerProtocolDecodeError } from '../../protocol/consumer-protocol';
import { assignRange, RANGE_ASSIGNOR_NAME } from '../assignors/range';
import { assignRoundRobin, ROUND_ROBIN_ASSIGNOR_NAME } from '../assignors/round-robin';
import { assignSticky, STICKY_ASSIGNOR_NAME, stickyUserData, createStickyAssignorState } from '../assignors/sticky';
import {
  assignCooperativeSticky, COOPERATIVE_STICKY_ASSIGNOR_NAME, cooperativeGeneration, cooperativeStickyUserData,
} from '../assignors/cooperative-sticky';

/** A member of a JoinGroup response, as the leader sees it. */
export interface JoinedMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Buffer;
}

/** What the leader's assignor needs from the cluster. */
export interface AssignContext {
  /** Partition count of each topic (0 for a topic that does not exist); fetches metadata for topics not watched yet. */
  partitionCounts(topics: readonly string[]): Promise<Map<string, number>>;
}

/** One assignor as the classic membership uses it. */
export interface ClassicAssignor {
  readonly name: string;
  /** Whether it supports the cooperative protocol (KIP-429). */
  readonly cooperative: boolean;
  /** This member's JoinGroup metadata (ConsumerProtocolSubscription). */
  metadata(input: { topics: readonly string[]; owned: readonly TopicPartition[]; generation: number }): Buffer;
  /** As leader: the assignment of every member (ConsumerProtocolAssignment bytes by member id). */
  assign(members: readonly JoinedMember[], context: AssignContext): Promise<Map<string, Buffer>>;
  /** The assignment this member received in `generation` (sticky keeps it for its next subscription). */
  assigned(partitions: readonly TopicPartition[], generation: number): void;
  /** The member left or lost its generation: forget what it owned. */
  reset(): void;
}

type Core = (subscriptions: Map<string, MemberSubscription>, partitionsPerTopic: Map<string, number>) => GroupAssignment;

function decodeMember(m: JoinedMember): ConsumerProtocolSubscription {
  try {
    return decodeSubscription(m.metadata);
  } catch (err) {
    throw new ConsumerProtocolDecodeError(`Subscription of member ${m.memberId}: ${(err as Error).message}`, { cause: err });
  }
}

function builtIn(
  name: string, cooperative: boolean, core: Core,
  member: (sub: ConsumerProtocolSubscription, m: JoinedMember) => MemberSubscription,
  userData: (owned: readonly TopicPartition[], generation: number) => Buffer | null,
  onAssigned: (partitions: readonly TopicPartition[], generation: number) => void = () => undefined,
  onReset: () => void = () => undefined,
): ClassicAssignor {
  return {
    name,
    cooperative,
    metadata: ({ topics, owned, generation }) => encodeSubscription({
      topics, userData: userData(owned, generation), ownedPartitions: owned, generationId: generation,
    }),
    async assign(members, context) {
      const subscriptions = new Map<string, MemberSubscription>();
      const topics = new Set<string>();
      for (const m of members) {
        const sub = decodeMember(m);
        subscriptions.set(m.memberId, member(sub, m));
        for (const t of sub.topics) topics.add(t);
      }
      const counts = await context.partitionCounts([...topics]);
      const result = core(subscriptions, new Map([...counts].filter(([, n]) => n > 0)));
      return new Map([...result].map(([id, assignedPartitions]) => [id, encodeAssignment({ assignedPartitions })]));
    },
    assigned: onAssigned,
    reset: onReset,
  };
}

const plain = (sub: ConsumerProtocolSubscription, m: JoinedMember): MemberSubscription =>
  ({ topics: sub.topics, groupInstanceId: m.groupInstanceId });

/** `range` (Java's RangeAssignor). */
export function rangeAssignor(): ClassicAssignor {
  return builtIn(RANGE_ASSIGNOR_NAME, false, assignRange, plain, () => null);
}

/** `roundrobin` (Java's RoundRobinAssignor). */
export function roundRobinAssignor(): ClassicAssignor {
  return builtIn(ROUND_ROBIN_ASSIGNOR_NAME, false, assignRoundRobin, plain, () => null);
}

/** `sticky` (Java's StickyAssignor, eager): the previous assignment travels in StickyAssignorUserData. */
export function stickyAssignor(): ClassicAssignor {
  const state = createStickyAssignorState();
  return builtIn(STICKY_ASSIGNOR_NAME, false, assignSticky,
    (sub) => ({ topics: sub.topics, userData: sub.userData, generation: sub.generationId >= 0 ? sub.generationId : undefined }),
    () => stickyUserData(state),
    (partitions, generation) => state.update(partitions, generation), () => state.reset());
}

/** `cooperative-sticky` (Java's CooperativeStickyAssignor, KIP-429; cooperative and eager). */
export function cooperativeStickyAssignor(): ClassicAssignor {
  return builtIn(COOPERATIVE_STICKY_ASSIGNOR_NAME, true, assignCooperativeSticky,
    (sub) => ({ topics: sub.topics, ownedPartitions: sub.ownedPartitions, generation: cooperativeGeneration(sub) }),
    (_owned, generation) => cooperativeStickyUserData(generation));
}

/**
 * A KafkaJS `PartitionAssigner` (the user's own) as a classic assignor, eager only. KafkaJS calls its factory with
 * `{ cluster, groupId, logger }`; `cluster` is the consumer's KafkaJS cluster (metadata is loaded for the topics
 * the group subscribes to before `assign` runs).
 */
export function kafkaJsAssignor(
  factory: PartitionAssigner, config: { cluster: unknown; groupId: string; logger: unknown },
): ClassicAssignor {
  const assigner = factory(config as Parameters<PartitionAssigner>[0]);
  let lastTopics: string[] = [];
  return {
    name: assigner.name,
    cooperative: false,
    metadata: ({ topics }) => {
      lastTopics = [...topics];
      return assigner.protocol({ topics: lastTopics }).metadata;
    },
    async assign(members, context) {
      const topics = new Set<string>(lastTopics);
      for (const m of members) {
        try {
          for (const t of decodeSubscription(m.metadata).topics) topics.add(t);
        } catch {
          // a foreign assigner's metadata: it reads it itself
        }
      }
      await context.partitionCounts([...topics]);
      const result = await assigner.assign({
        members: members.map((m) => ({ memberId: m.memberId, memberMetadata: m.metadata })), topics: [...topics],
      });
      return new Map(result.map((r) => [r.memberId, r.memberAssignment]));
    },
    assigned: () => undefined,
    reset: () => undefined,
  };
}
