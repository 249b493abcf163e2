/**
 * The SQL table writer of `kafka-eos run` for at-least-once and at-most-once delivery: each
 * record becomes one row written on its own (insert, or upsert by the sink's conflict key), with
 * no position stored in the database: Kafka's committed offsets are the positions. A record whose
 * mapping fails throws (SinkMappingError) and goes to the poison policy. Exactly-once delivery
 * uses the SqlSink itself instead (rows and offsets in one transaction, in batches).
 *
 * The table and the records are treated as the exactly-once sink treats them: `mapping.fromSchema`
 * creates the table from the first record's schemas (`autoCreate`) and checks each new schema against
 * it (schema-table.ts), and tombstones follow `behaviorOnNullValues` (with fromSchema the default
 * `ignore` writes no row; `fail` makes each a poison record). A declarative mapping's table is
 * created when the sink opens (`kafka-eos run` opens it before the consumer starts).
 */
import type { Knex } from 'knex';
import type { SinkRecord } from '../../records';
import { detectDialect, type SqlSinkConfig } from '../../sinks/sql';
import { compileSinkMapping, type CompiledSchemaMapping } from '../../sinks/sql/schema-mapping';
import { validateSqlSinkConfig } from '../../sinks/sql/config';
import { valuesInsert } from '../../sinks/sql/insert';
import { SchemaTable, tombstonesHandled } from '../../sinks/sql/schema-table';

/** A record handler writing one row per record into the sink's table through `knex`. */
export function plainRecordWriter(knex: Knex, config: SqlSinkConfig): (record: SinkRecord) => Promise<void> {
  const cfg = validateSqlSinkConfig(config);
  const mapper = compileSinkMapping(cfg.mapping, detectDialect(knex), cfg.includeKafkaCoordinates);
  const fromSchema = typeof cfg.mapping !== 'function' && 'fromSchema' in cfg.mapping;
  const table = fromSchema ? new SchemaTable(knex, cfg.table, mapper as CompiledSchemaMapping, {
    autoCreate: cfg.autoCreate, includeKafkaCoordinates: cfg.includeKafkaCoordinates, primaryKey: cfg.conflictKey,
  }) : undefined;
  return async (record) => {
    const records = cfg.behaviorOnNullValues ? tombstonesHandled([record], cfg.behaviorOnNullValues) : [record];
    if (records.length === 0) return; // a tombstone ignored: no row, its offset commits with the next
    const row = mapper.toRow(record);
    await table?.prepare([{
      batch: { topic: record.topic, partition: record.partition, expectedOffset: -1n, nextOffset: record.offset + 1n, records } }]);
    await valuesInsert(knex, cfg.table, Object.keys(row), [row], cfg.conflictKey);
  };
}
