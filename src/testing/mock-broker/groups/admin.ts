/**
 * The group admin APIs over the one registry, for both kinds of group: DescribeGroups (a consumer group in its
 * classic shape, as Kafka's `ConsumerGroup.asDescribedGroup`), ListGroups (KIP-518 state filter, KIP-848 type
 * filter), DeleteGroups (empty groups only, offsets too) and ConsumerGroupDescribe, after Kafka's
 * `GroupMetadataManager` / `GroupCoordinatorService`; and the read-only views the inspector and tests read.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { describeClassicGroup, listedClassicGroup, viewGroup } from './classic/views';
import type { TopicSource } from './consumer/assignment';
import { describeAsClassic, describeMember, viewConsumerGroup } from './consumer/views';
import type { ConsumerGroupView, DescribedConsumerGroup } from './consumer/types';
import type { OffsetStore } from './offsets/store';
import type { Group, GroupRegistry } from './registry';
import type { CommittedOffsetView, DescribedGroup, GroupView, ListedGroup } from './types';

/** What the admin APIs need from the coordinator. */
export interface GroupAdminHost {
  readonly closed: boolean;
  /** Removes an empty group and its offsets; returns how many offsets went. */
  deleteGroup(group: Group, why: 'deleted'): number;
}

/** The admin APIs and views over both kinds of group (see the module comment). */
export class GroupAdmin {
  constructor(
    private readonly registry: GroupRegistry,
    private readonly offsets: OffsetStore,
    private readonly topics: TopicSource,
    private readonly host: GroupAdminHost,
  ) {}

  /** DescribeGroups: unknown groups are reported as Dead with no error (Kafka, DescribeGroups v0-v5). */
  describeGroups(groupIds: string[]): DescribedGroup[] {
    return groupIds.map((groupId) => {
      const none = { groupId, protocolType: '', protocolData: '', members: [] };
      if (this.host.closed) return { ...none, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, groupState: '' };
      if (!groupId) return { ...none, errorCode: ErrorCode.INVALID_GROUP_ID, groupState: '' };
      const group = this.registry.get(groupId);
      if (!group) return { ...none, errorCode: ErrorCode.NONE, groupState: 'Dead' };
      return group.type === 'classic' ? describeClassicGroup(group) : describeAsClassic(group, this.topics);
    });
  }

  /** ListGroups; `statesFilter` matches case-insensitively (KIP-518), empty or absent lists all; classic groups first. */
  listGroups(statesFilter?: string[], typesFilter?: string[]): ListedGroup[] {
    if (this.host.closed) return [];
    const states = new Set((statesFilter ?? []).map((x) => x.trim().toLowerCase()));
    const types = new Set((typesFilter ?? []).map((x) => x.trim().toLowerCase()));
    const listed = [
      ...this.registry.classicGroups().map(listedClassicGroup),
      ...this.registry.consumerGroups().map((g) => ({
        groupId: g.groupId, protocolType: 'consumer', groupState: g.state, groupType: 'consumer',
      })),
    ];
    return listed.filter((g) => (states.size === 0 || states.has(g.groupState.toLowerCase()))
      && (types.size === 0 || types.has(g.groupType!)));
  }

  /** DeleteGroups: only empty groups (NON_EMPTY_GROUP otherwise); removes the group and its offsets. */
  deleteGroups(groupIds: string[]): { groupId: string; errorCode: number }[] {
    return groupIds.map((groupId) => {
      if (this.host.closed) return { groupId, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
      if (!groupId) return { groupId, errorCode: ErrorCode.INVALID_GROUP_ID };
      const group = this.registry.get(groupId);
      if (!group || group.state === 'Dead') return { groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
      if (!group.isEmpty()) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP };
      this.host.deleteGroup(group, 'deleted');
      return { groupId, errorCode: ErrorCode.NONE };
    });
  }

  /** ConsumerGroupDescribe: GROUP_ID_NOT_FOUND for an unknown or classic group. */
  describeConsumerGroups(groupIds: string[]): DescribedConsumerGroup[] {
    return groupIds.map((groupId) => {
      const none = { groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] };
      if (this.host.closed) return { ...none, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null };
      if (!groupId) return { ...none, errorCode: ErrorCode.INVALID_GROUP_ID, errorMessage: 'Group id must not be empty.' };
      const group = this.registry.get(groupId);
      if (group?.type !== 'consumer') {
        const message = group ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`;
        return { ...none, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: message };
      }
      return {
        errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: group.state, groupEpoch: group.groupEpoch,
        assignmentEpoch: group.assignmentEpoch, assignorName: group.assignorName,
        members: [...group.members.values()].map((m) => describeMember(m, group.targetOf(m.memberId), this.topics)),
      };
    });
  }

  classicView(groupId: string): GroupView | undefined {
    const g = this.registry.classic(groupId);
    return g ? viewGroup(g, this.offsets) : undefined;
  }

  classicViews(): GroupView[] {
    return this.registry.classicGroups().map((g) => viewGroup(g, this.offsets));
  }

  consumerView(groupId: string): (ConsumerGroupView & { offsets: CommittedOffsetView[] }) | undefined {
    const g = this.registry.consumer(groupId);
    return g && { ...viewConsumerGroup(g, this.topics), offsets: this.offsets.view(groupId) };
  }

  consumerViews(): (ConsumerGroupView & { offsets: CommittedOffsetView[] })[] {
    return this.registry.consumerGroups().map((g) => this.consumerView(g.groupId)!);
  }
}
