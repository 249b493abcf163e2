/**
 * The one owner of cluster state: brokers, topics and partition logs, the group coordinator
 * and the event log. Connections decode requests and hand them to handlers that read this state
 * and change it only through its methods (createTopic, deleteTopic, addPartitions,
 * setTopicConfigs, setBrokerDown/Up, moveLeader, moveCoordinator); faults.ts does the same. The
 * collections it exposes are read-only views. Node's single thread makes each handler step atomic.
 */
import { randomBytes } from 'node:crypto';
import { KafkaEosError } from '../../errors';
import { KafkaProtocolError } from '../../protocol/kafka-errors';
import { AclStore } from './acls';
import { ClientQuotaStore } from './client-quotas';
import { Reassignments } from './reassignments';
import { ScramCredentialStore, type ScramDeletion, type ScramUpsertion, type ScramUserResult } from './scram';
import type { ClientQuotaEntry, QuotaAlteration, QuotaAlterationResult, QuotaFilterComponent } from './client-quotas';
import { EventLog } from './event-log';
import { FetchSessionCache } from './fetch-sessions';
import { GroupCoordinator, GroupCoordinatorConfig } from './groups/coordinator';
import { PartitionLog, RetentionPolicy } from './partition-log';
import { TransactionCoordinator } from './transactions/coordinator';
import { DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES } from '../../protocol/record-batch';
import { topicConfigDef, topicConfigError, topicDefault } from './config-defaults';
import { BrokerConfigStore } from './broker-configs';
import type { ClusterConfig } from './cluster-config';
import type { Endpoint } from './listeners';

export interface BrokerInfo {
  nodeId: number;
  /** The first listener's host and port. */
  host: string;
  port: number;
  rack: string | null;
  /** Every listener's endpoint (listeners.ts); absent: one, at host:port. */
  endpoints?: readonly Endpoint[];
}

/** A topic as handlers read it. Changed only through ClusterState's methods. */
export interface Topic {
  readonly name: string;
  /** 32 hex digits (KIP-516). */
  readonly topicId: string;
  readonly partitions: readonly PartitionLog[];
  /** The topic's config overrides (DescribeConfigs' DYNAMIC_TOPIC_CONFIG). */
  readonly configs: ReadonlyMap<string, string>;
}

/** The mutable record behind a {@link Topic}, private to ClusterState. */
interface TopicRecord extends Topic {
  readonly partitions: PartitionLog[];
  readonly configs: Map<string, string>;
}

export type { ClusterConfig } from './cluster-config';

/** A topic change Kafka would refuse: code KAFKA_PROTOCOL_ERROR, `kafkaError` names Kafka's error (see KafkaProtocolError). */
export class TopicError extends KafkaProtocolError<
  'TOPIC_ALREADY_EXISTS' | 'INVALID_TOPIC_EXCEPTION' | 'INVALID_PARTITIONS' | 'INVALID_REPLICATION_FACTOR'
  | 'UNKNOWN_TOPIC_OR_PARTITION' | 'INVALID_CONFIG' | 'INVALID_REPLICA_ASSIGNMENT' | 'INVALID_REQUEST'
> {}

const LEGAL_TOPIC = /^[a-zA-Z0-9._-]+$/;

/** Kafka's topic name rules (org.apache.kafka.common.internals.Topic.validate). */
export function validateTopicName(name: string): string | null {
  if (name.length === 0) return 'topic name is empty';
  if (name === '.' || name === '..') return `topic name cannot be "${name}"`;
  if (name.length > 249) return 'topic name is longer than 249 characters';
  if (!LEGAL_TOPIC.test(name)) return `topic name "${name}" has characters other than ASCII alphanumerics, '.', '_' and '-'`;
  return null;
}

/**
 * The most partitions the whole cluster holds (a mock limit, not Kafka's: each partition costs
 * memory in this process, and no request may exhaust it). CreateTopics and CreatePartitions
 * beyond it answer INVALID_PARTITIONS.
 */
export const MAX_CLUSTER_PARTITIONS = 200_000;

