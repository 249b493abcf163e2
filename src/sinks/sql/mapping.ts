/**
 * Record → row mapping: either a user function or a declarative column list reading dot paths of the JSON value.
 * Every value leaving here is safe to bind on the dialect (no JS bigint, which sqlite3 would silently bind as NULL).
 */
import { KafkaEosError } from '../../errors';
import type { SinkRecord } from '../../records';
import { bindBigint, type SqlDialect } from './dialect';
import { SinkMappingError } from './errors';
import { headerText, type SchemaColumnsOptions } from '../schema-columns';
import { COPY_NULL, encodeCopyValue, escapeCopyText } from './copy-text';

export type ColumnType = 'string' | 'integer' | 'bigint' | 'float' | 'boolean' | 'json' | 'timestamp' | 'numeric' | 'bytes';
export const COLUMN_TYPES: readonly ColumnType[] = [
  'string', 'integer', 'bigint', 'float', 'boolean', 'json', 'timestamp', 'numeric', 'bytes',
];

/**
 * One column of a declarative mapping.
 * `path`: where the value comes from; default = the column name. A dot path into the JSON-parsed record value
 * (`a.b.0.c`, numeric segments index arrays), or `$key` (key as UTF-8 text), `$timestamp` (record timestamp, ms),
 * `$value` (the whole parsed value), `$headers.<name>` (header as UTF-8 text).
 * `nullable` (default false): a missing/null value is an error unless true.
 * Types: string → TEXT; integer → 32-bit INTEGER; bigint → BIGINT; float → DOUBLE; boolean; json → JSONB/TEXT;
 * timestamp → TIMESTAMPTZ on PostgreSQL, ISO-8601 text on SQLite (accepts ms epoch numbers, ISO strings);
 * numeric → NUMERIC on PostgreSQL, TEXT on SQLite (exact decimals, bound as their decimal text: SQLite's NUMERIC
 * affinity would round them to a REAL); bytes → BYTEA / BLOB (a Buffer, or base64 text).
 */
export interface ColumnMapping { path?: string; type: ColumnType; nullable?: boolean }
export interface DeclarativeMapping {
  /** Column name → where its value comes from and its type (see {@link ColumnMapping}). */
  columns: Record<string, ColumnMapping>;
  /**
   * Add kafka_topic, kafka_partition, kafka_offset columns (default true); the same as the sink's
   * `includeKafkaCoordinates` (they must agree).
   */
  includeKafkaCoordinates?: boolean;
}
/** A user mapping: returns column → value. bigint and Date values are converted for the dialect; throwing fails the write. */
export type MappingFunction = (record: SinkRecord) => Record<string, unknown>;
/**
 * Columns from the converted records' schemas (a key converter's and a value converter's, see
 * docs/converters.md): no hand-written column list. docs/converters.md ("Sinks: columns from the schemas") says how fields become columns.
 */
export interface SchemaMapping {
  /** `true`, or how fields become columns: `{ flatten?, keyColumn?, keyPrefix?, headers? }` (docs/converters.md). */
  fromSchema: SchemaColumnsOptions | true;
  /** Add kafka_topic, kafka_partition, kafka_offset columns (default true); as the sink's `includeKafkaCoordinates`. */
  includeKafkaCoordinates?: boolean;
}
export type SinkMapping = MappingFunction | DeclarativeMapping | SchemaMapping;
export type Row = Record<string, unknown>;

export interface CompiledMapping {
  /** The columns every row has (declarative mappings, including coordinates), or undefined for a function mapping. */
  readonly columns: string[] | undefined;
  /** Maps one record; throws {@link SinkMappingError}. */
  toRow(record: SinkRecord): Row;
  /**
   * Declarative mappings only: writes the record's bind values into `out[at .. at + columns.length)`, in `columns`
   * order: the values {@link CompiledMapping.toRow}'s row holds, without building the row object (the sink's bulk
   * paths read them from one flat array per write). @throws SinkMappingError, as toRow does.
   */
  toValues?(record: SinkRecord, out: unknown[], at: number): void;
  /**
   * Declarative mappings on PostgreSQL only: records `[from, to)` as COPY text-format lines in `columns` order, straight
   * from the records (no row object, no array of values): the same text as `encodeCopyRows` (copy.ts) of their rows.
   * @throws SinkMappingError, as toRow does, for the first record that cannot be mapped.
   */
  toCopyText?(records: readonly SinkRecord[], from: number, to: number): string;
}

