/**
 * Apache Kafka's protocol errors (numbers from `org.apache.kafka.common.protocol.Errors`) with what a
 * client should do about each: `retriable` (a `RetriableException` in Java: the same call may succeed
 * later), `needsRejoin` (the member's generation is gone: rejoin the group), `staleMetadata` (refresh
 * metadata or find the coordinator again before retrying), `fenced` (another instance took over:
 * stop). The mock cluster answers with these codes and the SDK decides by these flags; nobody matches
 * error names by string. {@link isRetriable} is the one answer to "may this be retried", for our errors,
 * Kafka errors (by code, through KafkaJS's wrappers) and connection errors.
 */
import { causesOf, KafkaEosError } from '../errors';

/** What a client should do about one Kafka protocol error. */
export interface KafkaErrorInfo {
  readonly code: number;
  /** Java's `RetriableException`: the same call may succeed if tried again later. */
  readonly retriable: boolean;
  /** The member's generation is gone (expired, superseded): rejoin the group, the partitions are lost. */
  readonly needsRejoin: boolean;
  /** The client's metadata (partition leader, group coordinator) is out of date: refresh before retrying. */
  readonly staleMetadata: boolean;
  /** Another instance took over (static member, producer epoch): stop, do not retry. */
  readonly fenced: boolean;
}

const e = (code: number, flags: Partial<Omit<KafkaErrorInfo, 'code'>> = {}): KafkaErrorInfo =>
  ({ code, retriable: false, needsRejoin: false, staleMetadata: false, fenced: false, ...flags });
const R = { retriable: true } as const;
const RM = { retriable: true, staleMetadata: true } as const;

/** Kafka protocol errors by name, with their numbers and action flags. */
export const KAFKA_ERRORS = {
  UNKNOWN_SERVER_ERROR: e(-1),
  NONE: e(0),
  OFFSET_OUT_OF_RANGE: e(1),
  CORRUPT_MESSAGE: e(2, R),
  UNKNOWN_TOPIC_OR_PARTITION: e(3, RM),
  INVALID_FETCH_SIZE: e(4),
  LEADER_NOT_AVAILABLE: e(5, RM),
  NOT_LEADER_OR_FOLLOWER: e(6, RM),
  REQUEST_TIMED_OUT: e(7, R),
  MESSAGE_TOO_LARGE: e(10),
  OFFSET_METADATA_TOO_LARGE: e(12),
  NETWORK_EXCEPTION: e(13, RM),
  COORDINATOR_LOAD_IN_PROGRESS: e(14, R),
  COORDINATOR_NOT_AVAILABLE: e(15, RM),
  NOT_COORDINATOR: e(16, RM),
  INVALID_TOPIC_EXCEPTION: e(17),
  RECORD_LIST_TOO_LARGE: e(18),
  NOT_ENOUGH_REPLICAS: e(19, R),
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: e(20, R),
  INVALID_REQUIRED_ACKS: e(21),
  ILLEGAL_GENERATION: e(22, { needsRejoin: true }),
  INCONSISTENT_GROUP_PROTOCOL: e(23),
  INVALID_GROUP_ID: e(24),
  UNKNOWN_MEMBER_ID: e(25, { needsRejoin: true }),
  INVALID_SESSION_TIMEOUT: e(26),
  REBALANCE_IN_PROGRESS: e(27, { needsRejoin: true }),
  INVALID_COMMIT_OFFSET_SIZE: e(28),
  TOPIC_AUTHORIZATION_FAILED: e(29),
  GROUP_AUTHORIZATION_FAILED: e(30),
  CLUSTER_AUTHORIZATION_FAILED: e(31),
  INVALID_TIMESTAMP: e(32),
  UNSUPPORTED_SASL_MECHANISM: e(33),
  ILLEGAL_SASL_STATE: e(34),
  UNSUPPORTED_VERSION: e(35),
  TOPIC_ALREADY_EXISTS: e(36),
  INVALID_PARTITIONS: e(37),
  INVALID_REPLICATION_FACTOR: e(38),
  INVALID_REPLICA_ASSIGNMENT: e(39),
  INVALID_CONFIG: e(40),
  NOT_CONTROLLER: e(41, RM),
  INVALID_REQUEST: e(42),
  UNSUPPORTED_FOR_MESSAGE_FORMAT: e(43),
  POLICY_VIOLATION: e(44),
  OUT_OF_ORDER_SEQUENCE_NUMBER: e(45),
  DUPLICATE_SEQUENCE_NUMBER: e(46),
  INVALID_PRODUCER_EPOCH: e(47, { fenced: true }),
  INVALID_TXN_STATE: e(48),
  INVALID_PRODUCER_ID_MAPPING: e(49),
  INVALID_TRANSACTION_TIMEOUT: e(50),
  CONCURRENT_TRANSACTIONS: e(51, R),
  TRANSACTION_COORDINATOR_FENCED: e(52, { fenced: true }),
  SECURITY_DISABLED: e(54),
  KAFKA_STORAGE_ERROR: e(56, RM),
  SASL_AUTHENTICATION_FAILED: e(58),
  UNKNOWN_PRODUCER_ID: e(59),
  NON_EMPTY_GROUP: e(68),
  GROUP_ID_NOT_FOUND: e(69),
  FETCH_SESSION_ID_NOT_FOUND: e(70, R),
  INVALID_FETCH_SESSION_EPOCH: e(71, R),
  FENCED_LEADER_EPOCH: e(74, RM),
  UNKNOWN_LEADER_EPOCH: e(75, RM),
  OFFSET_NOT_AVAILABLE: e(78, R),
  MEMBER_ID_REQUIRED: e(79, { needsRejoin: true }),
  PREFERRED_LEADER_NOT_AVAILABLE: e(80, RM),
  GROUP_MAX_SIZE_REACHED: e(81),
  FENCED_INSTANCE_ID: e(82, { fenced: true }),
  NO_REASSIGNMENT_IN_PROGRESS: e(85),
  GROUP_SUBSCRIBED_TO_TOPIC: e(86),
  INVALID_RECORD: e(87),
  UNSTABLE_OFFSET_COMMIT: e(88, R),
  THROTTLING_QUOTA_EXCEEDED: e(89, R),
  PRODUCER_FENCED: e(90, { fenced: true }),
  RESOURCE_NOT_FOUND: e(91),
  DUPLICATE_RESOURCE: e(92),
  UNACCEPTABLE_CREDENTIAL: e(93),
  UNKNOWN_TOPIC_ID: e(100, RM),
  TRANSACTIONAL_ID_NOT_FOUND: e(105),
  FETCH_SESSION_TOPIC_ID_ERROR: e(106, R),
  // KIP-848 consumer groups: a fenced or unknown member epoch means rejoin with epoch 0.
  FENCED_MEMBER_EPOCH: e(110, { needsRejoin: true }),
  UNRELEASED_INSTANCE_ID: e(111),
  UNSUPPORTED_ASSIGNOR: e(112),
  STALE_MEMBER_EPOCH: e(113),
  UNSUPPORTED_ENDPOINT_TYPE: e(115),
  TRANSACTION_ABORTABLE: e(120),
  INVALID_REGULAR_EXPRESSION: e(128),
} as const satisfies Record<string, KafkaErrorInfo>;

