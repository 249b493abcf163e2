/** `kafka-eos/schema-registry`: the in-process Confluent Schema Registry for tests (see docs/converters.md). */
export { SCHEMA_REGISTRY_CONTENT_TYPE, SchemaRegistryServer } from './testing/schema-registry/server';
export type { SchemaRegistryFault, SchemaRegistryRequestLog, SchemaRegistryServerOptions } from './testing/schema-registry/server';
export { COMPATIBILITY_LEVELS } from './testing/schema-registry/compatibility';
export type { CompatibilityLevel } from './testing/schema-registry/compatibility';
