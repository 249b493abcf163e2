/**
 * Declarative message schemas, read and written by one generic codec in both directions.
 *
 * A schema is a list of fields, each with the version range it exists in (Kafka's JSON
 * message definitions use the same idea: "0+", "3-5"). Flexible versions (KIP-482) switch
 * strings, bytes and arrays to compact encodings and add a tagged-field section to every
 * struct; tagged fields are declared with `tag`.
 *
 * Field names are the lowerCamelCase of Kafka's JSON field names, so a decoded request
 * reads like the Kafka documentation.
 */
import { KafkaEosError } from '../errors';
import { MalformedFrameError, Reader, Writer } from './primitives';

export type Primitive =
  | 'int8' | 'int16' | 'uint16' | 'int32' | 'int64' | 'float64' | 'bool' | 'uuid'
  | 'string' | 'bytes' | 'records';

export interface VersionRange { min: number; max: number }

/** Type-level only: the decoded value type a field carries (never present at run time). */
declare const VALUE: unique symbol;

/**
 * One field of a schema. `N` and `T` are its name and decoded value type at the type level (so
 * {@link StructOf} can infer a struct from its fields); plain `Field` accepts any field.
 */
export interface Field<N extends string = string, T = unknown> {
  readonly name: N;
  /** A primitive, or a struct given by its fields. */
  readonly type: Primitive | readonly Field[];
  readonly array: boolean;
  readonly versions: VersionRange;
  readonly nullable: VersionRange | null;
  readonly tag: number | null;
  readonly defaultValue: unknown;
  /** See FieldOptions.optionalAtEnd. */
  readonly optionalAtEnd?: boolean;
  /** Phantom: the decoded value type. */
  readonly [VALUE]?: T;
}

/** The value a primitive decodes to: int64 is `bigint`, uuid a 32-digit hex string, bytes and records a Buffer. */
export type PrimitiveValue<P extends Primitive> =
  P extends 'int64' ? bigint
    : P extends 'bool' ? boolean
      : P extends 'uuid' | 'string' ? string
        : P extends 'bytes' | 'records' ? Buffer
          : number;

/** The decoded value type of one field. */
export type FieldValue<F> = F extends { readonly [VALUE]?: infer T } ? Exclude<T, undefined> : never;

/** The decoded struct of a list of fields: every field present (absent versions read as defaults). */
export type StructOf<F extends readonly Field[]> = { [K in F[number] as K['name']]: FieldValue<K> };

type Nullable<V, O> = O extends { nullable: string } ? V | null : V;

/**
 * A value the codec can encode for a decoded type `T`: every field optional (an absent field is
 * written as its default), int64 also as a number.
 */
export type EncodeInput<T> = T extends bigint ? bigint | number
  : T extends Buffer ? Buffer
    : T extends readonly (infer E)[] ? EncodeInput<E>[]
      : T extends object ? { [K in keyof T]?: EncodeInput<T[K]> }
        : T;

/**
 * A message schema. `Req` and `Res` are the decoded request and response bodies at the type level
 * (see {@link RequestOf} / {@link ResponseOf}); the plain `MessageSchema` is any schema.
 */
export interface MessageSchema<Req = Struct, Res = Struct> {
  readonly name: string;
  readonly apiKey: number;
  /** Versions this schema describes (handlers may serve fewer). */
  readonly versions: VersionRange;
  /** First flexible version, or null if none is described. */
  readonly flexibleFrom: number | null;
  readonly request: readonly Field[];
  readonly response: readonly Field[];
  /** Phantom: the decoded request and response types. */
  readonly [VALUE]?: { request: Req; response: Res };
}

/** The decoded request body of a schema (every field of every version, absent ones as defaults). */
export type RequestOf<S> = S extends { readonly [VALUE]?: { request: infer R } } ? R : never;
/** The decoded response body of a schema. */
export type ResponseOf<S> = S extends { readonly [VALUE]?: { response: infer R } } ? R : never;

const NONE: VersionRange = { min: 1, max: 0 };

/** Parses "3+", "0-7", "2" or "none". */
export function range(spec: string): VersionRange {
  if (spec === 'none') return NONE;
  const plus = /^(\d+)\+$/.exec(spec);
  if (plus) return { min: Number(plus[1]), max: Number.MAX_SAFE_INTEGER };
  const dash = /^(\d+)-(\d+)$/.exec(spec);
  if (dash) return { min: Number(dash[1]), max: Number(dash[2]) };
  if (/^\d+$/.test(spec)) return { min: Number(spec), max: Number(spec) };
  throw new KafkaEosError('INTERNAL_ERROR', `bad version range ${spec}`);
}

