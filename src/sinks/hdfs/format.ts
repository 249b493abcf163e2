/**
 * File formats of the HDFS sink: JSON lines, CSV (RFC 4180, header row) and Parquet (hyparquet-writer).
 * A record becomes a row when it is staged, so a record that cannot be written is refused before
 * anything of its write is staged (SINK_MAPPING_FAILED naming topic, partition and offset).
 */
import { isUtf8 } from 'node:buffer';
import { loadHyparquetWriter } from '../../util/vendored';
import type { SinkRecord } from '../../records';
import { SinkMappingError } from '../errors';
import { JsonShape, jsonTextShape } from './json-check';
import { SchemaFormat, type SchemaRow } from './format-schema';

/** A column of CSV or Parquet output: `path` is a dot path into the record's JSON value (default: `name`). */
export interface HdfsColumn {
  name: string; type: 'string' | 'int64' | 'double' | 'boolean' | 'timestamp'; path?: string; nullable?: boolean;
}

/**
 * The file format: JSON lines (the value as is), CSV / Parquet with declared columns (or, without `columns`, the
 * columns of the records' schemas), or Avro container files from the records' schemas (format-schema.ts).
 */
export type HdfsFormatConfig =
  | { type: 'jsonl' }
  | { type: 'csv'; columns?: HdfsColumn[] }
  | { type: 'parquet'; columns?: HdfsColumn[] }
  | { type: 'avro'; codec?: 'null' | 'deflate' };

/** Kafka coordinates added to every row when `includeKafkaCoordinates` is set. */
export const KAFKA_COLUMNS: HdfsColumn[] = [
  { name: '_topic', type: 'string' }, { name: '_partition', type: 'int64' },
  { name: '_offset', type: 'int64' }, { name: '_timestamp', type: 'timestamp' },
];

/**
 * A JSON-lines row: the record (for its coordinates) and the value bytes its line carries: the record's
 * own bytes (or a view of them without surrounding whitespace), or a copy with its line breaks as spaces
 * (or, for malformed UTF-8, as JSON.parse of its text reads it): see oneLine.
 */
export interface JsonLine { record: SinkRecord; value: Uint8Array }

/** A row: a {@link JsonLine} for jsonl, column values for CSV and Parquet. */
export type Row = Record<string, unknown> | JsonLine;

const NULL_BYTES = Buffer.from('null');
const EMPTY = Buffer.alloc(0);
const MID = Buffer.from('","_timestamp":');
const VALUE = Buffer.from(',"value":');

/**
 * Copies `src` into `out` at `pos`; returns the position after it. A short piece (a line's fixed parts, a small value)
 * is copied byte by byte: cheaper than a call of TypedArray set, whose fixed cost showed in the profile of the HDFS
 * end-to-end benchmark (docs/benchmarks.md).
 */
function put(src: Uint8Array, out: Uint8Array, pos: number): number {
  const n = src.length;
  if (n <= 32) {
    for (let i = 0; i < n; i++) out[pos + i] = src[i]!;
  } else {
    out.set(src, pos);
  }
  return pos + n;
}

/**
 * A growing byte buffer JSON lines are appended to: one per staged file, so a file's bytes are built once, in
 * place, with no string, Buffer or row object per record. `bytes()` is a view of what was written.
 */
