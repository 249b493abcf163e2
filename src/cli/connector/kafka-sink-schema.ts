/**
 * The Kafka sink section of a `kafka-eos run` config (`sink: { type: kafka, ... }`), every field described for
 * `kafka-eos run --print-schema`. A run config holds no code, so the transform is a copy: each input record is
 * produced to `topic` with its value and headers, keyed by its own key or by its source coordinates. See
 * docs/kafka-sink.md.
 */
import { z } from 'zod';

const positiveInt = z.number().int().positive();

/** The Kafka sink (see docs/kafka-sink.md). */
export const kafkaSinkSchema = z.object({
  type: z.literal('kafka').describe('an exactly-once Kafka sink: output records and input offsets in one transaction (KIP-447)'),
  topic: z.string().min(1).describe('the output topic (it must exist)'),
  key: z.enum(['record', 'source']).optional()
    .describe('the output key: the input record\'s key (record; default) or "<source partition>:<source offset>" (source)'),
  partition: z.enum(['default', 'source']).optional()
    .describe('the output partition: the default partitioner\'s, murmur2 of the key (default), or the input\'s own (source)'),
  brokers: z.array(z.string().min(1)).min(1).optional().describe('the output cluster\'s bootstrap brokers (default: the run\'s)'),
  transactionalId: z.string().min(1).optional()
    .describe('the producer\'s transactional.id, one per running member (default: derived from groupId and the instance)'),
  transactionalIdPrefix: z.string().optional().describe('prefix of a derived transactional.id (default kafka-eos-)'),
  transactionTimeoutMs: positiveInt.optional()
    .describe('transaction.timeout.ms: the coordinator aborts a transaction open longer (default 10000)'),
  retryTimeoutMs: positiveInt.optional().describe('how long each transactional call retries retriable errors (default 30000)'),
  requestTimeoutMs: positiveInt.optional().describe('Produce request timeout, acks = all (default 30000)'),
  maxBatchBytes: positiveInt.optional().describe('most key, value and header bytes in one record batch (default 900000)'),
}).strict();

/** A `sink: { type: kafka }` section, validated. */
export type KafkaSinkConfig = z.infer<typeof kafkaSinkSchema>;