/** The name of a Kafka protocol error, as in Java's `Errors` enum (e.g. `NOT_LEADER_OR_FOLLOWER`). */
export type KafkaErrorName = keyof typeof KAFKA_ERRORS;

/** A Kafka error's table entry, with its name. */
export type KafkaErrorEntry = KafkaErrorInfo & { readonly name: KafkaErrorName };

const byCode = new Map<number, KafkaErrorEntry>(
  (Object.entries(KAFKA_ERRORS) as [KafkaErrorName, KafkaErrorInfo][]).map(([name, info]) => [info.code, { name, ...info }]),
);
/** KafkaJS's names for a few codes (it predates some renames). */
const ALIASES: Record<string, KafkaErrorName> = {
  NOT_LEADER_FOR_PARTITION: 'NOT_LEADER_OR_FOLLOWER',
  NOT_COORDINATOR_FOR_GROUP: 'NOT_COORDINATOR',
  GROUP_COORDINATOR_NOT_AVAILABLE: 'COORDINATOR_NOT_AVAILABLE',
  GROUP_LOAD_IN_PROGRESS: 'COORDINATOR_LOAD_IN_PROGRESS',
};

/** The table entry of a protocol error code, or undefined for an unknown number. */
export function kafkaErrorByCode(code: number): KafkaErrorEntry | undefined {
  return byCode.get(code);
}

/** KafkaJS errors that mean the connection failed, not the request: retriable, reconnect first. */
const CONNECTION_ERRORS = new Set([
  'KafkaJSConnectionError', 'KafkaJSConnectionClosedError', 'KafkaJSRequestTimeoutError', 'KafkaJSNoBrokerAvailableError',
]);

/**
 * KafkaJS errors that mean its cached metadata is out of date, not that the request was refused:
 * `KafkaJSBrokerNotFound` (a node id it holds, e.g. the group coordinator's, is no longer in the
 * cluster's metadata: the broker stopped and the coordinator moved) and `KafkaJSGroupCoordinatorNotFound`
 * (no broker answered FindCoordinator). Java's consumer handles both as a coordinator change
 * (COORDINATOR_NOT_AVAILABLE / NOT_COORDINATOR): find the coordinator again and retry. Retriable, refresh first.
 */
const STALE_METADATA_ERRORS = new Set(['KafkaJSBrokerNotFound', 'KafkaJSGroupCoordinatorNotFound']);

/**
 * The Kafka protocol error inside `error` (a KafkaJSProtocolError, possibly wrapped in KafkaJS's
 * retry errors or ours), by its numeric `code` or KafkaJS's `type` name; undefined if none.
 */
