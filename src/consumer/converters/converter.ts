/**
 * Converters: how a record's key and value bytes become data with a schema (Connect's SchemaAndValue),
 * named as Kafka Connect names them (docs/converters.md has the table of Connect classes):
 *
 * - `string` (StringConverter): UTF-8 text, schema `string`;
 * - `bytes` (ByteArrayConverter): the bytes as they are, schema `bytes`;
 * - `json` (JsonConverter, `schemas.enable=false`): schemaless JSON, what the SQL sink's paths read;
 * - `connect-json` (JsonConverter, `schemas.enable=true`): the `{schema, payload}` envelope (connect-json.ts);
 * - `avro`, `protobuf`, `json-schema` (Confluent's AvroConverter, ProtobufConverter, JsonSchemaConverter):
 *   Confluent's wire format (wire-format.ts), the schema fetched by id from the Schema Registry and cached.
 *
 * A null key or value converts to `{ schema: null, value: null }` (a tombstone stays one). Conversion is
 * synchronous once the schemas a batch names are loaded ({@link RecordConverter.prepare}), so the decode
 * path costs no promise per record. Every failure is a KafkaEosError: RECORD_CONVERSION_FAILED (bytes that
 * do not decode), SCHEMA_NOT_FOUND, SCHEMA_INVALID (the record's fault); SCHEMA_REGISTRY_UNAVAILABLE
 * (retriable, never the record's fault); SCHEMA_REGISTRY_REQUEST_FAILED.
 */
import { isUtf8 } from 'node:buffer';
import type Ajv from 'ajv';
import type { RecordSchema, SchemaAndValue } from '../../records';
import { KafkaEosError } from '../../errors';
import { compileAvro, type AvroCodec } from './avro';
import { connectSchemaFromJson, connectValue } from './connect-json';
import { jsonSchemaToConnect } from './json-schema';
import type { ProtobufCodec } from './protobuf';
import { CONVERTER_NAMES, type ConverterName } from './names';
import {
  type RegisteredSchema, type SchemaRegistryClient, type SchemaType, subjectName, type SubjectNameStrategy,
} from './registry-client';
import { frame, readMessageIndexes, readSchemaId, writeMessageIndexes } from './wire-format';

export { CONVERTER_NAMES } from './names';
export type { ConverterName } from './names';

/** A converter's configuration, Connect's `key.converter` / `value.converter` with their settings. */
export type ConverterConfig =
  | {
    /** Connect's StringConverter, ByteArrayConverter or JsonConverter without schemas. */
    type: 'string' | 'bytes' | 'json';
  }
  | {
    /** Connect's JsonConverter with its `{ schema, payload }` envelope. */
    type: 'connect-json';
    /** Connect's `schemas.enable` (default true): false reads plain JSON, as `json` does. */
    schemasEnable?: boolean;
  }
  | {
    /** Confluent's Avro, Protobuf or JSON Schema converter (the Schema Registry wire format). */
    type: 'avro' | 'protobuf' | 'json-schema';
    /** The subject of a topic's schema (Confluent's `key/value.subject.name.strategy`, default TopicName): used by serialize() and
     * useLatestVersion. */
    subjectNameStrategy?: SubjectNameStrategy;
    /**
     * Avro: read every record with the subject's latest version as the reader schema (Avro schema resolution;
     * Confluent's `use.latest.version`), so the data keeps one shape while writers move between versions.
     */
    useLatestVersion?: boolean;
    /** json-schema: validate each payload against its schema with ajv (default false, as `json.fail.invalid.schema`). */
    validate?: boolean;
    /** serialize(): register schemas that are not registered yet (default true, `auto.register.schemas`). */
    autoRegisterSchemas?: boolean;
    /**
     * protobuf: message indexes written as unsigned varints, as Confluent's Python ProtobufSerializer did before 1.8.2
     * (Debian 12's python3-confluent-kafka 1.7.0; Python's `use.deprecated.format`). Default false: zigzag varints,
     * as Java and every later client write them. The first message (`[0]`, the byte 0) reads the same either way.
     */
    useDeprecatedFormat?: boolean;
  };

