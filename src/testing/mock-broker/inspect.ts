/**
 * Read-only views of the mock cluster for tests: topics and partitions, groups with decoded
 * assignments, committed offsets, and the timestamped event log with filtering. Every call returns
 * a fresh snapshot (plain objects, safe to keep and compare); nothing here changes cluster state.
 *
 * Offsets are plain numbers (exact up to 2^53), not the bigint of the wire.
 */
import { ConsumerProtocolAssignment, decodeVersioned } from '../../protocol/messages/consumer-protocol';
import type { ClusterState } from './cluster';
import type { AclBinding } from './acls';
import type { ClientQuotaEntry } from './client-quotas';
import type { TransactionView } from './transactions/coordinator';
import type { EventLogEntry } from './event-log';
import type { GroupState, GroupView, MemberView } from './groups/types';
import { lastStableOffset } from './transactions/producer-state';
import type { CommittedOffset, DecodedAssignment, GroupInspection, MemberInspection } from './groups/inspection';
import { consumerGroupInspection } from './groups/consumer/inspection';

export type { CommittedOffset, DecodedAssignment, GroupInspection, MemberInspection } from './groups/inspection';

export interface PartitionView {
  topic: string;
  partition: number;
  /** Leader broker id; see `offline`. */
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  /** True when the leader is down and no live replica could take over (LEADER_NOT_AVAILABLE). */
  offline: boolean;
  logStartOffset: number;
  highWatermark: number;
  /** Last stable offset: the first offset of the oldest open transaction, else the high watermark. */
  lastStableOffset: number;
  /** Bytes of record batches held (after retention and DeleteRecords). */
  sizeBytes: number;
  batches: number;
}

export interface TopicView {
  name: string;
  /** 32 hex digits (KIP-516). */
  topicId: string;
  /** The topic's config overrides (what AlterConfigs set; defaults are not listed, see topicConfig). */
  configs: Record<string, string>;
  partitions: PartitionView[];
}

/** One broker of the cluster. */
export interface BrokerView {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
  /** False while the broker is stopped (faults.stopBroker). */
  up: boolean;
}

/** A record batch as the partition stores it: offsets, and the bytes as the producer sent them (base offset rewritten). */
export interface BatchView {
  baseOffset: number;
  lastOffset: number;
  isControl: boolean;
  isTransactional: boolean;
  /** The batch header's max timestamp (ms since the epoch), what timestamp lookups and retention.ms read. */
  maxTimestamp: bigint;
  bytes: Buffer;
}


/** Filter for {@link Inspector.events}. Every given criterion must hold. */
export interface EventFilter {
  /** Exact type, any of several, or a pattern (e.g. `/^member\./`). */
  type?: string | readonly string[] | RegExp;
  /** `data.groupId` equals this. */
  groupId?: string;
  /** Only entries with `seq` greater than this (e.g. a `seq` remembered earlier). */
  afterSeq?: number;
  /** Only entries with `ts` (ms since the epoch) at or after this. */
  sinceMs?: number;
  /** Any further condition on the entry. */
  where?: (entry: EventLogEntry) => boolean;
}

export function matchesEvent(e: EventLogEntry, f: EventFilter): boolean {
  if (f.type !== undefined) {
    if (typeof f.type === 'string'
      ? e.type !== f.type
      : f.type instanceof RegExp ? !f.type.test(e.type) : !f.type.includes(e.type)) {
      return false;
    }
  }
  if (f.groupId !== undefined && e.data.groupId !== f.groupId) return false;
  if (f.afterSeq !== undefined && e.seq <= f.afterSeq) return false;
  if (f.sinceMs !== undefined && e.ts < f.sinceMs) return false;
  return f.where ? f.where(e) : true;
}