/** A value that does not fit its column type: the message says why (reported as a SinkMappingError naming the record). */
export class ColumnValueError extends KafkaEosError {
  constructor(message: string) {
    super('SINK_MAPPING_FAILED', message);
  }
}

/** Reads a column's raw value from a record and its parsed JSON value (undefined when no column reads it). */
type Source = ((r: SinkRecord, value: unknown) => unknown) & { readsValue: boolean };

const source = (fn: (r: SinkRecord, value: unknown) => unknown, readsValue: boolean): Source => Object.assign(fn, { readsValue });

function compileSource(path: string, column: string): Source {
  if (path === '$key') return source((r) => (r.key === null ? null : r.key.toString('utf8')), false);
  if (path === '$timestamp') return source((r) => r.timestamp, false);
  if (path === '$value') return source((_r, value) => value, true);
  if (path.startsWith('$headers.')) {
    const name = path.slice('$headers.'.length);
    return source((r) => headerText(r, name, column), false);
  }
  return source(pathReader(path.split('.')), true);
}

/**
 * A key JSON.parse'd objects and arrays could answer from their prototype (`constructor`, `toString`, `__proto__`,
 * `map`, ...) rather than from a field of the record: read only as an own property (a record lacking it reads as
 * absent). Any other key cannot be inherited by a parsed value, so its read needs no check.
 */
