/**
 * The SQL sink section of a `kafka-eos run` config (`sink: { type: sql, ... }`), every field
 * described for `kafka-eos run --print-schema`. See docs/sql-sink.md.
 */
import { z } from 'zod';

const column = z.object({
  path: z.string().min(1).optional().describe('dotted path in the JSON record value (default: the column name)'),
  type: z.enum(['string', 'integer', 'bigint', 'float', 'boolean', 'json', 'timestamp', 'numeric', 'bytes']).describe('column type'),
  nullable: z.boolean().optional().describe('whether a missing or null value is allowed (default false)'),
}).strict();

/** The SQL sink (see docs/sql-sink.md). */
export const sqlSinkSchema = z.object({
  type: z.literal('sql').describe('an exactly-once SQL sink through knex'),
  knex: z.object({
    client: z.enum(['sqlite3', 'pg', 'mysql2']).describe('database driver'),
  }).passthrough()
    .describe('a knex config: { client, connection, pool, ... }; connection is a postgresql:// URL or { filename } for SQLite'),
  table: z.string().min(1).describe('data table'),
  mode: z.enum(['insert', 'upsert', 'kafka-key']).describe('insert rows; upsert by upsertKey; or upsert by the Kafka coordinates'),
  upsertKey: z.array(z.string().min(1)).min(1).optional().describe('columns of the conflict key (mode upsert)'),
  offsetsTable: z.string().min(1).optional().describe('offsets table (default kafka_eos_offsets)'),
  autoCreate: z.boolean().optional().describe('create the data table from the mapping if missing (default false)'),
  mapping: z.union([
    z.object({
      columns: z.record(z.string(), column).describe('column name → { path, type, nullable }'),
      includeKafkaCoordinates: z.boolean().optional().describe('add kafka_topic, kafka_partition, kafka_offset columns (default true)'),
    }).strict(),
    z.object({
      fromSchema: z.union([z.literal(true), z.object({
        flatten: z.union([z.string().min(1), z.literal(false)]).optional()
          .describe('join nested struct fields into columns with this separator (default: a nested struct is one json column)'),
        keyColumn: z.string().min(1).optional().describe('the column of a primitive key (default kafka_key)'),
        keyPrefix: z.string().optional().describe("prefix of a struct key's field columns (default none)"),
        headers: z.record(z.string(), z.string().min(1)).optional().describe('header name → column (text)'),
      }).strict()]).describe("columns from the converted records' schemas (docs/converters.md)"),
      includeKafkaCoordinates: z.boolean().optional().describe('add kafka_topic, kafka_partition, kafka_offset columns (default true)'),
    }).strict(),
  ]).describe('how a record becomes a row: declared columns reading the JSON value, or columns from the schemas'),
  behaviorOnNullValues: z.enum(['ignore', 'fail']).optional()
    .describe('a tombstone (null value): write no row (ignore; default with fromSchema) or a poison record (fail)'),
  pipelinedWrites: z.boolean().optional()
    .describe('PostgreSQL: each write as one message, BEGIN; CAS; COPY; COMMIT, rows streamed behind it (default true)'),
}).strict();