export class LineBuffer {
  buf: Buffer;
  len = 0;
  /**
   * Starts small (1 KiB): a partitioner may open a path per field value, each with its own buffer, so a large
   * fixed first capacity would be held per path (2000 paths of 64 KiB: 128 MiB for kilobytes of lines). Doubling
   * keeps appending linear whatever the start.
   */
  constructor(capacity = 1 << 10) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Makes room for `n` more bytes (doubling, so appending stays linear). */
  reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    grown.set(this.buf.subarray(0, this.len), 0);
    this.buf = grown;
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

/**
 * Writes `v` in decimal ASCII at `pos` (what `String(v)` gives: a minus sign, no leading zeros; at most 20 bytes
 * for a signed 64-bit value); returns the position after it. Exact for every bigint: a value whose conversion to
 * a number is not a safe integer (|v| ≥ 2^53) goes through toString.
 */
function writeInteger(out: Buffer, pos: number, v: bigint): number {
  let n = Number(v);
  if (!(n <= Number.MAX_SAFE_INTEGER && n >= -Number.MAX_SAFE_INTEGER)) return pos + out.write(v.toString(), pos, 'latin1');
  if (n < 0) { out[pos++] = 0x2d; n = -n; }
  if (n < 0x80000000) return writeSmall(out, pos, n);
  // Above 2^31: the high digits, then the low 8 (zero-padded), each in 32-bit integer arithmetic.
  const hi = Math.floor(n / 1e8);
  let lo = n - hi * 1e8;
  pos = writeSmall(out, pos, hi);
  for (let k = pos + 7; k >= pos; k--) { const q = (lo / 10) | 0; out[k] = 0x30 + lo - q * 10; lo = q; }
  return pos + 8;
}

/** Writes 0 ≤ n < 2^31 in decimal ASCII at `pos`; returns the position after it. */
function writeSmall(out: Buffer, pos: number, n: number): number {
  let digits = 1;
  for (let m = n; m >= 10; m = (m / 10) | 0) digits++;
  for (let k = pos + digits - 1; k >= pos; k--) { const q = (n / 10) | 0; out[k] = 0x30 + n - q * 10; n = q; }
  return pos + digits;
}

/** JSON whitespace (CR and LF included: in valid JSON text a CR or LF byte can only be whitespace). */
const isBlank = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * The bytes of valid JSON text `v` as one line, value for value the same JSON: surrounding whitespace cut,
 * CR and LF (whitespace between tokens, `multiLine`) turned into spaces, never re-serialised (JSON.stringify
 * of a parse would turn `1e400` into `null`, round integers beyond 2^53, drop `-0`'s sign and duplicate keys).
 * Malformed UTF-8 (possible only inside strings) is decoded to U+FFFD as JSON.parse of `toString` sees it,
 * so the file stays UTF-8 (RFC 8259 §8.1). Returns `v` itself or a view of it when nothing changes.
 */
function oneLine(v: Buffer, multiLine: boolean): Uint8Array {
  let a = 0;
  let b = v.length;
  while (isBlank(v[a])) a++;
  while (isBlank(v[b - 1])) b--;
  let out: Buffer = a === 0 && b === v.length ? v : v.subarray(a, b);
  if (!isUtf8(out)) out = Buffer.from(out.toString('utf8'));
  else if (multiLine) out = Buffer.from(out);
  if (multiLine) for (let i = 0; i < out.length; i++) if (out[i] === 0x0a || out[i] === 0x0d) out[i] = 0x20;
  return out;
}

/** Parses a record's value as JSON. @throws SinkMappingError */
export function jsonValue(r: SinkRecord, text = r.value === null ? 'null' : r.value.toString('utf8')): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new SinkMappingError(
      `value is not JSON: ${(e as Error).message}`, { topic: r.topic, partition: r.partition, offset: r.offset }, e,
    );
  }
}

/**
 * The largest distance from the epoch a JavaScript Date can hold, ms (ECMA-262 "Time Values and Time Range":
 * ±8.64e15 ms, the years -271821 to 275760). Kafka's record timestamps are any int64 ms.
 */
export const DATE_RANGE_MS = 8_640_000_000_000_000n;

/**
 * A record's timestamp (or a time derived from it, `ms`, e.g. floored by the time partitioner) as a Date, for
 * every place the sink makes a date of it: the `_timestamp` coordinate of CSV and Parquet, the time partitioner.
 * (JSON lines write `_timestamp` as the int64 Kafka gives, exact for every value: no date is made.)
 * @throws SinkMappingError (SINK_MAPPING_FAILED, the record at fault) when it lies outside {@link DATE_RANGE_MS}:
 *   a value a CSV or Parquet timestamp cannot show, refused when the record is staged, never when its file is encoded.
 */
export function recordDate(r: SinkRecord, ms: bigint = r.timestamp): Date {
  if (ms > DATE_RANGE_MS || ms < -DATE_RANGE_MS) {
    throw new SinkMappingError(
      `record timestamp ${r.timestamp} ms${ms === r.timestamp ? '' : ` (${ms} ms as partitioned)`} is outside the range the sink `
      + 'can write as a date (±8.64e15 ms from the epoch, years -271821 to 275760)',
      { topic: r.topic, partition: r.partition, offset: r.offset },
    );
  }
  return new Date(Number(ms));
}

