/**
 * The SQL sink's `mapping: { fromSchema }`: rows from converted records' schemas (sinks/schema-columns.ts), with
 * no hand-written column list. Column sets are compiled once per key/value schema pair (schema ids). Every row of
 * one schema has the same columns; rows of different schemas in one write are padded with NULLs by the sink.
 * A record without a value schema (schemaless, or no converter) is SINK_MAPPING_FAILED naming the record; a
 * value that does not fit its column is SINK_MAPPING_FAILED naming the column and the schema field.
 */
import type { SinkRecord } from '../../records';
import {
  assertDistinctColumns, jsonOfData, schemaColumns, schemaKey, type SchemaColumn, type SchemaColumnsOptions,
} from '../schema-columns';
import type { SqlDialect } from './dialect';
import { SinkMappingError } from './errors';
import {
  ColumnValueError, compileMapping, convert, coordinates, jsonText, type ColumnType, type CompiledMapping, type Row, type SchemaMapping,
  type SinkMapping,
} from './mapping';

/** Compiles any SQL sink mapping: a function, declared columns (mapping.ts) or `fromSchema` (here). */
export function compileSinkMapping(mapping: SinkMapping, dialect: SqlDialect, includeKafkaCoordinates: boolean): CompiledMapping {
  return typeof mapping !== 'function' && 'fromSchema' in mapping
    ? compileSchemaMapping(mapping, dialect, includeKafkaCoordinates) : compileMapping(mapping, dialect, includeKafkaCoordinates);
}

/** A derived column with its SQL type. */
export interface SqlSchemaColumn extends SchemaColumn { type: ColumnType }

/** A compiled schema mapping: rows, and the SQL columns of a record's schemas (for creating or checking the table). */
export interface CompiledSchemaMapping extends CompiledMapping {
  /** The data columns (coordinates excluded) of `record`'s schemas. @throws SinkMappingError for a record without a value schema */
  columnsOf(record: SinkRecord): SqlSchemaColumn[];
}

const MAX_CACHED = 256;
/** The columns `includeKafkaCoordinates` adds (mapping.ts coordinates()). */
const COORDINATES = ['kafka_topic', 'kafka_partition', 'kafka_offset'];

/** Compiles `mapping.fromSchema` for a dialect (see the module comment). */
export function compileSchemaMapping(mapping: SchemaMapping, dialect: SqlDialect, includeKafkaCoordinates: boolean): CompiledSchemaMapping {
  const options: SchemaColumnsOptions = mapping.fromSchema === true ? {} : mapping.fromSchema;
  const cache = new Map<string, SqlSchemaColumn[]>();
  // The schemas of consecutive records are usually the same objects (one per compiled schema id): compare those first.
  let last: { k: unknown; v: unknown; cols: SqlSchemaColumn[] } | undefined;
  const columnsOf = (record: SinkRecord): SqlSchemaColumn[] => {
    const k = record.convertedKey?.schema;
    const v = record.convertedValue?.schema;
    if (last && last.v === v && last.k === k && v) return last.cols;
    const key = schemaKey(record);
    let cols = cache.get(key);
    if (!cols) {
      if (!record.convertedValue?.schema) {
        throw new SinkMappingError('the value has no schema: mapping.fromSchema needs a value converter with schemas '
          + '(avro, protobuf, json-schema, connect-json)', { topic: record.topic, partition: record.partition, offset: record.offset });
      }
      cols = schemaColumns(record, options).map((c) => ({ ...c, type: c.kind }));
      assertDistinctColumns(cols, record, includeKafkaCoordinates ? COORDINATES : []);
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(key, cols);
    }
    last = { k, v, cols };
    return cols;
  };
  return {
    columns: undefined,
    columnsOf,
    toRow(record) {
      const row: Row = includeKafkaCoordinates ? coordinates(record) : {};
      for (const c of columnsOf(record)) {
        const raw = c.read(record);
        const where = { topic: record.topic, partition: record.partition, offset: record.offset, column: c.name };
        if (raw === undefined || raw === null) {
          if (!c.nullable) throw new SinkMappingError(`missing value for non-nullable column (schema field ${c.source})`, where);
          row[c.name] = null;
          continue;
        }
        try {
          row[c.name] = c.type === 'json' ? jsonText(jsonOfData(raw), dialect) : convert(raw, c.type, dialect);
        } catch (err) {
          if (!(err instanceof ColumnValueError)) throw err;
          throw new SinkMappingError(`${err.message} (schema field ${c.source})`, where);
        }
      }
      return row;
    },
  };
}
