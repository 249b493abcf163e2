/**
 * File formats of the HDFS sink: JSON lines, CSV (RFC 4180, header row) and Parquet (hyparquet-writer).
 * A record becomes a row when it is staged, so a record that cannot be written is refused before
 * anything of its write is staged (SINK_MAPPING_FAILED naming topic, partition and offset).
 */
import { loadHyparquetWriter } from '../../util/vendored';
import type { SinkRecord } from '../sink';
import { SinkMappingError } from '../errors';
import { JsonShape, jsonTextShape } from './json-check';

/** A column of CSV or Parquet output: `path` is a dot path into the record's JSON value (default: `name`). */
export interface HdfsColumn { name: string; type: 'string' | 'int64' | 'double' | 'boolean' | 'timestamp'; path?: string; nullable?: boolean }

/** The file format: JSON lines (the value as is), or CSV / Parquet with declared columns. */
export type HdfsFormatConfig =
  | { type: 'jsonl' }
  | { type: 'csv'; columns: HdfsColumn[] }
  | { type: 'parquet'; columns: HdfsColumn[] };

/** Kafka coordinates added to every row when `includeKafkaCoordinates` is set. */
export const KAFKA_COLUMNS: HdfsColumn[] = [
  { name: '_topic', type: 'string' }, { name: '_partition', type: 'int64' }, { name: '_offset', type: 'int64' }, { name: '_timestamp', type: 'timestamp' },
];

/**
 * A JSON-lines row: the record (for its coordinates) and the value bytes its line carries: the record's
 * own bytes (or a view of them without surrounding whitespace), or the value re-serialised on one line.
 */
export interface JsonLine { record: SinkRecord; value: Uint8Array }

/** A row: a {@link JsonLine} for jsonl, column values for CSV and Parquet. */
export type Row = Record<string, unknown> | JsonLine;

const NULL_BYTES = Buffer.from('null');
/** JSON whitespace that may surround a one-line value (CR and LF make a value multi-line). */
const isBlank = (c: number | undefined) => c === 0x20 || c === 0x09;

/** Parses a record's value as JSON. @throws SinkMappingError */
export function jsonValue(r: SinkRecord, text = r.value === null ? 'null' : r.value.toString('utf8')): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new SinkMappingError(`value is not JSON: ${(e as Error).message}`, { topic: r.topic, partition: r.partition, offset: r.offset }, e);
  }
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

  constructor(readonly config: HdfsFormatConfig, readonly includeKafkaCoordinates: boolean) {
    this.extension = config.type === 'jsonl' ? 'jsonl' : config.type;
    this.columns = config.type === 'jsonl' ? null : [...(includeKafkaCoordinates ? KAFKA_COLUMNS : []), ...config.columns];
  }

  /** Whether rows need the record's parsed value (CSV and Parquet columns); JSON lines only check its syntax. */
  get needsValue(): boolean { return this.columns !== null; }

  /**
   * The row of one record. `value` parses the record's value (at most once, by the caller; default: parse
   * here, for a caller that has no other use for the value). JSON lines
   * keep the value's bytes after a syntax check that builds nothing (json-check.ts), parsing only a value
   * whose text holds a line break (it is re-serialised on one line).
   * @throws SinkMappingError naming the record and column (a value that is not JSON, a bad column value)
   */
  toRow(r: SinkRecord, value: () => unknown = () => jsonValue(r)): Row {
    if (!this.columns) {
      const v = r.value;
      if (v === null) return { record: r, value: NULL_BYTES };
      const shape = jsonTextShape(v);
      if (shape === JsonShape.OneLine) {
        let a = 0;
        let b = v.length;
        while (isBlank(v[a])) a++;
        while (isBlank(v[b - 1])) b--;
        return { record: r, value: a === 0 && b === v.length ? v : v.subarray(a, b) };
      }
      // Not JSON (throws SinkMappingError naming the record), or JSON over several lines: one line.
      return { record: r, value: Buffer.from(JSON.stringify(shape === JsonShape.Invalid ? jsonValue(r) : value())) };
    }
    const parsed = value();
    const row: Record<string, unknown> = this.includeKafkaCoordinates
      ? { _topic: r.topic, _partition: BigInt(r.partition), _offset: r.offset, _timestamp: new Date(Number(r.timestamp)) } : {};
    for (const c of this.columns) {
      if (KAFKA_COLUMNS.includes(c)) continue;
      row[c.name] = convert(r, c, getPath(parsed, c.path ?? c.name));
    }
    return row;
  }

  /**
   * JSON lines: the bytes of these rows (one partition's), to be concatenated later (null for CSV and
   * Parquet, which encode a file at once). Built straight into one Buffer: the line's head (coordinates)
   * as ASCII text after a per-partition prefix, then the value's bytes copied as they are.
   */
  encodeChunk(rowsIn: Row[]): Buffer | null {
    if (this.columns) return null;
    const rows = rowsIn as JsonLine[];
    if (rows.length === 0) return Buffer.alloc(0);
    const first = rows[0]!.record;
    // `{"_topic":<topic>,"_partition":<p>,"_offset":"` then the offset, `","_timestamp":`, the timestamp, `,"value":`.
    const prefix = this.includeKafkaCoordinates
      ? `{"_topic":${JSON.stringify(first.topic)},"_partition":${first.partition},"_offset":"` : '';
    const head = Buffer.byteLength(prefix) + (this.includeKafkaCoordinates ? 20 + 15 + 20 + 10 + 1 : 0) + 1;
    let size = 0;
    for (const row of rows) size += row.value.length + head;
    const out = Buffer.allocUnsafe(size);
    let pos = 0;
    for (const { record: r, value } of rows) {
      if (this.includeKafkaCoordinates) pos += out.write(`${prefix}${r.offset}","_timestamp":${r.timestamp},"value":`, pos);
      out.set(value, pos);
      pos += value.length;
      if (this.includeKafkaCoordinates) out[pos++] = 0x7d; // }
      out[pos++] = 0x0a;
    }
    return out.subarray(0, pos);
  }

  /** Encodes the rows of one file; `chunks` are earlier encodeChunk results (JSON lines), in order before `rowsIn`. */
  encode(rowsIn: Row[], chunks: Buffer[] = []): Buffer {
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
  const fail = (m: string) => { throw new SinkMappingError(m, { topic: r.topic, partition: r.partition, offset: r.offset, column: c.name }); };
  if (v === undefined || v === null) {
    if (c.nullable === false) fail('missing value for a non-nullable column');
    return null;
  }
  switch (c.type) {
    case 'string': return typeof v === 'string' ? v : JSON.stringify(v);
    case 'boolean': return typeof v === 'boolean' ? v : fail(`expected a boolean, got ${JSON.stringify(v)}`);
    case 'double': return typeof v === 'number' ? v : fail(`expected a number, got ${JSON.stringify(v)}`);
    case 'int64': {
      if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
      if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
      return fail(`expected an integer, got ${JSON.stringify(v)}`);
    }
    case 'timestamp': {
      const d = typeof v === 'number' ? new Date(v) : typeof v === 'string' ? new Date(v) : null;
      return d && !Number.isNaN(d.getTime()) ? d : fail(`expected a timestamp, got ${JSON.stringify(v)}`);
    }
  }
}

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? v.toString() : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
