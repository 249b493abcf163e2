/**
 * The columns and primary key of a Kafka Connect JDBC sink table, from a converted record's key and value schemas,
 * as Confluent's JDBC sink derives them (its FieldsMetadata): by `pk.mode`
 *
 * - `none`: no key; the value struct's fields;
 * - `kafka`: `__connect_topic`, `__connect_partition`, `__connect_offset` (or the three names of `pk.fields`) as the key;
 * - `record_key`: a primitive key is one key column named by the single `pk.fields` entry; a struct key its fields
 *   (those `pk.fields` names, or all);
 * - `record_value`: the value fields named by `pk.fields` (or all of them) are the key;
 *
 * then the value struct's fields (filtered by `fields.whitelist` / `fields.include`; a value field named like a key
 * column is the key column). Types follow sinks/schema-columns.ts (a nested struct, array or map is one json column,
 * where Connect refuses the record). Key columns are NOT NULL. A record the mode cannot read (no key schema in
 * record_key, a value that is not a struct) is SINK_MAPPING_FAILED naming it, Connect's own wording.
 */
import type { RecordSchema, SinkRecord } from '../../records';
import { jsonOfData, kindOf, schemaKey } from '../schema-columns';
import { bindBigint, type SqlDialect } from './dialect';
import { SinkMappingError } from './errors';
import { ColumnValueError, convert, type ColumnType, type Row } from './mapping';

/** Connect's `pk.mode`. */
export type PkMode = 'none' | 'kafka' | 'record_key' | 'record_value';

/** What decides a JDBC sink table's columns (Connect's key names in the comments). */
export interface JdbcColumnOptions {
  /** `pk.mode`. */
  pkMode: PkMode;
  /** `pk.fields` (empty: Connect's defaults for the mode). */
  pkFields: readonly string[];
  /** `fields.whitelist` / `fields.include`: the value fields to write (empty: all). */
  fieldsInclude: readonly string[];
}

/** One column of a JDBC sink table. */
export interface JdbcColumn {
  name: string;
  type: ColumnType;
  nullable: boolean;
  /** Part of the primary key. */
  key: boolean;
  /** Where it comes from, for messages (`value.address`, `key`, `kafka.offset`). */
  source: string;
  read(r: SinkRecord): unknown;
}

/** The columns of one (key schema, value schema) pair, key columns first. */
export interface JdbcColumns { columns: JdbcColumn[]; keyColumns: string[] }

/** Connect's default names of the `pk.mode=kafka` columns. */
export const KAFKA_PK_DEFAULTS = ['__connect_topic', '__connect_partition', '__connect_offset'] as const;

const where = (r: SinkRecord, column?: string) => ({ topic: r.topic, partition: r.partition, offset: r.offset, column });

function fieldReader(root: (r: SinkRecord) => unknown, name: string): (r: SinkRecord) => unknown {
  return (r) => {
    const v = root(r) as Record<string, unknown> | null | undefined;
    return v == null ? null : v[name];
  };
}

const keyOf = (r: SinkRecord): unknown => r.convertedKey?.value;
const valueOf = (r: SinkRecord): unknown => r.convertedValue?.value;

/**
 * The key columns a record's key (record_key) or the Kafka coordinates (kafka) give; for deletes too, where the
 * value is null. @throws SinkMappingError when the record cannot give them.
 */