function decodeMember(m: MemberView, protocolType: string | null): MemberInspection {
  let assignment: DecodedAssignment | null = null;
  let userData: Buffer | null = null;
  if (m.assignment.length === 0) assignment = {};
  else if (protocolType === 'consumer') {
    try {
      const a = decodeVersioned(ConsumerProtocolAssignment, m.assignment).value;
      assignment = {};
      for (const tp of a.assignedPartitions) (assignment[tp.topic] ??= []).push(...tp.partitions);
      for (const list of Object.values(assignment)) list.sort((x, y) => x - y);
      userData = a.userData;
    } catch {
      assignment = null;
    }
  }
  return {
    memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, groupInstanceId: m.groupInstanceId,
    sessionTimeoutMs: m.sessionTimeoutMs, rebalanceTimeoutMs: m.rebalanceTimeoutMs, protocols: [...m.protocols],
    assignment, userData, rawAssignment: m.assignment, awaitingJoin: m.awaitingJoin, awaitingSync: m.awaitingSync,
  };
}

function toInspection(g: GroupView): GroupInspection {
  return {
    groupId: g.groupId, groupType: 'classic', state: g.state, generationId: g.generationId,
    protocolType: g.protocolType, protocolName: g.protocolName,
    leader: g.leader, members: g.members.map((m) => decodeMember(m, g.protocolType)), pendingMemberIds: [...g.pendingMemberIds],
    subscribedTopics: g.subscribedTopics, offsets: g.offsets.map((o) => ({
      topic: o.topic, partition: o.partition, offset: Number(o.committedOffset), leaderEpoch: o.committedLeaderEpoch,
      metadata: o.metadata, commitTimestampMs: o.commitTimestampMs,
    })),
  };
}

export class Inspector {
  constructor(private readonly state: ClusterState) {}

  /** Every topic with its partitions, in creation order. */
  topics(): TopicView[] {
    return [...this.state.topics.values()].map((t) => ({
      name: t.name, topicId: t.topicId, configs: Object.fromEntries(t.configs), partitions: this.partitions(t.name),
    }));
  }

  /** Partitions of one topic (or of all), in topic then partition order. Unknown topic: []. */
  partitions(topic?: string): PartitionView[] {
    const out: PartitionView[] = [];
    for (const t of this.state.topics.values()) {
      if (topic !== undefined && t.name !== topic) continue;
      for (const p of t.partitions) {
        out.push({
          topic: t.name, partition: p.partition, leader: p.leaderId, leaderEpoch: p.leaderEpoch, replicas: [...p.replicas],
          offline: this.state.down.has(p.leaderId), logStartOffset: p.logStartOffset, highWatermark: p.highWatermark,
          lastStableOffset: lastStableOffset(p), sizeBytes: p.sizeBytes, batches: p.batchCount,
        });
      }
    }
    return out;
  }

  /** One group, or undefined if the coordinator never saw it. */
  group(groupId: string): GroupInspection | undefined {
    const g = this.state.groups.group(groupId);
    if (g) return toInspection(g);
    const c = this.state.groups.consumerGroup(groupId);
    return c ? consumerGroupInspection(c, this.state.groups.config.consumerSessionTimeoutMs) : undefined;
  }

  /** Every group, classic ones first, then KIP-848 consumer groups. */
  groups(): GroupInspection[] {
    const sessionMs = this.state.groups.config.consumerSessionTimeoutMs;
    const consumer = this.state.groups.consumerGroupViews().map((c) => consumerGroupInspection(c, sessionMs));
    return [...this.state.groups.groups().map(toInspection), ...consumer];
  }

  /**
   * Who holds what: topic-partition (`"t-0"`) → member id, for the current generation of a
   * consumer group. Partitions assigned twice keep the last member (see `duplicates`).
   */
  assignments(groupId: string): { owners: Map<string, string>; duplicates: string[] } {
    const owners = new Map<string, string>();
    const duplicates: string[] = [];
    for (const m of this.group(groupId)?.members ?? []) {
      for (const [topic, parts] of Object.entries(m.assignment ?? {})) {
        for (const p of parts) {
          const key = `${topic}-${p}`;
          if (owners.has(key)) duplicates.push(key);
          owners.set(key, m.memberId);
        }
      }
    }
    return { owners, duplicates };
  }