/** Turns one key or value into Connect data (see the module comment). */
export interface RecordConverter {
  /** The converter's name (`string`, `bytes`, `json`, `connect-json`, `avro`, `protobuf` or `json-schema`). */
  readonly type: ConverterName;
  /**
   * Loads what `bytes` need before {@link convert} (the schema its id names); undefined when nothing is missing.
   * @throws KafkaEosError RECORD_CONVERSION_FAILED (not the wire format) synchronously; the promise rejects with the registry's errors
   */
  prepare(topic: string, bytes: Buffer, isKey: boolean): Promise<void> | undefined;
  /** Converts; `prepare` must have settled for these bytes. @throws KafkaEosError (see the module comment) */
  convert(topic: string, bytes: Buffer | null, isKey: boolean): SchemaAndValue;
  /**
   * Writes `value` as this converter's format (Connect's fromConnectData; for tests, tools and producers). Registry
   * formats need `schema` (the schema text) and register it under the strategy's subject (or look it up).
   * @throws KafkaEosError (the value does not fit the schema; the registry's errors)
   */
  serialize(topic: string, value: unknown, options?: { isKey?: boolean; schema?: string; schemaId?: number }): Promise<Buffer>;
}

const STRING: RecordSchema = { type: 'string', optional: true };
const BYTES: RecordSchema = { type: 'bytes', optional: true };
const NULL: SchemaAndValue = { schema: null, value: null };

function failed(message: string, cause?: unknown): KafkaEosError {
  return new KafkaEosError('RECORD_CONVERSION_FAILED', message, { cause });
}

/**
 * Creates the converter `config` names. Registry formats need `registry`.
 * @throws KafkaEosError CONFIG_INVALID for an unknown type, or a registry format without a registry
 */
export function createConverter(config: ConverterConfig, registry?: SchemaRegistryClient): RecordConverter {
  switch (config.type) {
    case 'string': return simple('string', (b) => ({ schema: STRING, value: b.toString('utf8') }),
      async (v) => Buffer.from(String(v), 'utf8'));
    case 'bytes': return simple('bytes', (b) => ({ schema: BYTES, value: b }), async (v) => Buffer.from(v as Uint8Array));
    case 'json': return simple('json', (b) => ({ schema: null, value: parseJson(b) }), async (v) => Buffer.from(JSON.stringify(v)));
    case 'connect-json': {
      if (config.schemasEnable === false) return { ...createConverter({ type: 'json' }), type: 'connect-json' };
      return simple('connect-json', (b) => {
        const env = parseJson(b) as { schema?: unknown; payload?: unknown } | null;
        if (env === null) return NULL;
        if (typeof env !== 'object' || !('schema' in env) || !('payload' in env)) {
          throw failed('JSON without the {"schema", "payload"} envelope of connect-json (schemas.enable=true)');
        }
        if (env.schema === null) return { schema: null, value: env.payload ?? null };
        try {
          const schema = connectSchemaFromJson(env.schema);
          return { schema, value: connectValue(schema, env.payload) };
        } catch (e) {
          throw failed(`connect-json envelope: ${(e as Error).message}`, e);
        }
      }, async () => { throw new KafkaEosError('CONFIG_INVALID', 'connect-json serialize() is not supported'); });
    }
    case 'avro': case 'protobuf': case 'json-schema':
      if (!registry) throw new KafkaEosError('CONFIG_INVALID', `the ${config.type} converter needs a Schema Registry (schemaRegistry.url)`);
      return new RegistryConverter(config, registry);
    default:
      throw new KafkaEosError('CONFIG_INVALID', `unknown converter ${JSON.stringify((config as { type: unknown }).type)}: `
        + `expected one of ${CONVERTER_NAMES.join(', ')}`);
  }
}

function simple(type: ConverterName, fn: (b: Buffer) => SchemaAndValue, ser: (v: unknown) => Promise<Buffer>): RecordConverter {
  return {
    type, prepare: () => undefined, convert: (_t, b) => (b === null ? NULL : fn(b)),
    serialize: (_t, v) => ser(v),
  };
}

