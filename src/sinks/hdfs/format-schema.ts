/**
 * The HDFS sink's formats that take their shape from converted records' schemas (docs/converters.md):
 *
 * - `avro`: Avro object container files (Avro spec "Object Container Files": magic `Obj\x01`, metadata with
 *   `avro.schema` and `avro.codec`, a 16-byte sync marker, then blocks of records), the writer schema derived
 *   from the value's Connect schema as Confluent's AvroData.fromConnectSchema does (an Avro-converted topic
 *   gets its registry schema back: names, logical types, optional fields as `["null", T]`). Codec `null`
 *   or `deflate` (raw DEFLATE, as the spec says).
 * - CSV and Parquet without `columns`: the columns of sinks/schema-columns.ts (nested structs flattened with `_`).
 *
 * Each file holds one schema: the sink rotates (commits the open files) before a record whose key or value
 * schema differs from the open file's, as Connect's HDFS sink does with `schema.compatibility=NONE`. Tombstones
 * carry no schema: they are left out of the file (their offsets are covered by it).
 */
import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import * as avro from 'avsc';
import type { RecordSchema, SinkRecord } from '../../records';
import { compileAvro, type AvroCodec } from '../../consumer/converters/avro';
import { jsonOfData, schemaColumns, type SchemaColumn } from '../schema-columns';
import { SinkMappingError } from '../errors';

/** The Avro schema (JSON) of a Connect schema (see the module comment). */
export function avroSchemaOf(s: RecordSchema): unknown {
  const defined = new Set<string>();
  let anonymous = 0;
  const walk = (x: RecordSchema, withNull: boolean): unknown => {
    const t = base(x);
    return x.optional && withNull ? ['null', t] : t;
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

/** Avro container files from converted records, one writer schema per file (see the module comment). */
export class AvroFileWriter {
  private readonly codecs = new Map<string, AvroCodec>();
  constructor(private readonly codec: 'null' | 'deflate' = 'null') {}

  /** The container file of `records` (one value schema; tombstones left out). @throws SinkMappingError naming a record */
  encode(records: SinkRecord[]): Buffer {
    const data = records.filter((r) => r.value !== null);
    const first = data[0];
    if (!first) return Buffer.alloc(0);
    const schema = valueSchemaOf(first);
    const text = JSON.stringify(avroSchemaOf(schema));
    let codec = this.codecs.get(text);
    if (!codec) {
      codec = compileAvro(text);
      if (this.codecs.size > 64) this.codecs.clear();
      this.codecs.set(text, codec);
    }
    const sync = randomBytes(16);
    const parts: Buffer[] = [MAGIC, META.toBuffer({ 'avro.schema': Buffer.from(text), 'avro.codec': Buffer.from(this.codec) }), sync];
    for (let i = 0; i < data.length; i += BLOCK_RECORDS) {
      const block = data.slice(i, i + BLOCK_RECORDS).map((r) => {
        try {
          return codec.encode(r.convertedValue!.value);
        } catch (e) {
          throw new SinkMappingError(`the value does not fit the Avro schema of its file: ${(e as Error).message}`,
            { topic: r.topic, partition: r.partition, offset: r.offset }, e);
        }
      });
      let body = Buffer.concat(block);
      if (this.codec === 'deflate') body = deflateRawSync(body);
      parts.push(LONG.toBuffer(block.length), LONG.toBuffer(body.length), body, sync);
    }
    return Buffer.concat(parts);
  }

}

/** The value schema of a record. @throws SinkMappingError for a record without one */
export function valueSchemaOf(r: SinkRecord): RecordSchema {
  const s = r.convertedValue?.schema;
  if (!s) {
    throw new SinkMappingError('the value has no schema: the avro format (and csv/parquet without columns) needs a value converter '
      + 'with schemas (avro, protobuf, json-schema, connect-json)', { topic: r.topic, partition: r.partition, offset: r.offset });
  }
  return s;
}

/** HDFS column types of schema columns (CSV / Parquet without declared columns). */
export function hdfsColumnsOf(r: SinkRecord): (SchemaColumn & { type: 'string' | 'int64' | 'double' | 'boolean' | 'timestamp' })[] {
  return schemaColumns(r, { flatten: '_' }).map((c) => ({
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
