/**
 * `kafka-eos broker`: a standalone mock cluster that serves until interrupted, set up as the brokers test suites
 * run against: a PLAINTEXT listener (--port), an SSL one (--ssl-port with --ssl-cert/--ssl-key), SASL ones
 * (--sasl-port: SASL_PLAINTEXT, --sasl-ssl-port: SASL_SSL) with --sasl-mechanisms and --user, topics created at
 * start (--topic), and any broker config the mock acts on (--config key=value, checked as Kafka's ConfigDef checks
 * it). Broker k listens on each listener's port + (k - 1) × --port-step (default: the number of listeners), and every
 * broker advertises --host. It prints one summary of listeners, users, topics and configs, then (--verbose) every
 * event-log entry as one JSON line.
 */
import { readFileSync } from 'node:fs';
import { KafkaEosError } from '../errors';
import { MockCluster, SASL_MECHANISMS } from '../testing/mock-broker';
import type { EventLogEntry, ListenerOptions, MockClusterOptions, SaslMechanism, SaslUser } from '../testing/mock-broker';
import { SchemaRegistryServer } from '../testing/schema-registry/server';

export interface BrokerOptions {
  /** The PLAINTEXT listener's port of broker 1. */
  port: number;
  brokers: number;
  /** The first broker's node id (default 1). */
  firstNodeId?: number;
  host: string;
  /** The host the brokers advertise (default: host). */
  advertisedHost?: string;
  /** kraft (default) or zookeeper: how Metadata answers a topic it auto-creates. */
  autoCreateTopicsAs?: 'kraft' | 'zookeeper';
  /** group.initial.rebalance.delay.ms (default 0, the mock's; Kafka's is 3000). */
  initialRebalanceDelayMs?: number;
  /** group.min.session.timeout.ms (default: the coordinator's, 6000 as in Kafka). */
  minSessionTimeoutMs?: number;
  /** log.retention.bytes (-1 = unbounded, the default). */
  retentionBytes?: number;
  /** log.retention.ms (default 7 days, as in Kafka). */
  retentionMs?: number;
  /** KIP-848 group.consumer.heartbeat.interval.ms. */
  consumerHeartbeatIntervalMs?: number;
  /** KIP-848 group.consumer.session.timeout.ms. */
  consumerSessionTimeoutMs?: number;
  /** SSL listener port of broker 1 (needs sslCert and sslKey). */
  sslPort?: number;
  /** SASL_PLAINTEXT listener port of broker 1. */
  saslPort?: number;
  /** SASL_SSL listener port of broker 1 (needs sslCert and sslKey). */
  saslSslPort?: number;
  /** PEM files of the SSL and SASL_SSL listeners. */
  sslCert?: string;
  sslKey?: string;
  /** Broker k's port of a listener is its port + (k - 1) × portStep (default: the number of listeners). */
  portStep?: number;
  /** sasl.enabled.mechanisms, comma-separated (default PLAIN,SCRAM-SHA-256,SCRAM-SHA-512). */
  saslMechanisms?: string;
  /** `name:password[:mechanism]` each. */
  users?: string[];
  /** `name:partitions[:replication]` each. */
  topics?: string[];
  /** `key=value` each: static broker configs. */
  configs?: string[];
  /** Print every event-log entry to stdout as a JSON line. */
  verbose?: boolean;
  /** Also serve a Schema Registry (Confluent's REST API) on this port of `host` (0 = any free port). */
  schemaRegistryPort?: number;
}

const invalid = (message: string) => new KafkaEosError('CONFIG_INVALID', message);

/** `key=value` pairs as a record; throws KafkaEosError(CONFIG_INVALID) for a pair without '=' or a key given twice. */
export function parseConfigs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const at = p.indexOf('=');
    if (at <= 0) throw invalid(`--config ${p}: expected key=value`);
    const key = p.slice(0, at).trim();
    if (key in out) throw invalid(`--config ${key} is given twice`);
    out[key] = p.slice(at + 1);
  }
  return out;
}

/**
 * `name:password[:mechanism]` as a SASL user: the last part is the mechanism when it names one (PLAIN,
 * SCRAM-SHA-256, SCRAM-SHA-512), so a password may hold ':' and '='. Throws KafkaEosError(CONFIG_INVALID).
 */
