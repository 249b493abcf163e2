/**
 * Client quotas stored by the mock cluster (AlterClientQuotas, DescribeClientQuotas; KIP-546), as a KRaft cluster keeps
 * them, with Kafka's checks, messages and answer order:
 * - AlterClientQuotas follows ClientQuotaControlManager.alterClientQuotas: per alteration, a key given twice or an
 *   entity met again answers INVALID_REQUEST "Ignoring duplicate entity ..." (the earlier alteration of a repeated
 *   entity stays applied); each entity is checked whole (validateEntity, configKeysForEntityType,
 *   validateQuotaKeyValue) and its changes become records, only for values that change; the answer walks the
 *   controller's result map, each entity's parts in the request entity's map order (AlterClientQuotasResponse);
 * - the records apply as the brokers' metadata image applies them (ClientQuotasDelta, ClientQuotaDelta);
 * - DescribeClientQuotas follows ClientQuotasImage.describe: EXACT / DEFAULT / SPECIFIED components, strict or not,
 *   entries, parts and values in the image's map order.
 * Every "map order" is Java HashMap's for the same keys and history (java-hash-map.ts), so a client comparing lists
 * sees what Kafka answers. Quotas are stored and described, never enforced (docs/mock-broker.md).
 */
import { isIP } from 'node:net';
import { KafkaProtocolError } from '../../protocol/kafka-errors';
import { ErrorCode } from '../../protocol/error-codes';
import { javaMapHash, JavaHashMap } from './java-hash-map';

/** Kafka's entity types (`ClientQuotaEntity.USER`, `CLIENT_ID`, `IP`). */
export const QuotaEntityType = { USER: 'user', CLIENT_ID: 'client-id', IP: 'ip' } as const;

/** Kafka's filter match types (`ClientQuotaFilterComponent`): a name, the default entity, any named entity. */
export const QuotaMatchType = { EXACT: 0, DEFAULT: 1, SPECIFIED: 2 } as const;

/** One part of an entity: its type and its name, null for the default entity of the type. */
export interface QuotaEntityPart {
  entityType: string;
  entityName: string | null;
}

/** One op of an alteration: set `key` to `value`, or remove `key` (`value` then ignored). */
export interface QuotaOp {
  key: string;
  value: number;
  remove: boolean;
}

/** One entry of an AlterClientQuotas request. */
export interface QuotaAlteration {
  entity: readonly QuotaEntityPart[];
  ops: readonly QuotaOp[];
}

/** The answer for one distinct entity of a request: error code 0 and a null message when it was (or would be) applied. */
export interface QuotaAlterationResult {
  entity: QuotaEntityPart[];
  errorCode: number;
  errorMessage: string | null;
}

/** One component of a DescribeClientQuotas filter (`match` only with EXACT). */
export interface QuotaFilterComponent {
  entityType: string;
  matchType: number;
  match: string | null;
}

/** A stored entity and its quota values (bytes per second, percentages, rates: as the key defines). */
export interface ClientQuotaEntry {
  entity: QuotaEntityPart[];
  values: { key: string; value: number }[];
}

/** A filter DescribeClientQuotas refuses: INVALID_REQUEST, or UNSUPPORTED_VERSION for an unknown entity type. */
export class ClientQuotaFilterError extends KafkaProtocolError<'INVALID_REQUEST' | 'UNSUPPORTED_VERSION'> {}

const invalidFilter = (message: string): ClientQuotaFilterError => new ClientQuotaFilterError('INVALID_REQUEST', message);

/** What {@link ClientQuotaStore.alter} answers: one result per distinct entity, and the entities whose values changed. */
export interface QuotaAlterOutcome {
  results: QuotaAlterationResult[];
  changed: QuotaEntityPart[][];
}

type KeyType = 'long' | 'int' | 'double';

/** QuotaConfig.userAndClientQuotaConfigs() and ipConfigs(): the keys each kind of entity takes, with their types. */
const USER_CLIENT_KEYS: ReadonlyMap<string, KeyType> = new Map([
  ['producer_byte_rate', 'long'], ['consumer_byte_rate', 'long'], ['request_percentage', 'double'], ['controller_mutation_rate', 'double'],
]);
const IP_KEYS: ReadonlyMap<string, KeyType> = new Map([['connection_creation_rate', 'int']]);
const TYPE_LIMIT: Record<KeyType, number> = { long: 2 ** 63 - 1, int: 2 ** 31 - 1, double: Infinity };
const KNOWN_TYPES: ReadonlySet<string> = new Set(Object.values(QuotaEntityType));

/** A ClientQuotaEntity: its entries map (type → name) in a Java HashMap. */
type Entity = JavaHashMap<string, string | null>;

