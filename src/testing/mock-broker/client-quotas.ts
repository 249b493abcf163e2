/**
 * Client quotas stored by the mock cluster (AlterClientQuotas, DescribeClientQuotas; KIP-546). Alterations follow
 * the rules of Kafka's KRaft controller (`ClientQuotaControlManager`): an entity is a set of parts (user, client-id,
 * ip; a null name is the default entity of that type), each entity's ops are checked whole and applied whole or not
 * at all, and the result is one per distinct entity. Descriptions follow the broker's metadata image
 * (`ClientQuotasImage.describe`): EXACT / DEFAULT / SPECIFIED components, strict or not. Quotas are stored and
 * described, never enforced (docs/mock-broker.md).
 */
import { isIP } from 'node:net';
import { KafkaProtocolError } from '../../protocol/kafka-errors';
import { ErrorCode } from '../../protocol/error-codes';

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

/** An entity as a map type → name (a type given twice keeps its last name, as Kafka's request parsing does). */
type Entity = Map<string, string | null>;

function entityOf(parts: readonly QuotaEntityPart[]): Entity {
  const entity: Entity = new Map();
  for (const p of parts) entity.set(p.entityType, p.entityName);
  return entity;
}

function idOf(entity: Entity): string {
  return JSON.stringify([...entity].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function partsOf(entity: Entity): QuotaEntityPart[] {
  return [...entity].map(([entityType, entityName]) => ({ entityType, entityName }));
}

function describeEntity(entity: Entity): string {
  return `{${[...entity].map(([t, n]) => `${t}=${n ?? '<default>'}`).join(', ')}}`;
}

/** The entity's parts and their combination (ClientQuotaControlManager validateEntity, configKeysForEntityType). */
function keysFor(entity: Entity): ReadonlyMap<string, KeyType> | string {
  if (entity.size === 0) return 'Invalid empty client quota entity';
  for (const [type, name] of entity) {
    if (!KNOWN_TYPES.has(type)) return `Unhandled client quota entity type: ${type}`;
    if (name === '') return `Empty ${type} not supported`;
  }
  if (!entity.has(QuotaEntityType.IP)) return USER_CLIENT_KEYS;
  if (entity.size > 1) return 'Invalid quota entity combination: an ip entity cannot be combined with user or client-id';
  const ip = entity.get(QuotaEntityType.IP)!;
  if (ip !== null && isIP(ip) === 0) return `${ip} is not a valid IP address`;
  return IP_KEYS;
}

/** A value to set for a key (ClientQuotaControlManager validateQuotaKeyValue). */
function valueError(keys: ReadonlyMap<string, KeyType>, key: string, value: number): string | null {
  const type = keys.get(key);
  if (type === undefined) return `Invalid configuration key ${key}`;
  if (value <= 0) return `Quota ${key} must be greater than 0`;
  if (type === 'double') return null;
  if (value > TYPE_LIMIT[type]) return `Proposed value for ${key} is too large for ${type === 'int' ? 'an INT' : 'a LONG'}`;
  if (Math.abs(value % 1) > 1e-6) return `${key} cannot be a fractional value`;
  return null;
}

/** The client quotas of one cluster, keyed by entity. Changed only by {@link ClientQuotaStore.alter}. */
export class ClientQuotaStore {
  private readonly entries = new Map<string, { entity: Entity; values: Map<string, number> }>();

  /**
   * Checks every alteration and, unless `validateOnly`, applies those that pass, all at the end (Kafka's controller
   * writes the records of one request atomically). One result per distinct entity, in first-seen order: an entity
   * met again, or whose ops repeat a key, answers INVALID_REQUEST (the earlier alteration of a repeated entity
   * stays applied, as in Kafka). Removing a key that is not set succeeds and changes nothing.
   * @returns the results, and the entities whose values changed (for the event log).
   */
  alter(alterations: readonly QuotaAlteration[], validateOnly: boolean): QuotaAlterOutcome {
    const results = new Map<string, QuotaAlterationResult>();
    const pending: { id: string; entity: Entity; changes: Map<string, number | null> }[] = [];
    for (const a of alterations) {
      const entity = entityOf(a.entity);
      const id = idOf(entity);
      const changes = new Map<string, number | null>();
      let duplicateKey: string | null = null;
      for (const op of a.ops) {
        if (changes.has(op.key)) duplicateKey ??= op.key;
        else changes.set(op.key, op.remove ? null : op.value);
      }
      const seen = results.has(id);
      let error: string | null = null;
      if (seen || duplicateKey !== null) {
        const named = describeEntity(entity);
        error = seen ? `Ignoring duplicate entity ${named}` : `Duplicate quota key ${duplicateKey}: entity ${named} not altered`;
      } else {
        const keys = keysFor(entity);
        if (typeof keys === 'string') error = keys;
        else for (const [key, value] of changes) if (value !== null && (error = valueError(keys, key, value)) !== null) break;
      }
      if (error === null) pending.push({ id, entity, changes });
      const result = { entity: partsOf(entity), errorCode: error === null ? 0 : ErrorCode.INVALID_REQUEST, errorMessage: error };
      results.set(id, result);
    }
    const changed: QuotaEntityPart[][] = [];
    if (!validateOnly) for (const p of pending) if (this.apply(p.id, p.entity, p.changes)) changed.push(partsOf(p.entity));
    return { results: [...results.values()], changed };
  }

  /**
   * The stored entries the filter matches (ClientQuotasImage.describe): EXACT needs the part with that name, DEFAULT
   * the default part, SPECIFIED any part of the type; strict also refuses entities with parts the filter does not name.
   * @throws ClientQuotaFilterError for a malformed filter (empty or repeated type, match string with DEFAULT or
   *   SPECIFIED or missing with EXACT, unknown match type, ip with user or client-id; an unknown type is UNSUPPORTED_VERSION)
   */
  describe(components: readonly QuotaFilterComponent[], strict: boolean): ClientQuotaEntry[] {
    const exact = new Map<string, string | null>();
    const specified = new Set<string>();
    for (const c of components) {
      const type = c.entityType;
      if (type === '') throw invalidFilter('Invalid empty entity type');
      if (exact.has(type) || specified.has(type)) throw invalidFilter(`Entity type ${type} appears more than once in the filter`);
      if (!KNOWN_TYPES.has(type)) throw new ClientQuotaFilterError('UNSUPPORTED_VERSION', `Unsupported entity type ${type}`);
      if (c.matchType === QuotaMatchType.EXACT) {
        if (c.match === null) throw invalidFilter(`EXACT match of ${type} without a match string`);
        exact.set(type, c.match);
      } else if (c.matchType === QuotaMatchType.DEFAULT || c.matchType === QuotaMatchType.SPECIFIED) {
        const name = c.matchType === QuotaMatchType.DEFAULT ? 'DEFAULT' : 'SPECIFIED';
        if (c.match !== null) throw invalidFilter(`${name} match of ${type} with a match string`);
        if (c.matchType === QuotaMatchType.DEFAULT) exact.set(type, null);
        else specified.add(type);
      } else throw invalidFilter(`Unknown match type ${c.matchType}`);
    }
    const names = (t: string): boolean => exact.has(t) || specified.has(t);
    if (names(QuotaEntityType.IP) && (names(QuotaEntityType.USER) || names(QuotaEntityType.CLIENT_ID))) {
      throw invalidFilter('Invalid filter: an ip component cannot be combined with user or client-id components');
    }
    const matches = (e: Entity): boolean =>
      (!strict || e.size === exact.size + specified.size) &&
      [...exact].every(([t, name]) => e.has(t) && e.get(t) === name) && [...specified].every((t) => e.has(t));
    return [...this.entries.values()].filter((x) => matches(x.entity)).map((x) => toEntry(x.entity, x.values));
  }

  /** Every stored entry, in the order the entities were first given a value. */
  all(): ClientQuotaEntry[] {
    return [...this.entries.values()].map((x) => toEntry(x.entity, x.values));
  }

  /** Sets and removes one entity's keys; an entity left with no key is forgotten. Returns whether anything changed. */
  private apply(id: string, entity: Entity, changes: ReadonlyMap<string, number | null>): boolean {
    const entry = this.entries.get(id) ?? { entity, values: new Map<string, number>() };
    let changed = false;
    for (const [key, value] of changes) {
      if (value === null) changed = entry.values.delete(key) || changed;
      else if (entry.values.get(key) !== value) {
        entry.values.set(key, value);
        changed = true;
      }
    }
    if (entry.values.size === 0) this.entries.delete(id);
    else this.entries.set(id, entry);
    return changed;
  }
}

function toEntry(entity: Entity, values: ReadonlyMap<string, number>): ClientQuotaEntry {
  return { entity: partsOf(entity), values: [...values].map(([key, value]) => ({ key, value })) };
}
