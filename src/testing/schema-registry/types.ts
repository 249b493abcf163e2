/** Shapes shared by the test Schema Registry's schema checks (compatibility.ts and the per-format rules). */
import { KafkaEosError } from '../../errors';

/** Confluent's schema types. */
export type SchemaType = 'AVRO' | 'JSON' | 'PROTOBUF';

/** A schema to check: its text, type, and the schemas its references name (dependencies first). */
export interface SchemaInput { schema: string; schemaType: SchemaType; references: { name: string; schema: string }[] }

/** A schema is not valid: the message says why (the server answers 42201). */
export class InvalidSchemaError extends KafkaEosError {
  constructor(message: string) {
    super('SCHEMA_INVALID', message);
  }
}

/**
 * One reason a schema is incompatible with an earlier version, in Confluent's shape: `errorType` (Confluent's
 * Difference.Type name for JSON Schema and Protobuf, READER_CANNOT_READ_WRITER and the like for Avro), a
 * description naming the place (`#/properties/a`), and the earlier version.
 */
export interface Incompatibility { errorType: string; description: string; oldVersion: number }

/**
 * One rule violation found by a diff, before it is tied to a version: Confluent's Difference type and the
 * path (`#/properties/a` for JSON Schema, `#/Order/3` for Protobuf).
 */
export interface Difference { type: string; path: string }