function keyColumns(r: SinkRecord, o: JdbcColumnOptions, value: RecordSchema | null): JdbcColumn[] {
  if (o.pkMode === 'kafka') {
    const [t, p, off] = o.pkFields.length === 3 ? o.pkFields : KAFKA_PK_DEFAULTS;
    return [
      { name: t!, type: 'string', nullable: false, key: true, source: 'kafka.topic', read: (x) => x.topic },
      { name: p!, type: 'integer', nullable: false, key: true, source: 'kafka.partition', read: (x) => x.partition },
      { name: off!, type: 'bigint', nullable: false, key: true, source: 'kafka.offset', read: (x) => bindBigint(x.offset) },
    ];
  }
  if (o.pkMode === 'record_key') {
    const schema = r.convertedKey?.schema;
    if (!schema || r.convertedKey?.value == null) {
      throw new SinkMappingError("pk.mode is record_key, which requires records with a non-null key and key schema (a key.converter "
        + 'with schemas: string, connect-json, avro, protobuf, json-schema)', where(r));
    }
    if (schema.type !== 'struct') {
      if (o.pkFields.length !== 1) {
        throw new SinkMappingError(`the key is a primitive (${schema.type}): pk.fields must name exactly one column for it, `
          + `got ${o.pkFields.length === 0 ? 'none' : o.pkFields.join(', ')}`, where(r));
      }
      return [{ name: o.pkFields[0]!, type: kindOf(schema), nullable: false, key: true, source: 'key', read: keyOf }];
    }
    const fields = schema.fields ?? [];
    const names = o.pkFields.length > 0 ? o.pkFields : fields.map((f) => f.name);
    return names.map((n) => {
      const f = fields.find((x) => x.name === n);
      if (!f) throw new SinkMappingError(`pk.fields names ${n}, which the key struct has no field for`, where(r));
      return { name: n, type: kindOf(f.schema), nullable: false, key: true, source: `key.${n}`, read: fieldReader(keyOf, n) };
    });
  }
  if (o.pkMode === 'record_value' && value) {
    const fields = value.fields ?? [];
    const names = o.pkFields.length > 0 ? o.pkFields : fields.map((f) => f.name);
    return names.map((n) => {
      const f = fields.find((x) => x.name === n);
      if (!f) throw new SinkMappingError(`pk.fields names ${n}, which the value struct has no field for`, where(r));
      return { name: n, type: kindOf(f.schema), nullable: false, key: true, source: `value.${n}`, read: fieldReader(valueOf, n) };
    });
  }
  return [];
}

/** The columns of `r` (see the module comment). @throws SinkMappingError */
export function jdbcColumns(r: SinkRecord, o: JdbcColumnOptions): JdbcColumns {
  const value = r.convertedValue?.schema ?? null;
  if (!value || value.type !== 'struct') {
    throw new SinkMappingError(`the value ${value ? `is a ${value.type}, not a struct` : 'has no schema'}: the JDBC sink writes `
      + 'records with a struct value and its schema (a value.converter with schemas: connect-json, avro, protobuf, json-schema)', where(r));
  }
  const keys = keyColumns(r, o, value);
  const keyNames = new Set(keys.map((k) => k.name));
  const include = new Set(o.fieldsInclude);
  const columns = [...keys];
  for (const f of value.fields ?? []) {
    if (keyNames.has(f.name)) continue;
    if (include.size > 0 && !include.has(f.name)) continue;
    columns.push({
      name: f.name, type: kindOf(f.schema), nullable: f.schema.optional || value.optional, key: false, source: `value.${f.name}`,
      read: fieldReader(valueOf, f.name),
    });
  }
  return { columns, keyColumns: keys.map((k) => k.name) };
}

/**
 * The key columns of a tombstone (a delete, `delete.enabled`): record_key only, as Connect allows deletes only there.
 * @throws SinkMappingError when the record has no usable key
 */
export function jdbcDeleteKey(r: SinkRecord, o: JdbcColumnOptions): JdbcColumn[] {
  return keyColumns(r, o, null);
}

/** The row of `r` for `columns` (values converted for `dialect`). @throws SinkMappingError naming the column */
export function jdbcRow(r: SinkRecord, columns: readonly JdbcColumn[], dialect: SqlDialect): Row {
  const row: Row = {};
  for (const c of columns) {
    const raw = c.read(r);
    if (raw === undefined || raw === null) {
      if (!c.nullable) throw new SinkMappingError(`missing value for non-nullable column (${c.source})`, where(r, c.name));
      row[c.name] = null;
      continue;
    }
    try {
      row[c.name] = c.type === 'json' ? jsonOfData(raw) : convert(raw, c.type, dialect);
    } catch (err) {
      if (!(err instanceof ColumnValueError)) throw err;
      throw new SinkMappingError(`${err.message} (${c.source})`, where(r, c.name));
    }
  }
  return row;
}

/** Column sets cached per schema pair (one per compiled schema id, as schema-mapping.ts does). */
export class JdbcColumnCache {
  private readonly cache = new Map<string, JdbcColumns>();
  constructor(private readonly options: JdbcColumnOptions) {}

  /** The columns of `r`'s schemas. @throws SinkMappingError */
  of(r: SinkRecord): JdbcColumns {
    const k = schemaKey(r);
    let cols = this.cache.get(k);
    if (!cols) {
      cols = jdbcColumns(r, this.options);
      if (this.cache.size >= 256) this.cache.clear();
      this.cache.set(k, cols);
    }
    return cols;
  }
}
