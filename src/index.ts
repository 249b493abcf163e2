/**
 * kafka-eos: exactly-once Kafka consumers for Node.js on KafkaJS 2.2.4.
 *
 * - {@link createGroupConsumer}: a consumer-group client with pluggable commit strategies.
 * - Assignors with Java's protocol names: `range`, `roundrobin`, `sticky`.
 * - {@link SqlSink}: output and offsets in one transaction, fenced by compare-and-set.
 * - {@link SqlOffsetStore}: the SQL offsets table on its own, for hand-written transactions.
 * The embedded mock Kafka cluster is the separate entry point `kafka-eos/mock-broker`.
 */
export { KafkaEosError } from './errors';
export { createGroupConsumer, GroupConsumer } from './consumer/group-consumer';
export { ConfigError } from './consumer/options';
export type { Delivery, GroupConsumerOptions, HandlerBatch } from './consumer/options';
export type { ConsumerState } from './consumer/lifecycle';
export { IllegalStateError } from './consumer/lifecycle';
export { atMostOnce } from './consumer/strategies/at-most-once';
export { atLeastOnce } from './consumer/strategies/at-least-once';
export { exactlyOnce } from './consumer/strategies/exactly-once';
export type { BatchOutcome, CommitStrategy, StrategyBatch, StrategyContext } from './consumer/strategies/types';
export * from './consumer/assignors';
export type { ExactlyOnceSink, SinkBatch, SinkRecord, TopicPartition, WriteResult } from './sinks/sink';
export { partitionKey } from './sinks/sink';
export * from './sinks/sql';
export type { OffsetStore } from './offsets/offset-store';
export { SqlOffsetStore, DEFAULT_OFFSETS_TABLE } from './offsets/sql-store';
export type { SqlOffsetStoreOptions, WithOffsetsResult } from './offsets/sql-store';
