/**
 * The embedded mock Kafka cluster: several brokers in this process, each a TCP listener on
 * loopback speaking the Kafka wire protocol, sharing one cluster state. Any client (KafkaJS,
 * librdkafka, kafka-python) can use it. See docs/mock-broker.md for differences from Kafka.
 *
 * ```ts
 * const cluster = await MockCluster.start({ brokers: 3 });
 * const kafka = new Kafka({ brokers: cluster.bootstrap });
 * ...
 * await cluster.stop();
 * ```
 */
import { randomBytes } from 'node:crypto';
import { KafkaEosError } from '../errors';
import { Broker } from './broker';
import { ClusterConfig, ClusterState, Topic } from './cluster';
import type { GroupCoordinatorConfig } from './group-coordinator';
import { createRegistry } from './handlers';
import { encodeBatch, RecordHeader } from './protocol/record-batch';

export interface MockClusterOptions {
  /** Number of brokers (default 3). Node ids are 1..brokers. */
  brokers?: number;
  /** Port of the first broker; the others take the following ports. 0 (default) = any free ports. */
  port?: number;
  /** Interface to listen on and advertise (default 127.0.0.1). */
  host?: string;
  clusterId?: string;
  /** auto.create.topics.enable (default true, as in Kafka). */
  autoCreateTopics?: boolean;
  /** num.partitions for auto-created topics (default 1). */
  defaultPartitions?: number;
  /** default.replication.factor (default 1; capped at the broker count). */
  defaultReplicationFactor?: number;
  /** retention.bytes per partition (default -1 = unbounded). */
  retentionBytes?: number;
  /** retention.ms (default -1 = unbounded). */
  retentionMs?: number;
  /** message.max.bytes (default 1048588, as in Kafka). */
  maxMessageBytes?: number;
  /** Group coordinator settings, e.g. { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 }. */
  group?: Partial<GroupCoordinatorConfig>;
}

export class MockClusterError extends KafkaEosError {}

export interface PartitionView {
  topic: string;
  partition: number;
  leader: number;
  replicas: number[];
  logStartOffset: number;
  highWatermark: number;
  /** Last stable offset (equals the high watermark when no transaction is open). */
  lastStableOffset: number;
  sizeBytes: number;
  batches: number;
}

export class MockCluster {
  readonly state: ClusterState;
  private readonly brokersById = new Map<number, Broker>();
  private stopped = false;

  private constructor(state: ClusterState) {
    this.state = state;
  }

  /** Starts the brokers. Throws if a port is taken. */
  static async start(options: MockClusterOptions = {}): Promise<MockCluster> {
    const n = options.brokers ?? 3;
    if (!Number.isInteger(n) || n < 1) throw new MockClusterError('MOCK_CONFIG_INVALID', `brokers must be a positive integer, got ${n}`);
    const host = options.host ?? '127.0.0.1';
    const config: ClusterConfig = {
      clusterId: options.clusterId ?? randomBytes(16).toString('base64url').slice(0, 22),
      autoCreateTopics: options.autoCreateTopics ?? true,
      defaultPartitions: options.defaultPartitions ?? 1,
      defaultReplicationFactor: options.defaultReplicationFactor ?? 1,
      retention: { retentionBytes: options.retentionBytes ?? -1, retentionMs: options.retentionMs ?? -1 },
      maxMessageBytes: options.maxMessageBytes ?? 1048588,
      group: options.group ?? {},
    };
    const state = new ClusterState(config);
    const cluster = new MockCluster(state);
    const handlers = createRegistry();
    const hooks = { log: (type: string, data: Record<string, unknown>) => state.events.record(type, data) };
    try {
      for (let i = 0; i < n; i++) {
        const nodeId = i + 1;
        const broker = new Broker(nodeId, host, options.port ? options.port + i : 0, state, handlers, hooks);
        await broker.start();
        cluster.brokersById.set(nodeId, broker);
        state.brokers.push({ nodeId, host, port: broker.port, rack: null });
      }
    } catch (e) {
      await cluster.stop();
      throw new MockClusterError('MOCK_LISTEN_FAILED', `cannot listen: ${(e as Error).message}`, { cause: e });
    }
    return cluster;
  }

  /** `host:port` of every broker, for a client's bootstrap list. */
  get bootstrap(): string[] {
    return this.state.brokers.map((b) => `${b.host}:${b.port}`);
  }

  get events() {
    return this.state.events;
  }

  get groups() {
    return this.state.groups;
  }

  /** Creates a topic directly (no client needed). Throws TopicError (e.g. TOPIC_ALREADY_EXISTS). */
  createTopic(name: string, partitions = 1, replicationFactor = 1, configs: Record<string, string> = {}): Topic {
    return this.state.createTopic(name, partitions, replicationFactor, configs);
  }

  /** Appends records straight into a partition's log, bypassing the network (test set-up). Returns the base offset. */
  append(topic: string, partition: number, records: { key?: string | Buffer | null; value: string | Buffer | null; headers?: RecordHeader[]; timestamp?: bigint }[]): number {
    const log = this.state.partition(topic, partition);
    if (!log) throw new MockClusterError('UNKNOWN_TOPIC_OR_PARTITION', `no partition ${topic}-${partition}`);
    const bytes = encodeBatch({ records });
    const header = { lastOffsetDelta: records.length - 1, maxTimestamp: 0n, isControl: false, isTransactional: false, producerId: -1n } as never;
    return log.append([{ header, bytes }], Date.now());
  }

  /** Read-only views of every partition: log start offset, high watermark, LSO, size. */
  partitions(topic?: string): PartitionView[] {
    const out: PartitionView[] = [];
    for (const t of this.state.topics.values()) {
      if (topic !== undefined && t.name !== topic) continue;
      for (const p of t.partitions) {
        out.push({
          topic: t.name, partition: p.partition, leader: p.leaderId, replicas: [...p.replicas],
          logStartOffset: p.logStartOffset, highWatermark: p.highWatermark, lastStableOffset: p.highWatermark,
          sizeBytes: p.sizeBytes, batches: p.batchCount,
        });
      }
    }
    return out;
  }

  broker(nodeId: number): Broker {
    const b = this.brokersById.get(nodeId);
    if (!b) throw new MockClusterError('UNKNOWN_BROKER', `no broker ${nodeId}`);
    return b;
  }

  /** Stops every broker, closes every connection and clears every timer. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all([...this.brokersById.values()].map((b) => b.stop()));
    this.state.close();
  }
}
