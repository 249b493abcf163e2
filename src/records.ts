/**
 * The shapes every layer above the protocol shares: a topic partition, its map key, and one Kafka record
 * as the consumer hands it on (to a handler or a sink). Imports nothing.
 */

/** One partition of one topic. */
export interface TopicPartition { topic: string; partition: number }

/**
 * One Kafka record as handed to a sink. `offset` and `timestamp` (ms since the epoch) are bigint. `key` and
 * `value` are the bytes as fetched (null: none; a null value is a tombstone). A consumer with converters
 * (consumer/converters, named after Kafka Connect's) adds `convertedKey` / `convertedValue`: the data with
 * its schema, as Connect's SinkRecord carries `keySchema()`/`key()`.
 */
export interface SinkRecord {
  topic: string; partition: number; offset: bigint; key: Buffer | null; value: Buffer | null; timestamp: bigint /* ms epoch */;
  headers: Record<string, Buffer | string | undefined>;
  /** The key as its converter read it (absent: no key converter). */
  convertedKey?: SchemaAndValue;
  /** The value as its converter read it (absent: no value converter). `value: null` for a tombstone. */
  convertedValue?: SchemaAndValue;
}

/**
 * A schema in Kafka Connect's data model (org.apache.kafka.connect.data.Schema): what every converter
 * (Avro, Protobuf, JSON Schema, the connect-json envelope) translates its schema into, and what the
 * sinks derive columns from. `logical` names Connect's logical types (Decimal with `scale`, Date,
 * Time, Timestamp); `optional` means the value may be null.
 */
export interface RecordSchema {
  type: RecordSchemaType;
  optional: boolean;
  /** The record, enum or message name (Avro full name, Protobuf full name, JSON Schema title), if any. */
  name?: string;
  /** decimal: exact number (value: a decimal string); date: a day (Date at UTC midnight); time: ms of the day; timestamp: Date. */
  logical?: 'decimal' | 'date' | 'time' | 'timestamp';
  /** Digits after the point of a decimal. */
  scale?: number;
  /** Digits of a decimal (absent: unbounded). */
  precision?: number;
  /** struct: its fields in order. */
  fields?: { name: string; schema: RecordSchema }[];
  /** array: the element schema; map: the value schema (keys are strings). */
  items?: RecordSchema;
}

/** Connect's schema types (Schema.Type), lowercase as connect-json writes them. */
export type RecordSchemaType =
  | 'int8' | 'int16' | 'int32' | 'int64' | 'float32' | 'float64' | 'boolean' | 'string' | 'bytes' | 'array' | 'map' | 'struct';

/**
 * Connect's SchemaAndValue: converted data and its schema (null: schemaless, as the `json` converter
 * reads). Values: int8-int32 and float as number; int64 as number when exact (|v| ≤ 2^53 - 1), else
 * bigint; bytes as Buffer; struct and map as plain objects; array as array; decimal as a string;
 * date and timestamp as Date. `schemaId` is the Schema Registry id the bytes named, when they did.
 */
export interface SchemaAndValue { schema: RecordSchema | null; value: unknown; schemaId?: number }

/** The records of one partition to write, with the compare-and-set positions. */
export interface SinkBatch { topic: string; partition: number;
  expectedOffset: bigint;  // the stored next_offset this writer believes is current; -1n = no position stored yet
  nextOffset: bigint;      // last offset of the batch + 1 (offsets may be non-contiguous: never derive from a record count)
  records: SinkRecord[];   // may be empty (e.g. only control records): still advances the offset by CAS
  /**
   * The records the handler produced from `records` (and, for a sink that writes them in its transaction, the
   * dead letters), in order. Only a sink that produces records (KafkaSink, `transactionalOutput`) reads them.
   */
  outputs?: OutputRecord[] }

/**
 * One record a handler returns for a sink that produces to Kafka (KafkaSink): 0..n per input record. `key`,
 * `value` and header values are bytes or UTF-8 strings. Without `partition` the partition is chosen as Java's
 * and KafkaJS's default partitioners do (murmur2 of the key; no key: spread). `timestamp`: ms since the epoch
 * (default: now, CreateTime).
 */
export interface OutputRecord {
  topic: string;
  key?: Buffer | string | null;
  value: Buffer | string | null;
  headers?: Record<string, Buffer | string>;
  partition?: number;
  timestamp?: bigint;
}

/**
 * The input an output record came from, as errors name it: the input record (`offset`, a record handler) or the
 * batch of its partition (no `offset`: a batch handler, or a direct write).
 */
export interface OutputSource {
  topic: string;
  partition: number;
  offset?: bigint;
}

/** A partition's durable position after a write or flush: the stored next offset (-1n = none stored). */
export interface DurablePosition { topic: string; partition: number; storedOffset: bigint }

/** The map key used by ExactlyOnceSink.open (sink-contract.ts) and every per-partition map: `${topic}:${partition}`. */
export function partitionKey(tp: TopicPartition): string {
  return `${tp.topic}:${tp.partition}`;
}