/** Java's String.hashCode, so coordinator placement spreads groups the way Kafka's partitionFor does. */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

export class ClusterState {
  private readonly brokerList: BrokerInfo[] = [];
  private readonly topicMap = new Map<string, TopicRecord>();
  readonly events: EventLog;
  readonly groups: GroupCoordinator;
  /** The transaction coordinator (InitProducerId, AddPartitionsToTxn, EndTxn...). */
  readonly transactions: TransactionCoordinator;
  /** ACL bindings (CreateAcls / DescribeAcls / DeleteAcls): enforced only with `authorizer.class.name` (handlers/authorize.ts). */
  readonly acls = new AclStore();
  /** Client quotas (AlterClientQuotas / DescribeClientQuotas): stored and described, not enforced. */
  private readonly quotas = new ClientQuotaStore();
  /** SCRAM credentials (SASL/SCRAM logins, DescribeUserScramCredentials; changed through alterScramCredentials). */
  readonly scram = new ScramCredentialStore();
  private readonly sessionCaches = new Map<number, FetchSessionCache>();
  /** Partition reassignments in progress (AlterPartitionReassignments / ListPartitionReassignments). */
  readonly reassignments = new Reassignments((log, replicas) => this.setReplicas(log, replicas));
  /** Broker ids that are down (faults); their listeners are closed. */
  private readonly downSet = new Set<number>();
  /** Coordinator placement overrides (faults: coordinator moved). */
  private readonly coordinatorOverrides = new Map<string, number>();
  private nextLeader = 0;
  /** Broker configs at Kafka's four levels (broker-configs.ts); changed through setDynamicBrokerConfigs. */
  readonly brokerConfigs: BrokerConfigStore;
  /** Bumped by every topic created, deleted or grown (the KIP-848 groups re-resolve regex subscriptions then). */
  private topicsVersion = 0;

  constructor(readonly config: ClusterConfig, perBrokerStatic?: (nodeId: number) => ReadonlyMap<string, string>) {
    this.brokerConfigs = new BrokerConfigStore(config.staticBrokerConfigs, perBrokerStatic);
    this.events = new EventLog();
    this.groups = new GroupCoordinator({
      ...config.group,
      partitionExists: (topic, partition) => this.partition(topic, partition) !== undefined,
      topics: {
        byName: (name) => this.topicMetadata(this.topics.get(name)),
        byId: (id) => this.topicMetadata([...this.topics.values()].find((t) => t.topicId === id)),
        all: () => [...this.topics.values()].map((t) => this.topicMetadata(t)!),
        version: () => this.topicsVersion,
      },
    }, this.events);
    this.transactions = new TransactionCoordinator({
      events: this.events,
      partition: (topic, partition) => this.partition(topic, partition),
      completeTxnOffsets: (groupId, producerId, commit) => this.groups.completeTxnOffsets(groupId, producerId, commit),
    }, config.transactions);
  }

  /**
   * AlterClientQuotas (KIP-546): checks each entry as Kafka's ClientQuotaControlManager does and, unless
   * `validateOnly`, applies those that pass; records `client-quotas-altered` for each entity whose values changed.
   * @returns one result per distinct entity (error code 0, or INVALID_REQUEST with the reason)
   */
  alterClientQuotas(alterations: readonly QuotaAlteration[], validateOnly: boolean): QuotaAlterationResult[] {
    const { results, changed } = this.quotas.alter(alterations, validateOnly);
    for (const entity of changed) this.events.record('client-quotas-altered', { entity });
    return results;
  }

  /**
   * The stored client quotas a DescribeClientQuotas filter matches (all of them with no component and not strict).
   * @throws ClientQuotaFilterError for a filter Kafka refuses
   */
  describeClientQuotas(components: readonly QuotaFilterComponent[], strict: boolean): ClientQuotaEntry[] {
    return this.quotas.describe(components, strict);
  }

  /**
   * AlterUserScramCredentials (KIP-554): applies the valid deletions and upsertions together, as Kafka's
   * ScramControlManager does; records `scram-credentials-altered` with the users whose credentials changed.
   */
  alterScramCredentials(deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): ScramUserResult[] {
    const { results, changed } = this.scram.alter(deletions, upsertions);
    if (changed.length > 0) this.events.record('scram-credentials-altered', { users: changed });
    return results;
  }

