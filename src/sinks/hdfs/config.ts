/**
 * HdfsSink configuration, validated with zod (the same schema serves `kafka-eos run` configs).
 * Units: ms for intervals, records for flushSize.
 */
import { z } from 'zod';
import { SinkConfigError } from '../errors';
import type { HdfsFormatConfig } from './format';
import type { PartitionerConfig } from './partitioner';

const column = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an identifier'),
  type: z.enum(['string', 'int64', 'double', 'boolean', 'timestamp']),
  path: z.string().min(1).optional(),
  nullable: z.boolean().optional(),
}).strict();

/** The JSON-serialisable part of {@link HdfsSinkConfig} (what a `run` config file holds). */
export const hdfsSinkConfigSchema = z.object({
  /** NameNode URL, e.g. `http://namenode:9870`. */
  url: z.string().regex(/^https?:\/\/[^/\s]+\/?$/, 'expected http(s)://host:port'),
  /** Sent as `user.name`. */
  user: z.string().min(1).optional(),
  /** Absolute HDFS directory holding topics, `+tmp` and `+log` (default `/topics`). One group per topicsDir. */
  topicsDir: z.string().regex(/^\/[^\s]*$/, 'expected an absolute HDFS path').optional(),
  format: z.discriminatedUnion('type', [
    z.object({ type: z.literal('jsonl') }).strict(),
    z.object({ type: z.literal('csv'), columns: z.array(column).min(1).optional() }).strict(),
    z.object({ type: z.literal('parquet'), columns: z.array(column).min(1).optional() }).strict(),
    z.object({ type: z.literal('avro'), codec: z.enum(['null', 'deflate']).optional() }).strict(),
  ]).optional(),
  /** Add _topic, _partition, _offset, _timestamp to every row (default false). */
  includeKafkaCoordinates: z.boolean().optional(),
  partitioner: z.discriminatedUnion('type', [
    z.object({ type: z.literal('default') }).strict(),
    z.object({ type: z.literal('field'), field: z.string().min(1) }).strict(),
    z.object({
      type: z.literal('time'), pathFormat: z.string().min(1), durationMs: z.number().int().positive(),
      timezone: z.string().min(1).optional(),
    }).strict(),
  ]).optional(),
  /** Commit a file once it holds this many records (default 10000). */
  flushSize: z.number().int().positive().optional(),
  /** Commit a file before a record whose timestamp is this far (ms) past the file's first record (record time). */
  rotateIntervalMs: z.number().int().positive().optional(),
  /** Commit every open file on this wall-clock schedule (ms), traffic or not. */
  rotateScheduleIntervalMs: z.number().int().positive().optional(),
  retry: z.object({
    retries: z.number().int().min(0).optional(), minTimeoutMs: z.number().int().min(0).optional(),
    timeoutMs: z.number().int().positive().optional(),
  }).strict().optional(),
}).strict();

/** The HDFS sink's configuration as given (see hdfsSinkConfigSchema's field comments and docs/hdfs-sink.md). */
export type HdfsSinkConfig = z.infer<typeof hdfsSinkConfigSchema>;

/** {@link HdfsSinkConfig} after validation, defaults filled in (format jsonl, partitioner default, flushSize 10000). */
export interface NormalizedHdfsSinkConfig {
  url: string; user: string | undefined; topicsDir: string; format: HdfsFormatConfig; includeKafkaCoordinates: boolean;
  partitioner: PartitionerConfig; flushSize: number; rotateIntervalMs: number | undefined; rotateScheduleIntervalMs: number | undefined;
  retry: { retries?: number; minTimeoutMs?: number; timeoutMs?: number };
}

/** @throws SinkConfigError (CONFIG_INVALID) naming the field. */
export function validateHdfsSinkConfig(config: unknown): NormalizedHdfsSinkConfig {
  const parsed = hdfsSinkConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SinkConfigError(issue.path.join('.') || '(config)', issue.message);
  }
  const c = parsed.data;
  return {
    url: c.url, user: c.user, topicsDir: (c.topicsDir ?? '/topics').replace(/\/+$/, '') || '/', format: c.format ?? { type: 'jsonl' },
    includeKafkaCoordinates: c.includeKafkaCoordinates ?? false, partitioner: c.partitioner ?? { type: 'default' },
    flushSize: c.flushSize ?? 10000, rotateIntervalMs: c.rotateIntervalMs, rotateScheduleIntervalMs: c.rotateScheduleIntervalMs,
    retry: c.retry ?? {},
  };
}
