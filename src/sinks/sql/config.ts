/**
 * SqlSink configuration: shape and up-front validation. Every error is a SinkConfigError naming the field.
 */
import type { Knex } from 'knex';
import { DEFAULT_OFFSETS_TABLE, validateIdentifier, type SqlRetryOptions } from './offset-store';
import { isKnexInstance } from './dialect';
import { KAFKA_COORDINATE_COLUMNS } from './ddl';
import { SinkConfigError } from './errors';
import { COLUMN_TYPES, type ColumnMapping, type DeclarativeMapping, type SchemaMapping, type SinkMapping } from './mapping';
import { unknownKey, unknownOptionMessage } from '../../util/did-you-mean';

/** Checks `mapping.fromSchema`: true, or { flatten?, keyColumn?, keyPrefix?, headers? }. @throws SinkConfigError */
function validateFromSchema(spec: unknown): void {
  if (spec === true) return;
  const f = 'mapping.fromSchema';
  if (spec === null || typeof spec !== 'object') throw new SinkConfigError(f,
    'must be true or { flatten?, keyColumn?, keyPrefix?, headers? }');
  const o = spec as Record<string, unknown>;
  refuseUnknownKeys(o, ['flatten', 'keyColumn', 'keyPrefix', 'headers'], `${f}.`);
  if (o.flatten !== undefined && o.flatten !== false && (typeof o.flatten !== 'string' || o.flatten === '')) {
    throw new SinkConfigError(`${f}.flatten`, 'must be a separator (e.g. "_") or false');
  }
  if (o.keyColumn !== undefined) validateIdentifier(o.keyColumn as string, `${f}.keyColumn`);
  if (o.keyPrefix !== undefined && typeof o.keyPrefix !== 'string') throw new SinkConfigError(`${f}.keyPrefix`, 'must be a string');
  if (o.headers !== undefined) {
    if (o.headers === null || typeof o.headers !== 'object') throw new SinkConfigError(`${f}.headers`, 'must map header names to columns');
    for (const [h, c] of Object.entries(o.headers)) validateIdentifier(c as string, `${f}.headers.${h}`);
  }
}

/**
 * - 'insert': plain INSERT of each row.
 * - 'upsert': INSERT ... ON CONFLICT (upsertKey) DO UPDATE (last record of a key wins; duplicate keys inside one
 *   write are collapsed to the last one before sending).
 * - 'kafka-key': rows keyed by (kafka_topic, kafka_partition, kafka_offset); a replay overwrites the same rows.
 */
export type SqlSinkMode = 'insert' | 'upsert' | 'kafka-key';

export interface SqlSinkConfig {
  /**
   * A knex instance (the caller owns it; for SQLite create it with createKnex() to get WAL + busy timeout)
   * or a Knex.Config (the sink owns it). Clients: 'sqlite3', 'pg'.
   */
  knex: Knex | Knex.Config;
  /** Data table: one plain identifier (no '.'), quoted by knex. */
  table: string;
  /**
   * `insert` (a replay inserts rows again), `upsert` (by `upsertKey`) or `kafka-key` (upsert by the Kafka coordinates,
   * which become the primary key). Required.
   */
  mode: SqlSinkMode;
  /** Record → row: a declarative `{ columns }` (dot paths of the JSON value) or a function returning column → value. Required. */
  mapping: SinkMapping;
  /** Conflict target for mode 'upsert' (required there, rejected elsewhere). */
  upsertKey?: string[];
  /**
   * Add kafka_topic, kafka_partition, kafka_offset (BIGINT) to every row. Default true; must be true in 'kafka-key'.
   * Also settable as mapping.includeKafkaCoordinates.
   */
  includeKafkaCoordinates?: boolean;
  /** Offsets table; default 'kafka_eos_offsets'. */
  offsetsTable?: string;
  /**
   * Create the data table from a declarative mapping if missing (race-safe). Default false.
   * The offsets table is always created if missing.
   */
  autoCreate?: boolean;
  /** Upper bound on rows per INSERT statement; further capped by dialect limits. Defaults: SQLite 500, PostgreSQL 1000. */
  maxRowsPerStatement?: number;
  /**
   * What a tombstone (a record whose value is null) does (Connect's `behavior.on.null.values`): 'ignore' writes no
   * row (its offset is committed with the batch: deletes are not applied), 'fail' is SINK_MAPPING_FAILED naming
   * the record (the poison policy applies). Default: 'ignore' with `mapping.fromSchema`; otherwise unset, and a
   * tombstone is mapped like any record (a function mapping sees `value: null`; declarative columns read null).
   */
  behaviorOnNullValues?: 'ignore' | 'fail';
  /** Transient-error retry budget; default { retries: 5, minTimeoutMs: 50, maxTimeoutMs: 2000 }. */
  retry?: Partial<SqlRetryOptions>;
  /**
   * PostgreSQL: send each write as one message, `BEGIN; CAS; COPY ... FROM STDIN; COMMIT`, its rows streamed behind
   * it (src/sinks/sql/pg-pipelined.ts; one round trip per write, the rows' encoding overlapping the server's work).
   * Default true. false: BEGIN with the CAS, the COPY, and COMMIT as messages of their own, for a server or proxy
   * that speaks PostgreSQL's protocol but refuses a COPY inside a multi-statement query. Ignored elsewhere.
   */
  pipelinedWrites?: boolean;
}

