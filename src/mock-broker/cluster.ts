/**
 * The one owner of cluster state: brokers, topics and partition logs, the group coordinator
 * and the event log. Connections decode requests and hand them to handlers that read and
 * change this state; Node's single thread makes each handler step atomic.
 */
import { randomBytes } from 'node:crypto';
import { KafkaEosError } from '../errors';
import { AclStore } from './acls';
import { EventLog } from './event-log';
import { FetchSessionCache } from './fetch-sessions';
import { GroupCoordinator, GroupCoordinatorConfig } from './group-coordinator';
import { PartitionLog, RetentionPolicy } from './partition-log';
import { TransactionCoordinator } from './transactions/coordinator';
import { DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES } from '../protocol/record-batch';
import { topicConfigDef, topicConfigError } from './config-defaults';
import type { ClusterConfig } from './cluster-config';

export interface BrokerInfo {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface Topic {
  name: string;
  topicId: string;
  partitions: PartitionLog[];
  configs: Map<string, string>;
}

export type { ClusterConfig } from './cluster-config';

export class TopicError extends KafkaEosError {
  constructor(
    readonly kafkaError: 'TOPIC_ALREADY_EXISTS' | 'INVALID_TOPIC_EXCEPTION' | 'INVALID_PARTITIONS' | 'INVALID_REPLICATION_FACTOR'
      | 'UNKNOWN_TOPIC_OR_PARTITION' | 'INVALID_CONFIG',
    message: string,
  ) {
    super(kafkaError, message);
  }
}

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
  readonly brokers: BrokerInfo[] = [];
  readonly topics = new Map<string, Topic>();
  readonly events: EventLog;
  readonly groups: GroupCoordinator;
  /** The transaction coordinator (InitProducerId, AddPartitionsToTxn, EndTxn...). */
  readonly transactions: TransactionCoordinator;
  /** ACL bindings (CreateAcls / DescribeAcls / DeleteAcls): stored and described, not enforced. */
  readonly acls = new AclStore();
  private readonly sessionCaches = new Map<number, FetchSessionCache>();
  /** Broker ids that are down (faults); their listeners are closed. */
  readonly down = new Set<number>();
  /** Coordinator placement overrides (faults: coordinator moved). */
  readonly coordinatorOverrides = new Map<string, number>();
  private nextLeader = 0;

  constructor(readonly config: ClusterConfig) {
    this.events = new EventLog();
    this.groups = new GroupCoordinator({
      ...config.group,
      partitionExists: (topic, partition) => this.partition(topic, partition) !== undefined,
    }, this.events);
    this.transactions = new TransactionCoordinator({
      events: this.events,
      partition: (topic, partition) => this.partition(topic, partition),
      completeTxnOffsets: (groupId, producerId, commit) => this.groups.completeTxnOffsets(groupId, producerId, commit),
    });
  }

  get controllerId(): number {
    const up = this.brokers.find((b) => !this.down.has(b.nodeId));
    return up ? up.nodeId : -1;
  }

  broker(nodeId: number): BrokerInfo | undefined {
    return this.brokers.find((b) => b.nodeId === nodeId);
  }