function inheritable(key: string): boolean {
  return key in Object.prototype || key in Array.prototype;
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * Reads a dot path (`segments`) of a parsed JSON value: undefined as soon as a step is not an object, or names a
 * field the object lacks (never a property inherited from Object.prototype or Array.prototype). Compiled into a
 * function of its own per path when the runtime allows it: one closure shared by every column would see every
 * column's key at one property read (a megamorphic lookup per value); a function per path keeps each read monomorphic.
 * The keys enter the code only as JSON string literals (`JSON.stringify` of a string is always a valid JavaScript
 * string literal, whatever it holds), never as code. Where code generation from strings is disallowed
 * (`--disallow-code-generation-from-strings`), the same reads run through a closure.
 */
export function pathReader(segments: readonly string[]): (r: SinkRecord, value: unknown) => unknown {
  const steps = segments.map((s) => {
    const k = JSON.stringify(s);
    const read = inheritable(s) ? `c = hasOwn(c, ${k}) ? c[${k}] : undefined;\n` : `c = c[${k}];\n`;
    return `if (c === null || typeof c !== 'object') return undefined;\n${read}`;
  });
  try {
    const make = new Function('hasOwn', `return function (r, value) {\nlet c = value;\n${steps.join('')}return c;\n};`);
    return make(hasOwn) as (r: SinkRecord, value: unknown) => unknown;
  } catch {
    const own = segments.map(inheritable);
    return (_r, value) => {
      let cur: unknown = value;
      for (let i = 0; i < segments.length; i++) {
        if (cur === null || typeof cur !== 'object') return undefined;
        const s = segments[i]!;
        cur = own[i] && !hasOwn(cur, s) ? undefined : (cur as Record<string, unknown>)[s];
      }
      return cur;
    };
  }
}

const INT_RE = /^-?\d+$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Converts one mapped value to a bind value of `type` on `dialect`; throws ColumnValueError with the reason. */
export function convert(v: unknown, type: ColumnType, dialect: SqlDialect): unknown {
  switch (type) {
    case 'string':
      if (typeof v === 'string') return dialect === 'postgres' && v.includes('\u0000') ? refuseNul() : v;
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
      throw new ColumnValueError(`expected a string, got ${describe(v)}`);
    case 'integer': {
      const n = typeof v === 'string' && INT_RE.test(v) ? Number(v) : typeof v === 'bigint' ? Number(v) : v;
      if (typeof n === 'number' && Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX) return n;
      throw new ColumnValueError(`expected a 32-bit integer, got ${describe(v)}`);
    }
    case 'bigint': {
      let b: bigint | undefined;
      if (typeof v === 'bigint') b = v;
      else if (typeof v === 'number' && Number.isSafeInteger(v)) b = BigInt(v);
      else if (typeof v === 'string' && INT_RE.test(v)) b = BigInt(v);
      if (b === undefined || b > 9223372036854775807n || b < -9223372036854775808n) {
        throw new ColumnValueError(`expected a 64-bit integer, got ${describe(v)}`);
      }
      return bindBigint(b);
    }
    case 'float': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n === 'number' && Number.isFinite(n)) return n;
      throw new ColumnValueError(`expected a finite number, got ${describe(v)}`);
    }
    case 'boolean':
      if (typeof v !== 'boolean') throw new ColumnValueError(`expected a boolean, got ${describe(v)}`);
      return dialect === 'sqlite' ? (v ? 1 : 0) : v;
    case 'json':
      return jsonText(JSON.stringify(v), dialect);
    case 'timestamp': {
      let d: Date | undefined;
      if (v instanceof Date) d = v;
      else if (typeof v === 'number' || typeof v === 'bigint') d = new Date(Number(v));
      else if (typeof v === 'string') d = new Date(v);
      if (d === undefined || Number.isNaN(d.getTime())) {
        throw new ColumnValueError(`expected a timestamp (ms epoch or ISO-8601), got ${describe(v)}`);
      }
      return dialect === 'sqlite' ? d.toISOString() : d;
    }
    case 'numeric': {
      const t = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'bigint' ? v.toString() : v;
      if (typeof t === 'string' && /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return t;
      throw new ColumnValueError(`expected a decimal number, got ${describe(v)}`);
    }
    case 'bytes':
      if (Buffer.isBuffer(v)) return v;
      if (v instanceof Uint8Array) return Buffer.from(v);
      if (typeof v === 'string') return Buffer.from(v, 'base64');
      throw new ColumnValueError(`expected bytes, got ${describe(v)}`);
  }
}

/** `\u0000` as JSON.stringify writes the character U+0000 (not preceded by an escaping backslash). */
const JSON_NUL = /(^|[^\\])(\\\\)*\\u0000/;

/**
 * PostgreSQL's text and jsonb cannot hold U+0000 (it answers 22021 / 22P05): refused here, as the record's fault, rather
 * than by the database (where a write of that one record alone cannot be told from a refusal of every write).
 */
function refuseNul(): never {
  throw new ColumnValueError('PostgreSQL text and jsonb cannot hold the character U+0000');
}

/**
 * {@link convert} for one column type, with the common case first (a number for a numeric column, a string for a text
 * column): the same result and the same errors as `convert(v, type, dialect)`.
 */
function converter(type: ColumnType, dialect: SqlDialect): (v: unknown) => unknown {
  switch (type) {
    case 'integer':
      return (v) => (typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX ? v : convert(v, type, dialect));
    case 'float':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? v : convert(v, type, dialect));
    case 'string':
      if (dialect !== 'postgres') return (v) => (typeof v === 'string' ? v : convert(v, type, dialect));
      return (v) => (typeof v === 'string' && !v.includes('\u0000') ? v : convert(v, type, dialect));
    default:
      return (v) => convert(v, type, dialect);
  }
}

/**
 * A converted PostgreSQL bind value of `type` as a COPY text field: what `encodeCopyValue` gives, with the cases the
 * type allows written out (integer, float: a number; bigint: a number or a decimal string; text: escaped).
 */
