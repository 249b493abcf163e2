/**
 * The SQL table writer of `kafka-eos run` for at-least-once and at-most-once delivery: each
 * record becomes one row written on its own (insert, or upsert by the sink's conflict key), with
 * no position stored in the database: Kafka's committed offsets are the positions. A record whose
 * mapping fails throws (SinkMappingError) and goes to the poison policy. Exactly-once delivery
 * uses the SqlSink itself instead (rows and offsets in one transaction, in batches).
 */
import type { Knex } from 'knex';
import type { SinkRecord } from '../../records';
import { detectDialect, type SqlSinkConfig } from '../../sinks/sql';
import { compileSinkMapping } from '../../sinks/sql/schema-mapping';
import { validateSqlSinkConfig } from '../../sinks/sql/config';
import { valuesInsert } from '../../sinks/sql/insert';

/** A record handler writing one row per record into the sink's table through `knex`. */
export function plainRecordWriter(knex: Knex, config: SqlSinkConfig): (record: SinkRecord) => Promise<void> {
  const cfg = validateSqlSinkConfig(config);
  const mapper = compileSinkMapping(cfg.mapping, detectDialect(knex), cfg.includeKafkaCoordinates);
  return async (record) => {
    const row = mapper.toRow(record);
    await valuesInsert(knex, cfg.table, Object.keys(row), [row], cfg.conflictKey);
  };
}
