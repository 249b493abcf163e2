/**
 * The one error table of kafka-eos.
 *
 * - {@link ERROR_CODES}: per code its meaning, whether it is retriable and what the caller should do;
 *   {@link ErrorCodeOf}, the union of every code a {@link KafkaEosError} carries, derives from it.
 * - {@link KafkaEosError}: every error kafka-eos throws on a public path, with a code from the table.
 * - {@link causesOf}: the one walker of cause chains.
 *
 * Apache Kafka's own protocol errors (with their action flags) are a separate table, `KAFKA_ERRORS` in
 * protocol/kafka-errors.ts; an SDK error that carries one names it in its cause or `kafkaError`.
 */

/**
 * Whether an error with a given code may succeed if the same call is tried again: `yes`, `no`, or
 * `per-error` (the instance says, e.g. a WebHDFS answer of 5xx is, a 4xx is not).
 */
export type Retriability = 'yes' | 'no' | 'per-error';

/** One row of {@link ERROR_CODES}. */
export interface ErrorCodeInfo {
  /** What went wrong, in words. */
  readonly meaning: string;
  /** Whether the same call may succeed later (the default `retriable` of a {@link KafkaEosError} with this code). */
  readonly retriable: Retriability;
  /** What the caller (the user's code, an operator, a test) should do about it. */
  readonly action: string;
}

const row = (retriable: Retriability, meaning: string, action: string): ErrorCodeInfo => ({ retriable, meaning, action });

/**
 * The one table of kafka-eos error codes: per code its meaning, whether it is retriable and what the caller
 * should do. {@link ErrorCodeOf} derives from it, so a new code is one new row here (tsc refuses an unknown code,
 * and test/errors.test.ts fails when a `new KafkaEosError` in src/ names a code without a row). One row per code,
 * grouped by area, so branches that add codes merge as added lines.
 */
