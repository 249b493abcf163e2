/**
 * Kafka Connect's JsonConverter with `schemas.enable=true`: every value is an envelope
 * `{"schema": <Connect schema as JSON>, "payload": <value>}` (org.apache.kafka.connect.json.JsonConverter).
 * Schemas use Connect's JSON spelling (`type`, `optional`, `name`, `fields[].field`, `items`, `keys`/`values`,
 * `parameters`); the logical types are named `org.apache.kafka.connect.data.Decimal` (bytes as base64, with
 * `parameters.scale`), `...Date` (int32 days), `...Time` (int32 ms of the day) and `...Timestamp` (int64 ms).
 * An integer outside its type's range (int8 ... int32), a date or timestamp outside a JavaScript Date's range,
 * or a schema nested deeper than {@link MAX_DEPTH} is refused (Java's JsonConverter would wrap the integer).
 */
import type { RecordSchema, RecordSchemaType } from '../../records';
import { KafkaEosError } from '../../errors';
import { decimalString, setField } from './avro';

const TYPES = new Set<RecordSchemaType>(['int8', 'int16', 'int32', 'int64', 'float32', 'float64', 'boolean', 'string', 'bytes', 'array',
  'map', 'struct']);
const LOGICAL: Record<string, RecordSchema['logical']> = {
  'org.apache.kafka.connect.data.Decimal': 'decimal', 'org.apache.kafka.connect.data.Date': 'date',
  'org.apache.kafka.connect.data.Time': 'time', 'org.apache.kafka.connect.data.Timestamp': 'timestamp',
};

type Json = Record<string, unknown>;

/** How deep an envelope's schema may nest. */
export const MAX_DEPTH = 256;
const RANGE: Partial<Record<RecordSchemaType, [number, number]>> = {
  int8: [-128, 127], int16: [-32768, 32767], int32: [-2147483648, 2147483647],
};

/** A Connect schema in JsonConverter's JSON → RecordSchema. @throws Error naming what is wrong */
export function connectSchemaFromJson(s: unknown, where = 'schema', depth = 0): RecordSchema {
  if (depth > MAX_DEPTH) throw new KafkaEosError('SCHEMA_INVALID', `${where} nests deeper than ${MAX_DEPTH} levels`);
  if (!s || typeof s !== 'object') throw new KafkaEosError('SCHEMA_INVALID', `${where} is not an object`);
  const o = s as Json;
  const type = o.type as RecordSchemaType;
  if (!TYPES.has(type)) throw new KafkaEosError('SCHEMA_INVALID', `${where}.type ${JSON.stringify(o.type)} is not a Connect schema type`);
  const out: RecordSchema = { type, optional: o.optional === true };
  if (typeof o.name === 'string') {
    out.name = o.name;
    const logical = LOGICAL[o.name];
    if (logical) {
      out.logical = logical;
      if (logical === 'decimal') {
        const scale = Number((o.parameters as Json | undefined)?.scale ?? 0);
        if (!Number.isInteger(scale)) throw new KafkaEosError('SCHEMA_INVALID', `${where}.parameters.scale is not an integer`);
        out.scale = scale;
      }
    }
  }
  if (type === 'struct') {
    if (!Array.isArray(o.fields)) throw new KafkaEosError('SCHEMA_INVALID', `${where}.fields is missing`);
    out.fields = (o.fields as Json[]).map((f, i) => {
      if (typeof f?.field !== 'string') throw new KafkaEosError('SCHEMA_INVALID', `${where}.fields[${i}].field is missing`);
      return { name: f.field, schema: connectSchemaFromJson(f, `${where}.fields[${i}]`, depth + 1) };
    });
  } else if (type === 'array') {
    out.items = connectSchemaFromJson(o.items, `${where}.items`, depth + 1);
  } else if (type === 'map') {
    out.items = connectSchemaFromJson(o.values, `${where}.values`, depth + 1);
  }
  return out;
}

/** A payload as Connect data of `schema` (see records.ts SchemaAndValue). @throws Error naming the path of a bad value */
export function connectValue(schema: RecordSchema, v: unknown, path = 'payload'): unknown {
  if (v === null || v === undefined) {
    if (!schema.optional) throw new KafkaEosError('RECORD_CONVERSION_FAILED', `${path} is null but its schema is not optional`);
    return null;
  }
  const bad = (what: string) =>
    new KafkaEosError('RECORD_CONVERSION_FAILED', `${path}: expected ${what}, got ${JSON.stringify(v)?.slice(0, 60)}`);
  switch (schema.logical) {
    case 'decimal': if (typeof v !== 'string') throw bad('base64 bytes'); return decimalString(Buffer.from(v, 'base64'), schema.scale ?? 0);
    case 'timestamp': if (typeof v !== 'number' || !(Math.abs(v) <= 8.64e15)) throw bad('ms since the epoch within a date\'s range');
      return new Date(v);
    case 'date': if (typeof v !== 'number' || !(Math.abs(v) <= 1e8)) throw bad('days since the epoch within a date\'s range');
      return new Date(v * 86400000);
    default: break;
  }
  switch (schema.type) {
    case 'int8': case 'int16': case 'int32': case 'int64': {
      if (typeof v !== 'number' || !Number.isInteger(v)) throw bad('an integer');
      const range = RANGE[schema.type];
      if (range && (v < range[0] || v > range[1])) throw bad(`an ${schema.type} (${range[0]} to ${range[1]})`);
      return v;
    }
    case 'float32': case 'float64': if (typeof v !== 'number') throw bad('a number'); return v;
    case 'boolean': if (typeof v !== 'boolean') throw bad('a boolean'); return v;
    case 'string': if (typeof v !== 'string') throw bad('a string'); return v;
    case 'bytes': if (typeof v !== 'string') throw bad('base64 bytes'); return Buffer.from(v, 'base64');
    case 'array': if (!Array.isArray(v)) throw bad('an array'); return v.map((x, i) => connectValue(schema.items!, x, `${path}[${i}]`));
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) throw bad('an object');
      const out: Json = {};
      for (const [k, x] of Object.entries(v as Json)) setField(out, k, connectValue(schema.items!, x, `${path}.${k}`));
      return out;
    }
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) throw bad('an object');
      const out: Json = {};
      for (const f of schema.fields!) {
        const x = Object.prototype.hasOwnProperty.call(v, f.name) ? (v as Json)[f.name] : undefined;
        setField(out, f.name, connectValue(f.schema, x, `${path}.${f.name}`));
      }
      return out;
    }
  }
}
