/**
 * Schema checks of the test Schema Registry: parsing (what makes a schema invalid, 42201), the form a schema
 * is stored in, the canonical form that decides "the same schema" (one id for equal schemas, across
 * subjects), and compatibility between versions as Confluent's registry decides it for each schema type:
 *
 * - Avro: by Avro's schema resolution rules (avsc's resolver: a reader can read a writer's data), as
 *   Confluent's AvroCompatibilityChecker decides it;
 * - JSON Schema: json-schema-compat.ts (Confluent's JSON Schema diff rules, strict policy);
 * - Protobuf: protobuf-compat.ts (Confluent's Protobuf diff rules).
 *
 * Levels: BACKWARD (the new schema reads data written with the previous one; TRANSITIVE: with every earlier
 * one), FORWARD (the previous, or every earlier, schema reads data written with the new one), FULL (both),
 * NONE (no check). For JSON Schema and Protobuf "reads" means the diff from the reader's point of view: BACKWARD
 * diffs the previous version (original) against the new one (update), FORWARD the other way round.
 *
 * Validity: Avro as avsc parses it; JSON Schema as ajv compiles it (the draft its `$schema` names: 2019-09 and
 * 2020-12 with their meta-schemas, draft-07 and draft-06 by default; draft-04 is only parsed), with its references;
 * Protobuf as protobufjs parses it, or a base64 FileDescriptorProto (Confluent's Python serializer registers that),
 * stored as `.proto` text (protobuf-descriptor.ts).
 */
import * as avro from 'avsc';
import { KafkaEosError } from '../../errors';
import * as protobuf from 'protobufjs';
import { jsonSchemaDifferences, isCompatibleJsonSchemaChange } from './json-schema-compat';
import { isBase64Descriptor, protoTextOfDescriptor } from './protobuf-descriptor';
import { isCompatibleProtobufChange, protobufDifferences } from './protobuf-compat';
import { type Difference, type Incompatibility, InvalidSchemaError, type SchemaInput } from './types';

export { InvalidSchemaError } from './types';
export type { Incompatibility, SchemaInput, SchemaType } from './types';

/** Confluent's compatibility levels. */
export const COMPATIBILITY_LEVELS = [
  'NONE', 'BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE',
] as const;
export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];

/**
 * Any logical type, kept rather than interpreted: its attributes (logicalType, precision, scale, ...) stay in the
 * canonical form, so a decimal and plain bytes are two schemas (without it avsc drops unknown logical types, and
 * the registry gave a decimal schema the id of the bytes schema registered before it). Resolution goes by the
 * underlying types, as Avro's SchemaCompatibility does.
 */
class KeptLogicalType extends avro.types.LogicalType {
  private readonly attrs: Record<string, unknown>;
  constructor(schema: avro.Schema, opts?: unknown) {
    super(schema, opts);
    const { type: _type, logicalType: _logical, ...attrs } = schema as unknown as Record<string, unknown>;
    this.attrs = attrs;
  }
  protected override _fromValue(v: unknown): unknown { return v; }
  protected override _toValue(v: unknown): unknown { return v; }
  protected override _resolve(type: avro.Type): unknown {
    const writer = avro.Type.isType(type, 'logical') ? (type as avro.types.LogicalType).underlyingType : type;
    this.underlyingType.createResolver(writer); // throws when the underlying types do not resolve
    return (v: unknown) => v;
  }
  protected override _export(schema: avro.Schema): void {
    for (const k of Object.keys(this.attrs).sort()) (schema as unknown as Record<string, unknown>)[k] = this.attrs[k];
  }
}
const ANY_LOGICAL = { logicalTypes: new Proxy({}, { get: () => KeptLogicalType }) as Record<string, typeof KeptLogicalType> };

function avroType(s: SchemaInput): avro.Type {
  const registry: Record<string, avro.Type> = {};
  try {
    for (const r of s.references) avro.Type.forSchema(JSON.parse(r.schema) as avro.Schema, { registry, ...ANY_LOGICAL } as never);
    return avro.Type.forSchema(JSON.parse(s.schema) as avro.Schema, { registry, ...ANY_LOGICAL } as never);
  } catch (e) {
    throw new InvalidSchemaError(`Invalid schema: ${(e as Error).message}`);
  }
}

/**
 * The text a registered schema is stored and served as: a Protobuf base64 FileDescriptorProto becomes `.proto`
 * text (as Confluent stores it); anything else is kept as given. @throws InvalidSchemaError
 */
export function storedText(s: SchemaInput): string {
  if (s.schemaType !== 'PROTOBUF' || !isBase64Descriptor(s.schema)) return s.schema;
  try {
    protobuf.parse(s.schema, new protobuf.Root(), { keepCase: true });
    return s.schema; // base64-looking but valid .proto text (it cannot be, but parsing says so first)
  } catch {
    return protoTextOfDescriptor(s.schema);
  }
}