  /** Every stored client quota entry (a fresh copy). */
  get clientQuotas(): ClientQuotaEntry[] {
    return this.quotas.all();
  }

  /** The brokers, in node id order of registration (read-only view). */
  get brokers(): readonly Readonly<BrokerInfo>[] {
    return this.brokerList;
  }

  /** Topics by name, in creation order (read-only view). */
  get topics(): ReadonlyMap<string, Topic> {
    return this.topicMap;
  }

  /** Broker ids that are down (read-only view; see setBrokerDown). */
  get down(): ReadonlySet<number> {
    return this.downSet;
  }

  /** A topic as KIP-848 assignment sees it (id, name, partition count). */
  private topicMetadata(t: Topic | undefined): { topicId: string; name: string; numPartitions: number } | undefined {
    return t && { topicId: t.topicId, name: t.name, numPartitions: t.partitions.length };
  }

  get controllerId(): number {
    const up = this.brokerList.find((b) => !this.downSet.has(b.nodeId));
    return up ? up.nodeId : -1;
  }

  broker(nodeId: number): BrokerInfo | undefined {
    return this.brokers.find((b) => b.nodeId === nodeId);
  }

  /**
   * Where a client on listener `listenerName` reaches broker `b`: that listener's endpoint (Kafka answers each
   * client with the endpoints of the listener it came in on), else the broker's first one.
   */
  addressOf(b: BrokerInfo, listenerName: string): { host: string; port: number } {
    const e = b.endpoints?.find((x) => x.listener === listenerName);
    return e ? { host: e.host, port: e.port } : { host: b.host, port: b.port };
  }

  /**
   * Creates a topic with leaders spread round-robin over the brokers (continuing where the last topic stopped, as
   * Kafka's rack-unaware placement starts at a varying broker), or with a manual replica `assignment` (one replica
   * list per partition, leader first; numPartitions and replicationFactor must then be -1), checked in the order and
   * with the messages of Kafka's ReplicationControlManager.createTopic.
   * Throws {@link TopicError}: INVALID_TOPIC_EXCEPTION, TOPIC_ALREADY_EXISTS, INVALID_CONFIG (see topicConfigError),
   * INVALID_REQUEST / INVALID_REPLICA_ASSIGNMENT (manual assignment), INVALID_REPLICATION_FACTOR, INVALID_PARTITIONS.
   */
  createTopic(
    name: string, numPartitions = -1, replicationFactor = -1, configs: Record<string, string | null> = {}, validateOnly = false,
    assignment?: readonly (readonly number[])[],
  ): Topic {
    const invalid = validateTopicName(name);
    if (invalid) throw new TopicError('INVALID_TOPIC_EXCEPTION', invalid);
    if (this.topics.has(name)) throw new TopicError('TOPIC_ALREADY_EXISTS', `Topic '${name}' already exists.`);
    for (const [key, value] of Object.entries(configs)) {
      const bad = topicConfigError(key, value);
      if (bad) throw new TopicError('INVALID_CONFIG', bad);
    }
    const plan = assignment ? this.checkAssignment(assignment, numPartitions, replicationFactor) : this.placement(numPartitions,
      replicationFactor);
    if (this.partitionCount + plan.length > MAX_CLUSTER_PARTITIONS) {
      throw new TopicError(
        'INVALID_PARTITIONS',
        `the mock cluster holds at most ${MAX_CLUSTER_PARTITIONS} partitions in all;`
          + ` it has ${this.partitionCount}, ${plan.length} more requested`,
      );
    }
    const topic: TopicRecord = {
      name,
      topicId: randomBytes(16).toString('hex'),
      partitions: [],
      configs: new Map(Object.entries(configs).filter((e): e is [string, string] => e[1] !== null)),
    };
    if (validateOnly) return topic;
    if (!assignment) this.nextLeader = (this.nextLeader + 1) % this.brokers.length;
    plan.forEach((replicas, p) => {
      const leader = replicas.find((r) => !this.downSet.has(r)) ?? replicas[0];
      topic.partitions.push(new PartitionLog(name, p, leader, [...replicas], this.retentionOf(topic, leader)));
    });
    const partitions = plan.length;
    const rf = plan[0].length;
    this.topicMap.set(name, topic);
    this.topicsVersion++;
    this.events.record('topic-created', { topic: name, partitions, replicationFactor: rf });
    return topic;
  }

