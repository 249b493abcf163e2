/**
 * Group consumer options, validated up front with zod. A bad option throws
 * {@link ConfigError} naming the field, before any connection is made.
 */
import { z } from 'zod';
import type { Kafka, logCreator, logLevel, PartitionAssigner } from 'kafkajs';
import { KafkaEosError } from '../errors';
import type { ExactlyOnceSink } from '../sink-contract';
import type { OutputRecord, SinkRecord, TopicPartition } from '../records';
import type { CommitStrategy } from './strategies/types';
import type { GroupCommitOptions } from './group-commit';
import type { ConverterConfig, RecordConverter } from './converters/converter';
import type { SchemaRegistryClient, SchemaRegistryClientOptions } from './converters/registry-client';
import { CONVERTER_NAMES, REGISTRY_CONVERTERS } from './converters/names';
import { KAFKAJS_OPTION_NAMES, KAFKAJS_RETRY_OPTION_NAMES, suggestOptionName } from './option-names';

/** An invalid option. `field` is the dotted path of the first offending option. */
export class ConfigError extends KafkaEosError {
  constructor(readonly field: string, message: string) {
    super('CONFIG_INVALID', `${field}: ${message}`);
  }
}

/**
 * Built-in assignors of the classic protocol, named after Java's RangeAssignor, RoundRobinAssignor, StickyAssignor
 * (KIP-54) and CooperativeStickyAssignor (KIP-429).
 */
export type AssignorName = 'range' | 'roundrobin' | 'sticky' | 'cooperative-sticky';

/**
 * Java's `group.protocol`: `classic` (JoinGroup/SyncGroup; eager or cooperative, as the assignors say) or `consumer`
 * (KIP-848: ConsumerGroupHeartbeat, the broker assigns; Kafka 4.0+).
 */
export type GroupProtocol = 'classic' | 'consumer';

/** KIP-848 server-side assignors (Java's `group.remote.assignor`): `uniform` or `range`. */
export type GroupRemoteAssignor = 'uniform' | 'range';

/** The commit strategy: commit before handling, after handling, or with the output in the sink's transaction. */
export type Delivery = 'at-most-once' | 'at-least-once' | 'exactly-once';

/** A batch of one partition as handed to a user handler. */
export interface HandlerBatch {
  topic: string;
  partition: number;
  records: SinkRecord[];
  /** Offset after the last record of the batch (bigint). */
  nextOffset: bigint;
  /**
   * Aborted when the consumer wants the handler to finish early: a rebalance is pending (the
   * partition is about to be revoked), stop() was called, or maxProcessingTimeMs ran out.
   */
  signal: AbortSignal;
}

/**
 * A handler of single records. With exactly-once delivery and a sink that produces (KafkaSink), the records it
 * returns (0..n per input record; see OutputRecord) are produced in the same Kafka transaction as the input's
 * offsets; other sinks and strategies ignore a return value.
 */
export type RecordHandler = (record: SinkRecord, context: RecordContext) => Promise<OutputRecord[] | void> | OutputRecord[] | void;

/** A handler of whole batches; like {@link RecordHandler}, what it returns is produced by a sink that produces (KafkaSink). */
export type BatchHandler = (batch: HandlerBatch) => Promise<OutputRecord[] | void> | OutputRecord[] | void;

/** Context of one record handed to a record handler. */
export interface RecordContext {
  /** Aborted as in {@link HandlerBatch.signal}. */
  signal: AbortSignal;
  /** 1 for the first try, 2 for the first retry, ... */
  attempt: number;
}

/** A topic and the partitions of it to consume without group management (Kafka's `assign()`). */
export interface ManualAssignment {
  /** The topic. */
  topic: string;
  /** Its partitions to consume (at least one). */
  partitions: number[];
}

