/**
 * HdfsSink configuration, validated with zod (the same schema serves `kafka-eos run` configs).
 * Units: ms for intervals, records for flushSize.
 */
import { z } from 'zod';
import { schemaKeysAt, unknownOptionMessage } from '../../util/did-you-mean';
import { SinkConfigError } from '../errors';
import type { HdfsFormatConfig } from './format';
import type { PartitionerConfig } from './partitioner';

const column = z.object({
  /** Column name in the file (an identifier). */
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an identifier').describe('column name in the file (an identifier)'),
  /** Column type: string, int64 (exact signed 64-bit: JSON numbers up to 2^53, or strings), double, boolean, timestamp. */
  type: z.enum(['string', 'int64', 'double', 'boolean', 'timestamp'])
    .describe('string | int64 (JSON numbers up to 2^53, or strings) | double | boolean | timestamp (ISO text or epoch ms)'),
  /** Dot path into the record's JSON value (default: the column name). */
  path: z.string().min(1).optional().describe("dot path into the record's JSON value (default: the column name)"),
  /** Whether a missing or null value is allowed (default true; false refuses the record with SINK_MAPPING_FAILED). */
  nullable: z.boolean().optional().describe('whether a missing or null value is allowed (default true)'),
}).strict();

/** The JSON-serialisable part of {@link HdfsSinkConfig} (what a `run` config file holds). */
export const hdfsSinkConfigSchema = z.object({
  /** NameNode URL, e.g. `http://namenode:9870` (required). */
  url: z.string().regex(/^https?:\/\/[^/\s]+\/?$/, 'expected http(s)://host:port').describe('NameNode URL, http(s)://host:port'),
  /** Sent as WebHDFS `user.name` (default: none, the NameNode's anonymous user). */
  user: z.string().min(1).optional().describe("WebHDFS user.name (default: none, the NameNode's anonymous user)"),
  /** Absolute HDFS directory holding topics, `+tmp` and `+log` (default `/topics`). One group per topicsDir. */
  topicsDir: z.string().regex(/^\/[^\s]*$/, 'expected an absolute HDFS path').optional()
    .describe('absolute HDFS directory holding the topics, +tmp and +log (default /topics); one group per topicsDir'),
  /** File format (default `{ type: 'jsonl' }`): JSON lines, CSV / Parquet (declared columns or the schemas'), or Avro. */
  format: z.discriminatedUnion('type', [
    z.object({
      /** JSON lines: one record value per line, as written by the producer (default). */
      type: z.literal('jsonl').describe('JSON lines: one record value per line'),
    }).strict(),
    z.object({
      /** CSV (RFC 4180, header row, CRLF). */
      type: z.literal('csv').describe('CSV (RFC 4180, header row)'),
      /** The columns, in file order (default: from the converted records' schemas). */
      columns: z.array(column).min(1).optional().describe("the columns, in file order (default: from the records' schemas)"),
    }).strict(),
    z.object({
      /** Parquet (hyparquet-writer). */
      type: z.literal('parquet').describe('Parquet'),
      /** The columns, in file order (default: from the converted records' schemas). */
      columns: z.array(column).min(1).optional().describe("the columns, in file order (default: from the records' schemas)"),
    }).strict(),
    z.object({
      /** Avro object container files, the writer schema from the value's Connect schema (docs/converters.md). */
      type: z.literal('avro').describe("Avro object container files (writer schema from the value's schema)"),
      /** Block compression (default null: none). */
      codec: z.enum(['null', 'deflate']).optional().describe('block compression: null (default) or deflate'),
    }).strict(),
  ]).optional().describe('file format (default { type: jsonl })'),
  /** Add _topic, _partition, _offset, _timestamp to every row (default false). */
  includeKafkaCoordinates: z.boolean().optional().describe('add _topic, _partition, _offset, _timestamp to every row (default false)'),
  /** Where under `<topicsDir>/<topic>/` a record's file goes (default `{ type: 'default' }`: `partition=<n>`). */
  partitioner: z.discriminatedUnion('type', [
    z.object({
      /** `partition=<kafka partition>` (default). */
      type: z.literal('default').describe('partition=<kafka partition>'),
    }).strict(),
    z.object({
      /** `<field>=<value>` from the record's JSON value (the directory name at most 255 bytes). */
      type: z.literal('field').describe("<field>=<value> from the record's JSON value"),
      /** Dot path of the field. */
      field: z.string().min(1).describe('dot path of the field'),
    }).strict(),
    z.object({
      /** Record-time directories. */
      type: z.literal('time').describe('record-time directories'),
      /** Tokens YYYY MM dd HH mm (zero-padded); quoted text is literal, e.g. `'year'=YYYY/'month'=MM`. */
      pathFormat: z.string().min(1).describe("tokens YYYY MM dd HH mm; quoted text literal, e.g. 'year'=YYYY/'month'=MM"),
      /** The record timestamp is floored to this many ms before formatting. */
      durationMs: z.number().int().positive().describe('the record timestamp is floored to this many ms'),
      /** IANA time zone of the directories (default UTC). */
      timezone: z.string().min(1).optional().describe('IANA time zone (default UTC)'),
    }).strict(),
  ]).optional().describe('where a record\'s file goes (default { type: default }: partition=<n>)'),
  /** Commit a file once it holds this many records (default 10000). */
  flushSize: z.number().int().positive().optional().describe('commit a file once it holds this many records (default 10000)'),
  /** Commit a file before a record whose timestamp is this far (ms) past the file's first record (record time; default: never). */
  rotateIntervalMs: z.number().int().positive().optional()
    .describe("commit before a record this far (ms) past the file's first record timestamp (default: never)"),
  /** Commit every open file on this wall-clock schedule (ms), traffic or not (default: never). */
  rotateScheduleIntervalMs: z.number().int().positive().optional()
    .describe('commit every open file on this wall-clock schedule, ms (default: never)'),
  /** Retries of a WebHDFS call that failed transiently (network errors, 5xx; only idempotent calls). */
  retry: z.object({
    /** Retries after the first try (default 4). */
    retries: z.number().int().min(0).optional().describe('retries after the first try (default 4)'),
    /** Delay before the first retry, ms (default 50; doubling, at most 2000). */
    minTimeoutMs: z.number().int().min(0).optional().describe('delay before the first retry, ms (default 50; doubling, at most 2000)'),
    /** Timeout of one HTTP request, ms (default 30000). */
    timeoutMs: z.number().int().positive().optional().describe('timeout of one HTTP request, ms (default 30000)'),
  }).strict().optional().describe('retries of WebHDFS calls that failed transiently'),
}).strict();

/** The HDFS sink's configuration as given (see hdfsSinkConfigSchema's field comments and docs/hdfs-sink.md). */
export type HdfsSinkConfig = z.infer<typeof hdfsSinkConfigSchema>;

/** {@link HdfsSinkConfig} after validation, defaults filled in (format jsonl, partitioner default, flushSize 10000). */
export interface NormalizedHdfsSinkConfig {
  url: string; user: string | undefined; topicsDir: string; format: HdfsFormatConfig; includeKafkaCoordinates: boolean;
  partitioner: PartitionerConfig; flushSize: number; rotateIntervalMs: number | undefined; rotateScheduleIntervalMs: number | undefined;
  retry: { retries?: number; minTimeoutMs?: number; timeoutMs?: number };
}

/** @throws SinkConfigError (CONFIG_INVALID) naming the field; an unknown option with a did-you-mean. */
export function validateHdfsSinkConfig(config: unknown): NormalizedHdfsSinkConfig {
  const parsed = hdfsSinkConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      throw new SinkConfigError([...issue.path, key].join('.'),
        unknownOptionMessage(key, schemaKeysAt(hdfsSinkConfigSchema, issue.path, config)));
    }
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