  /**
   * Topic config `name` of `topic` as broker `nodeId` applies it: the topic's override, else the default that
   * broker's configs give (config-defaults.ts topicDefault; null: the cluster-wide levels only). Throws for a name
   * that is no topic config.
   */
  topicConfig(topic: Topic, name: string, nodeId: number | null = null): string {
    return topic.configs.get(name) ?? this.topicConfigDefault(name, nodeId);
  }

  /** The default of topic config `name` on broker `nodeId` (null: cluster-wide), from the broker configs. Throws for an unknown name. */
  topicConfigDefault(name: string, nodeId: number | null = null): string {
    const def = topicConfigDef(name);
    if (!def) throw new TopicError('INVALID_CONFIG', `${name} is not a topic config`);
    return topicDefault(def, (n) => this.brokerConfigs.value(nodeId, n));
  }

  /** A topic's retention on broker `leader`: its retention.bytes / retention.ms overrides, else that broker's defaults. */
  retentionOf(topic: Topic, leader: number | null = null): RetentionPolicy {
    return {
      retentionBytes: Number(this.topicConfig(topic, 'retention.bytes', leader)),
      retentionMs: Number(this.topicConfig(topic, 'retention.ms', leader)),
    };
  }

  /** Re-applies every partition's retention (after a topic or broker config change, or a leader move). */
  private refreshRetention(): void {
    for (const t of this.topicMap.values()) for (const log of t.partitions) log.setRetention(this.retentionOf(t, log.leaderId));
  }

  /**
   * Replaces the dynamic broker configs of broker `nodeId`, or the cluster-wide default (null), as AlterConfigs on a
   * BROKER resource does (the caller validated them), and applies them: topic defaults follow at once (retention from
   * the next append, max.message.bytes from the next produce). Records `broker-configs-changed`.
   */
  setDynamicBrokerConfigs(nodeId: number | null, configs: ReadonlyMap<string, string>): void {
    this.brokerConfigs.setDynamic(nodeId, configs);
    this.refreshRetention();
    this.events.record('broker-configs-changed', { broker: nodeId, configs: Object.fromEntries(configs) });
  }

  /**
   * Replaces a topic's config overrides (AlterConfigs / IncrementalAlterConfigs; the caller has
   * validated them) and applies the enforced ones: retention from the next append on, and
   * max.message.bytes from the next produce.
   */
  setTopicConfigs(topic: Topic, configs: ReadonlyMap<string, string>): void {
    const record = this.record(topic);
    record.configs.clear();
    for (const [k, v] of configs) record.configs.set(k, v);
    for (const log of topic.partitions) log.setRetention(this.retentionOf(topic, log.leaderId));
    this.events.record('topic-configs-changed', { topic: topic.name, configs: Object.fromEntries(configs) });
  }

  /** Broker `nodeId`'s incremental fetch sessions (KIP-227, see fetch-sessions.ts). */
  fetchSessions(nodeId: number): FetchSessionCache {
    let cache = this.sessionCaches.get(nodeId);
    if (!cache) this.sessionCaches.set(nodeId, (cache = new FetchSessionCache()));
    return cache;
  }

  /** Partitions in all topics. */
  get partitionCount(): number {
    let n = 0;
    for (const t of this.topicMap.values()) n += t.partitions.length;
    return n;
  }

  /** The most bytes one compressed batch may decompress to (config, else DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES). */
  get maxDecompressedBatchBytes(): number {
    return this.config.maxDecompressedBatchBytes ?? DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES;
  }

