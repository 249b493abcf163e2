/**
 * JSON Schema for the `json-schema` converter: the payload is JSON text (after Confluent's 5-byte header),
 * its schema a JSON Schema document from the registry. The Connect schema follows Confluent's
 * JsonSchemaData for the common shapes: an object with `properties` → struct (a property is optional
 * unless `required`, or when its type admits null), an object with only `additionalProperties` → map,
 * `integer` → int64, `number` → float64, `string`, `boolean`, `array` with `items` → array, a `oneOf`/
 * `anyOf` of null and one schema → that schema, optional. Local `$ref`s (`#/definitions/...`,
 * `#/$defs/...`) and references registered with the schema (by `$id` or reference name) are followed.
 * Any other shape (a union of several types, `const`, an untyped schema) is data without a Connect
 * type: `{ type: 'string', name: 'json' }`, stored as JSON text.
 *
 * Validation with ajv is optional (`validate`, default false, as Confluent's Java deserializer's
 * `json.fail.invalid.schema`); a payload that fails it is a poison record.
 */
import type { RecordSchema } from '../../records';
import { KafkaEosError } from '../../errors';

type Json = Record<string, unknown>;

/** The Connect schema of a JSON Schema document; `references`: `$id` or reference name → document. */
export function jsonSchemaToConnect(doc: Json, references: Map<string, Json> = new Map()): RecordSchema {
  const resolve = (node: Json, root: Json, depth: number): Json => {
    if (depth > 32) throw new KafkaEosError('SCHEMA_INVALID', 'JSON Schema $ref chain too deep (recursive schema?)');
    if (typeof node === 'boolean') return node ? {} : { not: {} };
    if (node === null || typeof node !== 'object' || Array.isArray(node)) {
      throw new KafkaEosError('SCHEMA_INVALID',
        `not a JSON Schema: ${JSON.stringify(node)?.slice(0, 60)} (a schema is an object or a boolean)`);
    }
    const ref = node.$ref;
    if (typeof ref !== 'string') return node;
    const [file, pointer] = ref.split('#', 2) as [string, string | undefined];
    const base = file === '' ? root : references.get(file);
    if (!base) throw new KafkaEosError('SCHEMA_INVALID', `JSON Schema $ref ${ref} names no reference`);
    let cur: unknown = base;
    for (const part of (pointer ?? '').split('/').filter((p) => p !== ''))
      cur = (cur as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (!cur || typeof cur !== 'object') throw new KafkaEosError('SCHEMA_INVALID', `JSON Schema $ref ${ref} points at nothing`);
    return resolve(cur as Json, base, depth + 1);
  };
  const json = (optional: boolean): RecordSchema => ({ type: 'string', optional, name: 'json' });
  const walk = (raw: Json, root: Json, optional: boolean, depth: number): RecordSchema => {
    if (depth > 64) throw new KafkaEosError('SCHEMA_INVALID', 'JSON Schema nested too deep (recursive schema?)');
    const node = resolve(raw, root, 0);
    const alts = (node.oneOf ?? node.anyOf) as Json[] | undefined;
    if (Array.isArray(alts)) {
      const nonNull = alts.filter((a) => resolve(a, root, 0).type !== 'null');
      if (nonNull.length === 1) return walk(nonNull[0]!, root, optional || nonNull.length < alts.length, depth + 1);
      return json(optional || nonNull.length < alts.length);
    }
    let type = node.type;
    if (Array.isArray(type)) {
      const nonNull = type.filter((t) => t !== 'null');
      optional ||= nonNull.length < type.length;
      if (nonNull.length !== 1) return json(optional);
      type = nonNull[0];
    }
    const name = typeof node.title === 'string' ? node.title : undefined;
    switch (type) {
      case 'integer': return { type: 'int64', optional };
      case 'number': return { type: 'float64', optional };
      case 'string': return { type: 'string', optional };
      case 'boolean': return { type: 'boolean', optional };
      case 'array':
        return node.items && typeof node.items === 'object' && !Array.isArray(node.items)
          ? { type: 'array', optional, items: walk(node.items as Json, root, false, depth + 1) } : json(optional);
      case 'object': {
        const props = node.properties as Record<string, Json> | undefined;
        if (props !== undefined && (props === null || typeof props !== 'object' || Array.isArray(props))) {
          throw new KafkaEosError('SCHEMA_INVALID', 'JSON Schema "properties" is not an object');
        }
        if (!props) {
          const add = node.additionalProperties;
          return add && typeof add === 'object' ? { type: 'map', optional, items: walk(add as Json, root, false, depth + 1) }
            : json(optional);
        }
        const required = new Set(Array.isArray(node.required) ? node.required as string[] : []);
        return {
          type: 'struct', optional, ...(name ? { name } : {}),
          fields: Object.entries(props).map(([f, s]) => ({ name: f, schema: walk(s, root, !required.has(f), depth + 1) })),
        };
      }
      default: return json(optional);
    }
  };
  return walk(doc, doc, false, 0);
}
