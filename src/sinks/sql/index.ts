/** SQL sink barrel: SqlSink, its config, errors and dialect helpers. */
export { SqlSink } from './sql-sink';
export { JdbcSink } from './jdbc-sink';
export type { JdbcSinkConfig, JdbcInsertMode } from './jdbc-sink';
export type { PkMode } from './jdbc-columns';
export type { SqlSinkConfig, SqlSinkMode } from './config';
export { validateSqlSinkConfig } from './config';
export type { ColumnMapping, ColumnType, DeclarativeMapping, MappingFunction, SinkMapping } from './mapping';
export { MissingDriverError, SinkConfigError, SinkMappingError, SinkWriteError, isTransientSqlError } from './errors';
export type { SinkWriteErrorCode } from './errors';
export { assertDriverInstalled, createKnex, sqliteAfterCreate, detectDialect, rowsPerStatement, bindBigint, toBigint } from './dialect';
export type { SqlDialect } from './dialect';
export { ensureOffsetsTable, ensureDataTable, KAFKA_COORDINATE_COLUMNS } from './ddl';