  /**
   * Creates a topic with leaders spread round-robin over the brokers (continuing where the
   * last topic stopped, as Kafka's rack-unaware placement starts at a varying broker).
   * Throws {@link TopicError} (INVALID_CONFIG for a topic config Kafka would refuse, see topicConfigError).
   */
  createTopic(name: string, numPartitions = -1, replicationFactor = -1, configs: Record<string, string | null> = {}, validateOnly = false): Topic {
    const invalid = validateTopicName(name);
    if (invalid) throw new TopicError('INVALID_TOPIC_EXCEPTION', invalid);
    if (this.topics.has(name)) throw new TopicError('TOPIC_ALREADY_EXISTS', `topic '${name}' already exists`);
    const partitions = numPartitions === -1 ? this.config.defaultPartitions : numPartitions;
    if (!Number.isInteger(partitions) || partitions <= 0) throw new TopicError('INVALID_PARTITIONS', `number of partitions must be larger than 0, got ${numPartitions}`);
    if (this.partitionCount + partitions > MAX_CLUSTER_PARTITIONS) {
      throw new TopicError('INVALID_PARTITIONS', `the mock cluster holds at most ${MAX_CLUSTER_PARTITIONS} partitions in all; it has ${this.partitionCount}, ${partitions} more requested`);
    }
    const rf = replicationFactor === -1 ? Math.min(this.config.defaultReplicationFactor, this.brokers.length) : replicationFactor;
    if (rf <= 0 || rf > this.brokers.length) {
      throw new TopicError('INVALID_REPLICATION_FACTOR', `replication factor ${replicationFactor} is not between 1 and the ${this.brokers.length} available brokers`);
    }
    for (const [key, value] of Object.entries(configs)) {
      const invalid = topicConfigError(key, value);
      if (invalid) throw new TopicError('INVALID_CONFIG', invalid);
    }
    const topic: Topic = {
      name,
      topicId: randomBytes(16).toString('hex'),
      partitions: [],
      configs: new Map(Object.entries(configs).filter((e): e is [string, string] => e[1] !== null)),
    };
    if (validateOnly) return topic;
    const retention = this.retentionOf(topic);
    const n = this.brokers.length;
    const start = this.nextLeader;
    for (let p = 0; p < partitions; p++) {
      const replicas: number[] = [];
      for (let r = 0; r < rf; r++) replicas.push(this.brokers[(start + p + r) % n].nodeId);
      topic.partitions.push(new PartitionLog(name, p, replicas[0], replicas, retention));
    }
    this.nextLeader = (start + 1) % n;
    this.topics.set(name, topic);
    this.events.record('topic-created', { topic: name, partitions, replicationFactor: rf });
    return topic;
  }

  /**
   * Topic config `name` of `topic` as the broker applies it: the topic's override, else the default
   * config-defaults.ts gives (the cluster's configuration or Kafka's default). Throws for a name
   * that is no topic config.
   */
  topicConfig(topic: Topic, name: string): string {
    const def = topicConfigDef(name);
    if (!def) throw new Error(`${name} is not a topic config`);
    return topic.configs.get(name) ?? def.value(this) ?? '';
  }

  /** A topic's retention: its retention.bytes / retention.ms overrides, else the cluster's. */
  retentionOf(topic: Topic): RetentionPolicy {
    return {
      retentionBytes: Number(this.topicConfig(topic, 'retention.bytes')),
      retentionMs: Number(this.topicConfig(topic, 'retention.ms')),
    };
  }

  /**
   * Replaces a topic's config overrides (AlterConfigs / IncrementalAlterConfigs; the caller has
   * validated them) and applies the enforced ones: retention from the next append on, and
   * max.message.bytes from the next produce.
   */
  setTopicConfigs(topic: Topic, configs: ReadonlyMap<string, string>): void {
    topic.configs.clear();
    for (const [k, v] of configs) topic.configs.set(k, v);
    const retention = this.retentionOf(topic);
    for (const log of topic.partitions) log.setRetention(retention);
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
    for (const t of this.topics.values()) n += t.partitions.length;
    return n;
  }

  /** The most bytes one compressed batch may decompress to (config, else DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES). */
  get maxDecompressedBatchBytes(): number {
    return this.config.maxDecompressedBatchBytes ?? DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES;
  }

  /** The largest record batch `topic` accepts: its max.message.bytes, else message.max.bytes (bytes). */
  maxMessageBytes(topic: string): number {
    const t = this.topics.get(topic);
    return t ? Number(this.topicConfig(t, 'max.message.bytes')) : this.config.maxMessageBytes;
  }

  partition(topic: string, partition: number): PartitionLog | undefined {
    return this.topics.get(topic)?.partitions[partition];
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
    if (!this.down.has(preferred)) return preferred;
    const at = this.brokers.findIndex((b) => b.nodeId === preferred);
    for (let k = 1; k < n; k++) {
      const b = this.brokers[(at + k) % n];
      if (!this.down.has(b.nodeId)) return b.nodeId;
    }
    return preferred;
  }

  close(): void {
    this.groups.close();
    this.transactions.close();
  }
}
