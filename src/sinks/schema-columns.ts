/**
 * Columns derived from a converted record's schemas (Kafka Connect's data model, records.ts RecordSchema),
 * shared by the SQL and HDFS sinks, the way Connect's JDBC sink derives a table from `valueSchema()`:
 *
 * - the value's struct fields become columns, in schema order; a nested struct becomes one `json` column,
 *   or its fields flattened into `<outer><separator><inner>` columns (`flatten`);
 * - the key: a primitive key is one column (`keyColumn`, default `kafka_key`), a struct key its fields
 *   (named with `keyPrefix`, default none), absent when the records have no converted key;
 * - headers named in `headers` (header name → column name) become text columns;
 * - types: int8-int32 → integer, int64 → bigint, float32/float64 → float, boolean, string, bytes, Decimal →
 *   numeric, Timestamp and Date → timestamp, Time → integer (ms of the day), array and map → json (a
 *   JSON Schema node without a Connect type, named `json`, → json); an optional field (or any field of an
 *   optional struct) is nullable.
 *
 * A non-struct value (a primitive, an array) is one column named `value`.
 */
import { isUtf8 } from 'node:buffer';
import type { RecordSchema, SinkRecord } from '../records';
import { SinkMappingError } from './errors';

/** The column kinds a schema maps to (each sink maps them to its own types). */
export type SchemaColumnKind = 'string' | 'integer' | 'bigint' | 'float' | 'boolean' | 'json' | 'timestamp' | 'numeric' | 'bytes';

/** One derived column: its name, kind, whether it may be null, and how to read it from a converted record. */
export interface SchemaColumn {
  name: string;
  kind: SchemaColumnKind;
  nullable: boolean;
  /** Where it comes from, for messages (`value.address.city`, `key`, `headers.trace-id`). */
  source: string;
  read(r: SinkRecord): unknown;
}

/** How columns are derived (see the module comment). */
export interface SchemaColumnsOptions {
  /** Join nested struct fields into columns with this separator (e.g. `_`); false/absent: a nested struct is one json column. */
  flatten?: string | false;
  /** The column of a primitive key (default `kafka_key`). */
  keyColumn?: string;
  /** Prefix of a struct key's field columns (default none). */
  keyPrefix?: string;
  /** Header name → column name (text). */
  headers?: Record<string, string>;
}

/** The kind of a non-struct schema. */
export function kindOf(s: RecordSchema): SchemaColumnKind {
  if (s.logical === 'decimal') return 'numeric';
  if (s.logical === 'timestamp' || s.logical === 'date') return 'timestamp';
  switch (s.type) {
    case 'int8': case 'int16': case 'int32': return 'integer';
    case 'int64': return 'bigint';
    case 'float32': case 'float64': return 'float';
    case 'boolean': return 'boolean';
    case 'string': return s.name === 'json' ? 'json' : 'string';
    case 'bytes': return 'bytes';
    default: return 'json';
  }
}

/**
 * A header's value as text (null when absent). Header values are bytes: one that is not UTF-8 text is refused rather
 * than stored with U+FFFD in place of what it held (the record's fault; a dead letter keeps its bytes).
 * @throws SinkMappingError naming the record, the header and `column`
 */
export function headerText(r: SinkRecord, header: string, column: string): string | null {
  const h = r.headers[header];
  if (h === undefined || h === null) return null;
  if (typeof h === 'string') return h;
  if (!isUtf8(h)) {
    throw new SinkMappingError(`header ${header} is not UTF-8 text (a header column holds text)`,
      { topic: r.topic, partition: r.partition, offset: r.offset, column });
  }
  return h.toString('utf8');
}

/** Reads a nested field: `path` of field names from `root`. */
function reader(root: (r: SinkRecord) => unknown, path: string[]): (r: SinkRecord) => unknown {
  if (path.length === 1) {
    const [k] = path as [string];
    return (r) => { const v = root(r) as Record<string, unknown> | null | undefined; return v == null ? null : v[k]; };
  }
  return (r) => {
    let cur = root(r);
    for (const k of path) {
      if (cur === null || cur === undefined) return null;
      cur = (cur as Record<string, unknown>)[k];
    }
    return cur;
  };
}