  /** The largest record batch `topic` accepts on broker `nodeId`: its max.message.bytes, else message.max.bytes (bytes). */
  maxMessageBytes(topic: string, nodeId: number | null = null): number {
    const t = this.topicMap.get(topic);
    return Number(t ? this.topicConfig(t, 'max.message.bytes', nodeId) : this.topicConfigDefault('max.message.bytes', nodeId));
  }

  partition(topic: string, partition: number): PartitionLog | undefined {
    return this.topicMap.get(topic)?.partitions[partition];
  }

  /**
   * The broker that coordinates `key` (a group or transactional id): an override (faults), else the
   * hash of the key over the brokers, like __consumer_offsets placement. When that broker is down the
   * next live one (by position) takes over, as a follower of the offsets partition would; it
   * coordinates again once it is back. -1 never: with every broker down the preferred one is returned.
   */
  coordinatorFor(key: string): number {
    const n = this.brokers.length;
    const override = this.coordinatorOverrides.get(key);
    const preferred = override ?? this.brokers[Math.abs(javaHash(key) % n)].nodeId;
    if (!this.downSet.has(preferred)) return preferred;
    const at = this.brokers.findIndex((b) => b.nodeId === preferred);
    for (let k = 1; k < n; k++) {
      const b = this.brokers[(at + k) % n];
      if (!this.downSet.has(b.nodeId)) return b.nodeId;
    }
    return preferred;
  }

  close(): void {
    this.reassignments.close();
    this.groups.close();
    this.transactions.close();
  }

  // ------------------------------------------------------------ changes (the only writers)

  /** Registers a broker that started listening (MockCluster.start). */
  addBroker(info: BrokerInfo): void {
    if (this.broker(info.nodeId)) throw new KafkaEosError('INVALID_ARGUMENT', `broker ${info.nodeId} is already registered`);
    this.brokerList.push({ ...info });
  }

  /** Deletes a topic and its logs (DeleteTopics). Returns false when there is no such topic. */
  deleteTopic(name: string): boolean {
    const topic = this.topicMap.get(name);
    if (!topic) return false;
    this.topicMap.delete(name);
    this.reassignments.forgetTopic(name);
    this.topicsVersion++;
    this.events.record('topic-deleted', { topic: name, partitions: topic.partitions.length });
    return true;
  }

  /**
   * Adds partitions to a topic (CreatePartitions; the caller has validated the plan): one new
   * partition per replica list, its leader the list's first broker, with the topic's retention.
   */
  addPartitions(topic: Topic, replicas: readonly (readonly number[])[]): void {
    const record = this.record(topic);
    const from = record.partitions.length;
    replicas.forEach((r, i) => record.partitions.push(new PartitionLog(record.name, from + i, r[0], [...r],
      this.retentionOf(record, r[0]))));
    this.topicsVersion++;
    this.events.record('partitions-created', { topic: record.name, from, to: record.partitions.length });
  }

  /**
   * Marks broker `id` down: each partition it leads moves to its first live replica (leader epoch
   * bumped) or goes offline, and groups it coordinated move to the next live broker. Records
   * `partition.leader` / `partition.offline` and `coordinator.moved`.
   */
  setBrokerDown(id: number): void {
    const before = this.coordinatorsOfGroups();
    this.downSet.add(id);
    for (const log of this.allPartitions()) {
      if (log.leaderId !== id) continue;
      const live = log.replicas.find((r) => !this.downSet.has(r));
      log.changeLeader(live ?? -1);
      if (live !== undefined) {
        this.events.record('partition.leader', {
          topic: log.topic, partition: log.partition, from: id, to: live, leaderEpoch: log.leaderEpoch, reason: 'broker-stopped',
        });
      } else {
        this.events.record('partition.offline', { topic: log.topic, partition: log.partition, broker: id, leaderEpoch: log.leaderEpoch });
      }
    }
    this.refreshRetention();
    this.releaseMovedGroups(before, 'broker-stopped');
  }