export function parseUser(spec: string): SaslUser {
  const first = spec.indexOf(':');
  if (first <= 0) throw invalid(`--user ${spec}: expected name:password[:mechanism]`);
  const name = spec.slice(0, first);
  let password = spec.slice(first + 1);
  let mechanism: SaslMechanism | undefined;
  const last = password.lastIndexOf(':');
  const tail = last >= 0 ? password.slice(last + 1).toUpperCase() : '';
  if ((SASL_MECHANISMS as readonly string[]).includes(tail)) {
    mechanism = tail as SaslMechanism;
    password = password.slice(0, last);
  }
  if (password === '') throw invalid(`--user ${spec}: the password is empty`);
  return { name, password, ...(mechanism ? { mechanism } : {}) };
}

/** `name:partitions[:replication]`; throws KafkaEosError(CONFIG_INVALID) for a count that is no positive integer. */
export function parseTopic(spec: string): { name: string; partitions: number; replicationFactor: number } {
  const [name, partitions, replication, ...rest] = spec.split(':');
  const count = (v: string | undefined, what: string): number => {
    if (v === undefined) return -1;
    if (!/^\d+$/.test(v) || Number(v) < 1) throw invalid(`--topic ${spec}: ${what} must be a positive integer`);
    return Number(v);
  };
  if (!name || partitions === undefined || rest.length > 0) throw invalid(`--topic ${spec}: expected name:partitions[:replication]`);
  return { name, partitions: count(partitions, 'partitions'), replicationFactor: count(replication, 'replication') };
}

/** One event as a JSON line: bigint as a decimal string, buffers as their length. */
export function eventLine(e: EventLogEntry): string {
  return JSON.stringify({ ts: new Date(e.ts).toISOString(), seq: e.seq, type: e.type, ...e.data }, (_k, v) => {
    if (typeof v === 'bigint') return v.toString();
    if (v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)) {
      return `<${(v as { data: unknown[] }).data.length} bytes>`;
    }
    return v;
  });
}

function readPem(file: string | undefined, flag: string): string {
  if (!file) throw invalid(`${flag} is needed by --ssl-port and --sasl-ssl-port`);
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw invalid(`${flag} ${file}: ${(e as Error).message}`);
  }
}

/** The MockCluster.start options `kafka-eos broker` runs with. Throws KafkaEosError(CONFIG_INVALID). */
export function brokerClusterOptions(o: BrokerOptions): MockClusterOptions {
  const listeners: ListenerOptions[] = [{ securityProtocol: 'PLAINTEXT', port: o.port }];
  if (o.sslPort !== undefined) listeners.push({ securityProtocol: 'SSL', port: o.sslPort });
  if (o.saslPort !== undefined) listeners.push({ securityProtocol: 'SASL_PLAINTEXT', port: o.saslPort });
  if (o.saslSslPort !== undefined) listeners.push({ securityProtocol: 'SASL_SSL', port: o.saslSslPort });
  const tls = o.sslPort !== undefined || o.saslSslPort !== undefined;
  const sasl = o.saslPort !== undefined || o.saslSslPort !== undefined;
  if (!tls && (o.sslCert || o.sslKey)) throw invalid('--ssl-cert and --ssl-key need --ssl-port or --sasl-ssl-port');
  if (!sasl && (o.users?.length || o.saslMechanisms)) throw invalid('--user and --sasl-mechanisms need --sasl-port or --sasl-ssl-port');
  const mechanisms = (o.saslMechanisms ?? SASL_MECHANISMS.join(',')).split(',').map((m) => m.trim().toUpperCase()).filter(Boolean);
  for (const m of mechanisms) {
    if (!(SASL_MECHANISMS as readonly string[]).includes(m)) {
      throw invalid(`--sasl-mechanisms: ${m} is not one of ${SASL_MECHANISMS.join(', ')}`);
    }
  }
  const brokerConfigs = parseConfigs(o.configs ?? []);
  const group: NonNullable<MockClusterOptions['group']> = {};
  if (o.initialRebalanceDelayMs !== undefined) group.initialRebalanceDelayMs = o.initialRebalanceDelayMs;
  if (o.minSessionTimeoutMs !== undefined) group.minSessionTimeoutMs = o.minSessionTimeoutMs;
  if (o.consumerHeartbeatIntervalMs !== undefined) group.consumerHeartbeatIntervalMs = o.consumerHeartbeatIntervalMs;
  if (o.consumerSessionTimeoutMs !== undefined) group.consumerSessionTimeoutMs = o.consumerSessionTimeoutMs;
  return {
    brokers: o.brokers, firstNodeId: o.firstNodeId, host: o.host, advertisedHost: o.advertisedHost,
      autoCreateTopicsAs: o.autoCreateTopicsAs, listeners, portStep: o.portStep, retentionBytes: o.retentionBytes,
        retentionMs: o.retentionMs,
    group, brokerConfigs,
    ...(tls ? { ssl: { cert: readPem(o.sslCert, '--ssl-cert'), key: readPem(o.sslKey, '--ssl-key') } } : {}),
    ...(sasl ? { sasl: { mechanisms: mechanisms as SaslMechanism[], users: (o.users ?? []).map(parseUser) } } : {}),
  };
}

