/**
 * DescribeGroups, ListGroups and the read-only group snapshot, after Kafka's
 * `GroupMetadataManager.describeGroups` / `listGroups`: member metadata is described only when the group
 * is Stable (with the selected protocol as `protocolData`); unknown groups describe as Dead.
 */
import { ErrorCode } from '../../../../protocol/error-codes';
import { EMPTY_ASSIGNMENT, type ClassicGroup } from './group';
import type { OffsetStore } from '../offsets/store';
import type { DescribedGroup, GroupView, ListedGroup } from '../types';

export function describeGroups(groups: ReadonlyMap<string, ClassicGroup>, groupIds: string[], closed: boolean): DescribedGroup[] {
  return groupIds.map((groupId) => {
    const none = { groupId, protocolType: '', protocolData: '', members: [] };
    if (closed) return { ...none, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, groupState: '' };
    if (!groupId) return { ...none, errorCode: ErrorCode.INVALID_GROUP_ID, groupState: '' };
    const group = groups.get(groupId);
    if (!group) return { ...none, errorCode: ErrorCode.NONE, groupState: 'Dead' };
    const stable = group.is('Stable');
    return {
      errorCode: ErrorCode.NONE,
      groupId,
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
  });
}

export function listGroups(groups: ReadonlyMap<string, ClassicGroup>, statesFilter?: string[]): ListedGroup[] {
  const wanted = new Set((statesFilter ?? []).map((s) => s.trim().toLowerCase()));
  return [...groups.values()]
    .filter((g) => wanted.size === 0 || wanted.has(g.state.toLowerCase()))
    .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state }));
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
