/**
 * Protobuf for the `protobuf` converter, on protobufjs (it parses `.proto` text at run time, which the
 * registry stores; @bufbuild/protobuf needs compiled descriptors: bench/converter-libraries.js). A
 * schema is one `.proto` file; its references are the files it imports (registered schemas, or
 * Google's well-known types, which protobufjs ships). The message a record holds is named by its
 * message indexes (wire-format.ts): a path through the file's messages in declaration order.
 *
 * Connect schemas follow Confluent's ProtobufData: int32/sint32/sfixed32 → int32; int64, uint32,
 * uint64 and the fixed/sint 64-bit kinds → int64; float → float32; double → float64; enum → string;
 * messages → optional structs; repeated → array; map → map; google.protobuf.Timestamp → timestamp;
 * the wrapper types (StringValue, Int64Value, ...) → their optional primitive. Proto3 scalars are
 * not optional (absent = default), `optional` scalars are. An enum number the schema does not name reads as
 * `UNKNOWN_ENUM_VALUE_<Enum>_<number>`, the name Java's protobuf runtime gives it (what ProtobufConverter
 * stores); a Timestamp outside a JavaScript Date's range does not decode (the record's fault).
 */
import * as protobuf from 'protobufjs';
import type { RecordSchema } from '../../records';
import { KafkaEosError } from '../../errors';
import { setField } from './avro';

/** A compiled `.proto` file: decode a message named by its indexes, and its Connect schema. */
export interface ProtobufCodec {
  /** The message at `indexes` (Confluent's message indexes). @throws KafkaEosError RECORD_CONVERSION_FAILED for a bad path */
  message(indexes: number[]): ProtobufMessage;
  /** The file's first message's full name (for RecordName strategies). */
  readonly firstMessage: string;
}

/** One message type: its Connect schema, a decoder and an encoder. */
export interface ProtobufMessage {
  readonly name: string;
  readonly connect: RecordSchema;
  readonly indexes: number[];
  decode(bytes: Buffer, offset: number): Record<string, unknown>;
  encode(value: Record<string, unknown>): Buffer;
}

const WRAPPERS: Record<string, RecordSchema['type']> = {
  'google.protobuf.DoubleValue': 'float64', 'google.protobuf.FloatValue': 'float32', 'google.protobuf.Int64Value': 'int64',
  'google.protobuf.UInt64Value': 'int64', 'google.protobuf.Int32Value': 'int32', 'google.protobuf.UInt32Value': 'int64',
  'google.protobuf.BoolValue': 'boolean', 'google.protobuf.StringValue': 'string', 'google.protobuf.BytesValue': 'bytes',
};
const SCALARS: Record<string, RecordSchema['type']> = {
  int32: 'int32', sint32: 'int32', sfixed32: 'int32', int64: 'int64', sint64: 'int64', sfixed64: 'int64', uint32: 'int64',
  fixed32: 'int64', uint64: 'int64', fixed64: 'int64', float: 'float32', double: 'float64', bool: 'boolean', string: 'string',
  bytes: 'bytes',
};
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Compiles a `.proto` file with the files it imports (`references`: import name → text).
 * @throws KafkaEosError SCHEMA_INVALID when protobufjs refuses it or an import is missing
 */