  /** Committed offsets of a group (all topics, or one). Unknown group: []. */
  committedOffsets(groupId: string, topic?: string): CommittedOffset[] {
    return (this.group(groupId)?.offsets ?? []).filter((o) => topic === undefined || o.topic === topic);
  }

  /** The committed offset of one partition, or undefined when none is committed. */
  committedOffset(groupId: string, topic: string, partition: number): number | undefined {
    return this.committedOffsets(groupId, topic).find((o) => o.partition === partition)?.offset;
  }

  /** Per-partition lag of a group on a topic: high watermark − committed offset (the whole log when nothing is committed). */
  lag(groupId: string, topic: string): { partition: number; committed: number | undefined; highWatermark: number; lag: number }[] {
    return this.partitions(topic).map((p) => {
      const committed = this.committedOffset(groupId, topic, p.partition);
      return { partition: p.partition, committed, highWatermark: p.highWatermark, lag: p.highWatermark - (committed ?? p.logStartOffset) };
    });
  }

  /** Event log entries, oldest first, matching `filter`. The log keeps the latest 10 000 entries. */
  events(filter: EventFilter = {}): EventLogEntry[] {
    return this.state.events.entries().filter((e) => matchesEvent(e, filter));
  }

  /** The `seq` of the newest entry (0 when none): remember it, act, then filter with `afterSeq`. */
  lastEventSeq(): number {
    const all = this.state.events.entries();
    return all.length === 0 ? 0 : all[all.length - 1].seq;
  }

  // ------------------------------------------------------------ cluster, topics, logs

  /** The cluster id (DescribeCluster, Metadata v2+). */
  clusterId(): string {
    return this.state.config.clusterId;
  }

  /** Every broker, in node id order, with whether it is up. */
  brokers(): BrokerView[] {
    return this.state.brokers.map((b) => ({
      nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack, up: !this.state.down.has(b.nodeId),
    }));
  }

  /** One topic, or undefined when it does not exist (never created, or deleted). */
  topic(name: string): TopicView | undefined {
    return this.topics().find((t) => t.name === name);
  }

  /**
   * Topic config `name` of `topic` as the broker applies it: the override, else the default
   * (the cluster's option or Kafka's). Undefined for an unknown topic or a name that is no topic config.
   */
  topicConfig(topic: string, name: string): string | undefined {
    const t = this.state.topics.get(topic);
    try {
      return t ? this.state.topicConfig(t, name) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The record batches a partition holds (after retention and DeleteRecords), oldest first. Unknown partition: []. */
  batches(topic: string, partition: number): BatchView[] {
    return (this.state.partition(topic, partition)?.liveBatches() ?? []).map((b) => ({
      baseOffset: b.baseOffset, lastOffset: b.lastOffset, isControl: b.isControl, isTransactional: b.isTransactional,
      maxTimestamp: b.maxTimestamp, bytes: b.bytes,
    }));
  }

  /** The broker that coordinates `key` (a group or transactional id) now. */
  coordinator(key: string): number {
    return this.state.coordinatorFor(key);
  }

  /** A transactional id's state at the transaction coordinator, or undefined when it never initialised. */
  transaction(transactionalId: string): TransactionView | undefined {
    return this.state.transactions.transaction(transactionalId);
  }

  /** The ACL bindings stored (CreateAcls), in creation order. */
  acls(): AclBinding[] {
    return this.state.acls.all();
  }

  /**
   * The client quotas stored (AlterClientQuotas), in the order their entities were first given a value: each
   * entity's parts (`user`, `client-id`, `ip`; a null name is the default entity) and its values by key.
   */
  clientQuotas(): ClientQuotaEntry[] {
    return this.state.clientQuotas;
  }

  /** How many incremental fetch sessions (KIP-227) broker `nodeId` holds. */
  fetchSessionCount(nodeId: number): number {
    return this.state.fetchSessions(nodeId).size;
  }
}