/** ClientQuotaEntity.hashCode: Objects.hash(entries) = 31 + the map's hash. */
const entityHash = (e: Entity): number => (31 + javaMapHash(e.entries())) | 0;
const entityId = (e: Entity): string => JSON.stringify([...e.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const newEntityMap = <V>(capacity?: number) => new JavaHashMap<Entity, V>(entityHash, entityId, capacity);

/** An entity map from parts, as `new HashMap<>(capacity)` filled in order (a type given twice keeps its last name). */
function entityOf(parts: readonly QuotaEntityPart[], capacity?: number): Entity {
  const e = JavaHashMap.ofStrings<string | null>(capacity);
  for (const p of parts) e.set(p.entityType, p.entityName);
  return e;
}

const partsOf = (e: Entity): QuotaEntityPart[] => [...e.entries()].map(([entityType, entityName]) => ({ entityType, entityName }));

/** ClientQuotaEntity.toString. */
const describeEntity = (e: Entity): string => `ClientQuotaEntity(entries={${[...e.entries()].map(([t, n]) => `${t}=${n}`).join(', ')}})`;

/** validateEntity then configKeysForEntityType: the keys the entity takes, or Kafka's refusal. */
function keysFor(entity: Entity): ReadonlyMap<string, KeyType> | string {
  if (entity.size === 0) return 'Invalid empty client quota entity';
  for (const [type, name] of entity.entries()) {
    if (!KNOWN_TYPES.has(type)) return `Unhandled client quota entity type: ${type}`;
    if (name === '') return `Empty ${type} not supported`;
  }
  if (!entity.has(QuotaEntityType.IP)) return USER_CLIENT_KEYS;
  if (entity.size > 1) return 'Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId';
  const ip = entity.get(QuotaEntityType.IP)!;
  if (ip !== null && isIP(ip) === 0) return `${ip} is not a valid IP or resolvable host.`;
  return IP_KEYS;
}

/** validateQuotaKeyValue. */
function valueError(keys: ReadonlyMap<string, KeyType>, key: string, value: number): string | null {
  const type = keys.get(key);
  if (type === undefined) return `Invalid configuration key ${key}`;
  if (value <= 0) return `Quota ${key} must be greater than 0`;
  if (type === 'double') return null;
  if (value > TYPE_LIMIT[type]) return `Proposed value for ${key} is too large for ${type === 'int' ? 'an INT' : 'a LONG'}.`;
  if (Math.abs(value % 1) > 1e-6) return `${key} cannot be a fractional value.`;
  return null;
}

/** One ClientQuotaRecord: an entity's key set (value) or removed (null). */
interface QuotaRecord { parts: QuotaEntityPart[]; key: string; value: number | null }

/** The client quotas of one cluster: the brokers' metadata image. Changed only by {@link ClientQuotaStore.alter}. */
export class ClientQuotaStore {
  private image = newEntityMap<JavaHashMap<string, number>>(0);

  /**
   * AlterClientQuotas, as the controller answers it and the brokers then apply it (unless `validateOnly`).
   * @returns the results (one per distinct entity, in Kafka's order), and the entities whose values changed.
   */
  alter(alterations: readonly QuotaAlteration[], validateOnly: boolean): QuotaAlterOutcome {
    const results = newEntityMap<{ entity: Entity; error: string | null }>();
    const records: QuotaRecord[] = [];
    for (const a of alterations) {
      const entity = entityOf(a.entity, a.entity.length);
      const opsByKey = JavaHashMap.ofStrings<number | null>(a.ops.length);
      for (const op of a.ops) {
        if (opsByKey.has(op.key)) {
          results.set(entity, { entity,
            error: `Duplicate quota key ${op.key} not updating quota for this entity ${describeEntity(entity)}` });
        } else opsByKey.set(op.key, op.remove ? null : op.value);
      }
      if (results.has(entity)) {
        const first = results.get(entity)!.entity;
        results.set(entity, { entity: first, error: `Ignoring duplicate entity ${describeEntity(entity)}` });
        continue;
      }
      const error = this.alterEntity(entity, opsByKey, records);
      results.set(entity, { entity, error });
    }
    const changed = validateOnly ? [] : this.apply(records);
    const out = results.values().map((r) => ({
      entity: partsOf(r.entity), errorCode: r.error === null ? 0 : ErrorCode.INVALID_REQUEST, errorMessage: r.error,
    }));
    return { results: out, changed };
  }

  /** alterClientQuotaEntity: checks the entity and its values; adds the records of the values that change. */
  private alterEntity(entity: Entity, changes: JavaHashMap<string, number | null>, records: QuotaRecord[]): string | null {
    const keys = keysFor(entity);
    if (typeof keys === 'string') return keys;
    const validated = JavaHashMap.ofStrings<string | null>(3);
    for (const [t, n] of entity.entries()) validated.set(t, n);
    const current = this.image.get(entity);
    const mine: QuotaRecord[] = [];
    for (const [key, value] of changes.entries()) {
      if (value === null) {
        if (current?.has(key)) mine.push({ parts: partsOf(validated), key, value: null });
        continue;
      }
      const bad = valueError(keys, key, value);
      if (bad) return bad;
      if (current?.get(key) !== value) mine.push({ parts: partsOf(validated), key, value });
    }
    records.push(...mine);
    return null;
  }

  /** ClientQuotasDelta: replays the records, then builds the next image as ClientQuotasDelta.apply does. */
  private apply(records: readonly QuotaRecord[]): QuotaEntityPart[][] {
    const changes = newEntityMap<JavaHashMap<string, number | null>>();
    for (const r of records) {
      const entity = entityOf(r.parts);
      let change = changes.get(entity);
      if (!change) changes.set(entity, (change = JavaHashMap.ofStrings<number | null>()));
      change.set(r.key, r.value);
    }
    const applyOne = (quotas: JavaHashMap<string, number> | undefined, change: JavaHashMap<string, number | null>) => {
      const next = JavaHashMap.ofStrings<number>(quotas?.size ?? 0);
      for (const [k, v] of quotas?.entries() ?? []) {
        const c = change.get(k);
        if (c === undefined) next.set(k, v);
        else if (c !== null) next.set(k, c);
      }
      for (const [k, v] of change.entries()) if (!next.has(k) && v !== null) next.set(k, v);
      return next;
    };
    const next = newEntityMap<JavaHashMap<string, number>>(this.image.size);
    for (const [entity, quotas] of this.image.entries()) {
      const change = changes.get(entity);
      const q = change ? applyOne(quotas, change) : quotas;
      if (q.size > 0) next.set(entity, q);
    }
    for (const [entity, change] of changes.entries()) {
      if (next.has(entity)) continue;
      const q = applyOne(undefined, change);
      if (q.size > 0) next.set(entity, q);
    }
    this.image = next;
    return changes.keys().map(partsOf);
  }

  /**
   * The stored entries the filter matches (ClientQuotasImage.describe): EXACT needs the part with that name, DEFAULT
   * the default part, SPECIFIED any part of the type; strict also refuses entities with parts the filter does not name.
   * @throws ClientQuotaFilterError for a malformed filter, with Kafka's message (an unknown type is UNSUPPORTED_VERSION)
   */
  describe(components: readonly QuotaFilterComponent[], strict: boolean): ClientQuotaEntry[] {
    const exact = new Map<string, string | null>();
    const specified = new Set<string>();
    for (const c of components) {
      const type = c.entityType;
      if (type === '') throw invalidFilter('Invalid empty entity type.');
      if (exact.has(type) || specified.has(type)) throw invalidFilter(`Entity type ${type} cannot appear more than once in the filter.`);
      if (!KNOWN_TYPES.has(type)) throw new ClientQuotaFilterError('UNSUPPORTED_VERSION', `Unsupported entity type ${type}`);
      if (c.matchType === QuotaMatchType.EXACT) {
        if (c.match === null) throw invalidFilter('Request specified MATCH_TYPE_EXACT, but set match string to null.');
        exact.set(type, c.match);
      } else if (c.matchType === QuotaMatchType.DEFAULT) {
        if (c.match !== null) throw invalidFilter('Request specified MATCH_TYPE_DEFAULT, but also specified a match string.');
        exact.set(type, null);
      } else if (c.matchType === QuotaMatchType.SPECIFIED) {
        if (c.match !== null) throw invalidFilter('Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.');
        specified.add(type);
      } else throw invalidFilter(`Unknown match type ${c.matchType}`);
    }
    const names = (t: string): boolean => exact.has(t) || specified.has(t);
    if (names(QuotaEntityType.IP) && (names(QuotaEntityType.USER) || names(QuotaEntityType.CLIENT_ID))) {
      throw invalidFilter('Invalid entity filter component combination. IP filter component should not be used with user '
        + 'or clientId filter component.');
    }
    const matches = (e: Entity): boolean =>
      (!strict || e.size === exact.size + specified.size) &&
      [...exact].every(([t, name]) => e.has(t) && e.get(t) === name) && [...specified].every((t) => e.has(t));
    return [...this.image.entries()].filter(([e]) => matches(e)).map(([e, q]) => toEntry(e, q));
  }

  /** Every stored entry, in the image's order. */
  all(): ClientQuotaEntry[] {
    return [...this.image.entries()].map(([e, q]) => toEntry(e, q));
  }
}

function toEntry(entity: Entity, quotas: JavaHashMap<string, number>): ClientQuotaEntry {
  return { entity: partsOf(entity), values: [...quotas.entries()].map(([key, value]) => ({ key, value })) };
}