export function compileProtobuf(text: string, references: Map<string, string> = new Map()): ProtobufCodec {
  const root = new protobuf.Root();
  let pkg: string | undefined;
  const done = new Set<string>();
  const load = (source: string, name: string, top: boolean) => {
    if (done.has(name)) return;
    done.add(name);
    // protobufjs keeps fields in plain objects: a field named __proto__ vanishes at parse, and its data with it.
    if (/(^|[^\w])__proto__\s*=/.test(source)) {
      throw new KafkaEosError('SCHEMA_INVALID', `the Protobuf schema ${name} has a field __proto__, which protobufjs cannot keep`);
    }
    const parsed = protobuf.parse(source, root, { keepCase: true });
    if (top) pkg = parsed.package;
    for (const imp of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
      const ref = references.get(imp);
      if (ref !== undefined) { load(ref, imp, false); continue; }
      const common = (protobuf.common as unknown as { get(n: string): protobuf.INamespace | null }).get(imp);
      if (!common)
        throw new KafkaEosError('SCHEMA_INVALID', `the Protobuf schema imports ${imp}, which is neither a reference nor a well-known type`);
      if (!done.has(imp)) { done.add(imp); root.addJSON(common.nested ?? {}); }
    }
  };
  let top: protobuf.Type[];
  try {
    load(text, '(schema)', true);
    root.resolveAll();
    const ns = pkg ? root.lookup(pkg) as protobuf.Namespace : root;
    top = messagesOf(ns, pkg ? undefined : done);
  } catch (e) {
    if (e instanceof KafkaEosError) throw e;
    throw new KafkaEosError('SCHEMA_INVALID', `not a valid Protobuf schema: ${(e as Error).message}`, { cause: e });
  }
  if (top.length === 0) throw new KafkaEosError('SCHEMA_INVALID', 'the Protobuf schema declares no message');
  const cache = new Map<string, ProtobufMessage>();
  return {
    firstMessage: top[0]!.fullName.replace(/^\./, ''),
    message(indexes) {
      const key = indexes.join('.');
      let m = cache.get(key);
      if (!m) {
        let list = top;
        let t: protobuf.Type | undefined;
        for (const i of indexes) {
          t = list[i];
          if (!t)
            throw new KafkaEosError('RECORD_CONVERSION_FAILED', `message indexes [${indexes.join(', ')}] name no message of the schema`);
          list = messagesOf(t);
        }
        m = messageCodec(t!, indexes);
        cache.set(key, m);
      }
      return m;
    },
  };
}

/** The message types declared directly in `ns`, in declaration order (at the root: those of the schema's own file). */
function messagesOf(ns: protobuf.NamespaceBase, _files?: Set<string>): protobuf.Type[] {
  return ns.nestedArray.filter((n): n is protobuf.Type => n instanceof protobuf.Type && !n.fullName.startsWith('.google.protobuf.'));
}

function messageCodec(type: protobuf.Type, indexes: number[]): ProtobufMessage {
  const connect = messageSchema(type, false, new Set());
  return {
    name: type.fullName.replace(/^\./, ''), connect, indexes,
    decode(bytes, offset) {
      const msg = type.decode(bytes.subarray(offset));
      return fromMessage(type, msg as unknown as Record<string, unknown>);
    },
    encode(value) {
      const msg = type.fromObject(toMessage(type, value));
      const err = type.verify(msg);
      if (err) throw new KafkaEosError('RECORD_CONVERSION_FAILED', err);
      return Buffer.from(type.encode(msg).finish());
    },
  };
}

function messageSchema(type: protobuf.Type, optional: boolean, seen: Set<protobuf.Type>): RecordSchema {
  if (seen.has(type)) throw new KafkaEosError('SCHEMA_INVALID', `recursive Protobuf message ${type.fullName} has no Connect schema`);
  seen.add(type);
  const fields = type.fieldsArray.map((f) => ({ name: f.name, schema: fieldSchema(f, seen) }));
  seen.delete(type);
  return { type: 'struct', optional, name: type.fullName.replace(/^\./, ''), fields };
}

function fieldSchema(f: protobuf.Field, seen: Set<protobuf.Type>): RecordSchema {
  f.resolve();
  if (f instanceof protobuf.MapField) {
    return { type: 'map', optional: false, items: valueSchema(f, f.resolvedType, false, seen) };
  }
  const one = valueSchema(f, f.resolvedType, f.repeated ? false : isOptional(f), seen);
  return f.repeated ? { type: 'array', optional: false, items: one } : one;
}

function isOptional(f: protobuf.Field): boolean {
  return f.resolvedType instanceof protobuf.Type || f.options?.proto3_optional === true || f.partOf !== null || f.optional && !f.required
    && (f.parent as protobuf.Type & { syntax?: string })?.syntax === 'proto2';
}

function valueSchema(f: protobuf.Field, resolved: protobuf.Type | protobuf.Enum | null, optional: boolean,
  seen: Set<protobuf.Type>): RecordSchema {
  if (resolved instanceof protobuf.Enum) return { type: 'string', optional, name: resolved.fullName.replace(/^\./, '') };
  if (resolved instanceof protobuf.Type) {
    const full = resolved.fullName.replace(/^\./, '');
    if (full === 'google.protobuf.Timestamp') return { type: 'int64', optional: true, logical: 'timestamp' };
    if (WRAPPERS[full]) return { type: WRAPPERS[full]!, optional: true };
    return messageSchema(resolved, true, seen);
  }
  const scalar = SCALARS[f.type];
  if (!scalar) throw new KafkaEosError('SCHEMA_INVALID', `Protobuf field ${f.name} has unknown type ${f.type}`);
  return { type: scalar, optional };
}

