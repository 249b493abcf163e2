/**
 * The HDFS sink's formats that take their shape from converted records' schemas (docs/converters.md):
 *
 * - `avro`: Avro object container files (Avro spec "Object Container Files": magic `Obj\x01`, metadata with
 *   `avro.schema` and `avro.codec`, a 16-byte sync marker, then blocks of records), the writer schema derived
 *   from the value's Connect schema as Confluent's AvroData.fromConnectSchema does (an Avro-converted topic
 *   gets its registry schema back: names, logical types, optional fields as `["null", T]`). Codec `null`
 *   or `deflate` (raw DEFLATE, as the spec says). The file holds the value only, as kafka-connect-hdfs's
 *   AvroRecordWriterProvider writes it (a primitive value as itself, not wrapped).
 * - CSV and Parquet without `columns`: the value's columns (sinks/schema-columns.ts, nested structs flattened with
 *   `_`), the value only as well (Connect's formats write no key).
 *
 * With `includeKafkaCoordinates`, every format adds the same four: `_topic`, `_partition`, `_offset`, `_timestamp`
 * (ms, Avro timestamp-millis) before the value's fields (a value that is not a record: a record
 * `KafkaRecord { _topic, _partition, _offset, _timestamp, value }`, as JSON lines nest it under `value`); a value
 * field of one of those names is refused. Connect has no such option (its InsertField transform adds fields to
 * the value the same way).
 *
 * Every record is encoded (Avro) or converted (CSV, Parquet) when it is staged, so a value that does not fit is
 * refused as its record's fault (SINK_MAPPING_FAILED) before anything of its write is staged, never at commit.
 * Each file holds one schema: the sink rotates (commits the open files) before a record whose key or value
 * schema differs from the open file's, as Connect's HDFS sink does with `schema.compatibility=NONE`. Tombstones
 * carry no schema: they are left out of the file (their offsets are covered by it).
 */
import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import * as avro from 'avsc';
import type { RecordSchema, SinkRecord } from '../../records';
import { compileAvro, type AvroCodec } from '../../consumer/converters/avro';
import { assertDistinctColumns, jsonOfData, schemaColumns, type SchemaColumn } from '../schema-columns';
import { SinkMappingError } from '../errors';

/** The Avro schema (JSON) of a Connect schema (see the module comment). */
export function avroSchemaOf(s: RecordSchema): unknown {
  const defined = new Set<string>();
  let anonymous = 0;
  const walk = (x: RecordSchema, withNull: boolean): unknown => {
    const t = base(x);
    // A union (Connect's Union struct) holds its null already: Avro allows no union directly inside another.
    return x.optional && withNull && !Array.isArray(t) ? ['null', t] : t;
  };
  const base = (x: RecordSchema): unknown => {
    if (x.logical === 'decimal') return { type: 'bytes', logicalType: 'decimal', precision: x.precision ?? 38, scale: x.scale ?? 0 };
    if (x.logical === 'timestamp') return { type: 'long', logicalType: 'timestamp-millis' };
    if (x.logical === 'date') return { type: 'int', logicalType: 'date' };
    if (x.logical === 'time') return { type: 'int', logicalType: 'time-millis' };
    switch (x.type) {
      case 'int8': case 'int16': case 'int32': return 'int';
      case 'int64': return 'long';
      case 'float32': return 'float';
      case 'float64': return 'double';
      case 'boolean': case 'string': case 'bytes': return x.type;
      case 'array': return { type: 'array', items: walk(x.items!, true) };
      case 'map': return { type: 'map', values: walk(x.items!, true) };
      case 'struct': {
        if (x.name === 'io.confluent.connect.avro.Union') return ['null', ...x.fields!.map((f) => base(f.schema))];
        const full = x.name ?? `ConnectDefault${++anonymous}`;
        if (defined.has(full)) return full;
        defined.add(full);
        const dot = full.lastIndexOf('.');
        return {
          type: 'record', name: dot < 0 ? full : full.slice(dot + 1), ...(dot < 0 ? {} : { namespace: full.slice(0, dot) }),
          fields: x.fields!.map((f) => ({ name: f.name, type: walk(f.schema, true), ...(f.schema.optional ? { default: null } : {}) })),
        };
      }
    }
  };
  return walk(s, true);
}

const MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01]);
const META = avro.Type.forSchema({ type: 'map', values: 'bytes' });
const LONG = avro.Type.forSchema('long');
const BLOCK_RECORDS = 4000;

/** The Kafka coordinates' names (every format's, see the module comment). */
export const COORDINATE_NAMES = ['_topic', '_partition', '_offset', '_timestamp'];
const AVRO_COORDINATES = [{ name: '_topic', type: 'string' }, { name: '_partition', type: 'int' }, { name: '_offset', type: 'long' },
  { name: '_timestamp', type: { type: 'long', logicalType: 'timestamp-millis' } }];
/** A bigint as a number when exact (the Avro codec takes both). */
const exact = (n: bigint): number | bigint => (n <= MAX_SAFE && n >= -MAX_SAFE ? Number(n) : n);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A staged row of a schema format: its record and, for Avro, the encoded datum; for CSV and Parquet, its cells. */
export interface SchemaRow { record: SinkRecord; value: Uint8Array; cells?: Record<string, unknown> }

/** A column of CSV or Parquet output (format.ts HdfsColumn). */
export interface SchemaFileColumn { name: string; type: 'string' | 'int64' | 'double' | 'boolean' | 'timestamp'; nullable?: boolean }

/** What the schema formats borrow from format.ts (kept there: format.ts imports this module). */
export interface SchemaFormatDeps {
  /** The coordinate columns of CSV and Parquet. */
  coordinates: SchemaFileColumn[];
  /** A value converted for a column, as declared columns' are. @throws SinkMappingError */
  convert(r: SinkRecord, c: SchemaFileColumn, v: unknown): unknown;
  /** The record's timestamp as the `_timestamp` date of CSV and Parquet. @throws SinkMappingError when no date holds it */
  recordDate(r: SinkRecord): Date;
  /** The CSV or Parquet file of rows with these columns. */
  encodeColumns(columns: SchemaFileColumn[], rows: Record<string, unknown>[]): Buffer;
}

/** Avro, or CSV / Parquet without declared columns, from the records' schemas (see the module comment). */
export class SchemaFormat {
  private readonly codecs = new Map<string, AvroCodec>();
  /** Per value schema object: its Avro codec and text, or its CSV / Parquet columns. */
  private readonly bySchema = new WeakMap<RecordSchema, { codec?: AvroCodec; text?: string; columns?: HdfsSchemaColumn[] }>();
  private readonly empty = Buffer.alloc(0);

  constructor(
    private readonly type: 'avro' | 'csv' | 'parquet', private readonly coordinates: boolean, private readonly deps: SchemaFormatDeps,
    private readonly codec: 'null' | 'deflate' = 'null',
  ) {}

  /** The staged row of `r` (a tombstone: an empty row, left out of the file). @throws SinkMappingError naming the record */
  row(r: SinkRecord): SchemaRow {
    if (r.value === null) return { record: r, value: this.empty };
    const schema = valueSchemaOf(r);
    if (this.type === 'avro') {
      const { codec } = this.avro(schema, r);
      const v = r.convertedValue!.value;
      const datum = !this.coordinates ? v : {
        _topic: r.topic, _partition: r.partition, _offset: exact(r.offset), _timestamp: exact(r.timestamp),
        ...(schema.type === 'struct' ? v as object : { value: v }),
      };
      try {
        return { record: r, value: codec.encode(datum) };
      } catch (e) {
        throw new SinkMappingError(`the value does not fit the Avro schema of its file: ${(e as Error).message}`, where(r), e);
      }
    }
    const cells: Record<string, unknown> = {};
    if (this.coordinates) Object.assign(cells, {
      _topic: r.topic, _partition: BigInt(r.partition), _offset: r.offset, _timestamp: this.deps.recordDate(r),
    });
    for (const c of this.columns(schema, r)) cells[c.name] = this.deps.convert(r, c, plainValue(c.read(r)));
    return { record: r, value: this.empty, cells };
  }

