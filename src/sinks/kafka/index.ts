/** KafkaSink (exactly-once consume-transform-produce, KIP-447) and readKafkaSinkOutput. See docs/kafka-sink.md. */
export {
  DEFAULT_KAFKA_SINK_TRANSACTION_TIMEOUT_MS, DEFAULT_TRANSACTIONAL_ID_PREFIX, KafkaSink,
} from './kafka-sink';
export type { KafkaSinkOptions } from './kafka-sink';
export { KafkaOutputInvalidError, KafkaProducerFencedError, KafkaTxnError } from './transactional-producer';
export { KAFKA_DEFAULT_MAX_MESSAGE_BYTES } from './output-check';
export { KafkaOutputUnstableError, readKafkaSinkOutput } from './read-output';
export type { ReadKafkaSinkOutputOptions } from './read-output';
export { TXN_PRODUCER_TRANSITIONS } from './producer-state';
export type { TxnProducerState } from './producer-state';
