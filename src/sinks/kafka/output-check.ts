/**
 * KafkaSink's checks of the handler's output records before a transaction begins, and the record batch size
 * estimate that splits a partition's records into batches.
 *
 * - Shape: `topic` a non-empty string, `key` / `value` / header values bytes, a string or null, `headers` a plain
 *   object, `partition` a non-negative integer, `timestamp` a bigint. Anything else is KafkaOutputInvalidError
 *   (KAFKA_OUTPUT_INVALID) naming the field and the input record, never a TypeError from deep in the encoder.
 * - Size: as Java's producer (KafkaProducer.ensureValidRecordSize), one record too large is refused client-side
 *   before it is sent, and only that send fails: a record whose batch (the 61-byte batch header plus
 *   DefaultRecord.sizeInBytes) exceeds the topic's max.message.bytes is KAFKA_OUTPUT_INVALID. The limit is the
 *   topic's max.message.bytes read with DescribeConfigs when the topic is first seen, else Kafka's default
 *   (1048588, {@link KAFKA_DEFAULT_MAX_MESSAGE_BYTES}).
 * - Batches: record-size.ts's splitRecordBatches (the producer's split of a partition's records).
 *
 * Run by the consumer per input record (the sink's `checkOutputs`, so the poison policy applies to that record) and
 * again by KafkaSink.write over the whole write (a caller that writes directly).
 */
import { BATCH_HEADER_BYTES, type RecordHeader } from '../../protocol/record-batch';
import { KafkaEosError } from '../../errors';
import { ErrorCode } from '../../protocol/error-codes';
import { kafkaErrorOf } from '../../protocol/kafka-errors';
import { DescribeConfigs } from '../../protocol/messages/admin';
import type { OutputRecord, OutputSource } from '../../records';
import { kafkaCall } from '../../consumer/kafka-calls';
import type { KafkaTransport } from '../../consumer/kafka/transport';
import { recordSizeInBytes } from './record-size';
import { KafkaOutputInvalidError } from './transactional-producer';

/** Kafka's default max.message.bytes (and message.max.bytes): 1048588 bytes (1 MiB plus the 12-byte log overhead). */
export const KAFKA_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

/** An output record whose fields are checked and encoded to bytes. */
export interface CheckedOutput {
  topic: string;
  partition?: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
  timestamp?: bigint;
}

/** The bytes of a batch holding `record` alone (what Java's ensureValidRecordSize compares with the limit). */
export function singleRecordBatchBytes(record: Pick<CheckedOutput, 'key' | 'value' | 'headers'>): number {
  return BATCH_HEADER_BYTES + recordSizeInBytes(0, 0n, record.key, record.value, record.headers);
}

/** The input record or the place in a write, as error messages name it. */
export function describeSource(source: OutputSource | undefined, index: number): string {
  if (!source) return `output record #${index}`;
  if (source.offset === undefined) return `output record #${index} of the batch of ${source.topic}:${source.partition}`;
  return `output record #${index} of input record ${source.topic}:${source.partition}@${source.offset}`;
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object'
  ? `an object (${(v as object).constructor?.name ?? 'no prototype'})` : `a ${typeof v} (${String(v)})`);

function toBytes(v: unknown, field: string, where: () => string): Buffer | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return Buffer.from(v);
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw new KafkaOutputInvalidError(`${where()}: ${field} must be bytes, a string or null, got ${kindOf(v)}`);
}

/**
 * Checks one output record's shape and encodes its key, value and headers (see the module comment). `index` is its
 * place among the outputs of `source`. Throws KafkaOutputInvalidError naming the field and the input record.
 */
