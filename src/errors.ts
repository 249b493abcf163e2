/**
 * The one error table of kafka-eos.
 *
 * - {@link ErrorCodeOf}: the union of every code a {@link KafkaEosError} carries.
 * - {@link KAFKA_ERRORS}: Apache Kafka's protocol errors (numbers from
 *   `org.apache.kafka.common.protocol.Errors`) with what a client should do about each: `retriable`
 *   (a `RetriableException` in Java: the same call may succeed later), `needsRejoin` (the member's
 *   generation is gone: rejoin the group), `staleMetadata` (refresh metadata or find the coordinator
 *   again before retrying), `fenced` (another instance took over: stop). The mock cluster answers
 *   with these codes and the SDK decides by these flags; nobody matches error names by string.
 * - {@link isRetriable}: the one answer to "may this be retried", for our errors, Kafka errors (by
 *   code, through KafkaJS's wrappers) and connection errors.
 */

/**
 * Every code of a {@link KafkaEosError}. A new error code is added here (tsc refuses an unknown one),
 * so this list stays the one place that names them all.
 */
export type ErrorCodeOf =
  // options and input
  | 'CONFIG_INVALID' | 'DATASET_INVALID' | 'INVALID_RECORDS' | 'INVALID_FAULT'
  // consumer
  | 'NOT_RUNNING' | 'ILLEGAL_STATE' | 'NOT_ASSIGNED' | 'UNKNOWN_PARTITION' | 'UNKNOWN_TOPIC' | 'UNSUPPORTED_KAFKAJS'
  | 'FENCED_INSTANCE_ID' | 'MAX_PROCESSING_TIME_EXCEEDED' | 'POISON_MESSAGE' | 'COMMIT_ON_REVOKE_FAILED'
  | 'KAFKA_CALL_FAILED' | 'STORED_OFFSET_OUT_OF_RANGE' | 'UNSUPPORTED_COMPRESSION' | 'RECORD_BATCH_CORRUPT'
  | 'ASSIGNOR_INTERNAL' | 'ASSIGNOR_INVALID_INPUT' | 'CONSUMER_PROTOCOL_DECODE' | 'CONSUMER_PROTOCOL_ENCODE'
  // sinks
  | 'SINK_BATCH_INVALID' | 'SINK_CLOSED' | 'SINK_MAPPING_FAILED' | 'SINK_RETRIES_EXHAUSTED' | 'SINK_UNAVAILABLE' | 'SINK_WRITE_FAILED'
  | 'SINK_WRITE_REFUSED' | 'DRIVER_MISSING' | 'HDFS_REQUEST_FAILED'
  // converters and the Schema Registry
  | 'RECORD_CONVERSION_FAILED' | 'SCHEMA_NOT_FOUND' | 'SCHEMA_INVALID' | 'SCHEMA_REGISTRY_UNAVAILABLE' | 'SCHEMA_REGISTRY_REQUEST_FAILED'
  // CLI and offsets tools
  | 'DEMO_DATA_MISSING' | 'DEMO_TABLE_REFUSED' | 'GROUP_ACTIVE' | 'OFFSETS_STORE_MISSING' | 'OFFSETS_GROUP_UNKNOWN'
  | 'METRICS_PORT_UNAVAILABLE' | 'KAFKA_UNAVAILABLE'
  | 'INVALID_SESSION_TIMEOUT' | 'START_FAILED' | 'CONSUMER_FAILED' | 'OFFSETS_POSITION_UNALIGNED' | 'KAFKA_AUTHENTICATION_FAILED'
  // mock cluster
  | 'MOCK_LISTEN_FAILED' | 'MOCK_WAIT_TIMEOUT' | 'MALFORMED_FRAME' | 'SASL_AUTHENTICATION_REQUIRED'
  | 'UNKNOWN_BROKER' | 'UNKNOWN_LISTENER' | 'BROKER_DOWN' | 'ILLEGAL_BROKER_TRANSITION' | 'ILLEGAL_GROUP_TRANSITION' | 'ILLEGAL_TXN_TRANSITION'
  | 'INVALID_ACL' | 'INVALID_CLIENT_QUOTA' | 'INVALID_CONFIG' | 'TOPIC_ALREADY_EXISTS' | 'INVALID_TOPIC_EXCEPTION' | 'INVALID_PARTITIONS'
  | 'INVALID_REPLICATION_FACTOR' | 'UNKNOWN_TOPIC_OR_PARTITION' | 'INVALID_REPLICA_ASSIGNMENT' | 'INVALID_REQUEST';

/**
 * Typed errors. Every error the SDK throws is a {@link KafkaEosError} with a stable `code`.
 * `retriable` is false unless a subclass says otherwise: callers retry only what is known to be safe.
 */
export class KafkaEosError extends Error {
  readonly code: ErrorCodeOf;
  readonly retriable: boolean;
  constructor(code: ErrorCodeOf, message: string, options: { retriable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}

/**
 * `error`, then its `cause` (or KafkaJS's `originalError`), and so on: at most 8, never the same twice.
 * The one walker of cause chains; every "is X inside this error" question is answered through it.
 */
export function causesOf(error: unknown): unknown[] {
  const out: unknown[] = [];
  let cur = error;
  for (let i = 0; i < 8 && cur && typeof cur === 'object' && !out.includes(cur); i++) {
    out.push(cur);
    const c = cur as { cause?: unknown; originalError?: unknown };
    cur = c.cause ?? c.originalError;
  }
  return out;
}

/**
 * The first {@link KafkaEosError} in `error`'s cause chain (`error` itself included), or undefined:
 * our typed error inside the wrappers KafkaJS puts around what it cannot retry (KafkaJSNonRetriableError).
 */
export function kafkaEosErrorOf(error: unknown): KafkaEosError | undefined {
  return causesOf(error).find((c): c is KafkaEosError => c instanceof KafkaEosError);
}
