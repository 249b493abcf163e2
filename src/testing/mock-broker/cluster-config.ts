/**
 * The mock cluster's configuration as MockCluster.start resolves it (broker configs in Kafka's
 * terms). Its own module so that config-defaults.ts can read it without importing the cluster.
 */
import type { GroupCoordinatorConfig } from './groups/types';
import type { RetentionPolicy } from './partition-log';
import type { TransactionCoordinatorConfig } from './transactions/coordinator';

export interface ClusterConfig {
  clusterId: string;
  /** auto.create.topics.enable (Kafka default true). */
  autoCreateTopics: boolean;
  /** num.partitions for auto-created topics and CreateTopics with -1 (Kafka default 1). */
  defaultPartitions: number;
  /** default.replication.factor (capped at the broker count). */
  defaultReplicationFactor: number;
  retention: RetentionPolicy;
  /** message.max.bytes: largest record batch accepted (Kafka default 1048588). */
  maxMessageBytes: number;
  /** The most bytes one compressed record batch may decompress to (a mock bound, default 32 MiB; see record-batch.ts). */
  maxDecompressedBatchBytes?: number;
  group: Partial<GroupCoordinatorConfig>;
  /** Transaction coordinator settings (transaction.max.timeout.ms, marker delay). */
  transactions?: Partial<TransactionCoordinatorConfig>;
}

/** What DescribeConfigs' defaults read: the cluster's configuration and the group coordinator's. */
export interface ConfigInputs {
  readonly config: ClusterConfig;
  readonly groups: { readonly config: GroupCoordinatorConfig };
}