export function checkOutputShape(r: unknown, index: number, source?: OutputSource): CheckedOutput {
  const where = () => describeSource(source, index);
  if (r === null || typeof r !== 'object' || Array.isArray(r)) {
    throw new KafkaOutputInvalidError(`${where()}: not an object ({ topic, key?, value, headers?, partition?, timestamp? }), `
      + `got ${kindOf(r)}`);
  }
  const o = r as Record<string, unknown>;
  if (typeof o.topic !== 'string' || o.topic === '') {
    throw new KafkaOutputInvalidError(`${where()}: topic must be a non-empty string, got ${kindOf(o.topic)}`);
  }
  const at = () => `${where()} to '${o.topic}'`;
  const key = toBytes(o.key, 'key', at);
  if (o.value === undefined) throw new KafkaOutputInvalidError(`${at()}: value is missing (null for a tombstone)`);
  const value = toBytes(o.value, 'value', at);
  const headers: RecordHeader[] = [];
  if (o.headers !== undefined && o.headers !== null) {
    if (typeof o.headers !== 'object' || Array.isArray(o.headers) || o.headers instanceof Uint8Array) {
      throw new KafkaOutputInvalidError(`${at()}: headers must be an object of header values, got ${kindOf(o.headers)}`);
    }
    for (const [k, v] of Object.entries(o.headers)) headers.push({ key: k, value: toBytes(v, `header '${k}'`, at) });
  }
  if (o.partition !== undefined && (typeof o.partition !== 'number' || !Number.isInteger(o.partition) || o.partition < 0)) {
    throw new KafkaOutputInvalidError(`${at()}: partition must be a non-negative integer, got ${kindOf(o.partition)}`);
  }
  if (o.timestamp !== undefined && (typeof o.timestamp !== 'bigint' || o.timestamp < 0n)) {
    throw new KafkaOutputInvalidError(`${at()}: timestamp must be a non-negative bigint (ms since the epoch), got ${kindOf(o.timestamp)}`);
  }
  return {
    topic: o.topic, key, value, headers,
    ...(o.partition !== undefined ? { partition: o.partition as number } : {}),
    ...(o.timestamp !== undefined ? { timestamp: o.timestamp as bigint } : {}),
  };
}

/**
 * Throws KafkaOutputInvalidError when `record` alone, in its own batch, exceeds `limit` (the topic's
 * max.message.bytes): the broker would refuse it with MESSAGE_TOO_LARGE, whatever the batching.
 */
export function checkOutputSize(record: CheckedOutput, limit: number, limitSource: string, index: number, source?: OutputSource): void {
  const bytes = singleRecordBatchBytes(record);
  if (bytes > limit) {
    throw new KafkaOutputInvalidError(`${describeSource(source, index)} to '${record.topic}' is too large: ${bytes} bytes as a record `
      + `batch, above ${limitSource} ${limit} (Kafka would answer MESSAGE_TOO_LARGE)`);
  }
}

/** ConfigResource type of a topic (DescribeConfigs). */
const TOPIC_RESOURCE = 2;

/** A topic's record batch limit and where it came from (for error messages). */
export interface TopicLimit {
  bytes: number;
  /** "max.message.bytes of topic t" or "Kafka's default max.message.bytes". */
  source: string;
}

/**
 * Checks a handler's output records against the cluster (see the module comment): learns each output topic once
 * (Metadata, then DescribeConfigs for its max.message.bytes) and keeps what it learned for the sink's life.
 */
export class OutputChecker {
  private readonly limits = new Map<string, TopicLimit>();

  /** `unknownTopicTimeoutMs`: how long a topic missing from the metadata is looked up again before it is an error. */
  constructor(private readonly transport: () => Promise<KafkaTransport>, private readonly unknownTopicTimeoutMs: number) {}

  /** The record batch limit of a topic already learned, else Kafka's default. */
  limitOf(topic: string): TopicLimit {
    return this.limits.get(topic) ?? { bytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES, source: "Kafka's default max.message.bytes" };
  }

