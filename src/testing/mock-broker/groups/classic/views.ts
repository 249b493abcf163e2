/**
 * A classic group as DescribeGroups and ListGroups answer it and as tests read it, after Kafka's
 * `GroupMetadataManager.describeGroups` / `listGroups`: member metadata is described only when the group
 * is Stable (with the selected protocol as `protocolData`). The requests themselves are in ../admin.ts.
 */
import { ErrorCode } from '../../../../protocol/error-codes';
import { EMPTY_ASSIGNMENT, type ClassicGroup } from './group';
import type { OffsetStore } from '../offsets/store';
import type { DescribedGroup, GroupView, ListedGroup } from '../types';

/** One classic group as DescribeGroups answers it (member metadata only when Stable, as Kafka). */
export function describeClassicGroup(group: ClassicGroup): DescribedGroup {
  const stable = group.is('Stable');
  return {
    errorCode: ErrorCode.NONE,
    groupId: group.groupId,
    groupState: group.state,
    protocolType: group.protocolType ?? '',
    protocolData: stable ? (group.protocolName ?? '') : '',
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberMetadata: stable ? m.metadata(group.protocolName) : EMPTY_ASSIGNMENT,
      memberAssignment: m.assignment,
    })),
  };
}

/** One classic group as ListGroups answers it. */
export function listedClassicGroup(g: ClassicGroup): ListedGroup {
  return { groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state, groupType: 'classic' };
}

export function viewGroup(g: ClassicGroup, offsets: OffsetStore): GroupView {
  return {
    groupId: g.groupId,
    state: g.state,
    generationId: g.generationId,
    protocolType: g.protocolType,
    protocolName: g.protocolName,
    leader: g.leaderId,
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      sessionTimeoutMs: m.sessionTimeoutMs,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      protocols: m.protocols.map((p) => p.name),
      assignment: m.assignment,
      awaitingJoin: m.awaitingJoin !== null,
      awaitingSync: m.awaitingSync !== null,
    })),
    pendingMemberIds: [...g.pendingJoinMembers],
    pendingSyncMemberIds: [...g.pendingSyncMembers],
    subscribedTopics: g.subscribedTopics === null ? null : [...g.subscribedTopics],
    offsets: offsets.view(g.groupId),
  };
}