export const ERROR_CODES = {
  // ---- options and input
  CONFIG_INVALID: row('no', 'an option or config value is invalid; the error names the field', 'fix the named field'),
  DATASET_INVALID: row('no', "the demo's dataset file is not what the demo expects", 'reinstall vega-datasets or fix --rows'),
  INVALID_RECORDS: row('no', 'a records blob fails validation (framing, CRC, compression, size)', 'the producer sent bad bytes: fix it'),
  INVALID_FAULT: row('no', 'a mock fault rule is invalid (count, error code, delay)', 'fix the fault rule the test gives'),
  INVALID_ARGUMENT: row('no', 'an argument of a public call is outside its range (a negative position, an unknown API key)',
    'fix the argument named'),
  INTERNAL_ERROR: row('no', 'an internal invariant does not hold (two handlers for one API key, a row beyond its write)',
    'a bug: report it with the message'),
  PROTOCOL_ENCODE: row('no', 'a value cannot be written in its Kafka type (an int64 out of range, a string over 32767 bytes)',
    'fix the value named'),
  // ---- consumer
  NOT_RUNNING: row('no', 'the consumer is not running (not started, stopped or failed)', 'start() it, or read the failure it names'),
  ILLEGAL_STATE: row('no', 'a state machine was asked for a move its table forbids', 'a bug: report it with the message'),
  STOP_TIMEOUT: row('no', 'stop({ timeoutMs }) ran out: what was owned then is named; connections were closed',
    'nothing to redo: the next owner consumes again past the last commit'),
  NOT_ASSIGNED: row('no', 'a partition this member does not own: a batch for it (a bug), or pause()/resume()/seek() of it',
    'pass only partitions of assignment(); a batch for one is a bug: report it'),
  SEEK_UNSUPPORTED: row('no', 'seek() under exactly-once with a sink that cannot move its stored position (the HDFS sink: its '
    + 'positions are its files)', 'stop the group and move the positions with kafka-eos offsets reset, or use a SQL sink'),
  SEEK_FENCED: row('no', 'seek() found the sink\'s stored position moved by another writer: nothing was moved',
    'nothing to do here: the partition belongs to another member now; seek where it is assigned'),
  UNKNOWN_PARTITION: row('no', 'the partition named does not exist', 'name an existing partition'),
  UNKNOWN_TOPIC: row('no', 'a subscribed or named topic does not exist', 'create the topic or fix its name'),
  UNSUPPORTED_KAFKAJS: row('no', 'the installed KafkaJS is not the version the adapter is pinned to (2.2.4)', 'install kafkajs 2.2.4'),
  FENCED_INSTANCE_ID: row('no', 'another process took over this group.instance.id (KIP-345)',
    'stop this instance; run one process per instance id'),
  MAX_PROCESSING_TIME_EXCEEDED: row('no', 'a handler ran longer than maxProcessingTimeMs; the member left the group',
    'make the handler faster or raise maxProcessingTimeMs'),
  POISON_MESSAGE: row('no', 'a record failed every retry and the poison policy is fail',
    'fix the record or the handler, or use skip / dead-letter'),
  COMMIT_ON_REVOKE_FAILED: row('no', 'the commit before giving partitions up failed',
    'none: the next owner re-reads the committed position'),
  KAFKA_CALL_FAILED: row('no', "one of the SDK's own Kafka calls failed for good (not retriable, or retries spent)",
    'read the Kafka error in its cause; check the cluster'),
  COMMIT_DEFERRED: row('yes', 'an offset commit would have to wait for a rebalance under way, and the caller asked not to wait',
    'none: the progress is kept and committed with a later batch or on revoke'),
  REJOIN_NEEDED: row('yes', 'a JoinGroup or SyncGroup was answered with an error that means join again (classic protocol)',
    'none: the join loop goes round again; never reaches user code'),
  STORED_OFFSET_OUT_OF_RANGE: row('no', "the sink's stored position is outside the partition's log",
    'reset the offsets (kafka-eos offsets reset)'),
  UNSUPPORTED_COMPRESSION: row('no', 'a batch uses a compression codec this process cannot read',
    'install the codec or change the producer'),
  RECORD_BATCH_CORRUPT: row('no', 'a fetched batch cannot be decoded (CRC, framing, decompression bound)', 'inspect the partition named'),
  ASSIGNOR_INTERNAL: row('no', 'an assignor broke its own invariant', 'a bug: report it with the message'),
  ASSIGNOR_INVALID_INPUT: row('no', 'an assignor got input no cluster sends (a negative partition count)', 'check the metadata'),
  CONSUMER_PROTOCOL_DECODE: row('no', "a member's ConsumerProtocol bytes cannot be read", 'the member runs an incompatible client: fix it'),
  CONSUMER_PROTOCOL_ENCODE: row('no', 'a ConsumerProtocol value cannot be written (out of range)', 'a bug: report it with the message'),
  // ---- sinks
  SINK_BATCH_INVALID: row('no', 'the batches handed to write() are inconsistent; nothing was sent', 'a bug in the caller: fix the batches'),
  SINK_CLOSED: row('no', 'write() or open() after close()', 'open a new sink'),
  SINK_MAPPING_FAILED: row('no', 'a record cannot be mapped to a row or file; it names the record',
    'the poison policy decides (skip, dead-letter, fail)'),
  SINK_RETRIES_EXHAUSTED: row('yes', 'the store stayed unavailable past the retry budget; the outcome is unknown',
    'open() again (re-reads the stored positions), then retry'),
  SINK_UNAVAILABLE: row('per-error', 'the store cannot be reached or used (retriable: busy or unreachable while positions are read)',
    'check the database or HDFS named'),
  SINK_WRITE_FAILED: row('per-error', 'the store rejected the write (a constraint, a type, a failed commit)',
    'read the cause; a record named is at fault'),
  SINK_BLOCKED: row('no', 'the store refused every write for sinkBlockedTimeoutMs (a missing table or column, a privilege, '
    + 'read-only); nothing was skipped', 'fix the table or privilege named, then start again: it resumes from the stored positions'),
  SINK_WRITE_REFUSED: row('yes', 'the store refuses writes altogether (privilege, missing table, read-only, full)',
    'fix the store; the consumer keeps its partitions and retries'),
  SCHEMA_EVOLUTION_REFUSED: row('no', "a record's schema changed in a way its table cannot follow (a field's type changed, a new "
    + 'required field, a new field with auto.evolve off); the error names the table, column and field; the connector stops',
    'change the table yourself (ALTER TABLE) or the producer, then start again'),
  DRIVER_MISSING: row('no', 'the database driver a config needs is not installed', 'npm install the package named'),
  KAFKA_TXN_ABORTED: row('yes', "KafkaSink's transaction was aborted before it committed (its own transaction timeout, a "
    + 'revoke or loss of a partition in it, a retriable error past its retries); nothing of it is visible',
  'none: the consumer re-reads the committed positions and writes the batch again'),
  KAFKA_TXN_FAILED: row('per-error', "a call of KafkaSink's transactional producer was refused (the Kafka error is its cause); "
    + 'the transaction was aborted', 'read the Kafka error in its cause (authorization, configuration)'),
  KAFKA_PRODUCER_FENCED: row('no', "another producer took over KafkaSink's transactional.id (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH "
    + 'after re-initialising failed): a second instance with the same id', 'run one member per transactionalId; stop this one'),
  KAFKA_OUTPUT_INVALID: row('no', 'a handler returned an output record KafkaSink cannot produce (no topic, a partition the topic '
    + "has not, a key, value or header that is not bytes, a string or null, a record above the topic's max.message.bytes)",
  'the poison policy decides (skip, dead-letter, fail); fix the handler: the error names the field and the input record'),
  KAFKA_OUTPUT_UNSTABLE: row('yes', "readKafkaSinkOutput: the partition's last stable offset did not reach its high watermark in "
    + 'stableTimeoutMs (a transaction is still open, e.g. of a killed member until transaction.timeout.ms)',
  'wait longer (stableTimeoutMs), or restart the member so that InitProducerId aborts its transaction'),
  HDFS_REQUEST_FAILED: row('per-error', 'a WebHDFS request failed (retriable: no answer or 5xx)',
    'read the RemoteException; check the NameNode'),
  HDFS_FILE_UNREADABLE: row('no', 'a committed HDFS sink file does not parse in its format (readHdfsSinkOutput)',
    'inspect the file named; it was not written by this sink or was altered'),
  // ---- converters and the Schema Registry
  RECORD_CONVERSION_FAILED: row('no', "a record's key or value does not convert (bad bytes, wire format, schema mismatch)",
    'the poison policy decides (skip, dead-letter, fail)'),
  SCHEMA_NOT_FOUND: row('no', 'the Schema Registry has no schema (or subject version) with the id named',
    'register it, or fix the producer'),
  SCHEMA_INVALID: row('no', 'a schema from the registry cannot be compiled (Avro, Protobuf, JSON Schema)', 'fix the schema registered'),
  SCHEMA_REGISTRY_UNAVAILABLE: row('yes',
    'the Schema Registry cannot be reached (no answer, 5xx, 408, 429, an answer that is not its JSON)',
    'none: retried; check the registry URL'),
  SCHEMA_REGISTRY_REQUEST_FAILED: row('no', 'the Schema Registry refused a request (4xx other than not found; a 404 not its own)',
    "read Confluent's error_code in it; check the URL and the credentials"),
  SCHEMA_INCOMPATIBLE: row('no', "useLatestVersion: the subject's latest version cannot read a record's schema (Avro resolution)",
    'fix the subject (register a version that reads the older ones) or turn useLatestVersion off'),
  // ---- CLI and offsets tools
  DEMO_DATA_MISSING: row('no', "the demo's dataset package is not installed", 'npm install the package named'),
  DEMO_TOPIC_REFUSED: row('no', 'the demo will not create its topics on an external cluster where they exist already',
    'delete the topics named, or use another cluster'),
  DEMO_TABLE_REFUSED: row('no', 'the demo will not write into a table it did not create', 'name another table or drop it'),
  GROUP_ACTIVE: row('no', 'the group has active members; offsets cannot be moved under them', 'stop the members, then retry'),
  OFFSETS_STORE_MISSING: row('no', 'the offsets table or directory named does not exist; nothing changed', 'check the store named'),
  OFFSETS_GROUP_UNKNOWN: row('no', 'the store holds no position for the group named', 'check the group id'),
  OFFSETS_POSITION_UNALIGNED: row('no', 'an HDFS target position falls inside a committed file, or another writer moved',
    'pick the aligned position the error names, or retry'),
  METRICS_PORT_UNAVAILABLE: row('no', 'the metrics port cannot be listened on', 'pick a free port'),
  KAFKA_UNAVAILABLE: row('no', 'the Kafka cluster cannot be reached at start', 'check the brokers named'),
  KAFKA_AUTHENTICATION_FAILED: row('no', 'the cluster refused the SASL mechanism or credentials', 'fix the credentials or mechanism'),
  INVALID_SESSION_TIMEOUT: row('no', "the brokers refused the session timeout (outside group.min/max.session.timeout.ms)",
    'set a session timeout inside the range named'),
  START_FAILED: row('no', 'the consumer failed before its first assignment', 'read the cause'),
  CONSUMER_FAILED: row('no', 'the consumer failed while running', 'read the cause; the process exits 1'),
  // ---- mock cluster and test servers
  KAFKA_PROTOCOL_ERROR: row('per-error',
    "a request the mock refuses as Kafka would, or a broker's answer to the consumer's own requests; `kafkaError` names the error",
    'read kafkaError: the same rules as for a real broker'),
  MOCK_LISTEN_FAILED: row('no', 'a mock broker cannot listen on its port', 'pick a free port'),
  MOCK_WAIT_TIMEOUT: row('no', "a test helper's condition did not hold in time; it shows what it last saw", 'read the last state shown'),
  MALFORMED_FRAME: row('no', 'bytes that do not decode as the Kafka protocol; the connection is closed', 'the client sent bad bytes'),
  UNKNOWN_BROKER: row('no', 'no broker with the id named', 'name an existing broker'),
  UNKNOWN_LISTENER: row('no', 'no listener with the name given', 'name a listener of the cluster (MockCluster.listeners)'),
  BROKER_DOWN: row('no', 'the broker named is down', 'bring it up first'),
  ILLEGAL_BROKER_TRANSITION: row('no', 'a broker lifecycle move from the wrong state (down when down)', 'check the broker state first'),
  ILLEGAL_GROUP_TRANSITION: row('no', "a mock group was asked for a move Kafka's table forbids", 'a bug in the mock: report it'),
  ILLEGAL_TXN_TRANSITION: row('no', "a mock transaction was asked for a move Kafka's table forbids", 'a bug in the mock: report it'),
  INVALID_ACL: row('no', 'an ACL binding or filter Kafka refuses', 'fix the binding'),
} as const satisfies Record<string, ErrorCodeInfo>;

/** Every code of a {@link KafkaEosError}: the keys of {@link ERROR_CODES}. */
export type ErrorCodeOf = keyof typeof ERROR_CODES;

/** The table row of `code`. */
export function errorCodeInfo(code: ErrorCodeOf): ErrorCodeInfo {
  return ERROR_CODES[code];
}

/**
 * Typed errors. Every error the SDK throws is a {@link KafkaEosError} with a stable `code` from {@link ERROR_CODES}.
 * `retriable` is the table's answer for the code; only a `per-error` code takes it from `options.retriable`
 * (default false): callers retry only what is known to be safe.
 */
export class KafkaEosError extends Error {
  readonly code: ErrorCodeOf;
  readonly retriable: boolean;
  constructor(code: ErrorCodeOf, message: string, options: { retriable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    const fixed = ERROR_CODES[code].retriable;
    this.retriable = fixed === 'per-error' ? options.retriable ?? false : fixed === 'yes';
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