  /** The file of these staged rows (one value schema; tombstones left out). */
  encode(rows: SchemaRow[]): Buffer {
    const data = rows.filter((x) => x.record.value !== null);
    const first = data[0];
    if (!first) return Buffer.alloc(0);
    const schema = valueSchemaOf(first.record);
    if (this.type !== 'avro') {
      const columns = [...(this.coordinates ? this.deps.coordinates : []), ...this.columns(schema, first.record)];
      return this.deps.encodeColumns(columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable })), data.map((x) => x.cells!));
    }
    const { text } = this.avro(schema, first.record);
    const sync = randomBytes(16);
    const parts: Buffer[] = [MAGIC, META.toBuffer({ 'avro.schema': Buffer.from(text!), 'avro.codec': Buffer.from(this.codec) }), sync];
    for (let i = 0; i < data.length; i += BLOCK_RECORDS) {
      const block = data.slice(i, i + BLOCK_RECORDS).map((x) => x.value);
      let body = Buffer.concat(block);
      if (this.codec === 'deflate') body = deflateRawSync(body);
      parts.push(LONG.toBuffer(block.length), LONG.toBuffer(body.length), body, sync);
    }
    return Buffer.concat(parts);
  }

  /** The Avro writer schema of a value schema (with the coordinates), compiled once. @throws SinkMappingError naming `r` */
  private avro(schema: RecordSchema, r: SinkRecord): { codec: AvroCodec; text: string } {
    let hit = this.bySchema.get(schema);
    if (!hit?.codec) {
      let avroSchema = avroSchemaOf(schema) as unknown;
      if (this.coordinates) {
        const base = (Array.isArray(avroSchema) ? avroSchema.find((b) => b !== 'null') : avroSchema) as {
          type?: string; fields?: { name: string }[];
        };
        if (schema.type === 'struct' && base?.type === 'record') {
          assertDistinctColumns(
            base.fields!.map((f) => ({ name: f.name, source: `value.${f.name}` }) as SchemaColumn), r, COORDINATE_NAMES);
          avroSchema = { ...base, fields: [...AVRO_COORDINATES, ...base.fields!] };
        } else {
          avroSchema = { type: 'record', name: 'KafkaRecord', fields: [...AVRO_COORDINATES, { name: 'value', type: avroSchema }] };
        }
      }
      const text = JSON.stringify(avroSchema);
      let codec = this.codecs.get(text);
      if (!codec) {
        codec = compileAvro(text);
        if (this.codecs.size > 64) this.codecs.clear();
        this.codecs.set(text, codec);
      }
      hit = { ...hit, codec, text };
      this.bySchema.set(schema, hit);
    }
    return hit as { codec: AvroCodec; text: string };
  }

  /** The CSV / Parquet columns of a value schema, once. @throws SinkMappingError naming `r` */
  private columns(schema: RecordSchema, r: SinkRecord): HdfsSchemaColumn[] {
    let hit = this.bySchema.get(schema);
    if (!hit?.columns) {
      const columns = hdfsColumnsOf(r);
      assertDistinctColumns(columns, r, this.coordinates ? COORDINATE_NAMES : []);
      hit = { ...hit, columns };
      this.bySchema.set(schema, hit);
    }
    return hit.columns!;
  }
}

const where = (r: SinkRecord) => ({ topic: r.topic, partition: r.partition, offset: r.offset });

/** The value schema of a record. @throws SinkMappingError for a record without one */
export function valueSchemaOf(r: SinkRecord): RecordSchema {
  const s = r.convertedValue?.schema;
  if (!s) {
    throw new SinkMappingError('the value has no schema: the avro format (and csv/parquet without columns) needs a value converter '
      + 'with schemas (avro, protobuf, json-schema, connect-json)', { topic: r.topic, partition: r.partition, offset: r.offset });
  }
  return s;
}

/** A value column of CSV or Parquet without declared columns, with its HDFS type. */
export type HdfsSchemaColumn = SchemaColumn & SchemaFileColumn;

/** HDFS columns of a record's value schema (CSV / Parquet without declared columns; the key is not written). */
export function hdfsColumnsOf(r: SinkRecord): HdfsSchemaColumn[] {
  return schemaColumns({ ...r, convertedKey: undefined }, { flatten: '_' }).map((c) => ({
    ...c, type: c.kind === 'integer' || c.kind === 'bigint' ? 'int64' : c.kind === 'float' ? 'double'
      : c.kind === 'boolean' ? 'boolean' : c.kind === 'timestamp' ? 'timestamp' : 'string',
  }));
}

/** A schema column's value as format.ts's column conversion takes it (JSON-like: numbers, strings, booleans). */
export function plainValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'bigint') return v.toString();
  if (Buffer.isBuffer(v)) return v.toString('base64');
  if (typeof v === 'object') return jsonOfData(v);
  return v;
}
