/**
 * Entry point `kafka-eos/mock-broker`: the embedded mock Kafka cluster (src/testing/mock-broker), its test
 * helpers, and the rebalance-timeline helpers for jest (timeline/testing.ts). Importing it also registers
 * snappy, lz4 and zstd into KafkaJS's CompressionCodecs (consumer/codecs.ts), so the KafkaJS clients of a
 * test can produce and read every codec the mock stores.
 */
import { registerKafkaJsCodecs } from './consumer/codecs';

export * from './testing/mock-broker';
export { withTimelineOnFailure, writeMockTimeline } from './timeline/testing';
export type { HasEventLog } from './timeline/testing';

registerKafkaJsCodecs();