/** ajv for a JSON Schema's draft (see the module comment). */
function ajvFor(doc: unknown): { compile(s: object): unknown; addSchema(s: object, key: string): unknown } | undefined {
  const draft = doc !== null && typeof doc === 'object' ? String((doc as { $schema?: unknown }).$schema ?? '') : '';
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (/draft-04/.test(draft)) return undefined;
  const options = { strict: false, allErrors: false, validateFormats: false };
  if (/2020-12/.test(draft)) return new (require('ajv/dist/2020').default)(options);
  if (/2019-09/.test(draft)) return new (require('ajv/dist/2019').default)(options);
  const ajv = new (require('ajv').default)(options);
  if (/draft-06/.test(draft)) ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
  return ajv;
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** A JSON Schema document and its references (by name and `$id`). @throws InvalidSchemaError */
function jsonDocs(s: SchemaInput): { doc: unknown; refs: Map<string, unknown> } {
  const parse = (text: string, what: string): unknown => {
    let doc: unknown;
    try { doc = JSON.parse(text); } catch (e) { throw new InvalidSchemaError(`Invalid schema: ${what}: ${(e as Error).message}`); }
    if (typeof doc !== 'boolean' && (doc === null || typeof doc !== 'object' || Array.isArray(doc))) {
      throw new InvalidSchemaError(`Invalid schema: ${what}: a JSON Schema is an object or a boolean`);
    }
    return doc;
  };
  const refs = new Map<string, unknown>();
  for (const r of s.references) {
    const d = parse(r.schema, `reference ${r.name}`);
    refs.set(r.name, d);
    const id = d !== null && typeof d === 'object' ? (d as { $id?: unknown }).$id : undefined;
    if (typeof id === 'string') refs.set(id, d);
  }
  return { doc: parse(s.schema, 'the schema'), refs };
}

/** Refuses a JSON Schema that its draft's meta-schema refuses, or whose `$ref`s point at nothing. @throws InvalidSchemaError */
function validateJsonSchema(s: SchemaInput): void {
  const { doc, refs } = jsonDocs(s);
  const ajv = ajvFor(doc);
  if (!ajv || typeof doc === 'boolean') return;
  try {
    for (const r of s.references) ajv.addSchema(JSON.parse(r.schema) as object, r.name);
    ajv.compile(doc as object);
  } catch (e) {
    throw new InvalidSchemaError(`Invalid schema: ${(e as Error).message}`);
  }
  // Our own reading of the schema (the compatibility checks') must accept it too.
  try { jsonSchemaDifferences(doc, doc, refs); } catch (e) { throw new InvalidSchemaError(`Invalid schema: ${(e as Error).message}`); }
}

/**
 * The canonical text of a schema (what "the same schema" compares): Avro as avsc exports it with every
 * attribute (whitespace and key order normalised), JSON re-serialised, Protobuf as stored (storedText) after
 * a successful parse. Checks the schema's validity (see the module comment).
 * @throws InvalidSchemaError
 */
export function canonicalSchema(s: SchemaInput): string {
  if (s.schemaType === 'AVRO') return JSON.stringify(avroType(s).schema({ exportAttrs: true }));
  if (s.schemaType === 'JSON') {
    validateJsonSchema(s);
    return JSON.stringify(JSON.parse(s.schema));
  }
  const text = storedText(s);
  try {
    const root = new protobuf.Root();
    for (const r of s.references) protobuf.parse(r.schema, root, { keepCase: true });
    const parsed = protobuf.parse(text, root, { keepCase: true });
    for (const imp of parsed.imports ?? []) {
      if (!s.references.some((r) => r.name === imp) && !imp.startsWith('google/protobuf/')) {
        throw new InvalidSchemaError(`import ${imp} is not among the schema's references`);
      }
    }
  } catch (e) {
    throw new InvalidSchemaError(`Invalid schema: ${(e as Error).message}`);
  }
  return text.trim();
}

/** The differences that make reading data written with `writer` through `reader` unsafe, for JSON Schema and Protobuf. */
function ruleDifferences(writer: SchemaInput, reader: SchemaInput): Difference[] {
  if (reader.schemaType === 'JSON') {
    const w = jsonDocs(writer);
    const r = jsonDocs(reader);
    return jsonSchemaDifferences(w.doc, r.doc, new Map([...w.refs, ...r.refs])).filter((d) => !isCompatibleJsonSchemaChange(d.type));
  }
  return protobufDifferences({ ...writer, schema: storedText(writer) }, { ...reader, schema: storedText(reader) })
    .filter((d) => !isCompatibleProtobufChange(d.type));
}

/** Why a schema written as `writer` cannot be read as `reader` (Avro: the resolver's message), empty when it can. */
function problems(writer: SchemaInput, reader: SchemaInput): string[] {
  if (reader.schemaType === 'AVRO') {
    try { avroType(reader).createResolver(avroType(writer)); return []; } catch (e) { return [(e as Error).message]; }
  }
  return ruleDifferences(writer, reader).map((d) => `${d.type} at ${d.path}`);
}

/**
 * Why `next` is incompatible with `earlier` (oldest first, with their versions) under `level`; empty when compatible.
 * A version of another schema type is incompatible with it, as in Confluent's registry.
 */
export function incompatibilities(
  level: CompatibilityLevel, next: SchemaInput, earlier: { version: number; schema: SchemaInput }[],
): Incompatibility[] {
  if (level === 'NONE' || earlier.length === 0) return [];
  const against = level.endsWith('_TRANSITIVE') ? earlier : earlier.slice(-1);
  const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
  const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
  const out: Incompatibility[] = [];
  for (const e of against) {
    if (e.schema.schemaType !== next.schemaType) {
      out.push({ errorType: 'SCHEMA_TYPE_CHANGED', oldVersion: e.version,
        description: `Incompatible because of different schema type: version ${e.version} is ${e.schema.schemaType}, the new schema `
          + `${next.schemaType}` });
      continue;
    }
    if (backward) {
      for (const p of problems(e.schema, next)) {
        out.push({ errorType: next.schemaType === 'AVRO' ? 'READER_CANNOT_READ_WRITER' : p.split(' ')[0]!, oldVersion: e.version,
          description: `the new schema cannot read data written with version ${e.version}: ${p}` });
      }
    }
    if (forward) {
      for (const p of problems(next, e.schema)) {
        out.push({ errorType: next.schemaType === 'AVRO' ? 'WRITER_CANNOT_BE_READ' : p.split(' ')[0]!, oldVersion: e.version,
          description: `version ${e.version} cannot read data written with the new schema: ${p}` });
      }
    }
  }
  return out;
}