function copyField(type: ColumnType): (v: unknown) => string | number {
  switch (type) {
    case 'integer': case 'float': case 'bigint':
      return (v) => (typeof v === 'number' ? v : encodeCopyValue(v));
    case 'string': case 'json': case 'numeric':
      return (v) => (typeof v === 'string' ? escapeCopyText(v) : encodeCopyValue(v));
    default:
      return encodeCopyValue;
  }
}

/** toCopyText's inline cases (PostgreSQL): an int32 integer column's number, a float column's finite number, text. */
const FAST_NONE = 0;
const FAST_NUMBER_INT32 = 1;
const FAST_NUMBER_FINITE = 2;
const FAST_TEXT = 3;
const FAST_COPY: Partial<Record<ColumnType, number>> = { integer: FAST_NUMBER_INT32, float: FAST_NUMBER_FINITE, string: FAST_TEXT };

/** JSON text for a json column on `dialect` (see refuseNul). @throws ColumnValueError */
export function jsonText(text: string, dialect: SqlDialect): string {
  return dialect === 'postgres' && JSON_NUL.test(text) ? refuseNul() : text;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const s = typeof v === 'string'
    ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)
    : typeof v === 'object' ? 'an object' : String(v);
  return `${typeof v} ${s}`;
}

/**
 * Converts a function mapping's output value for binding: bigint → number/string, Date → ISO text on SQLite,
 * boolean → 0/1 on SQLite.
 */
function bindLoose(v: unknown, dialect: SqlDialect): unknown {
  if (typeof v === 'bigint') return bindBigint(v);
  if (v === undefined) return null;
  if (dialect === 'sqlite') {
    if (v instanceof Date) return v.toISOString();
    if (typeof v === 'boolean') return v ? 1 : 0;
  }
  return v;
}

export function coordinates(r: SinkRecord): Row {
  return { kafka_topic: r.topic, kafka_partition: r.partition, kafka_offset: bindBigint(r.offset) };
}

/**
 * Compiles a mapping for a dialect. `includeKafkaCoordinates` adds kafka_topic, kafka_partition, kafka_offset to
 * every row (overriding same-named keys of a function mapping).
 */