/** Retries of processing, with p-retry (exponential backoff). */
export interface RetryOptions {
  /** Retries after the first try (default 0: no retry). */
  retries?: number;
  /** Delay before the first retry, ms (default 100). */
  minTimeoutMs?: number;
  /** Longest delay between tries, ms (default 5000). */
  maxTimeoutMs?: number;
  /** Backoff factor (default 2). */
  factor?: number;
  /**
   * Which errors are retried (default: `isRetriable(error, true)` from errors.ts: Kafka errors by the
   * error table, errors with a boolean `retriable` by it, any other error of the handler: yes).
   */
  isRetriable?: (error: unknown) => boolean;
}

/**
 * What happens to a record (record handler) or batch (batch handler) that still fails after the
 * retries: `fail` stops the consumer with {@link PoisonMessageError}; `skip` goes on past it;
 * `dead-letter` produces it to `deadLetterTopic` with headers naming its source, then goes on.
 */
export type PoisonPolicy = 'fail' | 'skip' | 'dead-letter';

/** Java's ConsumerRebalanceListener, as options. Partitions are `{ topic, partition }`. */
export interface RebalanceListeners {
  /** After an assignment, once the positions are set and before any record of it is handled. */
  onPartitionsAssigned?: (partitions: TopicPartition[]) => void | Promise<void>;
  /**
   * Before the member rejoins (and on stop), after in-flight batches finished and the strategy
   * committed their offsets, while the member still owns the partitions.
   */
  onPartitionsRevoked?: (partitions: TopicPartition[]) => void | Promise<void>;
  /**
   * The partitions were lost without a chance to commit: fenced or maxProcessingTimeMs exceeded (the
   * consumer then fails), or the session expired (the consumer then rejoins and carries on).
   */
  onPartitionsLost?: (partitions: TopicPartition[]) => void | Promise<void>;
}

