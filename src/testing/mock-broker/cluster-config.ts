/**
 * The mock cluster's configuration as MockCluster.start resolves it (broker configs in Kafka's
 * terms). Its own module so that the config modules can read it without importing the cluster.
 */
import type { GroupCoordinatorConfig } from './groups/types';
import type { TransactionCoordinatorConfig } from './transactions/coordinator';

export interface ClusterConfig {
  clusterId: string;
  /** auto.create.topics.enable (Kafka default true). */
  autoCreateTopics: boolean;
  /** What Metadata answers for a topic it creates: kraft (UNKNOWN_TOPIC_OR_PARTITION) or zookeeper (LEADER_NOT_AVAILABLE). */
  autoCreateTopicsAs?: 'kraft' | 'zookeeper';
  /** num.partitions for auto-created topics and CreateTopics with -1 (Kafka default 1). */
  defaultPartitions: number;
  /** default.replication.factor (capped at the broker count). */
  defaultReplicationFactor: number;
  /**
   * The static broker configs every broker starts with (server.properties: message.max.bytes, log.retention.ms...),
   * the STATIC_BROKER_CONFIG level of broker-configs.ts; topic defaults derive from them.
   */
  staticBrokerConfigs: ReadonlyMap<string, string>;
  /** The most bytes one compressed record batch may decompress to (a mock bound, default 32 MiB; see record-batch.ts). */
  maxDecompressedBatchBytes?: number;
  group: Partial<GroupCoordinatorConfig>;
  /** Transaction coordinator settings (transaction.max.timeout.ms, marker delay). */
  transactions?: Partial<TransactionCoordinatorConfig>;
}
