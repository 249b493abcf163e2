/**
 * Group consumer options, validated up front with zod. A bad option throws
 * {@link ConfigError} naming the field, before any connection is made.
 */
import { z } from 'zod';
import type { Kafka, PartitionAssigner } from 'kafkajs';
import { KafkaEosError } from '../errors';
import type { ExactlyOnceSink, SinkRecord } from '../sinks/sink';

/** An invalid option. `field` is the dotted path of the first offending option. */
export class ConfigError extends KafkaEosError {
  constructor(readonly field: string, message: string) {
    super('CONFIG_INVALID', `${field}: ${message}`);
  }
}

export type AssignorName = 'range' | 'roundrobin' | 'sticky';

export type Delivery = 'at-most-once' | 'at-least-once' | 'exactly-once';

/** A batch of one partition as handed to a user handler. */
export interface HandlerBatch {
  topic: string;
  partition: number;
  records: SinkRecord[];
  /** Offset after the last record of the batch (bigint). */
  nextOffset: bigint;
}

export interface GroupConsumerOptions {
  /** A KafkaJS client, or `brokers` to make one. */
  kafka?: Kafka;
  brokers?: string[];
  clientId?: string;
  groupId: string;
  /** Topic names or patterns. */
  topics: (string | RegExp)[];
  delivery: Delivery;
  /** Required for exactly-once: where output and offsets are written together. */
  sink?: ExactlyOnceSink;
  /** Required for at-most-once and at-least-once; optional (a pre-write hook) for exactly-once. */
  handler?: (batch: HandlerBatch) => Promise<void>;
  /**
   * Partition assignors in order of preference: Java protocol names ('range', 'roundrobin',
   * 'sticky'), or any KafkaJS PartitionAssigner. Default ['range'], Java's default, so the group
   * can be shared with Java, librdkafka and kafka-python consumers. For 'sticky' the consumer
   * feeds the assignor its current assignment after every rebalance.
   */
  assignors?: (AssignorName | PartitionAssigner)[];
  /** session.timeout.ms (default 30000). */
  sessionTimeoutMs?: number;
  /** rebalance.timeout.ms (default 60000). */
  rebalanceTimeoutMs?: number;
  /** heartbeat.interval.ms (default 3000; must be below the session timeout). */
  heartbeatIntervalMs?: number;
  /** Longest wait of a fetch for data, ms (default 500). */
  maxWaitTimeMs?: number;
  /** Where a partition with no committed position starts (default true = earliest). */
  fromBeginning?: boolean;
  /** Exactly-once only: also commit written positions to Kafka for lag monitoring (default true). */
  commitToKafkaForMonitoring?: boolean;
}

const int = (min: number) => z.number().int().min(min);
const fn = () => z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', { message: 'expected a function' });

const schema = z.object({
  kafka: z.any().optional(),
  brokers: z.array(z.string().regex(/^[^:\s]+:\d+$/, 'expected host:port')).min(1).optional(),
  clientId: z.string().min(1).optional(),
  groupId: z.string().min(1),
  topics: z.array(z.union([z.string().min(1), z.instanceof(RegExp)])).min(1),
  delivery: z.enum(['at-most-once', 'at-least-once', 'exactly-once']),
  sink: z.object({ open: fn(), write: fn(), close: fn() }).passthrough().optional(),
  handler: fn().optional(),
  assignors: z.array(z.union([z.enum(['range', 'roundrobin', 'sticky']), fn()])).min(1).optional(),
  sessionTimeoutMs: int(1).optional(),
  rebalanceTimeoutMs: int(1).optional(),
  heartbeatIntervalMs: int(1).optional(),
  maxWaitTimeMs: int(0).optional(),
  fromBeginning: z.boolean().optional(),
  commitToKafkaForMonitoring: z.boolean().optional(),
}).strict();

/** Validates options; throws ConfigError naming the first bad field. */
export function validateOptions(options: GroupConsumerOptions): GroupConsumerOptions {
  const parsed = schema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(issue.path.join('.') || '(options)', issue.message);
  }
  if (!options.kafka && !options.brokers) throw new ConfigError('brokers', 'give either `kafka` or `brokers`');
  if (options.delivery === 'exactly-once' && !options.sink) throw new ConfigError('sink', 'exactly-once delivery needs a sink that stores offsets with the output');
  if (options.delivery !== 'exactly-once' && !options.handler) throw new ConfigError('handler', `${options.delivery} delivery needs a handler`);
  const session = options.sessionTimeoutMs ?? 30000;
  const heartbeat = options.heartbeatIntervalMs ?? 3000;
  if (heartbeat >= session) throw new ConfigError('heartbeatIntervalMs', `must be below sessionTimeoutMs (${session})`);
  return options;
}
