/**
 * DDL for the offsets table and the sink's data table. Creation is race-safe: several processes may start at
 * once; whoever loses the race sees the winner's table. Each CREATE runs in its own transaction, so that on
 * PostgreSQL the table and its primary key appear together (knex emits the key as a separate ALTER TABLE).
 */
import type { Knex } from 'knex';
import { detectDialect, type SqlDialect } from './dialect';
import type { ColumnType } from './mapping';

/** Whether `k` talks to MySQL / MariaDB (knex's mysql dialect), whose DDL differs below. */
function isMysql(k: Knex): boolean {
  return (k.client as { dialect?: unknown }).dialect === 'mysql';
}

/**
 * MySQL / MariaDB: a key column cannot be TEXT (BLOB/TEXT keys need a prefix length), so text key columns are
 * VARCHAR(255) (Kafka topics are at most 249 characters; 3 such columns of utf8mb4 stay under InnoDB's 3072-byte
 * key limit), as Kafka Connect's MySQL dialect makes them VARCHAR(256). Tables are InnoDB: transactional, so the
 * rows and the CAS of the offsets commit together.
 */
function textKey(t: Knex.CreateTableBuilder, k: Knex, name: string): Knex.ColumnBuilder {
  return isMysql(k) ? t.string(name, 255) : t.text(name);
}

/** Coordinate columns stored with each row (kafka-key mode uses them as the primary key). */
export const KAFKA_COORDINATE_COLUMNS = ['kafka_topic', 'kafka_partition', 'kafka_offset'] as const;

/** Column shapes of a data table to create. */
export interface DataTableSpec {
  columns: { name: string; type: ColumnType; nullable: boolean }[];
  includeKafkaCoordinates: boolean;
  primaryKey?: string[];
}

/** Creates `table` with `build` unless it exists; a concurrent creator winning the race is not an error. */
export async function createTableIfMissing(k: Knex, table: string, build: (t: Knex.CreateTableBuilder) => void): Promise<void> {
  if (await k.schema.hasTable(table)) return;
  try {
    await k.transaction(async (trx) => {
      await trx.schema.createTable(table, build);
    });
  } catch (err) {
    // Lost the race (PostgreSQL: 42P07 or 23505 on pg_type; SQLite: "already exists"): fine if the table is there now.
    if (await k.schema.hasTable(table)) return;
    throw err;
  }
}

/**
 * Creates the offsets table if missing: `group_id`, `topic`, `partition`, `next_offset` BIGINT (-1 = none),
 * `updated_at`, `target` (the data table, nullable), primary key (group_id, topic, partition); adds `target`
 * to an existing table that lacks it.
 */
export async function ensureOffsetsTable(k: Knex, table: string): Promise<void> {
  await createTableIfMissing(k, table, (t) => {
    if (isMysql(k)) t.engine('InnoDB');
    textKey(t, k, 'group_id').notNullable();
    textKey(t, k, 'topic').notNullable();
    t.integer('partition').notNullable();
    t.bigInteger('next_offset').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(k.fn.now());
    t.text(OFFSETS_TARGET_COLUMN).nullable();
    t.primary(['group_id', 'topic', 'partition']);
  });
  await addTargetColumnIfMissing(k, table);
}

/** The offsets table's column naming the data table a group's positions were written for (NULL: not recorded). */
export const OFFSETS_TARGET_COLUMN = 'target';

/**
 * Additive, backwards-compatible migration of an offsets table made before the `target` column:
 * `ALTER TABLE ... ADD COLUMN target TEXT NULL`. Older writers ignore the column; race-safe (a
 * concurrent migrator winning is not an error).
 */
export async function addTargetColumnIfMissing(k: Knex, table: string): Promise<void> {
  if (await k.schema.hasColumn(table, OFFSETS_TARGET_COLUMN)) return;
  try {
    await k.schema.alterTable(table, (t) => { t.text(OFFSETS_TARGET_COLUMN).nullable(); });
  } catch (err) {
    if (await k.schema.hasColumn(table, OFFSETS_TARGET_COLUMN)) return;
    throw err;
  }
}

/**
 * Creates the data table if missing, from a declarative mapping's columns (plus coordinates and primary key).
 * `numeric` is NUMERIC on PostgreSQL (exact) and TEXT on SQLite, which has no exact decimal: its NUMERIC affinity
 * stores '0.100000000000000000001' as the REAL 0.1 and '-1.000…01' as the INTEGER -1, silently.
 */
export async function ensureDataTable(k: Knex, table: string, spec: DataTableSpec): Promise<void> {
  const dialect = detectDialect(k);
  const mysql = dialect === 'mysql';
  const key = new Set(spec.primaryKey ?? []);
  await createTableIfMissing(k, table, (t) => {
    if (mysql) t.engine('InnoDB');
    if (spec.includeKafkaCoordinates) {
      (key.has('kafka_topic') ? textKey(t, k, 'kafka_topic') : t.text('kafka_topic')).notNullable();
      t.integer('kafka_partition').notNullable();
      t.bigInteger('kafka_offset').notNullable();
    }
    for (const c of spec.columns) {
      const col = columnBuilder(t, c.name, c.type, dialect, key.has(c.name));
      if (c.nullable) col.nullable(); else col.notNullable();
    }
    if (spec.primaryKey && spec.primaryKey.length > 0) t.primary(spec.primaryKey);
  });
}

/**
 * The column of `type` for `dialect`. On MySQL / MariaDB: a key string is VARCHAR(255), key bytes VARBINARY(255);
 * timestamp is DATETIME(3) (TIMESTAMP ends in 2038; the sink writes UTC), numeric DECIMAL(65,30) (MySQL's bare
 * NUMERIC has no fraction), json a JSON column (LONGTEXT with a JSON check on MariaDB). On SQLite numeric is TEXT
 * (see {@link ensureDataTable}).
 */
export function columnBuilder(
  t: Knex.TableBuilder, name: string, type: ColumnType, dialect: SqlDialect, inKey = false,
): Knex.ColumnBuilder {
  if (dialect === 'mysql') {
    if (type === 'string') return inKey ? t.string(name, 255) : t.text(name, 'longtext');
    if (type === 'bytes' && inKey) return t.specificType(name, 'varbinary(255)');
    if (type === 'timestamp') return t.specificType(name, 'datetime(3)');
    if (type === 'numeric') return t.specificType(name, 'decimal(65,30)');
    if (type === 'json') return t.json(name);
    if (type === 'bytes') return t.specificType(name, 'longblob');
  }
  switch (type) {
    case 'string': return t.text(name);
    case 'integer': return t.integer(name);
    case 'bigint': return t.bigInteger(name);
    case 'float': return t.double(name);
    case 'boolean': return t.boolean(name);
    case 'json': return t.jsonb(name);
    case 'timestamp': return t.timestamp(name, { useTz: true });
    case 'numeric': return dialect === 'sqlite' ? t.text(name) : t.specificType(name, 'numeric');
    case 'bytes': return t.binary(name);
  }
}
