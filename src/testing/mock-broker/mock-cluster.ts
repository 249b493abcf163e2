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
import type * as tls from 'node:tls';
import { randomBytes } from 'node:crypto';
import { KafkaEosError } from '../../errors';
import { Broker } from './broker';
import { ClusterConfig, ClusterState, Topic, TopicError } from './cluster';
import type { GroupCoordinatorConfig } from './groups/coordinator';
import type { TransactionCoordinatorConfig } from './transactions/coordinator';
import { Faults, StartBrokerOptions } from './faults';
import { createRegistry } from './handlers';
import { Inspector, PartitionView } from './inspect';
import { configureSasl, type SaslOptions } from './handlers/sasl';
import { encodeBatch, RecordHeader, splitBatches } from '../../protocol/record-batch';
import type { RequestHeader } from '../../protocol/frame';
import { RequestVersionLog } from './request-log';
// Registers snappy, lz4 and zstd into the record-batch codecs.
import '../../protocol/compression';

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
  /**
   * The most bytes one compressed record batch may decompress to (default 32 MiB). Larger batches
   * (decompression bombs) are refused with MESSAGE_TOO_LARGE; Kafka has no such bound.
   */
  maxDecompressedBatchBytes?: number;
  /**
   * connections.max.idle.ms: a connection with no traffic and no request in progress for this long is
   * closed (default 600000, Kafka's 10 minutes; 0 = never).
   */
  connectionsMaxIdleMs?: number;
  /**
   * Cap on the bytes of half-received request frames one broker holds over all its connections
   * (default 256 MiB). A connection whose data would exceed it is closed.
   */
  maxBufferedRequestBytes?: number;
  /** Group coordinator settings, e.g. { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 }. */
  group?: Partial<GroupCoordinatorConfig>;
  /**
   * Transaction coordinator settings: `maxTimeoutMs` (transaction.max.timeout.ms, default 900000),
   * `markerDelayMs` (delay between Prepare* and Complete*, default 0 = markers written at EndTxn).
   */
  transactions?: Partial<Omit<TransactionCoordinatorConfig, 'firstProducerId'>>;
  /**
   * SASL/PLAIN. Without `users` (the default) plaintext and SASL clients are both accepted, SASL
   * with any user and password. With `users`, every connection must authenticate as one of them.
   */
  sasl?: SaslOptions;
  /**
   * An SSL listener (Kafka's `listeners=SSL://…`, or SASL_SSL with `sasl.users`): every broker speaks
   * TLS with this key and certificate (PEM, node:tls options such as `key`, `cert`, `ca`,
   * `requestCert`). Absent: PLAINTEXT (or SASL_PLAINTEXT).
   */
  ssl?: Pick<tls.TlsOptions, 'key' | 'cert' | 'ca' | 'passphrase' | 'requestCert' | 'rejectUnauthorized' | 'minVersion'>;
}

export class MockClusterError extends KafkaEosError {}

export type { PartitionView } from './inspect';

export class MockCluster {
  /** The cluster state, changed only by handlers and faults through its methods; tests read it through `inspect`. */
  private readonly state: ClusterState;
  /** Fault injection: request errors, latency, dropped connections, topology changes (faults.ts). */
  readonly faults: Faults;
  /** Read-only views: partitions, groups with decoded assignments, offsets, events (inspect.ts). */
  readonly inspect: Inspector;
  /** The API versions clients sent, by client id (request-log.ts): what each client negotiated. */
  readonly requestVersions = new RequestVersionLog();
  private readonly brokersById = new Map<number, Broker>();
  private stopped = false;

  private constructor(state: ClusterState) {
    this.state = state;
    this.faults = new Faults(state, this.brokersById);
    this.inspect = new Inspector(state);
  }