export interface NormalizedSqlSinkConfig {
  table: string;
  mode: SqlSinkMode;
  mapping: SinkMapping;
  includeKafkaCoordinates: boolean;
  conflictKey: string[] | undefined;
  offsetsTable: string;
  autoCreate: boolean;
  maxRowsPerStatement: number | undefined;
  /** What a tombstone (null value) does: see {@link SqlSinkConfig.behaviorOnNullValues}; undefined: mapped like any record. */
  behaviorOnNullValues: 'ignore' | 'fail' | undefined;
  /** See {@link SqlSinkConfig.pipelinedWrites} (default true). */
  pipelinedWrites: boolean;
}

const COORDS: readonly string[] = KAFKA_COORDINATE_COLUMNS;

/** Every key of T, listed once (a key added to T and not here fails to compile). */
const keysOf = <T>() => <const K extends readonly (keyof T)[]>(keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown
  : { missing: Exclude<keyof T, K[number]> })): readonly string[] => keys as readonly string[];
const SQL_SINK_KEYS = keysOf<SqlSinkConfig>()(['knex', 'table', 'mode', 'mapping', 'upsertKey', 'includeKafkaCoordinates', 'offsetsTable',
  'autoCreate', 'maxRowsPerStatement', 'retry', 'behaviorOnNullValues', 'pipelinedWrites']);
const MAPPING_KEYS = keysOf<DeclarativeMapping>()(['columns', 'includeKafkaCoordinates']);
const SCHEMA_MAPPING_KEYS = keysOf<SchemaMapping>()(['fromSchema', 'includeKafkaCoordinates']);
const COLUMN_KEYS = keysOf<ColumnMapping>()(['path', 'type', 'nullable']);
const RETRY_KEYS = keysOf<SqlRetryOptions>()(['retries', 'minTimeoutMs', 'maxTimeoutMs']);

/** Refuses the first unknown key of `value` (at `prefix`) with a did-you-mean, as the consumer's options do. */
function refuseUnknownKeys(value: object, known: readonly string[], prefix: string): void {
  const key = unknownKey(value, known);
  if (key !== undefined) throw new SinkConfigError(`${prefix}${key}`, unknownOptionMessage(key, known));
}

/** knex.pool's min and max (tarn.js would otherwise fail later with "opt.max is smaller than opt.min"). */
function validatePool(pool: unknown): void {
  if (pool === undefined) return;
  if (pool === null || typeof pool !== 'object') throw new SinkConfigError('knex.pool', 'must be an object');
  const { min, max } = pool as { min?: unknown; max?: unknown };
  for (const [f, v, lo] of [['min', min, 0], ['max', max, 1]] as const) {
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < lo)) {
      throw new SinkConfigError(`knex.pool.${f}`, `must be an integer >= ${lo}, got ${JSON.stringify(v)}`);
    }
  }
  if (typeof min === 'number' && typeof max === 'number' && max < min) {
    throw new SinkConfigError('knex.pool.max', `must be at least knex.pool.min (${min}), got ${max}`);
  }
}

/**
 * Validates a config up front. @throws SinkConfigError (code CONFIG_INVALID) with `field` set; an unknown option (of the
 * config, `mapping`, a column, `retry`) with a did-you-mean, as the consumer's options and the HDFS sink's config.
 */
