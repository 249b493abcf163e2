/**
 * Confluent's JDBC sink connector (`io.confluent.connect.jdbc.JdbcSinkConnector`, its JdbcSinkConfig keys) → the
 * run config's `sink: { type: jdbc, ... }` (sinks/sql/jdbc-sink.ts JdbcSink): the same tables, keys and deletes,
 * exactly once. `connection.url` is a JDBC URL: `jdbc:postgresql://`, `jdbc:mysql://`, `jdbc:mariadb://`,
 * `jdbc:sqlite:`.
 */
import {
  BOOLEAN, differs as D, Explanation, ignored as I, INT, LIST, LONG, parseList, refused as R, supported as S, type KeyDoc,
} from './keys';
import { CONNECTOR_KEYS } from './worker';

/** The JDBC sink connector's class name. */
export const JDBC_SINK_CLASS = 'io.confluent.connect.jdbc.JdbcSinkConnector';

/** The run config's `sink` for a JDBC sink connector (the shape of cli/sink-factory's jdbc schema). */
export interface JdbcSinkSettings {
  type: 'jdbc';
  knex: { client: 'pg' | 'sqlite3' | 'mysql2'; connection: Record<string, unknown> };
  tableNameFormat?: string; insertMode?: 'insert' | 'upsert' | 'update';
  pkMode?: 'none' | 'kafka' | 'record_key' | 'record_value'; pkFields?: string[]; fieldsInclude?: string[];
  deleteEnabled?: boolean; autoCreate?: boolean; autoEvolve?: boolean; maxRowsPerStatement?: number;
  retry?: { retries?: number; minTimeoutMs?: number };
}

/** Every key of JdbcSinkConfig we know, with how it is understood. */
export const JDBC_KEYS: Readonly<Record<string, KeyDoc>> = {
  'connection.url': S('jdbc:postgresql://, jdbc:mysql:// or jdbc:mariadb:// (host, port, database, user and password parameters), '
    + 'jdbc:sqlite:<file>'),
  'connection.user': S('the database user'),
  'connection.password': S('the database password'),
  'connection.attempts': D('a database that cannot be reached at start stops the run (exit 2); while running, the write is retried '
    + 'by the consumer (sink-unavailable) without a bound', INT(1)),
  'connection.backoff.ms': D('see connection.attempts', LONG()),
  'dialect.name': S('must match the URL: PostgreSqlDatabaseDialect, MySqlDatabaseDialect, SqliteDatabaseDialect'),
  'table.name.format': S('${topic} replaced by the topic; one plain identifier (no schema-qualified names), not the offsets table: '
    + 'checked for every topic of topics at start, for topics.regex at the first assignment'),
  'table.types': S('TABLE only; VIEW refused', LIST),
  'insert.mode': S('insert, upsert (INSERT ... ON CONFLICT / ON DUPLICATE KEY UPDATE), update'),
  'pk.mode': S('none, kafka, record_key, record_value'),
  'pk.fields': S('the key columns of the mode (record_key with a primitive key: one name)', LIST),
  'fields.whitelist': S('the value fields written (default all)', LIST),
  'fields.include': S('the value fields written (newer name of fields.whitelist)', LIST),
  'delete.enabled': S('a tombstone deletes its key\'s row, in the transaction of the offsets (needs pk.mode record_key)', BOOLEAN),
  'auto.create': S('CREATE TABLE from the first record\'s schemas, primary key from pk.mode', BOOLEAN),
  'auto.evolve': S('a new optional field adds a nullable column; a new required field or a type change stops the connector '
    + '(SCHEMA_EVOLUTION_REFUSED)', BOOLEAN),
  'batch.size': D('rows per INSERT statement (0: one row each, as Connect flushes every record); a write is the whole consumed batch in '
    + 'one transaction, whatever its size', INT(0)),
  'max.retries': S('retries of a transient database error (then the consumer retries the batch)', INT(0)),
  'retry.backoff.ms': S('the first delay between retries (doubling, at most 2 s)', INT(0)),
  'quote.sql.identifiers': S('always (default): names are quoted as given; never refused'),
  'db.timezone': S('UTC only (timestamps are written in UTC)'),
  'sql.quote.identifiers': R('not a JDBC sink key: quote.sql.identifiers'),
  'timestamp.precision.mode': D('timestamps are milliseconds (Connect\'s Timestamp)'),
  'trim.sensitive.log': I('no SQL is logged', BOOLEAN),
  'mssql.use.merge.holdlock': I('SQL Server is not supported; no MERGE is issued', BOOLEAN),
};

const PORTS: Record<string, number> = { pg: 5432, mysql2: 3306 };