  /** Starts the brokers. Throws if a port is taken. */
  static async start(options: MockClusterOptions = {}): Promise<MockCluster> {
    const n = options.brokers ?? 3;
    if (!Number.isInteger(n) || n < 1 || n > 64) {
      throw new MockClusterError('CONFIG_INVALID', `brokers must be an integer from 1 to 64, got ${n}`);
    }
    if (options.port && (options.port < 1 || options.port + n - 1 > 65535)) {
      throw new MockClusterError('CONFIG_INVALID', `ports ${options.port}..${options.port + n - 1} are not all valid TCP ports`);
    }
    for (const key of ['maxDecompressedBatchBytes', 'maxBufferedRequestBytes'] as const) {
      const v = options[key];
      if (v !== undefined && (!Number.isSafeInteger(v) || v < 1)) {
        throw new MockClusterError('CONFIG_INVALID', `${key} must be a positive integer (bytes), got ${v}`);
      }
    }
    const idle = options.connectionsMaxIdleMs;
    if (idle !== undefined && (!Number.isSafeInteger(idle) || idle < 0)) {
      throw new MockClusterError('CONFIG_INVALID', `connectionsMaxIdleMs must be an integer ≥ 0 (ms), got ${idle}`);
    }
    if (options.ssl && (!options.ssl.key || !options.ssl.cert)) {
      throw new MockClusterError('CONFIG_INVALID', 'ssl needs key and cert (PEM)');
    }
    const host = options.host ?? '127.0.0.1';
    const config: ClusterConfig = {
      clusterId: options.clusterId ?? randomBytes(16).toString('base64url').slice(0, 22),
      autoCreateTopics: options.autoCreateTopics ?? true,
      defaultPartitions: options.defaultPartitions ?? 1,
      defaultReplicationFactor: options.defaultReplicationFactor ?? 1,
      retention: { retentionBytes: options.retentionBytes ?? -1, retentionMs: options.retentionMs ?? -1 },
      maxMessageBytes: options.maxMessageBytes ?? 1048588,
      maxDecompressedBatchBytes: options.maxDecompressedBatchBytes,
      group: options.group ?? {},
      transactions: options.transactions,
    };
    const state = new ClusterState(config);
    configureSasl(state, options.sasl);
    const cluster = new MockCluster(state);
    const handlers = createRegistry();
    const hooks = {
      log: (type: string, data: Record<string, unknown>) => state.events.record(type, data),
      intercept: cluster.faults.intercept.bind(cluster.faults),
      onRequest: (header: RequestHeader, served: boolean) => cluster.requestVersions.record(header, served),
    };
    try {
      for (let i = 0; i < n; i++) {
        const nodeId = i + 1;
        const limits = { idleMs: options.connectionsMaxIdleMs, maxBufferedRequestBytes: options.maxBufferedRequestBytes };
        const broker = new Broker(nodeId, host, options.port ? options.port + i : 0, state, handlers, hooks, limits, options.ssl);
        await broker.start();
        cluster.brokersById.set(nodeId, broker);
        state.addBroker({ nodeId, host, port: broker.port, rack: null });
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
  append(
    topic: string, partition: number,
    records: { key?: string | Buffer | null; value: string | Buffer | null; headers?: RecordHeader[]; timestamp?: bigint }[],
  ): number {
    const log = this.state.partition(topic, partition);
    if (!log) throw new TopicError('UNKNOWN_TOPIC_OR_PARTITION', `no partition ${topic}-${partition}`);
    // The batch's own header (max timestamp included: ListOffsets by timestamp and retention.ms read it).
    return log.append(splitBatches(encodeBatch({ records })), Date.now());
  }

  /**
   * Appends encoded record batches (v2, e.g. compressed by a codec under test) straight into a
   * partition's log, bypassing the network and produce validation. Returns the base offset.
   * `{ corrupt: true }` stores batches whose CRC or compression codec is wrong as they are (what a
   * client sees after disk corruption or a broker bug; Kafka itself refuses them at Produce), to test a
   * consumer's handling of unreadable batches; only their framing (magic 2, lengths) is checked.
   * Throws TopicError (kafkaError UNKNOWN_TOPIC_OR_PARTITION); InvalidRecordsError for bytes that are no batches.
   */
  appendBatches(topic: string, partition: number, recordBatches: Buffer, options: { corrupt?: boolean } = {}): number {
    const log = this.state.partition(topic, partition);
    if (!log) throw new TopicError('UNKNOWN_TOPIC_OR_PARTITION', `no partition ${topic}-${partition}`);
    return log.append(splitBatches(recordBatches, { content: !options.corrupt }), Date.now());
  }

  /**
   * Moves a partition's log start offset to `offset` (as DeleteRecords does), dropping the batches
   * wholly below it (test set-up). Throws TopicError (kafkaError UNKNOWN_TOPIC_OR_PARTITION).
   */
  deleteRecordsBefore(topic: string, partition: number, offset: number): void {
    const log = this.state.partition(topic, partition);
    if (!log) throw new TopicError('UNKNOWN_TOPIC_OR_PARTITION', `no partition ${topic}-${partition}`);
    log.deleteBefore(offset);
  }

  /** Read-only views of every partition: leader, epoch, log start offset, high watermark, LSO, size. */
  partitions(topic?: string): PartitionView[] {
    return this.inspect.partitions(topic);
  }

  /** Take a broker down: see {@link Faults.stopBroker}. Throws FaultError. */
  stopBroker(nodeId: number): Promise<void> {
    return this.faults.stopBroker(nodeId);
  }

  /** Bring a stopped broker back on its port: see {@link Faults.startBroker}. Throws FaultError. */
  startBroker(nodeId: number, options?: StartBrokerOptions): Promise<void> {
    return this.faults.startBroker(nodeId, options);
  }

  /** Move a partition's leadership (epoch bump); returns the new leader epoch. Throws FaultError. */
  moveLeader(topic: string, partition: number, toBroker: number): number {
    return this.faults.moveLeader(topic, partition, toBroker);
  }

  /** Move a group's (or transactional id's) coordinator to another broker. Throws FaultError. */
  moveCoordinator(key: string, toBroker: number): void {
    this.faults.moveCoordinator(key, toBroker);
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