/** Options of {@link GroupConsumer}; checked by zod at construction (ConfigError names the bad field). Times in ms. */
export interface GroupConsumerOptions extends RebalanceListeners {
  /** A KafkaJS client, or `brokers` to make one. */
  kafka?: Kafka;
  /** Bootstrap brokers, `host:port`, to make a KafkaJS client here (exclusive with `kafka`). */
  brokers?: string[];
  /** With `brokers`: the client's `client.id` (default `kafka-eos`). */
  clientId?: string;
  /**
   * With `brokers`: the KafkaJS log level of the client made here (KafkaJS's `logLevel` enum:
   * NOTHING 0, ERROR 1, WARN 2, INFO 4, DEBUG 5; default NOTHING). The consumer's own log lines
   * (namespace `kafka-eos`) go through the same logger. With `kafka`, set it on your Kafka instead.
   */
  logLevel?: logLevel;
  /** With `brokers`: a KafkaJS `logCreator` for the client made here (KafkaJS's own shape). With `kafka`, set it on your Kafka. */
  logCreator?: logCreator;
  /** The consumer group's id (`group.id`; with `assign`, offsets of exactly-once live in the sink under it). Required. */
  groupId: string;
  /** Topic names or patterns (patterns are matched against the topics that exist at start()). Exclusive with `assign`. */
  topics?: (string | RegExp)[];
  /**
   * Manual assignment: consume exactly these partitions, with no group rebalancing (Kafka's
   * `assign()`). Offsets live in the sink (exactly-once) or are committed under `groupId`.
   */
  assign?: ManualAssignment[];
  /** `exactly-once` (output and next offset in one sink transaction), `at-least-once` or `at-most-once`. Required. */
  delivery: Delivery;
  /**
   * Required for exactly-once: where output and offsets are written together. Refused (CONFIG_INVALID) with another
   * delivery, which would never write it.
   */
  sink?: ExactlyOnceSink;
  /** A handler of whole batches. Required (this or `recordHandler`) for at-most-once and at-least-once. */
  handler?: BatchHandler;
  /**
   * A handler of single records: retried and poison-handled per record, and at-least-once commits
   * each finished record. In exactly-once mode, a hook run before the sink write; with KafkaSink, the
   * transform: the records it returns are produced in the transaction that commits the input's offsets.
   */
  recordHandler?: RecordHandler;
  /** A custom commit strategy instead of the built-in one named by `delivery`. */
  strategy?: CommitStrategy;
  /**
   * Classic protocol: partition assignors in order of preference, Java protocol names ('range', 'roundrobin',
   * 'sticky', 'cooperative-sticky'), or any KafkaJS PartitionAssigner. Default ['range'], so the group can be shared
   * with Java, librdkafka and kafka-python consumers. The member rebalances cooperatively (KIP-429: only what moves is
   * revoked) when every assignor it lists supports it (only 'cooperative-sticky' does), else eagerly: so
   * `['cooperative-sticky', 'range']` joins a group of eager members and prefers cooperative-sticky, Java's upgrade
   * path. Not with `groupProtocol: 'consumer'` (the broker assigns: see `groupRemoteAssignor`).
   */
  assignors?: (AssignorName | PartitionAssigner)[];
  /** Java's group.protocol (default 'classic'); see {@link GroupProtocol}. */
  groupProtocol?: GroupProtocol;
  /** With `groupProtocol: 'consumer'`: the broker's assignor to use (Java's group.remote.assignor; default: the broker's). */
  groupRemoteAssignor?: GroupRemoteAssignor;
  /** Processing retries (p-retry). */
  retry?: RetryOptions;
  /** Default 'fail'. */
  poisonPolicy?: PoisonPolicy;
  /** Topic for `dead-letter` (default `<source topic>.dlq`): a name, or a function of the source topic. */
  deadLetterTopic?: string | ((sourceTopic: string) => string);
  /** KIP-345 `group.instance.id`: static membership (JoinGroup v5). */
  groupInstanceId?: string;
  /** session.timeout.ms (default 30000). Classic protocol only: a KIP-848 group's session timeout is the broker's. */
  sessionTimeoutMs?: number;
  /**
   * rebalance.timeout.ms (default 60000): how long the coordinator waits for this member to rejoin (classic) or to
   * revoke partitions (KIP-848) in a rebalance.
   */
  rebalanceTimeoutMs?: number;
  /**
   * heartbeat.interval.ms (default 3000; must be below the session timeout). Classic protocol only: a KIP-848 member
   * heartbeats at the interval the broker sets.
   */
  heartbeatIntervalMs?: number;
  /**
   * max.poll.interval.ms: the longest a handler may run on one batch, ms (default 300000). Past it
   * the member leaves the group and the consumer fails with MaxProcessingTimeExceededError.
   */
  maxProcessingTimeMs?: number;
  /**
   * At-least-once: commit finished offsets at most this often, ms (default 5000, Java's auto.commit.interval.ms);
   * 0 = after every batch. Commits also happen on revoke and stop.
   */
  commitIntervalMs?: number;
  /** Longest wait of a fetch for data, ms (default 500). */
  maxWaitTimeMs?: number;
  /** Where a partition with no committed position starts (default true = earliest). */
  fromBeginning?: boolean;
  /** Exactly-once only: also commit written positions to Kafka for lag monitoring (default true). */
  commitToKafkaForMonitoring?: boolean;
  /**
   * Exactly-once only: how long the sink may refuse every write (SINK_WRITE_REFUSED: a missing table or column, a
   * privilege refused, a read-only database) before the consumer fails with SINK_BLOCKED, ms (default 300000,
   * 5 minutes; 0 = wait forever). Meanwhile nothing is skipped and `sink-blocked` events report it. The bound
   * is Kafka Connect's `max.retries` for a task; an unreachable store is waited out without one
   * (consumer/sink-blocked.ts says why 5 minutes).
   */
  sinkBlockedTimeoutMs?: number;
  /**
   * Most records handed to one batch (the handler's, the strategy's, the sink's write), Java's `max.poll.records`
   * (default: unbounded, what one fetch brought). The rest of a fetch waits for the next batch; nothing is fetched twice.
   */
  maxBatchRecords?: number;
  /** Most bytes of keys and values in one batch, at least one record (default unbounded). */
  maxBatchBytes?: number;
  /**
   * Partitions whose batches are handled at once (KafkaJS `partitionsConsumedConcurrently`,
   * default 1). With exactly-once and `groupCommit`, their writes share sink transactions.
   */
  partitionsConsumedConcurrently?: number;
  /**
   * Exactly-once only: group the concurrent writes of different partitions into one sink
   * transaction (up to `maxRows` rows, waiting up to `lingerMs` for writes to join). Default off:
   * one transaction per fetched batch per partition. See GroupCommitSink and docs/sql-sink.md.
   */
  groupCommit?: GroupCommitOptions;
  /**
   * How record keys become data (Kafka Connect's `key.converter`): a converter config (`{ type: 'string' | 'bytes' |
   * 'json' | 'connect-json' | 'avro' | 'protobuf' | 'json-schema', ... }`) or a converter made with createConverter.
   * Converted records carry `convertedKey` (docs/converters.md). Default: none (keys stay bytes).
   */
  keyConverter?: ConverterConfig | RecordConverter;
  /** How record values become data (Connect's `value.converter`); see keyConverter. Converted records carry `convertedValue`. */
  valueConverter?: ConverterConfig | RecordConverter;
  /** The Schema Registry of the avro, protobuf and json-schema converters: `{ url, ... }` or a SchemaRegistryClient. */
  schemaRegistry?: SchemaRegistryClientOptions | SchemaRegistryClient;
  /** Install SIGTERM/SIGINT handlers that stop() the consumer, then re-raise the signal (default false). */
  handleSignals?: boolean | NodeJS.Signals[];
}

