/**
 * kafka-eos: exactly-once Kafka consumers for Node.js on KafkaJS 2.2.4.
 *
 * - {@link createGroupConsumer}: a consumer-group client with pluggable commit strategies.
 * - Assignors with Java's protocol names: `range`, `roundrobin`, `sticky`.
 * - {@link SqlSink}: output and offsets in one transaction, fenced by compare-and-set.
 * - {@link KafkaSink}: consume, transform, produce exactly once: output and offsets in one Kafka transaction (KIP-447).
 * - {@link SqlOffsetStore}: the SQL offsets table on its own, for hand-written transactions.
 * - {@link createConverter}, {@link SchemaRegistryClient}: Connect's converters and Confluent's registry client
 *   (the `keyConverter` / `valueConverter` / `schemaRegistry` options; docs/converters.md).
 * The embedded mock Kafka cluster is the separate entry point `kafka-eos/mock-broker`.
 */
export { KafkaEosError } from './errors';
export { createGroupConsumer, GroupConsumer } from './consumer/group-consumer';
export type { StopOptions } from './consumer/group-consumer';
export { ConfigError } from './consumer/options';
export type {
  BatchHandler, Delivery, GroupConsumerOptions, GroupProtocol, HandlerBatch, ManualAssignment, PoisonPolicy, RebalanceListeners,
  RecordContext, RecordHandler, RetryOptions,
} from './consumer/options';
export {
  CommitDeferredError, CorruptRecordBatchError, FencedInstanceIdError, MaxProcessingTimeExceededError, PoisonMessageError,
  UnknownTopicError,
  UnsupportedCompressionError, UnsupportedKafkaJsError,
} from './consumer/errors';
export type { BatchLocation } from './consumer/errors';
export { KAFKAJS_CODECS, MAX_DECOMPRESSED_BATCH_BYTES, registerKafkaJsCodecs } from './consumer/codecs';
export type { KafkaJsCodec } from './consumer/codecs';
export { StoredOffsetOutOfRangeError } from './consumer/strategies/exactly-once';
export { DEAD_LETTER_HEADERS } from './consumer/retry';
export { SUPPORTED_KAFKAJS_VERSION } from './consumer/kafka/transport';
export type { ConsumerMetricsSnapshot, PartitionMetrics, RebalanceRecord } from './consumer/metrics';
export type { ConsumerState } from './consumer/lifecycle';
export type { GroupConsumerEvents, GroupConsumerEventMap } from './consumer/events';
export { IllegalStateError } from './consumer/lifecycle';
export { atMostOnce } from './consumer/strategies/at-most-once';
export { atLeastOnce } from './consumer/strategies/at-least-once';
export { exactlyOnce } from './consumer/strategies/exactly-once';
export type { BatchOutcome, CommitStrategy, ProcessResult, StrategyBatch, StrategyContext } from './consumer/strategies/types';
export type { AtLeastOnceOptions } from './consumer/strategies/at-least-once';
export * from './consumer/assignors';
export type { ExactlyOnceSink, GroupMetadata, SinkContext, WriteResult } from './sink-contract';
export type { OutputRecord, RecordSchema, RecordSchemaType, SchemaAndValue, SinkBatch, SinkRecord, TopicPartition } from './records';
export { CONVERTER_NAMES, createConverter } from './consumer/converters/converter';
export type { ConverterConfig, ConverterName, RecordConverter } from './consumer/converters/converter';
export { SchemaRegistryClient, SchemaRegistryError, subjectName } from './consumer/converters/registry-client';
export type {
  RegisteredSchema, SchemaReference, SchemaRegistryClientOptions, SchemaType, SubjectNameStrategy, SubjectVersion,
} from './consumer/converters/registry-client';
export { rejectedRecord } from './sink-contract';
export { partitionKey } from './records';
export { GroupCommitSink } from './consumer/group-commit';
export type { GroupCommitOptions } from './consumer/group-commit';
export { commitWithReread } from './sinks/lost-ack';
export type { LostAckOptions, LostAckResult, LostAckRetry, LostAckVerdict } from './sinks/lost-ack';
export * from './sinks/sql';
export type { OffsetStore } from './sinks/offset-store';
export { SqlOffsetStore, DEFAULT_OFFSETS_TABLE } from './sinks/sql/offset-store';
export type { SqlOffsetStoreOptions, WithOffsetsResult } from './sinks/sql/offset-store';
export type { SqlTx } from './sinks/sql/raw-transaction';
export { assertGroupInactive, describeGroupOffsets, executeOffsetReset, GroupActiveError, planOffsetReset } from './offsets/group-offsets';
export type {
  GroupMemberInfo, GroupOffsetsDescription, GroupOffsetsTarget, PartitionOffsets, ResetPlan, ResetPlanEntry, ResetSpec,
  ResetStore, SourceOfTruth,
} from './offsets/group-offsets';
export { ConsumerPrometheusMetrics, errorCodeOf } from './metrics/prometheus';
export type { ConsumerPrometheusOptions } from './metrics/prometheus';
export { serveMetrics } from './metrics/server';
export { ConsumerHealth, HEALTH_STATES } from './metrics/health';
export type { ConsumerHealthOptions, HealthReport, HealthState } from './metrics/health';
export { DEFAULT_SINK_BLOCKED_TIMEOUT_MS, guardBlockedSink, refusalTarget } from './consumer/sink-blocked';
export type { RefusalTarget, SinkBlockedInfo, SinkBlockedOptions } from './consumer/sink-blocked';
export type { MetricsServer } from './metrics/server';
export { listStoredPositions, overwriteStoredPositions, sqlPositionStore } from './offsets/sql-positions';
export type { StoredPosition } from './offsets/sql-positions';
export type { SinkPositionStore } from './offsets/group-offsets';
export { HdfsPositionStore } from './offsets/hdfs-positions';
export type { HdfsMove, HdfsPositionsOptions } from './offsets/hdfs-positions';
export * from './sinks/hdfs';
export * from './sinks/kafka';
export { timelineFromMockEvents, TimelineRecorder } from './timeline/model';
export type {
  MockEventEntry, OwnershipSpan, RebalanceBand, Timeline, TimelineEvent, TimelineEventKind, TimelineMember,
} from './timeline/model';
export { memberColour, renderTimelineHtml } from './timeline/render';
