/**
 * Schema checks of the test Schema Registry: parsing (what makes a schema invalid, 42201), the canonical
 * form that decides "the same schema" (one id for equal schemas, across subjects), and Avro compatibility
 * by Avro's schema resolution rules (avsc's resolver: a reader can read a writer's data), as Confluent's
 * AvroCompatibilityChecker decides it:
 *
 * - BACKWARD: the new schema reads data written with the previous one (TRANSITIVE: with every earlier one);
 * - FORWARD: the previous (every earlier) schema reads data written with the new one;
 * - FULL: both; NONE: no check.
 *
 * JSON Schema and Protobuf schemas are parsed (JSON; protobufjs) but not checked for compatibility: the
 * server accepts every new version of them (docs/converters.md lists this difference).
 */
import * as avro from 'avsc';
import { KafkaEosError } from '../../errors';
import * as protobuf from 'protobufjs';

/** Confluent's compatibility levels. */
export const COMPATIBILITY_LEVELS = [
  'NONE', 'BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE',
] as const;
export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];

export type SchemaType = 'AVRO' | 'JSON' | 'PROTOBUF';

/** A schema to check: its text, type, and the texts of the schemas its references name (dependencies first). */
export interface SchemaInput { schema: string; schemaType: SchemaType; references: { name: string; schema: string }[] }

/** A schema is not valid: the message says why (the server answers 42201). */
export class InvalidSchemaError extends KafkaEosError {
  constructor(message: string) {
    super('SCHEMA_INVALID', message);
  }
}

/** Lets avsc parse (not interpret) every logical type, so their attributes stay in the canonical form. */
const ANY_LOGICAL = { assertLogicalTypes: false };

function avroType(s: SchemaInput): avro.Type {
  const registry: Record<string, avro.Type> = {};
  try {
    for (const r of s.references) avro.Type.forSchema(JSON.parse(r.schema) as avro.Schema, { registry, ...ANY_LOGICAL });
    return avro.Type.forSchema(JSON.parse(s.schema) as avro.Schema, { registry, ...ANY_LOGICAL });
  } catch (e) {
    throw new InvalidSchemaError(`Invalid schema: ${(e as Error).message}`);
  }
}

/**
 * The canonical text of a schema (what "the same schema" compares): Avro as avsc exports it with every
 * attribute (whitespace and key order normalised), JSON re-serialised, Protobuf as given after a successful parse.
 * @throws InvalidSchemaError
 */
export function canonicalSchema(s: SchemaInput): string {
  if (s.schemaType === 'AVRO') return JSON.stringify(avroType(s).schema({ exportAttrs: true }));
  if (s.schemaType === 'JSON') {
    let doc: unknown;
    try { doc = JSON.parse(s.schema); } catch (e) { throw new InvalidSchemaError(`Invalid schema: ${(e as Error).message}`); }
    if (typeof doc !== 'boolean' && (doc === null || typeof doc !== 'object' || Array.isArray(doc))) {
      throw new InvalidSchemaError('Invalid schema: a JSON Schema is an object or a boolean');
    }
    return JSON.stringify(doc);
  }
  try {
    const root = new protobuf.Root();
    for (const r of s.references) protobuf.parse(r.schema, root, { keepCase: true });
    const parsed = protobuf.parse(s.schema, root, { keepCase: true });
    for (const imp of parsed.imports ?? []) {
      if (!s.references.some((r) => r.name === imp) && !imp.startsWith('google/protobuf/')) {
        throw new InvalidSchemaError(`import ${imp} is not among the schema's references`);
      }
    }
  } catch (e) {
    throw new InvalidSchemaError(`Invalid schema: ${(e as Error).message}`);
  }
  return s.schema.trim();
}

/** One reason a schema is incompatible with an earlier version, in Confluent's shape. */
export interface Incompatibility { errorType: string; description: string; oldVersion: number }

/**
 * Why `next` is incompatible with `earlier` (oldest first, with their versions) under `level`; empty when compatible.
 * Only Avro is checked (see the module comment).
 */
export function incompatibilities(
  level: CompatibilityLevel, next: SchemaInput, earlier: { version: number; schema: SchemaInput }[],
): Incompatibility[] {
  if (level === 'NONE' || next.schemaType !== 'AVRO' || earlier.length === 0) return [];
  const against = level.endsWith('_TRANSITIVE') ? earlier : earlier.slice(-1);
  const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
  const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
  const nextType = avroType(next);
  const out: Incompatibility[] = [];
  for (const e of against) {
    if (e.schema.schemaType !== 'AVRO') continue;
    const oldType = avroType(e.schema);
    if (backward) {
      try { nextType.createResolver(oldType); } catch (err) {
        out.push({ errorType: 'READER_CANNOT_READ_WRITER', oldVersion: e.version,
          description: `the new schema cannot read data written with version ${e.version}: ${(err as Error).message}` });
      }
    }
    if (forward) {
      try { oldType.createResolver(nextType); } catch (err) {
        out.push({ errorType: 'WRITER_CANNOT_BE_READ', oldVersion: e.version,
          description: `version ${e.version} cannot read data written with the new schema: ${(err as Error).message}` });
      }
    }
  }
  return out;
}