export function inRange(r: VersionRange, v: number): boolean {
  return v >= r.min && v <= r.max;
}

interface FieldOptions {
  nullable?: string;
  tag?: number;
  default?: unknown;
  /**
   * A buffer that ends exactly where this (non-flexible, top-level) field would begin reads it as
   * its default. Our leniency, not in Kafka's JSON: ConsumerProtocol metadata from clients that
   * write only the v0 fields whatever version they claim (KafkaJS) decodes instead of failing.
   */
  optionalAtEnd?: boolean;
}

/** A scalar field. The name and primitive are kept at the type level; `nullable` adds `| null`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export function f<N extends string, P extends Primitive, O extends FieldOptions = {}>(
  name: N, type: P, versions: string, opts?: O,
): Field<N, Nullable<PrimitiveValue<P>, O>> {
  return make(name, type, false, versions, opts ?? {});
}

/** An array of primitives. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export function arrOf<N extends string, P extends Primitive, O extends FieldOptions = {}>(
  name: N, type: P, versions: string, opts?: O,
): Field<N, Nullable<PrimitiveValue<P>[], O>> {
  return make(name, type, true, versions, opts ?? {});
}

/** An array of structs. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export function arr<N extends string, F extends readonly Field[], O extends FieldOptions = {}>(
  name: N, versions: string, fields: F, opts?: O,
): Field<N, Nullable<StructOf<F>[], O>> {
  return make(name, fields, true, versions, opts ?? {});
}

/** A single nested struct (used by tagged fields such as CurrentLeader). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export function struct<N extends string, F extends readonly Field[], O extends FieldOptions = {}>(
  name: N, versions: string, fields: F, opts?: O,
): Field<N, Nullable<StructOf<F>, O>> {
  return make(name, fields, false, versions, opts ?? {});
}

function make<N extends string>(name: N, type: Field['type'], array: boolean, versions: string, opts: FieldOptions): Field<N, never> {
  return {
    name,
    type,
    array,
    versions: range(versions),
    nullable: opts.nullable ? range(opts.nullable) : null,
    tag: opts.tag ?? null,
    defaultValue: opts.default,
    optionalAtEnd: opts.optionalAtEnd ?? false,
  };
}

/**
 * A message schema: API key, versions ("0-9"), first flexible version ("6+", or "none"), and the
 * request and response fields. The decoded request and response types are inferred from the fields.
 */
export function message<Req extends readonly Field[], Res extends readonly Field[]>(
  name: string, apiKey: number, versions: string, flexible: string,
  request: Req, response: Res,
): MessageSchema<StructOf<Req>, StructOf<Res>> {
  const flex = range(flexible);
  return { name, apiKey, versions: range(versions), flexibleFrom: flexible === 'none' ? null : flex.min, request, response };
}

/**
 * A data message (Kafka's `"type": "data"` JSON, e.g. ConsumerProtocolSubscription): a versioned
 * struct that is no request or response. Its version travels outside it (ConsumerProtocol writes
 * an int16 before the struct), so the codec takes it as an argument. `T` is the decoded type.
 */
export interface DataSchema<T = Struct> {
  readonly name: string;
  readonly versions: VersionRange;
  /** First flexible version, or null if none is described. */
  readonly flexibleFrom: number | null;
  readonly fields: readonly Field[];
  /** Phantom: the decoded type. */
  readonly [VALUE]?: T;
}

/** The decoded struct of a data schema. */
export type DataOf<S> = S extends { readonly [VALUE]?: infer T } ? Exclude<T, undefined> : never;

/** Declares a data message: name, versions ("0-3"), first flexible version ("none") and fields. */
export function data<F extends readonly Field[]>(name: string, versions: string, flexible: string, fields: F): DataSchema<StructOf<F>> {
  return { name, versions: range(versions), flexibleFrom: flexible === 'none' ? null : range(flexible).min, fields };
}

/** Decodes a data message at `version`. Throws MalformedFrameError on truncated or invalid input. */
export function readData<S extends DataSchema>(schema: S, version: number, r: Reader): DataOf<S> {
  return readStruct(r, schema.fields, version, schema.flexibleFrom !== null && version >= schema.flexibleFrom) as DataOf<S>;
}