  /**
   * Marks broker `id` up again: its offline partitions come back led by it and, with
   * `preferredLeaderElection`, so do those whose first replica it is (Kafka's
   * auto.leader.rebalance.enable); its groups return to it. Records the same events as setBrokerDown.
   */
  setBrokerUp(id: number, preferredLeaderElection: boolean): void {
    const before = this.coordinatorsOfGroups();
    this.downSet.delete(id);
    for (const log of this.allPartitions()) {
      const offline = log.leaderId === id;
      const electPreferred = preferredLeaderElection && log.replicas[0] === id && log.leaderId !== id;
      if (!offline && !electPreferred) continue;
      const from = log.leaderId;
      log.changeLeader(id);
      this.events.record('partition.leader', {
        topic: log.topic, partition: log.partition, from: offline ? null : from, to: id, leaderEpoch: log.leaderEpoch,
        reason: offline ? 'broker-started' : 'preferred-leader-election',
      });
    }
    this.refreshRetention();
    this.releaseMovedGroups(before, 'broker-started');
  }

  /**
   * Moves the leadership of a partition to broker `to` (which becomes a replica if it was not),
   * bumping the leader epoch; records `partition.leader`. Returns the leader epoch, or null when
   * there is no such partition. The caller checks that `to` is a live broker.
   */
  moveLeader(topic: string, partition: number, to: number): number | null {
    const log = this.partition(topic, partition);
    if (!log) return null;
    if (log.leaderId === to) return log.leaderEpoch;
    const from = log.leaderId;
    if (!log.replicas.includes(to)) log.replicas = [...log.replicas, to];
    log.changeLeader(to);
    this.refreshRetention();
    this.events.record('partition.leader', { topic, partition, from, to, leaderEpoch: log.leaderEpoch, reason: 'moved' });
    return log.leaderEpoch;
  }

  /**
   * Makes broker `to` the coordinator of `key` (a group or transactional id); parked JoinGroup /
   * SyncGroup requests are released (NOT_COORDINATOR). Records `coordinator.moved` when it changed.
   */
  moveCoordinator(key: string, to: number): void {
    const from = this.coordinatorFor(key);
    this.coordinatorOverrides.set(key, to);
    if (from === to) return;
    this.events.record('coordinator.moved', { key, from, to, reason: 'moved' });
    this.groups.moveAway();
  }

  /** The round-robin placement of a new topic (Kafka's rack-unaware StripedReplicaPlacer, simplified). */
  private placement(numPartitions: number, replicationFactor: number): number[][] {
    if (replicationFactor < -1 || replicationFactor === 0) {
      throw new TopicError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0, or -1 to use the default value.');
    }
    if (numPartitions < -1 || numPartitions === 0 || !Number.isInteger(numPartitions)) {
      throw new TopicError('INVALID_PARTITIONS', 'Number of partitions was set to an invalid non-positive value.');
    }
    const partitions = numPartitions === -1 ? this.config.defaultPartitions : numPartitions;
    const n = this.brokers.length;
    const rf = replicationFactor === -1 ? Math.min(this.config.defaultReplicationFactor, n) : replicationFactor;
    if (rf > n) {
      throw new TopicError('INVALID_REPLICATION_FACTOR', `Unable to replicate the partition ${rf} time(s): The target replication factor `
        + `of ${rf} cannot be reached because only ${n} broker(s) are registered.`);
    }
    if (this.partitionCount + partitions > MAX_CLUSTER_PARTITIONS) return Array.from({ length: partitions }, () => []);
    const start = this.nextLeader;
    return Array.from({ length: partitions }, (_, p) => Array.from({ length: rf }, (__, r) => this.brokers[(start + p + r) % n].nodeId));
  }

