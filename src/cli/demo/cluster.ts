/**
 * The demo's Kafka cluster: the embedded 3-broker mock (default), or an external cluster named with
 * `--brokers` (a `kafka-eos broker` process, or Apache Kafka). The demo reaches either through the same
 * interface: bootstrap addresses, topic creation, high watermarks (ListOffsets, as any client reads them), and
 * what only the embedded mock can tell (the codec of stored batches, the group's generations and event log).
 */
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { KafkaEosError } from '../../errors';
import { MockCluster } from '../../testing/mock-broker';

/** A topic the demo will not create on an external cluster because it exists already. Code DEMO_TOPIC_REFUSED. */
export class DemoTopicError extends KafkaEosError {
  constructor(readonly topics: string[], brokers: string[]) {
    super('DEMO_TOPIC_REFUSED', `topic${topics.length > 1 ? 's' : ''} ${topics.join(', ')} exist${topics.length > 1 ? '' : 's'} `
      + `on ${brokers.join(',')}: the demo never deletes or reuses a topic on an external cluster (its records would mix with `
      + 'this run\'s); delete it (kafka-topics.sh --delete) or point --brokers at another cluster');
  }
}

/** What the demo needs of a cluster. */
export interface DemoCluster {
  /** Bootstrap addresses for the workers, the producer and the demo's own clients. */
  readonly bootstrap: string[];
  /** The embedded mock, or null for an external cluster (then the checks that read the mock's state are not made). */
  readonly embedded: MockCluster | null;
  /** Shown in the demo's first line. */
  readonly description: string;
  /** An admin client, connected. */
  readonly admin: Admin;
  /**
   * Creates the topics (replication min(3, brokers)); on an external cluster refuses any that exists already.
   * @throws DemoTopicError (DEMO_TOPIC_REFUSED) before creating any; KafkaJS's admin errors.
   */
  createTopics(topics: { topic: string; partitions: number }[]): Promise<void>;
  /** High watermark per partition (ListOffsets latest). */
  highWatermarks(topic: string): Promise<Map<number, number>>;
  stop(): Promise<void>;
}

/** The cluster options the demo sets on the embedded mock (an external cluster has its own). */
export interface EmbeddedGroupConfig { sessionTimeoutMs: number; heartbeatIntervalMs: number }

/**
 * Starts the embedded mock, or connects to `brokers`.
 * @throws KafkaEosError KAFKA_UNAVAILABLE when the admin client cannot connect (the embedded mock is stopped again).
 */
export async function startDemoCluster(brokers: string[] | undefined, group: EmbeddedGroupConfig): Promise<DemoCluster> {
  // KIP-848: the broker sets the session timeout and heartbeat interval (group.consumer.*).
  const embedded = brokers ? null : await MockCluster.start({ brokers: 3, group: {
    initialRebalanceDelayMs: 500, minSessionTimeoutMs: 1000, consumerSessionTimeoutMs: group.sessionTimeoutMs,
    consumerHeartbeatIntervalMs: group.heartbeatIntervalMs,
  } });
  const bootstrap = brokers ?? embedded!.bootstrap;
  const kafka = new Kafka({ clientId: 'kafka-eos-demo', brokers: bootstrap, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  try {
    await admin.connect();
  } catch (e) {
    await embedded?.stop();
    throw new KafkaEosError('KAFKA_UNAVAILABLE', `--brokers ${bootstrap.join(',')}: ${(e as Error).message}`, { cause: e });
  }
  return {
    bootstrap,
    embedded,
    admin,
    description: embedded ? 'the embedded 3-broker cluster' : `the cluster at ${bootstrap.join(',')}`,
    async createTopics(topics) {
      if (!embedded) {
        const existing = new Set(await admin.listTopics());
        const clash = topics.map((t) => t.topic).filter((t) => existing.has(t));
        if (clash.length > 0) throw new DemoTopicError(clash, bootstrap);
      }
      const { brokers: nodes } = await admin.describeCluster();
      const replicationFactor = Math.min(3, nodes.length);
      await admin.createTopics({
        topics: topics.map((t) => ({ topic: t.topic, numPartitions: t.partitions, replicationFactor })), waitForLeaders: true,
      });
    },
    async highWatermarks(topic) {
      if (embedded) return new Map(embedded.partitions(topic).map((p) => [p.partition, p.highWatermark]));
      return new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
    },
    async stop() {
      await admin.disconnect().catch(() => undefined);
      await embedded?.stop();
    },
  };
}