/** Encodes a data message at `version`; fields outside their version range are skipped. */
export function writeData<S extends DataSchema>(schema: S, version: number, value: EncodeInput<DataOf<S>>, w: Writer): void {
  writeStruct(w, schema.fields, value as Struct, version, schema.flexibleFrom !== null && version >= schema.flexibleFrom);
}

export function isFlexible(schema: MessageSchema, version: number): boolean {
  return schema.flexibleFrom !== null && version >= schema.flexibleFrom;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Struct = Record<string, any>;

function defaultFor(field: Field, version: number): unknown {
  if (field.defaultValue !== undefined) return field.defaultValue;
  // A nullable field absent from this version reads as null (Kafka's "default": "null").
  if (field.nullable && (inRange(field.nullable, version) || !inRange(field.versions, version))) return null;
  if (field.array) return [];
  if (Array.isArray(field.type)) return decodeDefaults(field.type as Field[], version);
  switch (field.type) {
    case 'int64': return 0n;
    case 'bool': return false;
    case 'string': return '';
    case 'uuid': return '00000000000000000000000000000000';
    case 'bytes': case 'records': return Buffer.alloc(0);
    default: return 0;
  }
}

function decodeDefaults(fields: readonly Field[], version: number): Struct {
  const out: Struct = {};
  for (const fl of fields) out[fl.name] = defaultFor(fl, version);
  return out;
}

function readPrimitive(r: Reader, type: Primitive, compact: boolean, nullable: boolean, name: string): unknown {
  switch (type) {
    case 'int8': return r.int8();
    case 'int16': return r.int16();
    case 'uint16': return r.uint16();
    case 'int32': return r.int32();
    case 'int64': return r.int64();
    case 'float64': return r.float64();
    case 'bool': return r.bool();
    case 'uuid': return r.uuid();
    case 'string': {
      const s = r.nullableString(compact);
      if (s === null && !nullable) throw new MalformedFrameError(`null for non-nullable string ${name}`);
      return s;
    }
    case 'bytes': case 'records': {
      const b = r.nullableBytes(compact);
      if (b === null && !nullable) throw new MalformedFrameError(`null for non-nullable bytes ${name}`);
      return b;
    }
  }
}

function readValue(r: Reader, field: Field, version: number, flexible: boolean): unknown {
  const nullable = field.nullable !== null && inRange(field.nullable, version);
  if (field.array) {
    const n = r.arrayLength(flexible);
    if (n === -1) {
      if (!nullable) throw new MalformedFrameError(`null for non-nullable array ${field.name}`);
      return null;
    }
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      out[i] = Array.isArray(field.type)
        ? readStruct(r, field.type as Field[], version, flexible)
        : readPrimitive(r, field.type as Primitive, flexible, false, field.name);
    }
    return out;
  }
  if (Array.isArray(field.type)) {
    // A nullable struct is preceded by an int8: -1 for null, 1 for present (Kafka's generated code).
    if (nullable && r.int8() < 0) return null;
    return readStruct(r, field.type as Field[], version, flexible);
  }
  return readPrimitive(r, field.type as Primitive, flexible, nullable, field.name);
}

/** Decodes one struct at `version`. Throws MalformedFrameError on truncated or invalid input. */
export function readStruct(r: Reader, fields: readonly Field[], version: number, flexible: boolean): Struct {
  const out: Struct = {};
  for (const field of fields) {
    if (!inRange(field.versions, version) || (field.tag !== null && flexible)) {
      out[field.name] = defaultFor(field, version);
      continue;
    }
    if (field.tag !== null || (field.optionalAtEnd && !flexible && r.remaining === 0)) {
      out[field.name] = defaultFor(field, version);
      continue;
    }
    out[field.name] = readValue(r, field, version, flexible);
  }
  if (flexible) {
    // As Kafka's generated readers: tags are read in any order, a repeated tag overwrites the earlier
    // value, unknown tags are skipped by their size (KIP-482 asks writers, not readers, for ascending tags).
    const count = r.uvarint();
    for (let i = 0; i < count; i++) {
      const tag = r.uvarint();
      const size = r.uvarint();
      const body = new Reader(r.buf, r.offset, r.offset + size);
      r.raw(size);
      const field = fields.find((x) => x.tag === tag && inRange(x.versions, version));
      if (field) out[field.name] = readValue(body, field, version, true);
    }
  }
  return out;
}