export function kafkaErrorOf(error: unknown): KafkaErrorEntry | undefined {
  for (const c of causesOf(error)) {
    if (c instanceof KafkaProtocolError) {
      const entry = byCode.get(c.errorCode);
      if (entry) return entry;
      continue;
    }
    if (c instanceof KafkaEosError) continue;
    const { type, code } = c as { type?: unknown; code?: unknown };
    if (typeof code === 'number' && byCode.has(code)) return byCode.get(code);
    if (typeof type === 'string') {
      const name = (ALIASES[type] ?? type) as KafkaErrorName;
      if (name in KAFKA_ERRORS) return { name, ...KAFKA_ERRORS[name] };
    }
  }
  return undefined;
}

/** Whether `error` (or a cause) is a dropped or refused connection, or a request that timed out on the client. */
export function isConnectionError(error: unknown): boolean {
  return causesOf(error).some((c) => CONNECTION_ERRORS.has((c as { name?: string }).name ?? ''));
}

/** Whether `error` (or a cause) is KafkaJS saying its cached metadata names a broker or coordinator that is gone. */
export function isStaleMetadataError(error: unknown): boolean {
  return causesOf(error).some((c) => STALE_METADATA_ERRORS.has((c as { name?: string }).name ?? ''));
}

/**
 * Whether `error` may succeed if the same call is tried again. Our errors: their `retriable` flag.
 * Kafka protocol errors: the table's `retriable` (so a fencing error, UNKNOWN_MEMBER_ID,
 * ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS, FENCED_INSTANCE_ID, is never retriable, whatever wraps
 * it). Connection failures and stale KafkaJS metadata ({@link isStaleMetadataError}): true. Any other error that
 * carries a boolean `retriable` (a sink's, a driver's): that flag. Anything else: `unknown`, false
 * unless the caller says otherwise (the user's own handler, which the user asked to retry).
 */
export function isRetriable(error: unknown, unknown = false): boolean {
  if (error instanceof KafkaEosError) return error.retriable;
  const k = kafkaErrorOf(error);
  if (k) return k.retriable;
  if (isConnectionError(error) || isStaleMetadataError(error)) return true;
  const flag = (error as { retriable?: unknown } | null)?.retriable;
  return typeof flag === 'boolean' ? flag : unknown;
}

/** Whether `error` means the member must rejoin (its generation or member id is gone). */
export function needsRejoin(error: unknown): boolean {
  return kafkaErrorOf(error)?.needsRejoin === true;
}

/** Whether `error` means metadata (leaders, coordinator, connections) must be refreshed before a retry. */
export function needsMetadataRefresh(error: unknown): boolean {
  return kafkaErrorOf(error)?.staleMetadata === true || isConnectionError(error) || isStaleMetadataError(error);
}

/**
 * A Kafka protocol error: a request refused as Apache Kafka refuses it, or a broker's answer to one of the SDK's own
 * requests. `kafkaError` names Kafka's error (a row of {@link KAFKA_ERRORS}), `errorCode` is the number on the wire,
 * `retriable` the row's flag. Code KAFKA_PROTOCOL_ERROR. The mock cluster's own calls throw it (e.g. `createTopic` of
 * an existing topic: TOPIC_ALREADY_EXISTS) and its handlers answer `errorCode`, so the mock's errors are a view of
 * Kafka's table, never a second list of the same names; the SDK's requests (src/consumer/kafka) throw
 * {@link KafkaProtocolError.answered}. {@link kafkaErrorOf} finds it inside any wrapper, as it finds KafkaJS's
 * KafkaJSProtocolError.
 */
export class KafkaProtocolError<N extends KafkaErrorName = KafkaErrorName> extends KafkaEosError {
  /** The number on the wire (e.g. 36 for TOPIC_ALREADY_EXISTS; a number the table does not know for UNKNOWN_SERVER_ERROR). */
  readonly errorCode: number;
  /** The error's name as KafkaJSProtocolError's `type` (`UNKNOWN(n)` for a number the table does not know). */
  readonly type: string;
  /** The request that was answered (e.g. `OffsetCommit orders:3`); undefined for the mock's own refusals. */
  readonly api: string | undefined;
  constructor(readonly kafkaError: N, message: string, options: { cause?: unknown; errorCode?: number; api?: string } = {}) {
    super('KAFKA_PROTOCOL_ERROR', message, { retriable: KAFKA_ERRORS[kafkaError].retriable, cause: options.cause });
    this.errorCode = options.errorCode ?? KAFKA_ERRORS[kafkaError].code;
    this.type = byCode.has(this.errorCode) ? kafkaError : `UNKNOWN(${this.errorCode})`;
    this.api = options.api;
  }

  /**
   * A broker answered `api` with `errorCode` (`detail`: its error message, if any). A number the table does not know
   * is UNKNOWN_SERVER_ERROR with that number, as Java's `Errors.forCode` reads it.
   */
  static answered(api: string, errorCode: number, detail?: string | null): KafkaProtocolError {
    const name = byCode.get(errorCode)?.name ?? 'UNKNOWN_SERVER_ERROR';
    const label = byCode.has(errorCode) ? name : `error code ${errorCode}`;
    return new KafkaProtocolError(name, `${api}: ${label}${detail ? ` (${detail})` : ''}`, { errorCode, api });
  }
}
