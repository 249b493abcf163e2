/**
 * DDL for the offsets table and the sink's data table. Creation is race-safe: several processes may start at
 * once; whoever loses the race sees the winner's table. Each CREATE runs in its own transaction, so that on
 * PostgreSQL the table and its primary key appear together (knex emits the key as a separate ALTER TABLE).
 */
import type { Knex } from 'knex';
import { detectDialect } from './dialect';
import type { ColumnType } from './mapping';

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
    t.text('group_id').notNullable();
    t.text('topic').notNullable();
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
  const sqlite = detectDialect(k) === 'sqlite';
  await createTableIfMissing(k, table, (t) => {
    if (spec.includeKafkaCoordinates) {
      t.text('kafka_topic').notNullable();
      t.integer('kafka_partition').notNullable();
      t.bigInteger('kafka_offset').notNullable();
    }
    for (const c of spec.columns) {
      const col = columnBuilder(t, c.name, c.type, sqlite);
      if (c.nullable) col.nullable(); else col.notNullable();
    }
    if (spec.primaryKey && spec.primaryKey.length > 0) t.primary(spec.primaryKey);
  });
}

function columnBuilder(t: Knex.CreateTableBuilder, name: string, type: ColumnType, sqlite: boolean): Knex.ColumnBuilder {
  switch (type) {
    case 'string': return t.text(name);
    case 'integer': return t.integer(name);
    case 'bigint': return t.bigInteger(name);
    case 'float': return t.double(name);
    case 'boolean': return t.boolean(name);
    case 'json': return t.jsonb(name);
    case 'timestamp': return t.timestamp(name, { useTz: true });
    case 'numeric': return sqlite ? t.text(name) : t.specificType(name, 'numeric');
    case 'bytes': return t.binary(name);
  }
}