/**
 * JSON text (RFC 8259: UTF-8) as Kafka Connect's JsonConverter reads it: bytes that are not UTF-8 are refused
 * (Jackson refuses them), never read with U+FFFD in place of what they held. @throws KafkaEosError RECORD_CONVERSION_FAILED
 */
export function parseJson(b: Buffer): unknown {
  if (!isUtf8(b)) throw failed('not JSON: the bytes are not UTF-8 text');
  try {
    return JSON.parse(b.toString('utf8'));
  } catch (e) {
    throw failed(`not JSON: ${(e as Error).message}`, e);
  }
}

const SCHEMA_TYPE: Record<'avro' | 'protobuf' | 'json-schema', SchemaType> = { avro: 'AVRO', protobuf: 'PROTOBUF', 'json-schema': 'JSON' };

/** protobufjs and ajv load on first use: a consumer without those converters never pays for them. */
const compileProtobuf = (...a: Parameters<typeof import('./protobuf').compileProtobuf>) =>
  (require('./protobuf') as typeof import('./protobuf')).compileProtobuf(...a);
const newAjv = (): Ajv => {
  const A = (require('ajv') as { default: typeof Ajv }).default; return new A({ strict: false, allErrors: false });
};

/** A compiled registry schema. */
type Compiled =
  | { kind: 'avro'; codec: AvroCodec }
  | { kind: 'protobuf'; codec: ProtobufCodec }
  | { kind: 'json-schema'; connect: RecordSchema; validate?: (v: unknown) => boolean; errors?: () => string };

type RegistryConfig = Extract<ConverterConfig, { type: 'avro' | 'protobuf' | 'json-schema' }>;

/** avro, protobuf, json-schema: Confluent's wire format with schemas from the registry (see the module comment). */
class RegistryConverter implements RecordConverter {
  readonly type: ConverterName;
  private readonly compiled = new Map<number, Compiled>();
  private readonly loading = new Map<number, Promise<void>>();
  /** useLatestVersion: the reader schema id per subject, and when it was read. */
  private readonly readers = new Map<string, { id: number; at: number }>();
  /** useLatestVersion: writer>reader id pairs whose resolution was checked. */
  private readonly resolvable = new Set<string>();
  private readonly latest: boolean;
  /** serialize(): record names by schema text. */
  private readonly names = new Map<string, string | undefined>();
  private lastId = -1;
  private lastCompiled: Compiled | undefined;

  constructor(private readonly config: RegistryConfig, private readonly registry: SchemaRegistryClient) {
    this.type = config.type;
    this.latest = config.useLatestVersion === true && config.type === 'avro';
  }

  prepare(topic: string, bytes: Buffer, isKey: boolean): Promise<void> | undefined {
    const id = readSchemaId(bytes);
    const own = this.compiled.has(id) ? undefined : this.load(id);
    if (!this.config.useLatestVersion || this.config.type !== 'avro') return own;
    const reader = this.readerFresh(topic, isKey, id);
    return reader === undefined ? own : Promise.all([own, reader]).then(() => undefined);
  }

  convert(topic: string, bytes: Buffer | null, isKey: boolean): SchemaAndValue {
    if (bytes === null) return NULL;
    const schemaId = readSchemaId(bytes);
    // Consecutive records usually name one id: the last one's compiled schema without a map lookup.
    let c = this.lastId === schemaId ? this.lastCompiled : this.compiled.get(schemaId);
    if (!c) throw new KafkaEosError('ILLEGAL_STATE', `schema id ${schemaId} converted before it was loaded (prepare)`);
    this.lastId = schemaId;
    this.lastCompiled = c;
    try {
      switch (c.kind) {
        case 'avro': {
          if (!this.latest) return { schema: c.codec.connect, value: c.codec.decode(bytes, 5), schemaId };
          const reader = this.readerCodec(topic, isKey, schemaId, c.codec);
          return { schema: (reader ?? c.codec).connect, value: c.codec.decode(bytes, 5, reader), schemaId };
        }
        case 'protobuf': {
          const { indexes, offset } = readMessageIndexes(bytes, 5, this.config.useDeprecatedFormat === true);
          const m = c.codec.message(indexes);
          return { schema: m.connect, value: m.decode(bytes, offset), schemaId };
        }
        case 'json-schema': {
          const payload = bytes.subarray(5);
          if (!isUtf8(payload)) throw failed('the payload is not UTF-8 text');
          const value = JSON.parse(payload.toString('utf8'));
          if (c.validate && !c.validate(value)) throw failed(`the payload does not match its JSON Schema: ${c.errors!()}`);
          return { schema: c.connect, value, schemaId };
        }
      }
    } catch (e) {
      // The record's own failures get the schema id and format; anything else (SCHEMA_INCOMPATIBLE) passes as it is.
      if (e instanceof KafkaEosError && e.code !== 'RECORD_CONVERSION_FAILED') throw e;
      throw failed(`schema id ${schemaId}: the bytes do not decode as ${this.type}: ${(e as Error).message}`, e);
    }
  }

