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
import { Endpoint, Listener, listenerOf, ListenerOptions, planListenerPorts, SecurityProtocol } from './listeners';
import { resolveStaticConfigs, ResolvedStaticConfigs, TypedBrokerOptions } from './static-configs';
import { encodeBatch, RecordHeader, splitBatches } from '../../protocol/record-batch';
import type { RequestHeader } from '../../protocol/frame';
import { RequestVersionLog } from './request-log';
// Registers snappy, lz4 and zstd into the record-batch codecs.
import '../../protocol/compression';

/** The options of MockCluster.start; the broker settings of {@link TypedBrokerOptions} are static broker configs. */
export interface MockClusterOptions extends TypedBrokerOptions {
  /** Number of brokers (default 3). Node ids are firstNodeId, firstNodeId + 1, ... */
  brokers?: number;
  /** The first broker's node id (Kafka's node.id; default 1). KafkaJS's test cluster numbers its brokers from 0. */
  firstNodeId?: number;
  /**
   * Port of the first broker; the others take the following ports. 0 (default) = any free ports. With
   * `listeners`, each listener has its own port instead.
   */
  port?: number;
  /**
   * The brokers' listeners (Kafka's `listeners` with `listener.security.protocol.map`), e.g.
   * `[{ securityProtocol: 'PLAINTEXT', port: 9092 }, { securityProtocol: 'SSL', port: 9093 },
   * { securityProtocol: 'SASL_SSL', port: 9094 }]`.
   * SSL and SASL_SSL need `ssl`; SASL_* listeners authenticate with `sasl` (PLAIN users, SCRAM credentials), the
   * others refuse SASL. Absent: one listener from `port`, `ssl` and `sasl` (see those options). See listeners.ts.
   */
  listeners?: ListenerOptions[];
  /** Broker k's port of a listener is the listener's port + (k - 1) × portStep (default: the number of listeners). */
  portStep?: number;
  /** Interface to listen on and advertise (default 127.0.0.1). */
  host?: string;
  /** The host the brokers advertise, when not `host` (Kafka's advertised.listeners), e.g. localhost. */
  advertisedHost?: string;
  /**
   * How Metadata answers a topic it auto-creates: `kraft` (default, Kafka 4.0: UNKNOWN_TOPIC_OR_PARTITION, then the
   * topic) or `zookeeper` (Kafka up to 3.9 in ZooKeeper mode, which clients written for it expect: LEADER_NOT_AVAILABLE,
   * then the topic).
   */
  autoCreateTopicsAs?: 'kraft' | 'zookeeper';
  clusterId?: string;
  /**
   * The most bytes one compressed record batch may decompress to (default 32 MiB). Larger batches
   * (decompression bombs) are refused with MESSAGE_TOO_LARGE; Kafka has no such bound.
   */
  maxDecompressedBatchBytes?: number;
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
   * SASL users and mechanisms (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; default PLAIN). With `listeners`, they apply to
   * the SASL_* listeners. Without `listeners`, the one listener accepts plaintext and SASL clients alike, SASL with
   * any user and password, unless `users` are given: then every connection must authenticate as one of them.
   */
  sasl?: SaslOptions;
  /**
   * The key and certificate of the SSL and SASL_SSL listeners (PEM, node:tls options such as `key`, `cert`, `ca`,
   * `requestCert`). Without `listeners`: the one listener speaks TLS (Kafka's `listeners=SSL://…`, or SASL_SSL
   * with `sasl.users`); absent, PLAINTEXT (or SASL_PLAINTEXT).
   */
  ssl?: Pick<tls.TlsOptions, 'key' | 'cert' | 'ca' | 'passphrase' | 'requestCert' | 'rejectUnauthorized' | 'minVersion'>;
}

export class MockClusterError extends KafkaEosError {}

/** The static configs only one broker has: its ids, listeners and log directory. */
function perBrokerStaticConfigs(nodeId: number, endpoints: readonly Endpoint[]): Map<string, string> {
  const listeners = endpoints.map((e) => `${e.listener}://${e.host}:${e.port}`).join(',');
  return new Map([
    ['node.id', String(nodeId)], ['broker.id', String(nodeId)], ['process.roles', 'broker,controller'],
    ['log.dirs', `/mock-kafka/broker-${nodeId}`], ['listeners', listeners], ['advertised.listeners', listeners],
    ['listener.security.protocol.map', endpoints.map((e) => `${e.listener}:${e.securityProtocol}`).join(',')],
  ]);
}

/**
 * The one listener of the options without `listeners`: SSL with `ssl`, SASL_* with `sasl.users`; it accepts SASL
 * clients in any case (any user when no users are given), as the mock always did.
 */