function writePrimitive(w: Writer, type: Primitive, value: unknown, compact: boolean, nullable: boolean): void {
  switch (type) {
    case 'int8': w.int8(Number(value ?? 0)); return;
    case 'int16': w.int16(Number(value ?? 0)); return;
    case 'uint16': w.uint16(Number(value ?? 0)); return;
    case 'int32': w.int32(Number(value ?? 0)); return;
    case 'int64': w.int64(typeof value === 'bigint' ? value : BigInt((value as number | string | undefined) ?? 0)); return;
    case 'float64': w.float64(Number(value ?? 0)); return;
    case 'bool': w.bool(Boolean(value)); return;
    case 'uuid': w.uuid(String(value ?? '')); return;
    case 'string':
      w.nullableString(value == null ? (nullable ? null : '') : String(value), compact);
      return;
    case 'bytes': case 'records':
      w.nullableBytes(value == null ? (nullable ? null : Buffer.alloc(0)) : (value as Buffer), compact);
      return;
  }
}

function writeValue(w: Writer, field: Field, value: unknown, version: number, flexible: boolean): void {
  const nullable = field.nullable !== null && inRange(field.nullable, version);
  if (field.array) {
    if (value == null) {
      w.arrayLength(nullable ? -1 : 0, flexible);
      return;
    }
    const items = value as unknown[];
    w.arrayLength(items.length, flexible);
    for (const item of items) {
      if (Array.isArray(field.type)) writeStruct(w, field.type as Field[], (item ?? {}) as Struct, version, flexible);
      else writePrimitive(w, field.type as Primitive, item, flexible, false);
    }
    return;
  }
  if (Array.isArray(field.type)) {
    if (nullable) {
      w.int8(value == null ? -1 : 1);
      if (value == null) return;
    }
    writeStruct(w, field.type as Field[], (value ?? {}) as Struct, version, flexible);
    return;
  }
  writePrimitive(w, field.type as Primitive, value, flexible, nullable);
}

function isDefault(field: Field, value: unknown, version: number): boolean {
  if (value === undefined || value === null) return true;
  const d = defaultFor(field, version);
  if (Array.isArray(value)) return value.length === 0 && (d === null || Array.isArray(d));
  return value === d;
}

/** Encodes one struct at `version`; fields outside their version range are skipped. */
export function writeStruct(w: Writer, fields: readonly Field[], value: Struct, version: number, flexible: boolean): void {
  const tagged: Field[] = [];
  for (const field of fields) {
    if (!inRange(field.versions, version)) continue;
    if (field.tag !== null) {
      if (flexible && !isDefault(field, value[field.name], version)) tagged.push(field);
      continue;
    }
    let v = value[field.name];
    if (v === undefined) v = defaultFor(field, version);
    writeValue(w, field, v, version, flexible);
  }
  if (flexible) {
    tagged.sort((a, b) => (a.tag as number) - (b.tag as number));
    w.uvarint(tagged.length);
    for (const field of tagged) {
      const body = new Writer(64);
      writeValue(body, field, value[field.name], version, true);
      const bytes = body.toBuffer();
      w.uvarint(field.tag as number);
      w.uvarint(bytes.length);
      w.raw(bytes);
    }
  }
}

/** Decodes a request body (after the header). */
export function decodeRequest<S extends MessageSchema>(schema: S, version: number, r: Reader): RequestOf<S> {
  return readStruct(r, schema.request, version, isFlexible(schema, version)) as RequestOf<S>;
}

/** Encodes a response body (without the header). */
export function encodeResponse(schema: MessageSchema, version: number, body: Struct, w: Writer): void {
  writeStruct(w, schema.response, body, version, isFlexible(schema, version));
}

/** Client-side halves, used by tests and tools that talk to the mock as a client would. */
export function encodeRequest(schema: MessageSchema, version: number, body: Struct, w: Writer): void {
  writeStruct(w, schema.request, body, version, isFlexible(schema, version));
}

export function decodeResponse<S extends MessageSchema>(schema: S, version: number, r: Reader): ResponseOf<S> {
  return readStruct(r, schema.response, version, isFlexible(schema, version)) as ResponseOf<S>;
}
