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
 *
 * Hostile bytes cost no more than their size: an array or map block cannot claim more items than the
 * bytes left could hold (each item of a type that encodes in at least one byte needs one), and items that
 * encode in zero bytes (`null`, empty records) are capped at {@link MAX_EMPTY_ITEMS} per collection, so
 * a 6-byte record cannot ask for 2^31 items (avsc would allocate them). A decimal whose attributes are not
 * valid (scale < 0 or > precision, precision < 1, more digits than its fixed size holds) is read as its
 * underlying bytes or fixed, as the Avro spec says of invalid logical types. A timestamp-millis or date
 * outside a JavaScript Date's range (±8.64e15 ms) does not decode (the record's fault).
 */
import * as avro from 'avsc';
import type { RecordSchema } from '../../records';
import { KafkaEosError } from '../../errors';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Items that encode in zero bytes (null, empty records) one array or map may hold. */
export const MAX_EMPTY_ITEMS = 1 << 20;

/** The largest distance from the epoch a JavaScript Date holds, ms (ECMA-262 "Time Values and Time Range"). */
const DATE_RANGE_MS = 8.64e15;

/** How deep a schema may nest records, arrays, maps and unions (Connect data is built recursively). */
export const MAX_SCHEMA_DEPTH = 256;

/** `long` as a number when exact, else a bigint (the slow path; see the module comment). */
const ExactLong = avro.types.LongType.__with({
  fromBuffer: (b: Buffer) => { const v = b.readBigInt64LE(0); return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v; },
  toBuffer: (v: number | bigint) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(v)); return b; },
  fromJSON: (v: unknown) => (typeof v === 'string' ? BigInt(v) : v),
  toJSON: (v: number | bigint) => (typeof v === 'bigint' ? v.toString() : v),
  isValid: (v: unknown) => (typeof v === 'bigint' && v >= -(2n ** 63n) && v < 2n ** 63n)
    || (typeof v === 'number' && Number.isSafeInteger(v)),
  compare: (a: number | bigint, b: number | bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

const TWO_52 = 2 ** 52;
const TWO_53 = 2 ** 53;

/**
 * `long` on the fast path: a JS number, exact. avsc's own long sums the zigzag varint in floating point, which
 * rounds a zigzag value above 2^53 to an even number: every negative long in [-(2^53 - 1), -(2^52 + 1)] read
 * back as a wrong positive number and was written as wrong bytes, silently. Here such a value (|n| ≥ 2^52)
 * is "potential precision loss" on reading (the exact path reads it) and written through BigInt.
 */
class FastLongType extends avro.types.LongType {
  _read(tap: Tap): number {
    const buf = tap.buf;
    let pos = tap.pos;
    let n = 0;
    let k = 0;
    let b: number;
    do {
      b = buf[pos++]!;
      n |= (b & 0x7f) << k;
      k += 7;
    } while (b & 0x80 && k < 28);
    if (!(b & 0x80)) {
      tap.pos = pos;
      return (n >> 1) ^ -(n & 1);
    }
    let f = n;
    let fk = 268435456; // 2^28
    do {
      b = buf[pos++]!;
      f += (b & 0x7f) * fk;
      fk *= 128;
    } while (b & 0x80);
    tap.pos = pos;
    if (f >= TWO_53) throw new KafkaEosError('RECORD_CONVERSION_FAILED', 'potential precision loss'); // the exact path reads it
    return (f % 2 ? -(f + 1) : f) / 2;
  }

  _write(tap: Tap & { writeLong(n: number): void }, v: number): void {
    if (typeof v !== 'number' || !Number.isSafeInteger(v))
      throw new KafkaEosError('RECORD_CONVERSION_FAILED', `invalid "long": ${String(v)}`);
    if (v < TWO_52 && v > -TWO_52) { tap.writeLong(v); return; }
    let z = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
    for (;;) {
      const byte = Number(z & 0x7fn);
      z >>= 7n;
      if (tap.pos < tap.buf.length) tap.buf[tap.pos] = z === 0n ? byte : byte | 0x80;
      tap.pos++;
      if (z === 0n) return;
    }
  }
}
const FastLong = new FastLongType();

/** decimal on bytes or fixed: the unscaled two's-complement big-endian integer and the scale → a decimal string. */
class DecimalType extends avro.types.LogicalType {
  readonly scale: number;
  readonly precision: number;
  /** @throws Error for invalid attributes: avsc then reads the underlying type (the Avro spec's rule for invalid logical types) */
  constructor(schema: avro.Schema, opts?: unknown) {
    super(schema, opts);
    const s = schema as { scale?: unknown; precision?: unknown; size?: unknown };
    const scale = s.scale ?? 0;
    const precision = s.precision;
    if (!Number.isInteger(precision) || (precision as number) < 1)
      throw new KafkaEosError('SCHEMA_INVALID', `invalid decimal precision ${String(precision)}`);
    if (!Number.isInteger(scale) || (scale as number) < 0 || (scale as number) > (precision as number)) {
      throw new KafkaEosError('SCHEMA_INVALID', `invalid decimal scale ${String(scale)}`);
    }
    const size = (this.underlyingType as unknown as { size?: number }).size;
    if (size !== undefined && (precision as number) > Math.floor(Math.log10(2) * (8 * size - 1))) {
      throw new KafkaEosError('SCHEMA_INVALID', `decimal precision ${String(precision)} does not fit a fixed of ${size} bytes`);
    }
    this.scale = scale as number;
    this.precision = precision as number;
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

/** A Date of `ms` since the epoch. @throws Error when no Date holds it (the record's fault) */
function dateOf(ms: number, what: string): Date {
  if (!(ms <= DATE_RANGE_MS && ms >= -DATE_RANGE_MS)) {
    throw new KafkaEosError('RECORD_CONVERSION_FAILED', `${what} is outside the range of a date (±8.64e15 ms from the epoch)`);
  }
  return new Date(ms);
}

/** timestamp-millis: long ms since the epoch → Date. */
class TimestampMillisType extends avro.types.LogicalType {
  protected override _fromValue(v: number): Date { return dateOf(v, `timestamp-millis ${v}`); }
  protected override _toValue(v: unknown): number | bigint {
    return v instanceof Date ? v.getTime() : typeof v === 'bigint' ? v : Number(v);
  }
  protected override _resolve(type: avro.Type): unknown {
    return avro.Type.isType(type, 'long', 'abstract:long', 'logical:timestamp-millis') ? (v: number) => v : undefined;
  }
}

/** time-millis: int ms of the day (Connect's Time, as a number). */
class TimeMillisType extends avro.types.LogicalType {
  protected override _fromValue(v: number): number { return v; }
  protected override _toValue(v: unknown): number { return Number(v); }
  protected override _resolve(type: avro.Type): unknown {
    return avro.Type.isType(type, 'int', 'logical:time-millis') ? (v: number) => v : undefined;
  }
}

/** date: int days since the epoch → Date at UTC midnight. */
class DateType extends avro.types.LogicalType {
  protected override _fromValue(v: number): Date { return dateOf(v * 86400000, `date ${v} (days)`); }
  protected override _toValue(v: unknown): number { return v instanceof Date ? Math.floor(v.getTime() / 86400000) : Number(v); }
  protected override _resolve(type: avro.Type): unknown {
    return avro.Type.isType(type, 'int', 'logical:date') ? (v: number) => v : undefined;
  }
}

const LOGICAL_TYPES: Record<string, new (schema: avro.Schema, opts?: unknown) => avro.types.LogicalType> = {
  decimal: DecimalType, 'timestamp-millis': TimestampMillisType, date: DateType, 'time-millis': TimeMillisType,
};

/** The logical-type schemas whose type our type hook is building (their underlying long is built inside). */
const building: object[] = [];

/** avsc's reading position (lib/utils.js Tap). */
interface Tap { buf: Buffer; pos: number; readLong(): number; skipLong(): void; readString(): string; skipString(): void }
type Readable = avro.Type & { _read(tap: Tap): unknown; _skip(tap: Tap): void };

const MIN_BYTES = new WeakMap<avro.Type, number>();

/** The fewest bytes a value of `t` encodes in (0 for null and records of such), memoised; recursion counts as 0. */
function minBytes(t: avro.Type, seen = new Set<avro.Type>()): number {
  const cached = MIN_BYTES.get(t);
  if (cached !== undefined) return cached;
  if (seen.has(t)) return 0;
  seen.add(t);
  let n: number;
  switch (t.typeName) {
    case 'null': n = 0; break;
    case 'float': n = 4; break;
    case 'double': n = 8; break;
    case 'fixed': n = (t as avro.types.FixedType).size; break;
    case 'record': case 'error': n = (t as avro.types.RecordType).fields.reduce((a, f) => a + minBytes(f.type, seen), 0); break;
    default: n = t.typeName.startsWith('logical:') ? minBytes((t as avro.types.LogicalType).underlyingType, seen) : 1;
  }
  seen.delete(t);
  MIN_BYTES.set(t, n);
  return n;
}

/**
 * Checks an array or map block before its items are read: `n` items of at least `min` bytes each must fit in what is
 * left, and items of zero bytes stop at MAX_EMPTY_ITEMS (`have`: items already read). @throws Error (bytes that do not decode)
 */
function checkBlock(tap: Tap, n: number, have: number, min: number): void {
  if (min > 0 ? n * min > tap.buf.length - tap.pos : have + n > MAX_EMPTY_ITEMS) {
    throw new KafkaEosError('RECORD_CONVERSION_FAILED',
      min > 0 ? `truncated Avro data: a block of ${n} items cannot fit in the ${tap.buf.length - tap.pos} bytes left`
      : `an Avro array or map of ${have + n} items that encode in zero bytes (at most ${MAX_EMPTY_ITEMS})`);
  }
}

/** Reads an array whose items `items` reads (a type or a resolver) and whose writer items take at least `min` bytes. */
function readArray(tap: Tap, items: Readable, min: number): unknown[] {
  let val: unknown[] | undefined;
  let i = 0;
  let n: number;
  while ((n = tap.readLong())) {
    if (n < 0) { n = -n; tap.skipLong(); }
    checkBlock(tap, n, i, min);
    val ??= new Array<unknown>(n); // sized on the first block, as avsc does
    while (n--) val[i++] = items._read(tap);
  }
  return val ?? [];
}

/** Sets `out[k]` as an own property (a field or map key named `__proto__` too, which `out[k] =` would not keep). */
export function setField(out: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
}

/** Reads a map (an entry has a key: at least one byte); a `__proto__` key is kept as a key. */
function readMap(tap: Tap, values: Readable): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let have = 0;
  let n: number;
  while ((n = tap.readLong())) {
    if (n < 0) { n = -n; tap.skipLong(); }
    checkBlock(tap, n, have, 1);
    have += n;
    while (n--) {
      const key = tap.readString();
      setField(out, key, values._read(tap));
    }
  }
  return out;
}

/** Skips an array or map (`entry` skips one item or entry of at least `min` bytes). */
function skipBlocks(tap: Tap, min: number, entry: () => void): void {
  let have = 0;
  let n: number;
  while ((n = tap.readLong())) {
    if (n < 0) { tap.pos += tap.readLong(); continue; }
    checkBlock(tap, n, have, min);
    have += n;
    while (n--) entry();
  }
}

type ResolverSlot = { _read: ((tap: Tap) => unknown) | null; itemsType: unknown; valuesType: unknown };

/** avsc's ArrayType whose reads, skips and resolvers check each block (see the module comment). */
class BoundedArrayType extends avro.types.ArrayType {
  _read(tap: Tap): unknown[] {
    return readArray(tap, this.itemsType as Readable, minBytes(this.itemsType));
  }
  _skip(tap: Tap): void {
    const items = this.itemsType as Readable;
    skipBlocks(tap, minBytes(items), () => items._skip(tap));
  }
  _update(resolver: ResolverSlot, writer: avro.Type, opts: unknown): void {
    if (writer.typeName !== 'array') return;
    const writerItems = (writer as avro.types.ArrayType).itemsType;
    const items = this.itemsType.createResolver(writerItems, opts as never) as unknown as Readable;
    resolver.itemsType = items;
    resolver._read = (tap) => readArray(tap, items, minBytes(writerItems));
  }
}

/** avsc's MapType whose reads, skips and resolvers check each block. */
class BoundedMapType extends avro.types.MapType {
  _read(tap: Tap): Record<string, unknown> {
    return readMap(tap, this.valuesType as Readable);
  }
  _skip(tap: Tap): void {
    const values = this.valuesType as Readable;
    skipBlocks(tap, 1, () => { tap.skipString(); values._skip(tap); });
  }
  _update(resolver: ResolverSlot, writer: avro.Type, opts: unknown): void {
    if (writer.typeName !== 'map') return;
    const values = (this.valuesType as avro.Type)
      .createResolver((writer as avro.types.MapType).valuesType as avro.Type, opts as never) as unknown as Readable;
    resolver.valuesType = values;
    resolver._read = (tap) => readMap(tap, values);
  }
}

/**
 * The type hook of both builds: unions of several non-null branches are always wrapped (`{ branch: value }`), so their
 * Connect struct shape is one; arrays and maps check their blocks; every long (the name `long`, a `{"type": "long"}`
 * object, the long under a logical type) is FastLong, or with `exact` ExactLong.
 */
function typeHook(exact: boolean) {
  return (schema: avro.Schema, opts: unknown): avro.Type | undefined => {
    if (Array.isArray(schema)) {
      const nonNull = schema.filter((b) => b !== 'null' && (b as { type?: unknown }).type !== 'null');
      return nonNull.length > 1 ? new avro.types.WrappedUnionType(schema, opts) : undefined;
    }
    if (schema === null || typeof schema !== 'object') return undefined;
    const o = schema as { type?: unknown; logicalType?: unknown };
    if (o.type === 'array') return new BoundedArrayType(schema, opts);
    if (o.type === 'map') return new BoundedMapType(schema, opts);
    if (o.type !== 'long') return undefined;
    // A logical type on long: built here, so that its underlying long (built inside, for this same schema) is ours too.
    const Logical = typeof o.logicalType === 'string' ? LOGICAL_TYPES[o.logicalType] : undefined;
    if (Logical && building[building.length - 1] !== schema) {
      building.push(schema as object);
      try {
        return new Logical(schema, opts);
      } finally {
        building.pop();
      }
    }
    return exact ? ExactLong : FastLong;
  };
}

/** A compiled Avro schema: decode and encode with exact longs, and its Connect schema. */
export interface AvroCodec {
  readonly type: avro.Type;
  readonly connect: RecordSchema;
  /** The schema as JSON text (avsc's canonical export, logical attributes kept). */
  readonly text: string;
  /** Decodes `bytes[offset..end]`; with `reader`, resolves from this (writer) schema to the reader's. @throws on bad bytes */
  decode(bytes: Buffer, offset: number, reader?: AvroCodec): unknown;
  /**
   * Prepares reading this (writer) schema's data with `reader` (Avro schema resolution), once per reader.
   * @throws Error when `reader` cannot read this schema's data (the schemas are not compatible)
   */
  resolve(reader: AvroCodec): void;
  /** Encodes a value (bigint longs accepted). @throws when the value does not fit the schema */
  encode(value: unknown): Buffer;
}

/**
 * Compiles an Avro schema (JSON text) with the named types of its references (JSON texts, dependencies first).
 * @throws KafkaEosError SCHEMA_INVALID when avsc refuses it or it cannot be shown as a Connect schema
 */
export function compileAvro(text: string, references: string[] = []): AvroCodec {
  const build = (exact: boolean): avro.Type => {
    const registry: Record<string, avro.Type> = { long: exact ? ExactLong : FastLong };
    const opts = { logicalTypes: LOGICAL_TYPES, registry, typeHook: typeHook(exact) } as unknown as Partial<avro.ForSchemaOptions>;
    for (const r of references) avro.Type.forSchema(JSON.parse(r) as avro.Schema, opts);
    return avro.Type.forSchema(JSON.parse(text) as avro.Schema, opts);
  };
  let fast: avro.Type;
  let exact: avro.Type;
  let connect: RecordSchema;
  let exported: string;
  try {
    fast = build(false);
    exact = build(true);
    connect = toConnect(fast, false, new Set(), 0);
    exported = JSON.stringify(fast.schema({ exportAttrs: true }));
  } catch (e) {
    if (e instanceof KafkaEosError) throw e;
    const deep = e instanceof RangeError;
    throw new KafkaEosError('SCHEMA_INVALID', deep ? `the Avro schema is nested too deep: ${(e as Error).message}`
      : `not a valid Avro schema: ${(e as Error).message}`, { cause: e });
  }
  type Resolvers = [avro.Type, avro.Type];
  const resolvers = new WeakMap<AvroCodec, Resolvers>();
  const resolverOf = (reader: AvroCodec): Resolvers => {
    let pair = resolvers.get(reader);
    if (!pair) {
      const r = reader as AvroCodec & { exactType: avro.Type };
      pair = [r.type.createResolver(fast), r.exactType.createResolver(exact)] as unknown as Resolvers;
      resolvers.set(reader, pair);
    }
    return pair;
  };
  const codec: AvroCodec = {
    type: fast, connect, text: exported,
    resolve(reader) { resolverOf(reader); },
    decode(bytes, offset, reader) {
      const pair = reader ? resolverOf(reader) : undefined;
      const target = reader ?? codec;
      try {
        return decodeAll(target.type, bytes, offset, pair?.[0]);
      } catch (e) {
        if ((e as Error).message !== 'potential precision loss') throw e;
      }
      return decodeAll((target as AvroCodec & { exactType: avro.Type }).exactType, bytes, offset, pair?.[1]);
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

/**
 * avsc's reading position class (lib/utils.js; avsc does not export it). One is reused for every decode: avsc's
 * `Type.decode` allocates a Tap and a `{ value, offset }` result per call, the largest per-record cost of this path
 * after the reading itself (bench/converters.js).
 */
const TapClass = (require('avsc/lib/utils') as { Tap: new (buf: Buffer, pos?: number) => Tap }).Tap;
const EMPTY = Buffer.alloc(0);
const TAP = new TapClass(EMPTY);

/** Decodes one value that must end exactly at the end of `bytes` (`resolver`: avsc's, from the writer's schema). */
function decodeAll(type: avro.Type, bytes: Buffer, offset: number, resolver?: avro.Type): unknown {
  const tap = TAP;
  tap.buf = bytes;
  tap.pos = offset;
  let value: unknown;
  try {
    value = resolver ? (resolver as unknown as Readable)._read(tap) : (type as Readable)._read(tap);
  } catch (e) {
    // Past the end avsc reads garbage (a logical type may refuse it first): the bytes are short, say so.
    if (tap.pos > bytes.length) throw new KafkaEosError('RECORD_CONVERSION_FAILED', 'truncated Avro data');
    throw e;
  }
  tap.buf = EMPTY; // the shared tap keeps no record's bytes (a slice of a whole fetch response) alive
  if (tap.pos !== bytes.length) {
    throw new KafkaEosError('RECORD_CONVERSION_FAILED', tap.pos > bytes.length ? 'truncated Avro data'
      : `${bytes.length - tap.pos} bytes left after the Avro value`);
  }
  return value;
}

/**
 * The Connect schema of an avsc type (see the module comment).
 * @throws KafkaEosError SCHEMA_INVALID for recursive schemas and schemas nested deeper than MAX_SCHEMA_DEPTH
 */
function toConnect(t: avro.Type, optional: boolean, seen: Set<avro.Type>, depth: number): RecordSchema {
  if (depth > MAX_SCHEMA_DEPTH) throw new KafkaEosError('SCHEMA_INVALID', `the Avro schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  const name = t.typeName;
  const sub = (x: avro.Type, opt: boolean) => toConnect(x, opt, seen, depth + 1);
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
    case 'array': return base('array', { items: sub((t as avro.types.ArrayType).itemsType, false) });
    case 'map': return base('map', { items: sub((t as avro.types.MapType).valuesType as avro.Type, false) });
    case 'record': case 'error': {
      if (seen.has(t)) throw new KafkaEosError('SCHEMA_INVALID', `recursive Avro record ${t.name} cannot be converted to a Connect schema`);
      seen.add(t);
      const fields = (t as avro.types.RecordType).fields.map((f) => ({ name: f.name, schema: sub(f.type, false) }));
      seen.delete(t);
      return base('struct', { name: t.name, fields });
    }
    case 'union:unwrapped': case 'union:wrapped': {
      const branches = (t as avro.types.UnwrappedUnionType).types;
      const nonNull = branches.filter((b) => b.typeName !== 'null');
      const hasNull = nonNull.length < branches.length;
      if (nonNull.length === 1) return sub(nonNull[0]!, optional || hasNull);
      return base('struct', {
        optional: optional || hasNull, name: 'io.confluent.connect.avro.Union',
        fields: nonNull.map((b) => ({ name: b.branchName ?? b.typeName, schema: sub(b, true) })),
      });
    }
    default:
      // Logical types avsc does not know (uuid, time-millis, timestamp-micros, ...) read as their underlying type.
      if (name.startsWith('logical:')) {
        const under = sub((t as avro.types.LogicalType).underlyingType, optional);
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
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale)))
    throw new KafkaEosError('RECORD_CONVERSION_FAILED', `${s} has more than ${scale} digits after the point`);
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