/** The value at dot path `p` (e.g. `a.b.c`) in `v`; undefined when a step is missing or not an object. */
export function getPath(v: unknown, p: string): unknown {
  let cur = v;
  for (const part of p.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** One configured file format: turns records into rows when staged, and rows into file bytes at commit. */
export class Format {
  readonly extension: string;
  private readonly columns: HdfsColumn[] | null;

  /** Avro files, or CSV / Parquet without declared columns: rows shaped by their records' schemas (format-schema.ts). */
  readonly fromSchema: boolean;
  private readonly schemaFormat: SchemaFormat | undefined;

  constructor(readonly config: HdfsFormatConfig, readonly includeKafkaCoordinates: boolean) {
    this.extension = config.type === 'jsonl' ? 'jsonl' : config.type;
    this.fromSchema = config.type === 'avro' || (config.type !== 'jsonl' && !config.columns);
    this.schemaFormat = !this.fromSchema ? undefined
      : new SchemaFormat(config.type as 'avro' | 'csv' | 'parquet', includeKafkaCoordinates, {
      coordinates: KAFKA_COLUMNS, convert, recordDate,
      encodeColumns: (columns, rows) => new Format({ type: config.type as 'csv' | 'parquet', columns }, false).encode(rows),
    }, config.type === 'avro' ? config.codec : undefined);
    this.columns = config.type === 'jsonl' || config.type === 'avro' ? null
      : [...(includeKafkaCoordinates ? KAFKA_COLUMNS : []), ...(config.columns ?? [])];
  }

  /** Whether rows need the record's parsed value (CSV and Parquet columns); JSON lines only check its syntax. */
  get needsValue(): boolean { return this.columns !== null; }

  /** JSON lines: staged with {@link lineValue} and {@link appendLine} into a {@link LineBuffer}, not as rows. */
  get jsonLines(): boolean { return this.columns === null && !this.fromSchema; }

  /** The line prefix of the last topic-partition written (`{"_topic":..,"_partition":..,"_offset":"`), reused. */
  private prefix = EMPTY;
  private prefixTopic: string | undefined;
  private prefixPartition = -1;

  /**
   * JSON lines: the bytes a record's line carries as its value, after the syntax check that builds nothing
   * (json-check.ts): the value itself when it is one line (or a view of it without surrounding whitespace); a
   * copy when a line break (JSON whitespace) must become a space or malformed UTF-8 U+FFFD (see {@link oneLine}).
   * @throws SinkMappingError naming the record (a value that is not JSON)
   */
  lineValue(r: SinkRecord): Uint8Array {
    const v = r.value;
    if (v === null) return NULL_BYTES;
    const shape = jsonTextShape(v);
    if (shape === JsonShape.Invalid) jsonValue(r); // throws SinkMappingError naming the record
    return oneLine(v, shape === JsonShape.MultiLine);
  }

  /**
   * JSON lines: appends the line of `r` (its coordinates when configured, then `value`, from {@link lineValue}) to
   * `out`: the head's pieces copied by put, the offset and timestamp as ASCII digits (see writeInteger).
   */
  appendLine(out: LineBuffer, r: SinkRecord, value: Uint8Array): void {
    if (!this.includeKafkaCoordinates) {
      out.reserve(value.length + 1);
      const b = out.buf;
      let pos = put(value, b, out.len);
      b[pos++] = 0x0a;
      out.len = pos;
      return;
    }
    if (r.topic !== this.prefixTopic || r.partition !== this.prefixPartition) {
      this.prefix = Buffer.from(`{"_topic":${JSON.stringify(r.topic)},"_partition":${r.partition},"_offset":"`);
      this.prefixTopic = r.topic;
      this.prefixPartition = r.partition;
    }
    const prefix = this.prefix;
    out.reserve(prefix.length + 20 + MID.length + 20 + VALUE.length + value.length + 2);
    const b = out.buf;
    // Through put (not a loop per piece inline here: measured 1.5k more instructions per line under callgrind).
    let pos = put(prefix, b, out.len);
    pos = writeInteger(b, pos, r.offset);
    pos = put(MID, b, pos);
    pos = writeInteger(b, pos, r.timestamp);
    pos = put(VALUE, b, pos);
    pos = put(value, b, pos);
    b[pos++] = 0x7d; // }
    b[pos++] = 0x0a;
    out.len = pos;
  }

  /**
   * The row of one record. `value` parses the record's value (at most once, by the caller; default: parse
   * here, for a caller that has no other use for the value). JSON lines keep the value's bytes after a
   * syntax check that builds nothing (json-check.ts) and never parse a valid value: a line break (JSON
   * whitespace) becomes a space, malformed UTF-8 inside a string becomes U+FFFD (see {@link oneLine}).
   * @throws SinkMappingError naming the record and column (a value that is not JSON, a bad column value)
   */
  toRow(r: SinkRecord, value: () => unknown = () => jsonValue(r)): Row {
    if (this.schemaFormat) return this.schemaFormat.row(r); // encoded or converted now: refused at staging, not at commit
    if (!this.columns) return { record: r, value: this.lineValue(r) };
    const parsed = value();
    const row: Record<string, unknown> = this.includeKafkaCoordinates
      ? { _topic: r.topic, _partition: BigInt(r.partition), _offset: r.offset, _timestamp: recordDate(r) } : {};
    for (const c of this.columns) {
      if (KAFKA_COLUMNS.includes(c)) continue;
      row[c.name] = convert(r, c, getPath(parsed, c.path ?? c.name));
    }
    return row;
  }

  /**
   * JSON lines: the bytes of these rows (one partition's), to be concatenated later (null for CSV and
   * Parquet, which encode a file at once): each line appended with {@link appendLine} into one buffer.
   */
  encodeChunk(rowsIn: Row[]): Buffer | null {
    if (this.columns || this.fromSchema) return null;
    const rows = rowsIn as JsonLine[];
    let size = 0;
    for (let i = 0; i < rows.length; i++) size += rows[i]!.value.length + 128;
    const out = new LineBuffer(size);
    for (let i = 0; i < rows.length; i++) this.appendLine(out, rows[i]!.record, rows[i]!.value);
    return out.bytes();
  }

  /** Encodes the rows of one file; `chunks` are earlier encodeChunk results (JSON lines), in order before `rowsIn`. */
  encode(rowsIn: Row[], chunks: Buffer[] = []): Buffer {
    if (this.schemaFormat) return this.schemaFormat.encode(rowsIn as SchemaRow[]);
    if (!this.columns) {
      const parts = rowsIn.length > 0 ? [...chunks, this.encodeChunk(rowsIn)!] : chunks;
      return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    }
    const rows = rowsIn as Record<string, unknown>[];
    if (this.config.type === 'csv') {
      const lines = [this.columns.map((c) => csvField(c.name)).join(',')];
      for (const row of rows) lines.push(this.columns.map((c) => csvField(row[c.name])).join(','));
      return Buffer.from(`${lines.join('\r\n')}\r\n`);
    }
    const ab = loadHyparquetWriter().parquetWriteBuffer({
      columnData: this.columns.map((c) => ({
        name: c.name, data: rows.map((row) => row[c.name] ?? null), nullable: c.nullable ?? !KAFKA_COLUMNS.includes(c),
        type: ({ string: 'STRING', int64: 'INT64', double: 'DOUBLE', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP' } as const)[c.type],
      })),
    });
    return Buffer.from(ab);
  }
}

function convert(r: SinkRecord, c: HdfsColumn, v: unknown): unknown {
  const fail = (m: string) => {
    throw new SinkMappingError(m, { topic: r.topic, partition: r.partition, offset: r.offset, column: c.name });
  };
  if (v === undefined || v === null) {
    if (c.nullable === false) fail('missing value for a non-nullable column');
    return null;
  }
  switch (c.type) {
    case 'string': return typeof v === 'string' ? v : JSON.stringify(v);
    case 'boolean': return typeof v === 'boolean' ? v : fail(`expected a boolean, got ${describe(v)}`);
    case 'double': return typeof v === 'number' ? v : fail(`expected a number, got ${describe(v)}`);
    case 'int64': {
      // A JSON number beyond 2^53 was already rounded by JSON.parse: refused, not written as another number
      // (send such integers as strings). A string must fit a signed 64-bit integer (Parquet INT64).
      if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
      if (typeof v === 'number' && Number.isInteger(v)) return fail(`integer ${v} is beyond 2^53: not exact as a JSON number`);
      if (typeof v === 'string' && /^-?\d+$/.test(v)) {
        const n = BigInt(v);
        return n >= INT64_MIN && n <= INT64_MAX ? n : fail(`integer ${v} is outside the signed 64-bit range`);
      }
      return fail(`expected an integer, got ${describe(v)}`);
    }
    case 'timestamp': {
      const d = typeof v === 'number' ? new Date(v) : typeof v === 'string' ? new Date(v) : null;
      return d && !Number.isNaN(d.getTime()) ? d : fail(`expected a timestamp, got ${describe(v)}`);
    }
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** A parsed value for an error message: JSON, except numbers JSON cannot show (`1e400` parses to Infinity). */
const describe = (v: unknown) => (typeof v === 'number' ? String(v) : JSON.stringify(v));

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? v.toString() : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