/** A decoded message as Connect data (see the module comment). */
function fromMessage(type: protobuf.Type, msg: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of type.fieldsArray) {
    const v = msg[f.name];
    const present = v !== undefined && v !== null
      && (type.oneofsArray.length === 0 || f.partOf === null || Object.prototype.hasOwnProperty.call(msg, f.name));
    if (f instanceof protobuf.MapField) {
      const m: Record<string, unknown> = {};
      for (const [k, x] of Object.entries((v ?? {}) as Record<string, unknown>)) setField(m, k, fromValue(f, f.resolvedType, x));
      setField(out, f.name, m);
    } else if (f.repeated) {
      setField(out, f.name, ((v ?? []) as unknown[]).map((x) => fromValue(f, f.resolvedType, x)));
    } else if (!present || (f.resolvedType instanceof protobuf.Type && v === undefined)) {
      setField(out, f.name, f.resolvedType instanceof protobuf.Type || f.partOf !== null || f.options?.proto3_optional ? null
        : defaultOf(f));
    } else {
      setField(out, f.name, fromValue(f, f.resolvedType, v));
    }
  }
  return out;
}

function defaultOf(f: protobuf.Field): unknown {
  if (f.resolvedType instanceof protobuf.Enum) return Object.keys(f.resolvedType.values)[0] ?? null;
  const d = f.typeDefault as unknown;
  return d !== null && typeof d === 'object' && 'low' in d ? 0 : d instanceof Uint8Array ? Buffer.alloc(0) : d;
}

function fromValue(f: protobuf.Field, resolved: protobuf.Type | protobuf.Enum | null, v: unknown): unknown {
  if (resolved instanceof protobuf.Enum) return resolved.valuesById[v as number] ?? `UNKNOWN_ENUM_VALUE_${resolved.name}_${String(v)}`;
  if (resolved instanceof protobuf.Type) {
    const full = resolved.fullName;
    const m = v as Record<string, unknown>;
    if (full === '.google.protobuf.Timestamp') {
      const ms = Number(longOf(m.seconds ?? 0)) * 1000 + Math.floor(Number(m.nanos ?? 0) / 1e6);
      if (!(Math.abs(ms) <= 8.64e15)) {
        throw new KafkaEosError('RECORD_CONVERSION_FAILED',
          `Timestamp field ${f.name} (${String(longOf(m.seconds ?? 0))} s) is outside the range of a date`);
      }
      return new Date(ms);
    }
    if (WRAPPERS[full.slice(1)])
      return fromValue(resolved.fields.value!, resolved.fields.value!.resolvedType, m.value ?? resolved.fields.value!.typeDefault);
    return fromMessage(resolved, m);
  }
  if (f.type === 'bytes') return Buffer.from(v as Uint8Array);
  if (SCALARS[f.type] === 'int64') return longOf(v);
  return v;
}

/** A protobufjs Long (or number) as a number when exact, else a bigint. */
function longOf(v: unknown): number | bigint {
  if (typeof v === 'number') return v;
  const l = v as { low: number; high: number; unsigned: boolean };
  const big = l.unsigned ? (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0) : (BigInt(l.high) << 32n) | BigInt(l.low >>> 0);
  return big <= MAX_SAFE && big >= -MAX_SAFE ? Number(big) : big;
}

/** Connect data → a protobufjs plain object (bigint → string, Date → Timestamp, wrappers → { value }). */
function toMessage(type: protobuf.Type, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of type.fieldsArray) {
    f.resolve();
    const v = value[f.name];
    if (v === undefined || v === null) continue;
    const one = (x: unknown): unknown => {
      const r = f.resolvedType;
      if (r instanceof protobuf.Type) {
        if (r.fullName === '.google.protobuf.Timestamp') {
          const ms = x instanceof Date ? x.getTime() : Number(x);
          return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 };
        }
        if (WRAPPERS[r.fullName.slice(1)]) return { value: typeof x === 'bigint' ? x.toString() : x };
        return toMessage(r, x as Record<string, unknown>);
      }
      return typeof x === 'bigint' ? x.toString() : x;
    };
    if (f instanceof protobuf.MapField) out[f.name] = Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, one(x)]));
    else out[f.name] = f.repeated ? (v as unknown[]).map(one) : one(v);
  }
  return out;
}