export function validateSqlSinkConfig(config: SqlSinkConfig): NormalizedSqlSinkConfig {
  if (config === null || typeof config !== 'object') throw new SinkConfigError('config', 'must be an object');
  refuseUnknownKeys(config, SQL_SINK_KEYS, '');
  if (config.retry !== undefined && (config.retry === null || typeof config.retry !== 'object')) {
    throw new SinkConfigError('retry', 'must be an object { retries?, minTimeoutMs?, maxTimeoutMs? }');
  }
  if (config.retry) refuseUnknownKeys(config.retry, RETRY_KEYS, 'retry.');
  const k: unknown = config.knex;
  if (!isKnexInstance(k) && (k === null || typeof k !== 'object' || !('client' in k))) {
    throw new SinkConfigError('knex', 'must be a knex instance or a Knex.Config with a client');
  }
  if (!isKnexInstance(k)) validatePool((k as { pool?: unknown }).pool);
  const table = validateIdentifier(config.table, 'table');
  const offsetsTable = validateIdentifier(config.offsetsTable ?? DEFAULT_OFFSETS_TABLE, 'offsetsTable');
  // Compared without case: SQLite (and MySQL on case-insensitive file systems) fold names, so the rows would land among the positions.
  if (offsetsTable.toLowerCase() === table.toLowerCase()) {
    throw new SinkConfigError('offsetsTable', `"${offsetsTable}" must differ from table "${table}" (compared without case): the offsets `
      + 'table holds the positions of every group; rows cannot go there');
  }
  const mode = config.mode;
  if (mode !== 'insert' && mode !== 'upsert' && mode !== 'kafka-key') {
    throw new SinkConfigError('mode', `must be 'insert', 'upsert' or 'kafka-key', got ${JSON.stringify(mode)}`);
  }

  const mapping = config.mapping;
  let declared: Map<string, { nullable: boolean }> | undefined;
  let mappingCoords: boolean | undefined;
  if (typeof mapping === 'function') {
    // user function: nothing more to check up front
  } else if (mapping !== null && typeof mapping === 'object' && 'fromSchema' in mapping) {
    refuseUnknownKeys(mapping, SCHEMA_MAPPING_KEYS, 'mapping.');
    validateFromSchema(mapping.fromSchema);
    if (mapping.includeKafkaCoordinates !== undefined && typeof mapping.includeKafkaCoordinates !== 'boolean') {
      throw new SinkConfigError('mapping.includeKafkaCoordinates', 'must be a boolean');
    }
    mappingCoords = mapping.includeKafkaCoordinates;
  } else if (mapping !== null && typeof mapping === 'object' && mapping.columns !== null && typeof mapping.columns === 'object') {
    declared = new Map();
    refuseUnknownKeys(mapping, MAPPING_KEYS, 'mapping.');
    const entries = Object.entries(mapping.columns);
    if (entries.length === 0) throw new SinkConfigError('mapping.columns', 'must declare at least one column');
    for (const [name, spec] of entries) {
      const f = `mapping.columns.${name}`;
      validateIdentifier(name, f);
      if (spec === null || typeof spec !== 'object') throw new SinkConfigError(f, 'must be an object { path?, type, nullable? }');
      refuseUnknownKeys(spec, COLUMN_KEYS, `${f}.`);
      if (!COLUMN_TYPES.includes(spec.type)) {
        throw new SinkConfigError(`${f}.type`, `must be one of ${COLUMN_TYPES.join(', ')}, got ${JSON.stringify(spec.type)}`);
      }
      if (spec.path !== undefined && (typeof spec.path !== 'string' || spec.path === ''
        || (!spec.path.startsWith('$headers.') && spec.path.split('.').some((s) => s === '')))) {
        throw new SinkConfigError(`${f}.path`, `must be a non-empty dot path, got ${JSON.stringify(spec.path)}`);
      }
      if (spec.path !== undefined && spec.path.startsWith('$') && !['$key', '$timestamp', '$value'].includes(spec.path)
        && !/^\$headers\..+/.test(spec.path)) {
        throw new SinkConfigError(
          `${f}.path`, `unknown special path ${JSON.stringify(spec.path)} (use $key, $timestamp, $value, $headers.<name>)`,
        );
      }
      if (spec.nullable !== undefined && typeof spec.nullable !== 'boolean') {
        throw new SinkConfigError(`${f}.nullable`, 'must be a boolean');
      }
      declared.set(name, { nullable: spec.nullable ?? false });
    }
    if (mapping.includeKafkaCoordinates !== undefined && typeof mapping.includeKafkaCoordinates !== 'boolean') {
      throw new SinkConfigError('mapping.includeKafkaCoordinates', 'must be a boolean');
    }
    mappingCoords = mapping.includeKafkaCoordinates;
  } else {
    throw new SinkConfigError('mapping', 'must be a function (record) => row, { columns: { name: { path?, type, nullable? } } } '
      + 'or { fromSchema: true | { flatten?, keyColumn?, keyPrefix?, headers? } }');
  }

  if (config.includeKafkaCoordinates !== undefined && typeof config.includeKafkaCoordinates !== 'boolean') {
    throw new SinkConfigError('includeKafkaCoordinates', 'must be a boolean');
  }
  if (config.includeKafkaCoordinates !== undefined && mappingCoords !== undefined && config.includeKafkaCoordinates !== mappingCoords) {
    throw new SinkConfigError('includeKafkaCoordinates', 'conflicts with mapping.includeKafkaCoordinates');
  }
  const includeKafkaCoordinates = config.includeKafkaCoordinates ?? mappingCoords ?? true;
  if (mode === 'kafka-key' && !includeKafkaCoordinates) {
    throw new SinkConfigError(
      mappingCoords === false ? 'mapping.includeKafkaCoordinates' : 'includeKafkaCoordinates',
      "must be true in mode 'kafka-key' (the coordinates are the primary key)",
    );
  }
  if (declared && includeKafkaCoordinates) {
    for (const c of COORDS) {
      if (declared.has(c)) {
        throw new SinkConfigError(
          `mapping.columns.${c}`, 'is reserved for the Kafka coordinates (set includeKafkaCoordinates: false to map it yourself)',
        );
      }
    }
  }

  let conflictKey: string[] | undefined;
  if (mode === 'upsert') {
    const key = config.upsertKey;
    if (!Array.isArray(key) || key.length === 0) {
      throw new SinkConfigError('upsertKey', "is required in mode 'upsert' (a non-empty list of columns)");
    }
    key.forEach((c, i) => validateIdentifier(c, `upsertKey[${i}]`));
    if (new Set(key).size !== key.length) throw new SinkConfigError('upsertKey', 'lists a column twice');
    if (declared) {
      for (const c of key) {
        const col = declared.get(c);
        if (!col && !(includeKafkaCoordinates && COORDS.includes(c))) {
          throw new SinkConfigError('upsertKey', `column ${JSON.stringify(c)} is not in mapping.columns`);
        }
        if (col?.nullable) throw new SinkConfigError('upsertKey', `column ${JSON.stringify(c)} is nullable; key columns must not be`);
      }
    }
    conflictKey = [...key];
  } else {
    if (config.upsertKey !== undefined) throw new SinkConfigError('upsertKey', `only applies to mode 'upsert' (mode is '${mode}')`);
    if (mode === 'kafka-key') conflictKey = [...COORDS];
  }

  if (config.autoCreate !== undefined && typeof config.autoCreate !== 'boolean') {
    throw new SinkConfigError('autoCreate', 'must be a boolean');
  }
  const autoCreate = config.autoCreate ?? false;
  const fromSchema = typeof mapping !== 'function' && 'fromSchema' in mapping;
  if (autoCreate && !declared && !fromSchema) {
    throw new SinkConfigError(
      'autoCreate', 'needs a declarative mapping (columns with types, or fromSchema); with a mapping function create the table yourself',
    );
  }

  const m = config.maxRowsPerStatement;
  if (m !== undefined && (!Number.isInteger(m) || m < 1)) {
    throw new SinkConfigError('maxRowsPerStatement', `must be a positive integer, got ${String(m)}`);
  }

  const nulls = config.behaviorOnNullValues;
  if (nulls !== undefined && nulls !== 'ignore' && nulls !== 'fail') {
    throw new SinkConfigError('behaviorOnNullValues', `must be 'ignore' or 'fail', got ${JSON.stringify(nulls)}`);
  }
  const behaviorOnNullValues = nulls ?? (fromSchema ? 'ignore' : undefined);
  const pipelinedWrites = config.pipelinedWrites ?? true;
  if (typeof pipelinedWrites !== 'boolean') {
    throw new SinkConfigError('pipelinedWrites', `must be true or false, got ${JSON.stringify(pipelinedWrites)}`);
  }
  return {
    table, mode, mapping, includeKafkaCoordinates, conflictKey, offsetsTable, autoCreate, maxRowsPerStatement: m, behaviorOnNullValues,
    pipelinedWrites,
  };
}