  /**
   * Learns `topics` not seen yet: waits up to `unknownTopicTimeoutMs` for each to appear in the metadata (as Java's
   * send blocks up to max.block.ms), then reads its max.message.bytes (DescribeConfigs; refused or unreadable:
   * Kafka's default). Throws KafkaEosError UNKNOWN_TOPIC for a topic still missing (not one record's fault: a
   * topic named wrong or not created), KafkaCallError when the cluster cannot be reached.
   */
  async learn(topics: readonly string[]): Promise<void> {
    const fresh = [...new Set(topics)].filter((t) => !this.limits.has(t));
    if (fresh.length === 0) return;
    const transport = await this.transport();
    const missing = () => fresh.filter((t) => transport.partitionMetadata(t).length === 0);
    const started = Date.now();
    try {
      await kafkaCall('Metadata of the output topics', async () => {
        await transport.watchTopics(fresh);
        const still = missing();
        if (still.length > 0) throw Object.assign(new Error(`unknown output topic ${still.join(', ')}`), { retriable: true });
      }, { retries: Infinity, maxRetryTimeMs: this.unknownTopicTimeoutMs, minTimeoutMs: 50, maxTimeoutMs: 1000,
        refresh: async () => transport.refreshMetadata().catch(() => undefined) });
    } catch (e) {
      const still = missing();
      if (still.length === 0 && kafkaErrorOf(e)?.name !== 'UNKNOWN_TOPIC_OR_PARTITION') throw e;
      const names = (still.length > 0 ? still : fresh).map((t) => `'${t}'`).join(', ');
      throw new KafkaEosError('UNKNOWN_TOPIC', `KafkaSink: output topic ${names} does not exist (still unknown to the cluster's `
        + `metadata after ${Date.now() - started} ms, retryTimeoutMs ${this.unknownTopicTimeoutMs}); create it or fix the name`,
        { cause: e });
    }
    const read = await this.maxMessageBytes(transport, fresh).catch(() => new Map<string, number>());
    for (const t of fresh) {
      const bytes = read.get(t);
      this.limits.set(t, bytes !== undefined
        ? { bytes, source: `max.message.bytes of topic '${t}'` }
        : { bytes: KAFKA_DEFAULT_MAX_MESSAGE_BYTES, source: "Kafka's default max.message.bytes" });
    }
  }

  private async maxMessageBytes(transport: KafkaTransport, topics: string[]): Promise<Map<string, number>> {
    const broker = await transport.anyBroker();
    const { response } = await transport.request(broker, DescribeConfigs, {
      resources: topics.map((t) => ({ resourceType: TOPIC_RESOURCE, resourceName: t, configurationKeys: ['max.message.bytes'] })),
      includeSynonyms: false, includeDocumentation: false,
    });
    const out = new Map<string, number>();
    for (const r of response.results) {
      if (r.errorCode !== ErrorCode.NONE) continue;
      const v = Number(r.configs.find((c: { name: string }) => c.name === 'max.message.bytes')?.value);
      if (Number.isInteger(v) && v > 0) out.set(r.resourceName, v);
    }
    return out;
  }

  /**
   * Checks `outputs` (shape, topic, size; see the module comment) and returns them encoded. `source`: the input
   * record they came from, named by the errors. Throws KafkaOutputInvalidError (one record's fault), KafkaEosError
   * UNKNOWN_TOPIC (see {@link learn}), KafkaCallError.
   */
  async check(outputs: readonly OutputRecord[], source?: OutputSource): Promise<CheckedOutput[]> {
    const checked = outputs.map((r, i) => checkOutputShape(r, i, source));
    await this.learn(checked.map((c) => c.topic));
    const transport = await this.transport();
    checked.forEach((c, i) => {
      if (c.partition !== undefined && !transport.partitionMetadata(c.topic).some((p) => p.partitionId === c.partition)) {
        throw new KafkaOutputInvalidError(`${describeSource(source, i)} to '${c.topic}': the topic has no partition ${c.partition}`);
      }
      const limit = this.limitOf(c.topic);
      checkOutputSize(c, limit.bytes, limit.source, i, source);
    });
    return checked;
  }
}