function structColumns(
  s: RecordSchema, root: (r: SinkRecord) => unknown, prefix: string, path: string[], nullable: boolean, source: string,
  flatten: string | false, out: SchemaColumn[],
): void {
  for (const f of s.fields ?? []) {
    const p = [...path, f.name];
    const optional = nullable || f.schema.optional;
    if (f.schema.type === 'struct' && flatten !== false && f.schema.name !== 'io.confluent.connect.avro.Union') {
      structColumns(f.schema, root, `${prefix}${f.name}${flatten}`, p, optional, `${source}.${f.name}`, flatten, out);
    } else {
      out.push({ name: `${prefix}${f.name}`, kind: kindOf(f.schema), nullable: optional, source: `${source}.${f.name}`,
        read: reader(root, p) });
    }
  }
}

/**
 * The columns of a record, from its converted key and value schemas (see the module comment). Returns an empty
 * list for a record without a value schema (schemaless or a tombstone).
 */
export function schemaColumns(r: SinkRecord, options: SchemaColumnsOptions = {}): SchemaColumn[] {
  const out: SchemaColumn[] = [];
  const flatten = options.flatten ?? false;
  const key = r.convertedKey?.schema;
  if (key) {
    const keyOf = (x: SinkRecord) => x.convertedKey?.value;
    if (key.type === 'struct') structColumns(key, keyOf, options.keyPrefix ?? '', [], key.optional, 'key', flatten, out);
    else out.push({ name: options.keyColumn ?? 'kafka_key', kind: kindOf(key), nullable: true, source: 'key', read: keyOf });
  }
  const value = r.convertedValue?.schema;
  if (value) {
    const valueOf = (x: SinkRecord) => x.convertedValue?.value;
    if (value.type === 'struct') structColumns(value, valueOf, '', [], value.optional, 'value', flatten, out);
    else out.push({ name: 'value', kind: kindOf(value), nullable: value.optional, source: 'value', read: valueOf });
  }
  for (const [header, column] of Object.entries(options.headers ?? {})) {
    out.push({ name: column, kind: 'string', nullable: true, source: `headers.${header}`, read: (x) => headerText(x, header, column) });
  }
  return out;
}

/**
 * Refuses columns that would share a name: a key field and a value field of one name (set `keyPrefix`), a nested field
 * flattened onto another's name, or a field named like a column the sink adds itself (`reserved`: the Kafka
 * coordinates). Each would overwrite the other's value in the row, or fail the table's creation.
 * @throws SinkMappingError (SINK_MAPPING_FAILED) naming the column and both sources
 */
export function assertDistinctColumns(columns: SchemaColumn[], r: SinkRecord, reserved: readonly string[] = []): void {
  const seen = new Map<string, string>(reserved.map((n) => [n, 'the Kafka coordinates (includeKafkaCoordinates)']));
  for (const c of columns) {
    const other = seen.get(c.name);
    if (other !== undefined) {
      throw new SinkMappingError(`${c.source} and ${other} would both be column ${c.name}`
        + `${c.source.startsWith('key') || other.startsWith('key') ? ' (set keyPrefix)' : ''}`,
      { topic: r.topic, partition: r.partition, offset: r.offset, column: c.name });
    }
    seen.set(c.name, c.source);
  }
}

/** A cache key for the column set of a record (its key and value schema ids, or their schemas when there is no id). */
export function schemaKey(r: SinkRecord): string {
  const part = (c: SinkRecord['convertedValue']) =>
    (c?.schemaId !== undefined ? `#${c.schemaId}` : c?.schema ? JSON.stringify(c.schema) : '-');
  return `${part(r.convertedKey)}|${part(r.convertedValue)}`;
}

/** JSON text of converted data: bigint as a number when exact (else a string), bytes as base64, Dates as ISO-8601. */
export function jsonOfData(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'bigint')
      return x <= BigInt(Number.MAX_SAFE_INTEGER) && x >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x.toString();
    if (x && typeof x === 'object' && (x as { type?: unknown }).type === 'Buffer' && Array.isArray((x as { data?: unknown }).data)) {
      return Buffer.from((x as { data: number[] }).data).toString('base64');
    }
    return x;
  });
}