const int = (min: number) => z.number().int().min(min);
const INT32_MAX = 2147483647;
/** A protocol INT32 field in ms (JoinGroup session/rebalance timeouts, Fetch max wait; Node timers too): at most 2^31 - 1. */
const int32Ms = (min: number) => int(min).max(INT32_MAX, `must be at most ${INT32_MAX} ms (an INT32 in the Kafka protocol)`);
const fn = () => z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', { message: 'expected a function' });

const retrySchema = z.object({
  retries: int(0).optional(), minTimeoutMs: int(0).optional(), maxTimeoutMs: int(0).optional(),
  factor: z.number().min(1).optional(), isRetriable: fn().optional(),
}).strict();

const schema = z.object({
  kafka: z.any().optional(),
  brokers: z.array(z.string().regex(/^[^:\s]+:\d+$/, 'expected host:port')).min(1).optional(),
  clientId: z.string().min(1).optional(),
  logLevel: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(4), z.literal(5)]).optional(),
  logCreator: fn().optional(),
  groupId: z.string().min(1),
  topics: z.array(z.union([z.string().min(1), z.instanceof(RegExp)])).min(1).optional(),
  assign: z.array(z.object({ topic: z.string().min(1), partitions: z.array(int(0)).min(1) }).strict()).min(1).optional(),
  delivery: z.enum(['at-most-once', 'at-least-once', 'exactly-once']),
  sink: z.object({ open: fn(), write: fn(), close: fn() }).passthrough().optional(),
  handler: fn().optional(),
  recordHandler: fn().optional(),
  strategy: z.object({ name: z.string(), onAssigned: fn(), handleBatch: fn() }).passthrough().optional(),
  assignors: z.array(z.union([z.enum(['range', 'roundrobin', 'sticky', 'cooperative-sticky']), fn()])).min(1).optional(),
  groupProtocol: z.enum(['classic', 'consumer']).optional(),
  groupRemoteAssignor: z.enum(['uniform', 'range']).optional(),
  retry: retrySchema.optional(),
  poisonPolicy: z.enum(['fail', 'skip', 'dead-letter']).optional(),
  deadLetterTopic: z.union([z.string().min(1), fn()]).optional(),
  groupInstanceId: z.string().min(1).max(249).optional(),
  sessionTimeoutMs: int32Ms(1).optional(),
  rebalanceTimeoutMs: int32Ms(1).optional(),
  heartbeatIntervalMs: int32Ms(1).optional(),
  maxProcessingTimeMs: int32Ms(1).optional(),
  commitIntervalMs: int(0).optional(),
  maxWaitTimeMs: int32Ms(0).optional(),
  fromBeginning: z.boolean().optional(),
  commitToKafkaForMonitoring: z.boolean().optional(),
  sinkBlockedTimeoutMs: int(0).optional(),
  maxBatchRecords: int(1).optional(),
  maxBatchBytes: int(1).optional(),
  partitionsConsumedConcurrently: z.number().int().min(1).max(1000).optional(),
  groupCommit: z.object({
    maxRows: z.number().int().min(1).optional(), lingerMs: z.number().int().min(0).max(60000).optional(),
  }).strict().optional(),
  keyConverter: z.object({ type: z.string() }).passthrough().optional(),
  valueConverter: z.object({ type: z.string() }).passthrough().optional(),
  schemaRegistry: z.object({ url: z.string().regex(/^https?:\/\/[^\s]+$/, 'expected http(s)://host:port') }).passthrough().optional(),
  handleSignals: z.union([z.boolean(), z.array(z.string().regex(/^SIG[A-Z0-9]+$/, 'expected a signal name'))]).optional(),
  onPartitionsAssigned: fn().optional(),
  onPartitionsRevoked: fn().optional(),
  onPartitionsLost: fn().optional(),
}).strict();

