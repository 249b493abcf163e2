/**
 * Avro for the `avro` converter and the HDFS sink's Avro files, on avsc (mtth/avsc; measured against
 * the alternatives in bench/converter-libraries.js). A schema from the registry is compiled once per
 * id into avsc types: one with avsc's own `long` (a JS number, exact up to 2^53 - 1: the fast path),
 * and one whose `long` decodes to a number when exact and a bigint otherwise, used only for a record
 * the fast type refuses with "potential precision loss". Logical types follow the Avro spec as
 * Confluent's AvroData reads them into Connect: decimal (bytes or fixed) → decimal string, date → Date
 * at UTC midnight, time-millis → ms of the day, timestamp-millis → Date (timestamp-micros stays an
 * int64 of µs, as in Connect). Unions of null and one type are that type, optional; unions of several
 * types are Connect structs named `io.confluent.connect.avro.Union` with one optional field per branch
 * (the branch's Avro name), as Confluent's AvroData builds them.
 */
import * as avro from 'avsc';
import type { RecordSchema } from '../../records';
import { KafkaEosError } from '../../errors';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** `long` as a number when exact, else a bigint (the slow path; see the module comment). */
const ExactLong = avro.types.LongType.__with({
  fromBuffer: (b: Buffer) => { const v = b.readBigInt64LE(0); return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v; },
  toBuffer: (v: number | bigint) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(v)); return b; },
  fromJSON: (v: unknown) => (typeof v === 'string' ? BigInt(v) : v),
  toJSON: (v: number | bigint) => (typeof v === 'bigint' ? v.toString() : v),
  isValid: (v: unknown) => (typeof v === 'bigint' && v >= -(2n ** 63n) && v < 2n ** 63n) || (typeof v === 'number' && Number.isSafeInteger(v)),
  compare: (a: number | bigint, b: number | bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

/** decimal on bytes or fixed: the unscaled two's-complement big-endian integer and the scale → a decimal string. */
class DecimalType extends avro.types.LogicalType {
  readonly scale: number;
  readonly precision: number;
  constructor(schema: avro.Schema, opts?: unknown) {
    super(schema, opts);
    const s = schema as { scale?: number; precision?: number };
    this.scale = s.scale ?? 0;
    this.precision = s.precision ?? 0;
  }
  protected override _fromValue(buf: Buffer): string {
    return decimalString(buf, this.scale);
  }
  protected override _toValue(v: unknown): Buffer {
    const buf = decimalBytes(String(v), this.scale);
    const size = (this.underlyingType as unknown as { size?: number }).size;
    if (size === undefined) return buf;
    const out = Buffer.alloc(size, buf.length > 0 && (buf[0]! & 0x80) !== 0 ? 0xff : 0);
    buf.copy(out, size - buf.length);
    return out;
  }
  protected override _resolve(type: avro.Type): unknown {
    return type instanceof DecimalType && type.scale === this.scale ? (v: Buffer) => v : undefined;
  }
  protected override _export(schema: avro.Schema): void {
    Object.assign(schema as object, { precision: this.precision, scale: this.scale });
  }
}

/** timestamp-millis: long ms since the epoch → Date. */
class TimestampMillisType extends avro.types.LogicalType {
  protected override _fromValue(v: number): Date { return new Date(v); }
  protected override _toValue(v: unknown): number { return v instanceof Date ? v.getTime() : Number(v); }
  protected override _resolve(type: avro.Type): unknown {
    return avro.Type.isType(type, 'long', 'logical:timestamp-millis') ? (v: number) => v : undefined;
  }
}

/** date: int days since the epoch → Date at UTC midnight. */
class DateType extends avro.types.LogicalType {
  protected override _fromValue(v: number): Date { return new Date(v * 86400000); }
  protected override _toValue(v: unknown): number { return v instanceof Date ? Math.floor(v.getTime() / 86400000) : Number(v); }
  protected override _resolve(type: avro.Type): unknown {
    return avro.Type.isType(type, 'int', 'logical:date') ? (v: number) => v : undefined;
  }
}

const LOGICAL_TYPES = { decimal: DecimalType, 'timestamp-millis': TimestampMillisType, date: DateType };

/** Unions of several non-null branches are always wrapped (`{ branch: value }`), so their Connect struct shape is one. */
function typeHook(schema: avro.Schema, opts: unknown): avro.Type | undefined {
  if (!Array.isArray(schema)) return undefined;
  const nonNull = schema.filter((b) => b !== 'null' && (b as { type?: unknown }).type !== 'null');
  return nonNull.length > 1 ? new avro.types.WrappedUnionType(schema, opts) : undefined;
}

/** A compiled Avro schema: decode and encode with exact longs, and its Connect schema. */
export interface AvroCodec {
  readonly type: avro.Type;
  readonly connect: RecordSchema;
  /** The schema as JSON text (avsc's canonical export, logical attributes kept). */
  readonly text: string;
  /** Decodes `bytes[offset..end]`; with `reader`, resolves from this (writer) schema to the reader's. @throws on bad bytes */
  decode(bytes: Buffer, offset: number, reader?: AvroCodec): unknown;
  /** Encodes a value (bigint longs accepted). @throws when the value does not fit the schema */
  encode(value: unknown): Buffer;
}

/**
 * Compiles an Avro schema (JSON text) with the named types of its references (JSON texts, dependencies first).
 * @throws KafkaEosError SCHEMA_INVALID when avsc refuses it or it cannot be shown as a Connect schema
 */
export function compileAvro(text: string, references: string[] = []): AvroCodec {
  const build = (exact: boolean): avro.Type => {
    const registry: Record<string, avro.Type> = exact ? { long: ExactLong } : {};
    const opts = { logicalTypes: LOGICAL_TYPES, registry, typeHook } as unknown as Partial<avro.ForSchemaOptions>;
    for (const r of references) avro.Type.forSchema(JSON.parse(r) as avro.Schema, opts);
    return avro.Type.forSchema(JSON.parse(text) as avro.Schema, opts);
  };
  let fast: avro.Type;
  let exact: avro.Type;
  try {
    fast = build(false);
    exact = build(true);
  } catch (e) {
    throw new KafkaEosError('SCHEMA_INVALID', `not a valid Avro schema: ${(e as Error).message}`, { cause: e });
  }
  const connect = toConnect(fast, false, new Set());
  const resolvers = new WeakMap<AvroCodec, [avro.Type, avro.Type] | [unknown, unknown]>();
  const codec: AvroCodec = {
    type: fast, connect, text: JSON.stringify(fast.schema({ exportAttrs: true })),
    decode(bytes, offset, reader) {
      let pair = reader ? resolvers.get(reader) : undefined;
      if (reader && !pair) {
        const r = reader as AvroCodec & { exactType: avro.Type };
        pair = [r.type.createResolver(fast), r.exactType.createResolver(exact)];
        resolvers.set(reader, pair);
      }
      const target = reader ?? codec;
      try {
        return decodeAll(target.type, bytes, offset, pair?.[0] as avro.Type | undefined);
      } catch (e) {
        if ((e as Error).message !== 'potential precision loss') throw e;
        return decodeAll((target as AvroCodec & { exactType: avro.Type }).exactType, bytes, offset, pair?.[1] as avro.Type | undefined);
      }
    },
    encode(value) {
      try {
        return fast.toBuffer(value);
      } catch (e) {
        return exact.toBuffer(value);
      }
    },
  };
  Object.defineProperty(codec, 'exactType', { value: exact });
  return codec;
}

/** Decodes one value that must end exactly at the end of `bytes`. */
function decodeAll(type: avro.Type, bytes: Buffer, offset: number, resolver?: avro.Type): unknown {
  const { value, offset: end } = type.decode(bytes, offset, resolver as never);
  if (end !== bytes.length) {
    throw new KafkaEosError('RECORD_CONVERSION_FAILED', end < 0 ? 'truncated Avro data' : `${bytes.length - end} bytes left after the Avro value`);
  }
  return value;
}

/** The Connect schema of an avsc type (see the module comment). @throws KafkaEosError SCHEMA_INVALID for recursive schemas */
function toConnect(t: avro.Type, optional: boolean, seen: Set<avro.Type>): RecordSchema {
  const name = t.typeName;
  const base = (type: RecordSchema['type'], extra: Partial<RecordSchema> = {}): RecordSchema => ({ type, optional, ...extra });
  switch (name) {
    case 'int': return base('int32');
    case 'long': return base('int64');
    case 'float': return base('float32');
    case 'double': return base('float64');
    case 'boolean': return base('boolean');
    case 'string': return base('string');
    case 'bytes': return base('bytes');
    case 'null': return base('string', { optional: true });
    case 'fixed': return base('bytes', { name: t.name });
    case 'enum': return base('string', { name: t.name });
    case 'logical:decimal': {
      const d = t as unknown as DecimalType;
      return base('bytes', { logical: 'decimal', scale: d.scale, ...(d.precision ? { precision: d.precision } : {}) });
    }
    case 'logical:timestamp-millis': return base('int64', { logical: 'timestamp' });
    case 'logical:date': return base('int32', { logical: 'date' });
    case 'array': return base('array', { items: toConnect((t as avro.types.ArrayType).itemsType, false, seen) });
    case 'map': return base('map', { items: toConnect((t as avro.types.MapType).valuesType as avro.Type, false, seen) });
    case 'record': case 'error': {
      if (seen.has(t)) throw new KafkaEosError('SCHEMA_INVALID', `recursive Avro record ${t.name} cannot be converted to a Connect schema`);
      seen.add(t);
      const fields = (t as avro.types.RecordType).fields.map((f) => ({ name: f.name, schema: toConnect(f.type, false, seen) }));
      seen.delete(t);
      return base('struct', { name: t.name, fields });
    }
    case 'union:unwrapped': case 'union:wrapped': {
      const branches = (t as avro.types.UnwrappedUnionType).types;
      const nonNull = branches.filter((b) => b.typeName !== 'null');
      const hasNull = nonNull.length < branches.length;
      if (nonNull.length === 1) return toConnect(nonNull[0]!, optional || hasNull, seen);
      return base('struct', {
        optional: optional || hasNull, name: 'io.confluent.connect.avro.Union',
        fields: nonNull.map((b) => ({ name: b.branchName ?? b.typeName, schema: toConnect(b, true, seen) })),
      });
    }
    default:
      // Logical types avsc does not know (uuid, time-millis, timestamp-micros, ...) read as their underlying type.
      if (name.startsWith('logical:')) {
        const under = toConnect((t as avro.types.LogicalType).underlyingType, optional, seen);
        return name === 'logical:time-millis' ? { ...under, logical: 'time' } : under;
      }
      throw new KafkaEosError('SCHEMA_INVALID', `Avro type ${name} has no Connect schema`);
  }
}

/** The decimal string of a two's-complement big-endian unscaled integer with `scale` digits after the point. */
export function decimalString(buf: Buffer, scale: number): string {
  let n = 0n;
  for (const b of buf) n = (n << 8n) | BigInt(b);
  if (buf.length > 0 && (buf[0]! & 0x80) !== 0) n -= 1n << BigInt(buf.length * 8);
  const neg = n < 0n;
  let digits = (neg ? -n : n).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return neg ? `-${digits}` : digits;
}

/** The minimal two's-complement big-endian bytes of decimal string `s` scaled by `scale`. @throws for a non-decimal string */
export function decimalBytes(s: string, scale: number): Buffer {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(s.trim());
  if (!m || (m[2] === '' && !m[3])) throw new KafkaEosError('RECORD_CONVERSION_FAILED', `not a decimal: ${JSON.stringify(s)}`);
  const frac = (m[3] ?? '').padEnd(scale, '0');
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw new KafkaEosError('RECORD_CONVERSION_FAILED', `${s} has more than ${scale} digits after the point`);
  let n = BigInt(`${m[2] || '0'}${frac.slice(0, scale)}`);
  if (m[1] === '-') n = -n;
  const bytes: number[] = [];
  for (;;) {
    bytes.unshift(Number(n & 0xffn));
    const rest = n >> 8n;
    if ((rest === 0n && (bytes[0]! & 0x80) === 0) || (rest === -1n && (bytes[0]! & 0x80) !== 0)) break;
    n = rest;
  }
  return Buffer.from(bytes);
}