  /** A manual replica assignment checked as ReplicationControlManager.createTopic / validateManualPartitionAssignment. */
  private checkAssignment(assignment: readonly (readonly number[])[], numPartitions: number, replicationFactor: number): number[][] {
    if (replicationFactor !== -1) {
      throw new TopicError('INVALID_REQUEST', 'A manual partition assignment was specified, but replication factor was not set to -1.');
    }
    if (numPartitions !== -1) {
      throw new TopicError('INVALID_REQUEST', 'A manual partition assignment was specified, but numPartitions was not set to -1.');
    }
    let rf: number | null = null;
    for (const [p, replicas] of assignment.entries()) {
      const bad = (why: string) => new TopicError('INVALID_REPLICA_ASSIGNMENT', why);
      const invalid = this.replicaListError(replicas);
      if (invalid) throw bad(invalid);
      if (rf !== null && replicas.length !== rf) {
        throw bad(`The manual partition assignment includes a partition with ${replicas.length} replica(s), but this is not `
          + `consistent with previous partitions, which have ${rf} replica(s).`);
      }
      rf = replicas.length;
      if (replicas.every((r) => this.downSet.has(r))) {
        throw bad(`All brokers specified in the manual partition assignment for partition ${p} are fenced or in controlled shutdown.`);
      }
    }
    return assignment.map((r) => [...r]);
  }

  /**
   * Why a replica list is no valid assignment (ReplicationControlManager.validateManualPartitionAssignment): empty, an
   * unknown broker, a broker twice; null when valid.
   */
  replicaListError(replicas: readonly number[]): string | null {
    if (replicas.length === 0) return 'The manual partition assignment includes an empty replica list.';
    const sorted = [...replicas].sort((a, b) => a - b);
    for (const [i, id] of sorted.entries()) {
      if (!this.broker(id)) return `The manual partition assignment includes broker ${id}, but no such broker is registered.`;
      if (i > 0 && sorted[i - 1] === id) return `The manual partition assignment includes the broker ${id} more than once.`;
    }
    return null;
  }

  /**
   * Starts moving a partition to the replicas `target` (AlterPartitionReassignments; the caller checked them), as
   * reassignments.ts describes: at once when no replica is added, else after the added ones catch up.
   */
  reassignPartition(log: PartitionLog, target: readonly number[]): void {
    this.setReplicas(log, this.reassignments.start(log, target));
  }

  /** Cancels a partition's reassignment in progress, back to its original replicas. Returns false when none runs. */
  cancelReassignment(log: PartitionLog): boolean {
    const original = this.reassignments.cancel(log);
    if (original) this.setReplicas(log, original);
    return original !== null;
  }

  /**
   * Gives a partition the replica list `replicas`; a leader outside it hands over to the first live replica of the list
   * (leader epoch + 1). Records `partition.reassigned` (and `partition.leader` when the leader changed).
   */
  private setReplicas(log: PartitionLog, replicas: readonly number[]): void {
    const from = log.replicas;
    log.replicas = [...replicas];
    if (!replicas.includes(log.leaderId) || this.downSet.has(log.leaderId)) {
      const leader = log.leaderId;
      const live = replicas.find((r) => !this.downSet.has(r));
      log.changeLeader(live ?? -1);
      this.events.record('partition.leader', {
        topic: log.topic, partition: log.partition, from: leader, to: live ?? -1, leaderEpoch: log.leaderEpoch, reason: 'reassigned',
      });
      this.refreshRetention();
    }
    this.events.record('partition.reassigned', { topic: log.topic, partition: log.partition, from, to: [...replicas] });
  }

  private record(topic: Topic): TopicRecord {
    const record = this.topicMap.get(topic.name);
    if (!record || record !== topic) {
      throw new TopicError('UNKNOWN_TOPIC_OR_PARTITION', `topic ${topic.name} is not (or no longer) in this cluster`);
    }
    return record;
  }

  private *allPartitions(): Iterable<PartitionLog> {
    for (const t of this.topicMap.values()) yield* t.partitions;
  }

  private coordinatorsOfGroups(): Map<string, number> {
    return new Map(this.groups.groups().map((g) => [g.groupId, this.coordinatorFor(g.groupId)]));
  }

  /** Records each group whose coordinator changed and releases parked requests, as a coordinator change does. */
  private releaseMovedGroups(before: Map<string, number>, reason: string): void {
    let moved = false;
    for (const [key, from] of before) {
      const to = this.coordinatorFor(key);
      if (to === from) continue;
      moved = true;
      this.events.record('coordinator.moved', { key, from, to, reason });
    }
    if (moved) this.groups.moveAway();
  }
}