/**
 * KIP-848 members refuse the classic protocol's settings, as Java's consumer does with group.protocol=consumer
 * (ConsumerConfig's CLASSIC_PROTOCOL_ONLY_CONFIGS): the broker owns the session, the heartbeat interval and the
 * assignment. A topic pattern becomes a regular expression the broker evaluates (RE2/J): flags have no equivalent.
 */
function checkConsumerProtocol(options: GroupConsumerOptions): void {
  const classicOnly = {
    assignors: 'the broker assigns: use groupRemoteAssignor',
    sessionTimeoutMs: "the session timeout is the broker's (group.consumer.session.timeout.ms)",
    heartbeatIntervalMs: "the heartbeat interval is the broker's (group.consumer.heartbeat.interval.ms)",
  } as const;
  for (const [field, why] of Object.entries(classicOnly) as [keyof typeof classicOnly, string][]) {
    if (options[field] !== undefined) throw new ConfigError(field, `not supported with groupProtocol 'consumer': ${why}`);
  }
  const flagged = (options.topics ?? []).find((t) => t instanceof RegExp && t.flags.replace(/[gy]/g, '') !== '');
  if (flagged) {
    throw new ConfigError('topics', `${String(flagged)}: with groupProtocol 'consumer' the broker matches patterns (RE2/J), without flags`);
  }
}

/** A ConfigError for an unknown option `key` under `path`, suggesting the option meant (KafkaJS names, near misses). */
function unknownOption(path: string[], key: string): ConfigError {
  const shape = path.length === 0 ? schema.shape : path.length === 1 && path[0] === 'retry' ? retrySchema.shape : null;
  const kafkajs = path.length === 0 ? KAFKAJS_OPTION_NAMES : path[0] === 'retry' ? KAFKAJS_RETRY_OPTION_NAMES : {};
  const suggestion = shape ? suggestOptionName(key, Object.keys(shape), kafkajs) : null;
  const field = [...path, key].join('.');
  return new ConfigError(field, `unknown option${suggestion ? `: did you mean ${suggestion}?` : ''}`);
}

/**
 * Validates options; throws ConfigError naming the first bad field
 * (an unknown one with a suggestion: `did you mean sessionTimeoutMs?`).
 */
