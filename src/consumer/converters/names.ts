/** The converter names, Kafka Connect's converters in our spelling (docs/converters.md has the table). */
export type ConverterName = 'string' | 'bytes' | 'json' | 'connect-json' | 'avro' | 'protobuf' | 'json-schema';
/** Every {@link ConverterName}. */
export const CONVERTER_NAMES: readonly ConverterName[] = ['string', 'bytes', 'json', 'connect-json', 'avro', 'protobuf', 'json-schema'];
/** The converters that read Confluent's wire format with schemas from a Schema Registry. */
export const REGISTRY_CONVERTERS: readonly ConverterName[] = ['avro', 'protobuf', 'json-schema'];