  async serialize(topic: string, value: unknown, options: { isKey?: boolean; schema?: string; schemaId?: number } = {}): Promise<Buffer> {
    const isKey = options.isKey ?? false;
    let id = options.schemaId;
    if (id === undefined) {
      if (options.schema === undefined) throw new KafkaEosError('CONFIG_INVALID', 'serialize() needs the schema (text) or a schemaId');
      const registered: RegisteredSchema = { schema: options.schema, schemaType: SCHEMA_TYPE[this.config.type], references: [] };
      const strategy = this.config.subjectNameStrategy ?? 'TopicName';
      const subject = subjectName(strategy, topic, isKey, strategy === 'TopicName' ? undefined : this.recordName(options.schema));
      id = this.config.autoRegisterSchemas === false
        ? (await this.registry.lookup(subject, registered)).id : await this.registry.register(subject, registered);
    }
    await this.load(id);
    const c = this.compiled.get(id)!;
    try {
      if (c.kind === 'avro') return frame(id, c.codec.encode(value));
      if (c.kind === 'protobuf') {
        const m = c.codec.message([0]);
        return frame(id, m.encode(value as Record<string, unknown>),
          writeMessageIndexes(m.indexes, this.config.useDeprecatedFormat === true));
      }
      if (c.validate && !c.validate(value)) throw new KafkaEosError('RECORD_CONVERSION_FAILED', c.errors!());
      return frame(id, Buffer.from(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))));
    } catch (e) {
      throw new KafkaEosError('RECORD_CONVERSION_FAILED', `the value does not fit schema id ${id}: ${(e as Error).message}`, { cause: e });
    }
  }

  /** The record name of a schema text (RecordName strategies), parsed once per text. */
  private recordName(text: string): string | undefined {
    if (this.names.has(text)) return this.names.get(text);
    const name = this.parseRecordName(text);
    if (this.names.size > 256) this.names.clear();
    this.names.set(text, name);
    return name;
  }

  private parseRecordName(text: string): string | undefined {
    try {
      if (this.config.type === 'avro') return compileAvro(text).connect.name;
      if (this.config.type === 'protobuf') return compileProtobuf(text).firstMessage;
      const t = (JSON.parse(text) as { title?: unknown }).title;
      return typeof t === 'string' ? t : undefined;
    } catch {
      return undefined;
    }
  }

  /** Fetches and compiles schema `id` (and its references), once; a failure is not kept. */
  private load(id: number): Promise<void> {
    let p = this.loading.get(id);
    if (!p) {
      p = (async () => {
        const registered = await this.registry.schemaById(id);
        const expected = SCHEMA_TYPE[this.config.type];
        if (registered.schemaType !== expected) {
          throw new KafkaEosError('RECORD_CONVERSION_FAILED', `schema id ${id} is a ${registered.schemaType} schema, `
            + `not ${expected} (the ${this.type} converter)`);
        }
        const refs = await this.references(registered, new Set());
        this.compiled.set(id, this.compile(registered, refs));
      })();
      this.loading.set(id, p);
      p.catch(() => this.loading.delete(id));
    }
    return p;
  }

  /** The referenced schemas of `s`, dependencies first (name → text). */
  private async references(s: RegisteredSchema, seen: Set<string>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const ref of s.references) {
      const key = `${ref.subject}:${ref.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const v = await this.registry.subjectVersion(ref.subject, ref.version);
      for (const [n, t] of await this.references(v, seen)) out.set(n, t);
      out.set(ref.name, v.schema);
    }
    return out;
  }

  /** Compiles a fetched schema with its references. @throws KafkaEosError SCHEMA_INVALID */
  private compile(s: RegisteredSchema, refs: Map<string, string>): Compiled {
    if (this.config.type === 'avro') return { kind: 'avro', codec: compileAvro(s.schema, [...refs.values()]) };
    if (this.config.type === 'protobuf') return { kind: 'protobuf', codec: compileProtobuf(s.schema, refs) };
    try {
      const doc = JSON.parse(s.schema) as Record<string, unknown>;
      const refDocs = new Map<string, Record<string, unknown>>();
      for (const [n, t] of refs) {
        const d = JSON.parse(t) as Record<string, unknown>;
        refDocs.set(n, d);
        if (typeof d?.$id === 'string') refDocs.set(d.$id, d);
      }
      const connect = jsonSchemaToConnect(doc, refDocs);
      if (!this.config.validate) return { kind: 'json-schema', connect };
      // One ajv per schema: versions of one schema keep their $id, and references of one name differ between versions.
      const ajv = newAjv();
      for (const [n, d] of refs) if (!ajv.getSchema(n)) ajv.addSchema(JSON.parse(d) as object, n);
      const validate = ajv.compile(doc);
      return { kind: 'json-schema', connect, validate: (v) => validate(v) as boolean, errors: () => ajv.errorsText(validate.errors) };
    } catch (e) {
      if (e instanceof KafkaEosError) throw e;
      throw new KafkaEosError('SCHEMA_INVALID', `not a valid JSON Schema: ${(e as Error).message}`, { cause: e });
    }
  }

  /** useLatestVersion: loads the subject's latest version when unknown or older than the registry client's TTL. */
  private readerFresh(topic: string, isKey: boolean, writerId: number): Promise<void> | undefined {
    const writer = this.compiled.get(writerId);
    const subject = this.subjectOf(topic, isKey, writer);
    if (subject === undefined) return writer ? undefined : this.load(writerId).then(() => this.readerFresh(topic, isKey, writerId));
    const hit = this.readers.get(subject);
    if (hit && Date.now() - hit.at < 60000 && this.compiled.has(hit.id)) return undefined;
    return this.registry.subjectVersion(subject, 'latest').then(async (v) => {
      await this.load(v.id);
      this.readers.set(subject, { id: v.id, at: Date.now() });
    });
  }

  private subjectOf(topic: string, isKey: boolean, writer: Compiled | undefined): string | undefined {
    const strategy = this.config.subjectNameStrategy ?? 'TopicName';
    if (strategy === 'TopicName') return subjectName(strategy, topic, isKey);
    if (!writer || writer.kind !== 'avro') return undefined;
    return subjectName(strategy, topic, isKey, writer.codec.connect.name);
  }

  /**
   * The subject's latest version as the reader of `writer`'s data, checked once per pair.
   * @throws KafkaEosError SCHEMA_INCOMPATIBLE (systemic: the record is readable with its own schema) when it cannot read it
   */
  private readerCodec(topic: string, isKey: boolean, writerId: number, writer: AvroCodec): AvroCodec | undefined {
    const subject = this.subjectOf(topic, isKey, this.compiled.get(writerId));
    const id = subject === undefined ? undefined : this.readers.get(subject)?.id;
    if (id === undefined || id === writerId) return undefined;
    const c = this.compiled.get(id);
    if (c?.kind !== 'avro') return undefined;
    const pair = `${writerId}>${id}`;
    if (!this.resolvable.has(pair)) {
      try {
        writer.resolve(c.codec);
      } catch (e) {
        throw new KafkaEosError('SCHEMA_INCOMPATIBLE', `useLatestVersion: the latest version of subject ${subject} (schema id ${id}) `
          + `cannot read data written with schema id ${writerId}: ${(e as Error).message}`, { cause: e });
      }
      this.resolvable.add(pair);
    }
    return c.codec;
  }
}