export function validateOptions(options: GroupConsumerOptions): GroupConsumerOptions {
  const parsed = schema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys') throw unknownOption(issue.path.map(String), issue.keys[0]);
    throw new ConfigError(issue.path.join('.') || '(options)', issue.message);
  }
  if (!options.kafka && !options.brokers) throw new ConfigError('brokers', 'give either `kafka` or `brokers`');
  for (const f of ['logLevel', 'logCreator'] as const) {
    if (options.kafka && options[f] !== undefined) {
      throw new ConfigError(f, `applies to the client made from \`brokers\`: set ${f} on your own Kafka instead`);
    }
  }
  if (!options.topics === !options.assign) {
    throw new ConfigError('topics', 'give either `topics` (group subscription) or `assign` (manual assignment)');
  }
  if (options.handler && options.recordHandler) {
    throw new ConfigError('recordHandler', 'give either `handler` or `recordHandler`, not both');
  }
  if (options.delivery === 'exactly-once' && !options.sink && !options.strategy) {
    throw new ConfigError('sink', 'exactly-once delivery needs a sink that stores offsets with the output');
  }
  if (options.sink && options.delivery !== 'exactly-once') {
    // A sink is written only by the exactly-once strategy: under another delivery it would be ignored, the records
    // handled and their offsets committed with nothing written (a KafkaSink's outputs dropped).
    throw new ConfigError('sink', `only written by exactly-once delivery; with ${options.delivery} write the output in the handler`);
  }
  if (options.delivery !== 'exactly-once' && !options.handler && !options.recordHandler) {
    throw new ConfigError('handler', `${options.delivery} delivery needs a handler or recordHandler`);
  }
  if (options.groupCommit && options.delivery !== 'exactly-once') {
    throw new ConfigError('groupCommit', 'only applies to exactly-once delivery');
  }
  if (options.deadLetterTopic && options.poisonPolicy !== 'dead-letter') {
    throw new ConfigError('deadLetterTopic', "only used with poisonPolicy 'dead-letter'");
  }
  if (options.groupInstanceId && options.assign) {
    throw new ConfigError('groupInstanceId', 'static membership needs group management (`topics`), not `assign`');
  }
  if (options.groupProtocol === 'consumer') checkConsumerProtocol(options);
  else if (options.groupRemoteAssignor !== undefined) {
    throw new ConfigError('groupRemoteAssignor',
      "only applies to groupProtocol 'consumer' (the classic protocol's assignors are `assignors`)");
  }
  for (const f of ['keyConverter', 'valueConverter'] as const) {
    const c = options[f] as { type?: unknown; convert?: unknown } | undefined;
    if (c && typeof c.convert !== 'function' && !CONVERTER_NAMES.includes(c.type as never)) {
      throw new ConfigError(`${f}.type`, `expected one of ${CONVERTER_NAMES.join(', ')}, got ${JSON.stringify(c.type)}`);
    }
    if (c && typeof c.convert !== 'function' && REGISTRY_CONVERTERS.includes(c.type as never) && !options.schemaRegistry) {
      throw new ConfigError('schemaRegistry', `the ${String(c.type)} ${f} needs a Schema Registry ({ url })`);
    }
  }
  const session = options.sessionTimeoutMs ?? 30000;
  const heartbeat = options.heartbeatIntervalMs ?? 3000;
  if (heartbeat >= session) {
    // Name the field the user set, not the default it collides with.
    if (options.heartbeatIntervalMs === undefined) {
      throw new ConfigError('sessionTimeoutMs', `${session} must be above heartbeatIntervalMs (${heartbeat} by default)`);
    }
    throw new ConfigError(
      'heartbeatIntervalMs', `must be below sessionTimeoutMs (${session}${options.sessionTimeoutMs === undefined ? ' by default' : ''})`,
    );
  }
  const retry = options.retry;
  if (retry?.minTimeoutMs !== undefined && retry.maxTimeoutMs !== undefined && retry.minTimeoutMs > retry.maxTimeoutMs) {
    throw new ConfigError('retry.maxTimeoutMs', `must be at least retry.minTimeoutMs (${retry.minTimeoutMs})`);
  }
  return options;
}