/** `jdbc:...` → a knex client and connection. Refuses (on `key`) what it cannot use. */
function knexOf(ex: Explanation, key: string, url: string, user?: string, password?: string): JdbcSinkSettings['knex'] | undefined {
  const sqlite = /^jdbc:sqlite:(.*)$/.exec(url);
  if (sqlite) {
    const file = sqlite[1]!.replace(/\?.*$/, '');
    if (file === '' || file === ':memory:' || file.startsWith('file::memory:')) {
      ex.refuse(key, url, 'an in-memory SQLite database keeps no positions: give a file (jdbc:sqlite:/path/db.sqlite)');
      return undefined;
    }
    return { client: 'sqlite3', connection: { filename: file.replace(/^file:/, '') } };
  }
  const net = /^jdbc:(postgresql|mysql|mariadb):\/\/([^/:?]+)(?::(\d+))?\/([^?;]+)(?:\?(.*))?$/.exec(url);
  if (!net) {
    ex.refuse(key, url, 'expected jdbc:postgresql://host[:port]/db, jdbc:mysql://, jdbc:mariadb:// or jdbc:sqlite:<file>');
    return undefined;
  }
  const client = net[1] === 'postgresql' ? 'pg' : 'mysql2';
  const connection: Record<string, unknown> = { host: net[2], port: net[3] ? Number(net[3]) : PORTS[client], database: net[4] };
  for (const pair of (net[5] ?? '').split('&').filter(Boolean)) {
    const [k, v = ''] = pair.split('=').map(decodeURIComponent) as [string, string?];
    if (k === 'user') connection.user = v;
    else if (k === 'password') connection.password = v;
    else if (client === 'pg' && k === 'sslmode' && v === 'disable') continue;
    else if (client === 'pg' && k === 'ssl' && v === 'false') continue;
    else {
      ex.refuse(key, url.replace(/password=[^&]*/, 'password=******'),
        `the URL parameter ${k} is not used by kafka-eos: remove it (user and password are read)`);
      return undefined;
    }
  }
  if (user !== undefined) connection.user = user;
  if (password !== undefined) connection.password = password;
  return { client, connection };
}

const DIALECTS: Record<string, JdbcSinkSettings['knex']['client']> = {
  PostgreSqlDatabaseDialect: 'pg', MySqlDatabaseDialect: 'mysql2', SqliteDatabaseDialect: 'sqlite3',
};

/**
 * The `sink` of a JDBC sink connector's keys (`values`: the connector's keys this module owns, by name).
 * Every key is explained in `ex`; refusals are noted there (the caller reports them all at once).
 */
export function jdbcSink(ex: Explanation, values: ReadonlyMap<string, string>): JdbcSinkSettings | undefined {
  const get = (k: string) => values.get(k);
  const bad = (k: string, why: string) => ex.refuse(k, get(k)!, why);
  // Typed keys were parsed (or refused with Connect's ConfigDef message) by ex.take, by their row's type.
  const flag = (k: string): boolean | undefined => ex.typed<boolean>(k);
  const count = (k: string): number | undefined => ex.typed<number>(k);
  const oneOf = <T extends string>(k: string, allowed: readonly T[]): T | undefined => {
    const v = get(k)?.trim().toLowerCase();
    if (v === undefined) return undefined;
    if ((allowed as readonly string[]).includes(v)) return v as T;
    bad(k, `one of ${allowed.join(', ')}`);
    return undefined;
  };
  for (const [k, v] of values) ex.take(k, v, { ...CONNECTOR_KEYS, ...JDBC_KEYS }, 'the JDBC sink connector');
  const url = get('connection.url');
  if (url === undefined) { ex.refuse('connection.url', '', 'the JDBC sink needs connection.url'); return undefined; }
  const knex = knexOf(ex, 'connection.url', url.trim(), get('connection.user'), get('connection.password'));
  const dialect = get('dialect.name');
  if (dialect !== undefined && dialect.trim() !== '' && knex && DIALECTS[dialect.trim()] !== knex.client) {
    bad('dialect.name', `${dialect} does not match ${url.replace(/\?.*$/, '')}: ${Object.keys(DIALECTS).join(', ')}`);
  }
  const types = get('table.types');
  if (types !== undefined && parseList(types).some((t) => t.toUpperCase() !== 'TABLE')) bad('table.types', 'TABLE only');
  const quote = get('quote.sql.identifiers');
  if (quote !== undefined && quote.trim().toLowerCase() !== 'always') {
    bad('quote.sql.identifiers', 'always only: names are quoted as given');
  }
  const tz = get('db.timezone');
  if (tz !== undefined && !['UTC', 'Z', 'GMT', 'Etc/UTC'].includes(tz.trim())) {
    bad('db.timezone', 'UTC only: timestamps are written in UTC');
  }
  const sink: JdbcSinkSettings = { type: 'jdbc', knex: knex ?? { client: 'sqlite3', connection: {} } };
  const format = get('table.name.format');
  if (format !== undefined) sink.tableNameFormat = format.trim();
  const insertMode = oneOf('insert.mode', ['insert', 'upsert', 'update'] as const);
  if (insertMode) sink.insertMode = insertMode;
  const pkMode = oneOf('pk.mode', ['none', 'kafka', 'record_key', 'record_value'] as const);
  if (pkMode) sink.pkMode = pkMode;
  if (get('pk.fields') !== undefined) sink.pkFields = parseList(get('pk.fields')!);
  const include = get('fields.include') ?? get('fields.whitelist');
  if (include !== undefined) sink.fieldsInclude = parseList(include);
  const del = flag('delete.enabled');
  if (del !== undefined) sink.deleteEnabled = del;
  if (del && (pkMode ?? 'none') !== 'record_key') bad('delete.enabled', 'delete.enabled=true needs pk.mode=record_key (as in Connect)');
  if ((insertMode === 'upsert' || insertMode === 'update') && (pkMode ?? 'none') === 'none') {
    bad('insert.mode', `insert.mode=${insertMode} needs a primary key: set pk.mode (record_key, record_value or kafka)`);
  }
  const create = flag('auto.create');
  if (create !== undefined) sink.autoCreate = create;
  const evolve = flag('auto.evolve');
  if (evolve !== undefined) sink.autoEvolve = evolve;
  const batch = count('batch.size');
  if (batch !== undefined) sink.maxRowsPerStatement = Math.max(1, batch);
  const retries = count('max.retries');
  const backoff = count('retry.backoff.ms');
  if (retries !== undefined || backoff !== undefined) {
    sink.retry = { ...(retries !== undefined ? { retries } : {}), ...(backoff !== undefined ? { minTimeoutMs: backoff } : {}) };
  }
  return knex ? sink : undefined;
}
