/**
 * The JDBC sink section of a `kafka-eos run` config (`sink: { type: jdbc, ... }`): sinks/sql JdbcSink, Kafka Connect's
 * JDBC sink connector semantics exactly once. What a JDBC sink connector's keys become (src/connect/jdbc.ts,
 * docs/connect.md); writable by hand as well. Every field described for `kafka-eos run --print-schema`.
 */
import { z } from 'zod';

const int = (min: number) => z.number().int().min(min);

/** The JDBC sink (see docs/connect.md). */
export const jdbcSinkSchema = z.object({
  type: z.literal('jdbc').describe("Kafka Connect's JDBC sink semantics, exactly once: tables by topic, keys, deletes, evolution"),
  knex: z.object({
    client: z.enum(['sqlite3', 'pg', 'mysql2']).describe('database driver'),
  }).passthrough().describe('a knex config: { client, connection, pool, ... }'),
  tableNameFormat: z.string().min(1).optional().describe('table.name.format: ${topic} replaced by the topic (default ${topic})'),
  insertMode: z.enum(['insert', 'upsert', 'update']).optional().describe('insert.mode (default insert)'),
  pkMode: z.enum(['none', 'kafka', 'record_key', 'record_value']).optional().describe('pk.mode (default none)'),
  pkFields: z.array(z.string().min(1)).optional().describe("pk.fields (default: the mode's)"),
  fieldsInclude: z.array(z.string().min(1)).optional().describe('fields.whitelist / fields.include: value fields written (default all)'),
  deleteEnabled: z.boolean().optional().describe('delete.enabled: a tombstone deletes its key\'s row (needs pkMode record_key)'),
  autoCreate: z.boolean().optional().describe('auto.create: create a missing table from the records\' schemas (default false)'),
  autoEvolve: z.boolean().optional().describe('auto.evolve: add a nullable column for a new optional field (default false)'),
  offsetsTable: z.string().min(1).optional().describe('offsets table (default kafka_eos_offsets)'),
  maxRowsPerStatement: int(1).optional().describe('batch.size: rows per INSERT statement'),
  retry: z.object({
    retries: int(0).optional().describe('max.retries: retries of a transient database error (default 5)'),
    minTimeoutMs: int(0).optional().describe('retry.backoff.ms: first delay, ms (default 50; doubling)'),
    maxTimeoutMs: int(0).optional().describe('longest delay, ms (default 2000)'),
  }).strict().optional().describe('retries of transient database errors'),
}).strict();