function legacyListener(o: MockClusterOptions): Listener {
  const users = o.sasl?.users !== undefined && (Array.isArray(o.sasl.users) ? o.sasl.users.length : Object.keys(o.sasl.users).length) > 0;
  const securityProtocol: SecurityProtocol = o.ssl ? (users ? 'SASL_SSL' : 'SSL') : (users ? 'SASL_PLAINTEXT' : 'PLAINTEXT');
  return { name: securityProtocol, securityProtocol, tls: o.ssl !== undefined, sasl: 'optional' };
}

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
  private stopped = false;

  private constructor(state: ClusterState, private readonly brokersById: Map<number, Broker>) {
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
    const firstNodeId = options.firstNodeId ?? 1;
    if (!Number.isSafeInteger(firstNodeId) || firstNodeId < 0) {
      throw new MockClusterError('CONFIG_INVALID', `firstNodeId must be an integer ≥ 0, got ${firstNodeId}`);
    }
    if (options.listeners && options.port) {
      throw new MockClusterError('CONFIG_INVALID', 'port and listeners: give each listener its port in listeners');
    }
    const listeners: Listener[] = options.listeners ? options.listeners.map(listenerOf) : [legacyListener(options)];
    let ports: number[][];
    try {
      ports = planListenerPorts(options.listeners ?? [{ ...listeners[0], port: options.port }], n, options.portStep);
    } catch (e) {
      throw new MockClusterError('CONFIG_INVALID', (e as Error).message, { cause: e });
    }
    const tlsListener = listeners.find((l) => l.tls);
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
    if (tlsListener && !options.ssl) {
      throw new MockClusterError('CONFIG_INVALID',
        `listener ${tlsListener.name} (${tlsListener.securityProtocol}) needs ssl: { key, cert }`);
    }
    const host = options.host ?? '127.0.0.1';
    let resolved: ResolvedStaticConfigs;
    try {
      resolved = resolveStaticConfigs(options);
    } catch (e) {
      throw new MockClusterError('CONFIG_INVALID', (e as Error).message, { cause: e });
    }
    if (options.sasl?.mechanisms && listeners.some((l) => l.sasl !== 'none')) {
      resolved.configs.set('sasl.enabled.mechanisms', options.sasl.mechanisms.join(','));
    }
    const config: ClusterConfig = {
      clusterId: options.clusterId ?? randomBytes(16).toString('base64url').slice(0, 22),
      autoCreateTopics: resolved.autoCreateTopics,
      autoCreateTopicsAs: options.autoCreateTopicsAs ?? 'kraft',
      defaultPartitions: resolved.defaultPartitions,
      defaultReplicationFactor: resolved.defaultReplicationFactor,
      staticBrokerConfigs: resolved.configs,
      maxDecompressedBatchBytes: options.maxDecompressedBatchBytes,
      group: resolved.group,
      transactions: { ...options.transactions, maxTimeoutMs: resolved.transactionMaxTimeoutMs },
    };
    const brokersById = new Map<number, Broker>();
    const state = new ClusterState(config, (nodeId) => perBrokerStaticConfigs(nodeId, brokersById.get(nodeId)?.endpoints ?? []));
    try {
      configureSasl(state, { ...options.sasl, connectionsMaxReauthMs: resolved.connectionsMaxReauthMs });
    } catch (e) {
      throw new MockClusterError('CONFIG_INVALID', (e as Error).message, { cause: e });
    }
    const cluster = new MockCluster(state, brokersById);
    const handlers = createRegistry();
    const hooks = {
      log: (type: string, data: Record<string, unknown>) => state.events.record(type, data),
      intercept: cluster.faults.intercept.bind(cluster.faults),
      onRequest: (header: RequestHeader, served: boolean) => cluster.requestVersions.record(header, served),
    };
    try {
      for (let i = 0; i < n; i++) {
        const nodeId = firstNodeId + i;
        const limits = { idleMs: resolved.connectionsMaxIdleMs, maxBufferedRequestBytes: options.maxBufferedRequestBytes };
        const bound = listeners.map((listener, j) => ({ listener, port: ports[i][j] }));
        const broker = new Broker(nodeId, host, bound, state, handlers, hooks, limits, options.ssl, options.advertisedHost);
        await broker.start();
        cluster.brokersById.set(nodeId, broker);
        state.addBroker({ nodeId, host: broker.advertisedHost, port: broker.port, rack: null, endpoints: broker.endpoints });
      }
    } catch (e) {
      await cluster.stop();
      throw new MockClusterError('MOCK_LISTEN_FAILED', `cannot listen: ${(e as Error).message}`, { cause: e });
    }
    return cluster;
  }

  /** `host:port` of every broker's first listener, for a client's bootstrap list. */
  get bootstrap(): string[] {
    return this.state.brokers.map((b) => `${b.host}:${b.port}`);
  }

  /**
   * The cluster's listeners, each with every broker's `host:port` on it (a client's bootstrap list for that listener).
   */
  get listeners(): { name: string; securityProtocol: SecurityProtocol; bootstrap: string[] }[] {
    const first = this.state.brokers[0]?.endpoints ?? [];
    return first.map((e) => ({
      name: e.listener, securityProtocol: e.securityProtocol,
      bootstrap: this.state.brokers.map((b) => {
        const a = this.state.addressOf(b, e.listener);
        return `${a.host}:${a.port}`;
      }),
    }));
  }

  /** The bootstrap list of listener `name` (see {@link listeners}). Throws MockClusterError(UNKNOWN_LISTENER). */
  bootstrapOf(name: string): string[] {
    const l = this.listeners.find((x) => x.name === name);
    if (!l) throw new MockClusterError('UNKNOWN_LISTENER', `no listener ${name} (${this.listeners.map((x) => x.name).join(', ')})`);
    return l.bootstrap;
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
