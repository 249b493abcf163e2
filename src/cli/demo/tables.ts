/**
 * The demo's tables. The demo drops and recreates its data table on every run, so it must only
 * ever drop a table it created itself: each table it creates is recorded in a marker table
 * ({@link DEMO_MARKER_TABLE}), and an existing table that is not recorded there is refused,
 * never dropped. Offsets tables (the demo's own and anything shaped like one) are never dropped.
 */
import type { Knex } from 'knex';
import { KafkaEosError } from '../../errors';
import { validateIdentifier } from '../../sinks/sql/offset-store';
import { SinkConfigError } from '../../sinks/sql';
import { createTableIfMissing } from '../../sinks/sql/ddl';

/** Lists the tables `kafka-eos demo` created (name, created_at): the only ones it may drop. */
export const DEMO_MARKER_TABLE = 'kafka_eos_demo_tables';

/** A `--table` the demo refuses (bad name, an offsets table, a table it did not create). Code DEMO_TABLE_REFUSED. */
export class DemoTableError extends KafkaEosError {
  constructor(readonly table: string, message: string) {
    super('DEMO_TABLE_REFUSED', `--table ${JSON.stringify(table)}: ${message}`);
  }
}

/**
 * Checks the demo table's name before any DDL: a valid identifier (see validateIdentifier), not
 * the offsets table, not the marker table (compared case-insensitively: SQLite table names are).
 * @throws DemoTableError
 */
export function validateDemoTable(table: string, offsetsTable: string): string {
  try {
    validateIdentifier(table, '--table');
  } catch (e) {
    throw new DemoTableError(table, e instanceof SinkConfigError ? e.message.replace(/^--table: /, '') : String(e));
  }
  const lower = table.toLowerCase();
  if (lower === offsetsTable.toLowerCase()) throw new DemoTableError(table, 'is the offsets table: the demo never drops an offsets table');
  if (lower === DEMO_MARKER_TABLE) throw new DemoTableError(table, 'is the table where the demo records the tables it created');
  return table;
}

/** True when `table` has the columns of an offsets table (group_id, topic, partition, next_offset). */
async function looksLikeOffsetsTable(knex: Knex, table: string): Promise<boolean> {
  const columns = Object.keys(await knex(table).columnInfo()).map((c) => c.toLowerCase());
  return ['group_id', 'topic', 'partition', 'next_offset'].every((c) => columns.includes(c));
}

/**
 * Makes way for a fresh demo table: drops `table` if the demo created it (recorded in the
 * marker table), does nothing if it does not exist, and refuses otherwise. Call
 * {@link markDemoTable} once the new table exists.
 * @throws DemoTableError when `table` exists and the demo did not create it, or looks like an offsets table.
 */
export async function dropOwnDemoTable(knex: Knex, table: string): Promise<void> {
  await createTableIfMissing(knex, DEMO_MARKER_TABLE, (t) => {
    t.string('name', 255).primary(); // VARCHAR: MySQL refuses a TEXT key
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  if (!(await knex.schema.hasTable(table))) {
    await knex(DEMO_MARKER_TABLE).where({ name: table }).delete();
    return;
  }
  if (await looksLikeOffsetsTable(knex, table)) {
    throw new DemoTableError(table, 'is an offsets table: the demo never drops an offsets table');
  }
  const marked = await knex(DEMO_MARKER_TABLE).where({ name: table }).first();
  if (!marked) {
    throw new DemoTableError(table, `exists and was not created by kafka-eos demo (not listed in ${DEMO_MARKER_TABLE}): `
      + 'it is left alone; choose another --table, or drop it yourself');
  }
  // The record goes with the table: a table created later under this name is not the demo's.
  await knex.transaction(async (trx) => {
    await trx.schema.dropTable(table);
    await trx(DEMO_MARKER_TABLE).where({ name: table }).delete();
  });
}

/** Records `table` as created by the demo (idempotent). */
export async function markDemoTable(knex: Knex, table: string): Promise<void> {
  await knex(DEMO_MARKER_TABLE).insert({ name: table }).onConflict('name').ignore();
}