/** The startup summary: listeners with their addresses, users, topics and configs given. */
export function brokerSummary(cluster: MockCluster, o: BrokerOptions, options: MockClusterOptions): string {
  const lines = [`kafka-eos mock cluster: ${o.brokers} brokers, cluster id ${cluster.inspect.clusterId()}`];
  const pad = (s: string) => s.padEnd(16);
  const mechanisms = options.sasl?.mechanisms?.join(', ') ?? '';
  for (const l of cluster.listeners) {
    lines.push(`  ${pad(l.securityProtocol)}${l.bootstrap.join(',')}${l.securityProtocol.startsWith('SASL_') ? ` (${mechanisms})` : ''}`);
  }
  const users = (options.sasl?.users as SaslUser[] | undefined) ?? [];
  if (users.length > 0) {
    lines.push(`  ${pad('users')}${users.map((u) => `${u.name} (${u.mechanism ?? options.sasl?.mechanisms?.join(', ')})`).join(', ')}`);
  }
  for (const t of cluster.inspect.topics()) {
    lines.push(`  ${pad('topic')}${t.name}: ${t.partitions.length} partition(s), replication ${t.partitions[0]?.replicas.length ?? 0}`);
  }
  for (const [k, v] of Object.entries(options.brokerConfigs ?? {})) lines.push(`  ${pad('config')}${k}=${v}`);
  return `${lines.join('\n')}\n`;
}

export async function runBroker(o: BrokerOptions): Promise<MockCluster> {
  const options = brokerClusterOptions(o);
  const topics = (o.topics ?? []).map(parseTopic);
  const cluster = await MockCluster.start(options);
  for (const [i, t] of topics.entries()) {
    try {
      cluster.createTopic(t.name, t.partitions, t.replicationFactor);
    } catch (e) {
      await cluster.stop();
      // Kafka's own error (INVALID_REPLICATION_FACTOR, INVALID_PARTITIONS, TOPIC_ALREADY_EXISTS ...) is the cause.
      throw new KafkaEosError('CONFIG_INVALID', `--topic ${o.topics![i]}: ${(e as Error).message}`, { cause: e });
    }
  }
  if (o.verbose) cluster.events.on((e) => process.stdout.write(`${eventLine(e)}\n`));
  process.stdout.write(brokerSummary(cluster, o, options));
  let registry: SchemaRegistryServer | undefined;
  if (o.schemaRegistryPort !== undefined) {
    try {
      registry = await SchemaRegistryServer.start({ port: o.schemaRegistryPort, host: o.host });
    } catch (e) {
      await cluster.stop();
      throw new KafkaEosError('MOCK_LISTEN_FAILED',
        `cannot serve the Schema Registry on ${o.host}:${o.schemaRegistryPort}: ${(e as Error).message}`,
        { cause: e });
    }
    process.stdout.write(`kafka-eos schema registry: ${registry.url}\n`);
  }
  const shutdown = () => {
    void Promise.all([cluster.stop(), registry?.stop()]).then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return cluster;
}
