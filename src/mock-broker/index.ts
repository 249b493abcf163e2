/** Entry point `kafka-eos/mock-broker`: the embedded mock Kafka cluster and its test helpers. */
export { MockCluster, MockClusterError } from './mock-cluster';
export type { MockClusterOptions, PartitionView } from './mock-cluster';
export { TopicError } from './cluster';
export { ErrorCode, errorName } from './protocol/error-codes';
export { encodeBatch, decodeBatch, decodeBatches, Compression } from './protocol/record-batch';