export function compileMapping(mapping: SinkMapping, dialect: SqlDialect, includeKafkaCoordinates: boolean): CompiledMapping {
  if (typeof mapping !== 'function' && 'fromSchema' in mapping) {
    throw new KafkaEosError('INTERNAL_ERROR', 'mapping.fromSchema is compiled by compileSinkMapping (schema-mapping.ts)');
  }
  if (typeof mapping === 'function') {
    return {
      columns: undefined,
      toRow(record) {
        const where = { topic: record.topic, partition: record.partition, offset: record.offset };
        let out: unknown;
        try {
          out = mapping(record);
        } catch (err) {
          throw new SinkMappingError(`mapping function threw: ${(err as Error)?.message ?? String(err)}`, where, err);
        }
        if (out === null || typeof out !== 'object' || Array.isArray(out)) {
          throw new SinkMappingError(`mapping function returned ${describe(out)}, expected a row object`, where);
        }
        const row: Row = {};
        for (const [k, v] of Object.entries(out as Row)) row[k] = bindLoose(v, dialect);
        if (Object.keys(row).length === 0 && !includeKafkaCoordinates) {
          throw new SinkMappingError('mapping function returned an empty row', where);
        }
        return includeKafkaCoordinates ? Object.assign(row, coordinates(record)) : row;
      },
    };
  }
  const cols = Object.entries(mapping.columns).map(([name, spec]) => ({
    name, nullable: spec.nullable ?? false, source: compileSource(spec.path ?? name, name), convert: converter(spec.type, dialect),
    copyField: copyField(spec.type), fast: FAST_COPY[spec.type] ?? FAST_NONE,
  }));
  const readsValue = cols.some((c) => c.source.readsValue);
  const columns = [...(includeKafkaCoordinates ? ['kafka_topic', 'kafka_partition', 'kafka_offset'] : []), ...cols.map((c) => c.name)];
  const where = (record: SinkRecord, column?: string) => (column === undefined
    ? { topic: record.topic, partition: record.partition, offset: record.offset }
    : { topic: record.topic, partition: record.partition, offset: record.offset, column });
  /** The record's value, JSON-parsed once up front when any column reads it (as reading it lazily would, for every record). */
  const parsed = (record: SinkRecord): unknown => {
    if (!readsValue || record.value === null) return readsValue ? null : undefined;
    try {
      return JSON.parse(record.value.toString('utf8'));
    } catch (err) {
      throw new SinkMappingError(`value is not valid JSON: ${(err as Error).message}`, where(record), err);
    }
  };
  const toValues = (record: SinkRecord, out: unknown[], at: number): void => {
    const value = parsed(record);
    let i = at;
    if (includeKafkaCoordinates) {
      out[i++] = record.topic;
      out[i++] = record.partition;
      out[i++] = bindBigint(record.offset);
    }
    for (let k = 0; k < cols.length; k++) {
      const c = cols[k]!;
      const raw = c.source(record, value);
      if (raw === undefined || raw === null) {
        if (!c.nullable) throw new SinkMappingError('missing value for non-nullable column', where(record, c.name));
        out[i++] = null;
        continue;
      }
      try {
        out[i++] = c.convert(raw);
      } catch (err) {
        if (!(err instanceof ColumnValueError)) throw err;
        throw new SinkMappingError(err.message, where(record, c.name));
      }
    }
  };
  /** The COPY text of records [from, to): toValues's conversions, each value appended as its COPY field (copy-text.ts). */
  /** The COPY field of column `c`'s raw value: convert + copyField, with their common cases inline (no calls). */
  const field = (c: (typeof cols)[number], raw: unknown, record: SinkRecord): string | number => {
    if (raw === undefined || raw === null) {
      if (!c.nullable) throw new SinkMappingError('missing value for non-nullable column', where(record, c.name));
      return COPY_NULL;
    }
    if (c.fast === FAST_NUMBER_INT32 && typeof raw === 'number' && Number.isInteger(raw) && raw >= INT32_MIN && raw <= INT32_MAX) {
      return raw;
    }
    if (c.fast === FAST_NUMBER_FINITE && typeof raw === 'number' && Number.isFinite(raw)) return raw;
    if (c.fast === FAST_TEXT && typeof raw === 'string' && !raw.includes('\u0000')) return escapeCopyText(raw);
    let v: unknown;
    try {
      v = c.convert(raw);
    } catch (err) {
      if (!(err instanceof ColumnValueError)) throw err;
      throw new SinkMappingError(err.message, where(record, c.name));
    }
    return c.copyField(v);
  };
  /**
   * The COPY text of records [from, to): toValues's conversions, each value appended as its COPY field (copy-text.ts).
   * Each line is built as `line + field + separator` and then added to the text: fewer string pieces to flatten
   * when the text is sent than appending every field and separator to the text itself (measured with callgrind).
   */
  const toCopyText = (records: readonly SinkRecord[], from: number, to: number): string => {
    let out = '';
    let topic: string | undefined;
    let head = '';
    const last = cols.length - 1;
    for (let n = from; n < to; n++) {
      const record = records[n]!;
      const value = parsed(record);
      let line = '';
      if (includeKafkaCoordinates) {
        if (record.topic !== topic) {
          topic = record.topic;
          head = `${escapeCopyText(topic)}\t`;
        }
        line = head + record.partition + '\t' + record.offset + (last < 0 ? '\n' : '\t'); // a bigint appends its decimal digits
      }
      for (let k = 0; k <= last; k++) {
        const c = cols[k]!;
        line = line + field(c, c.source(record, value), record) + (k === last ? '\n' : '\t');
      }
      out += line;
    }
    return out;
  };
  return {
    columns,
    toValues,
    ...(dialect === 'postgres' ? { toCopyText } : {}),
    toRow(record) {
      const values: unknown[] = [];
      toValues(record, values, 0);
      const row: Row = {};
      for (let k = 0; k < columns.length; k++) row[columns[k]!] = values[k];
      return row;
    },
  };
}
