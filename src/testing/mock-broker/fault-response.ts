/**
 * Error responses built from a request, without running its handler (fault injection), the way
 * Kafka's `AbstractRequest.getErrorResponse` answers a request it failed as a whole: every error
 * code in the response carries the error, at the top level and for every topic, partition, group or
 * resource the request named.
 *
 * The builder is generic over the declarative schemas, so new handlers get it for free:
 * - a response field `errorCode` gets the code, `errorMessage` a short explanation;
 * - a response array whose elements hold an error code (at any depth) echoes a request array:
 *   the one with the same name, else the first request array at that level. A request array of
 *   primitives (`partitionIndexes: [0, 1]`, DescribeGroups' `groups: ['g']`) fills the first
 *   element field of the same type (`partitionIndex`, `groupId`);
 * - scalar fields are copied from the request element when the names match, or through the
 *   aliases Kafka's schemas use for the same thing (`partition`/`index` ↔ `partitionIndex`,
 *   `topic` ↔ `name`);
 * - everything else takes its schema default (arrays without error codes are empty).
 *
 * Special cases: Metadata lists the live brokers (a client must always learn where to go next) and,
 * for an "all topics" request, every topic; Produce with acks=0 gets no response at all.
 */
import type { ClusterState } from './cluster';
import type { Field, MessageSchema } from '../../protocol/schema';
import { inRange } from '../../protocol/schema';

type Struct = Record<string, unknown>;

const ALIASES: Record<string, readonly string[]> = {
  partitionIndex: ['partition', 'index', 'partitionId'],
  partition: ['partitionIndex', 'index'],
  index: ['partitionIndex', 'partition'],
  name: ['topic', 'topicName', 'groupId', 'resourceName'],
  topic: ['name', 'topicName'],
  groupId: ['group', 'name'],
};

const METADATA_API_KEY = 3;
const PRODUCE_API_KEY = 0;

function present(fields: readonly Field[], version: number): Field[] {
  return fields.filter((f) => inRange(f.versions, version));
}

function holdsErrorCode(fields: readonly Field[], version: number): boolean {
  return present(fields, version).some((f) =>
    f.name === 'errorCode' || (Array.isArray(f.type) && holdsErrorCode(f.type as Field[], version)));
}

function pickSource(
  target: Field, source: Struct | null, sourceFields: readonly Field[], version: number,
): { field: Field; items: unknown[] } | null {
  if (!source) return null;
  const arrays = present(sourceFields, version).filter((f) => f.array);
  const same = arrays.find((f) => f.name === target.name);
  const chosen = same ?? arrays[0];
  if (!chosen) return null;
  const items = source[chosen.name];
  return Array.isArray(items) ? { field: chosen, items } : null;
}

function jsTypeOf(field: Field): string {
  switch (field.type) {
    case 'string': case 'uuid': return 'string';
    case 'int64': return 'bigint';
    case 'bool': return 'boolean';
    case 'bytes': case 'records': return 'none';
    default: return 'number';
  }
}

function copyScalar(field: Field, source: Struct | null): unknown {
  if (!source) return undefined;
  const want = jsTypeOf(field);
  for (const key of [field.name, ...(ALIASES[field.name] ?? [])]) {
    const v = source[key];
    if (typeof v === want) return v;
  }
  return undefined;
}

function build(
  fields: readonly Field[], source: Struct | null, sourceFields: readonly Field[], version: number, code: number, message: string,
): Struct {
  const out: Struct = {};
  for (const field of present(fields, version)) {
    if (field.name === 'errorCode') out.errorCode = code;
    else if (field.name === 'errorMessage' && field.nullable) out.errorMessage = message;
    else if (field.array && Array.isArray(field.type) && holdsErrorCode(field.type as Field[], version)) {
      const src = pickSource(field, source, sourceFields, version);
      const elementFields = field.type as Field[];
      out[field.name] = (src?.items ?? []).map((item) => {
        if (Array.isArray(src!.field.type)) return build(elementFields, item as Struct, src!.field.type as Field[], version, code, message);
        // A primitive source element fills the first element field of the same primitive type.
        const slot = present(elementFields, version).find((f) => !f.array && f.type === src!.field.type);
        const seeded = slot ? { [slot.name]: item } : {};
        return { ...build(elementFields, null, [], version, code, message), ...seeded };
      });
    } else if (!field.array && !Array.isArray(field.type)) {
      const v = copyScalar(field, source);
      if (v !== undefined) out[field.name] = v;
    }
  }
  return out;
}

/**
 * The response body for `request` (decoded at `version`) failed with `errorCode`, or `null` when
 * the request expects no response (Produce, acks=0).
 */
export function buildErrorResponse(
  schema: MessageSchema, version: number, request: Struct, errorCode: number, cluster: ClusterState,
): Struct | null {
  if (schema.apiKey === PRODUCE_API_KEY && request.acks === 0) return null;
  const message = `fault injected by MockCluster.faults (error ${errorCode})`;
  let source = request;
  if (schema.apiKey === METADATA_API_KEY && (request.topics === null || (version === 0 && (request.topics as unknown[]).length === 0))) {
    source = { ...request, topics: [...cluster.topics.keys()].map((name) => ({ name })) };
  }
  const body = build(schema.response, source, schema.request, version, errorCode, message);
  if (schema.apiKey === METADATA_API_KEY) {
    body.brokers = cluster.brokers.filter((b) => !cluster.down.has(b.nodeId)).map((b) => ({ ...b }));
    body.clusterId = cluster.config.clusterId;
    body.controllerId = cluster.controllerId;
    for (const t of body.topics as Struct[]) t.partitions = [];
  }
  return body;
}
