/**
 * `kafka-eos broker`: a standalone mock cluster that serves until interrupted. Brokers listen
 * on consecutive ports from --port and advertise --host, so a client seeded with one address
 * finds them all. With --verbose every event-log entry (group transitions, joins, assignments,
 * topology changes) is printed to stdout as one JSON line.
 */
import { KafkaEosError } from '../errors';
import { MockCluster } from '../testing/mock-broker';
import type { EventLogEntry } from '../testing/mock-broker';
import { SchemaRegistryServer } from '../testing/schema-registry/server';

export interface BrokerOptions {
  port: number;
  brokers: number;
  host: string;
  initialRebalanceDelayMs: number;
  /** group.min.session.timeout.ms (default: the coordinator's, 6000 as in Kafka). */
  minSessionTimeoutMs?: number;
  /** retention.bytes per partition (-1 = unbounded, the default). */
  retentionBytes?: number;
  /** retention.ms (-1 = unbounded, the default). */
  retentionMs?: number;
  /** Print every event-log entry to stdout as a JSON line. */
  verbose?: boolean;
  /** Also serve a Schema Registry (Confluent's REST API) on this port of `host` (0 = any free port). */
  schemaRegistryPort?: number;
  /** Topics to create at start (see {@link parseTopicSpec}). */
  topics?: TopicSpec[];
}

/** A topic `kafka-eos broker --topic` creates: `name:partitions[:replication]`. */
export interface TopicSpec { name: string; partitions: number; replicationFactor: number }

/**
 * Parses `name:partitions[:replication]` (replication default 1). The name is checked by the cluster
 * (Kafka's legal characters) when the topic is created. @throws KafkaEosError CONFIG_INVALID.
 */
export function parseTopicSpec(spec: string): TopicSpec {
  const m = /^([^:]+):(\d{1,6})(?::(\d{1,3}))?$/.exec(spec);
  if (!m) {
    throw new KafkaEosError('CONFIG_INVALID', `--topic ${JSON.stringify(spec)}: expected name:partitions[:replication], e.g. flights:6:3`);
  }
  return { name: m[1]!, partitions: Number(m[2]), replicationFactor: m[3] === undefined ? 1 : Number(m[3]) };
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

export async function runBroker(o: BrokerOptions): Promise<MockCluster> {
  const cluster = await MockCluster.start({
    brokers: o.brokers, port: o.port, host: o.host,
    retentionBytes: o.retentionBytes, retentionMs: o.retentionMs,
    group: {
      initialRebalanceDelayMs: o.initialRebalanceDelayMs,
      ...(o.minSessionTimeoutMs === undefined ? {} : { minSessionTimeoutMs: o.minSessionTimeoutMs }),
    },
  });
  if (o.verbose) cluster.events.on((e) => process.stdout.write(`${eventLine(e)}\n`));
  for (const t of o.topics ?? []) {
    try {
      cluster.createTopic(t.name, t.partitions, t.replicationFactor);
    } catch (e) {
      await cluster.stop();
      // Kafka's own error (INVALID_REPLICATION_FACTOR, INVALID_PARTITIONS, TOPIC_ALREADY_EXISTS ...) is the cause.
      throw new KafkaEosError('CONFIG_INVALID', `--topic ${t.name}:${t.partitions}:${t.replicationFactor}: ${(e as Error).message}`,
        { cause: e });
    }
  }
  process.stdout.write(`kafka-eos mock cluster: ${o.brokers} brokers at ${cluster.bootstrap.join(',')}\n`);
  let registry: SchemaRegistryServer | undefined;
  if (o.schemaRegistryPort !== undefined) {
    try {
      registry = await SchemaRegistryServer.start({ port: o.schemaRegistryPort, host: o.host });
    } catch (e) {
      await cluster.stop();
      throw new KafkaEosError('MOCK_LISTEN_FAILED',
        `cannot serve the Schema Registry on ${o.host}:${o.schemaRegistryPort}: ${(e as Error).message}`, { cause: e });
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
