/**
 * One table of the JDBC sink (jdbc-sink.ts): created from the first record's schemas (`auto.create`, primary key
 * from `pk.mode`), and checked against every new schema before its rows are sent, as Kafka Connect's JDBC sink
 * does (its DbStructure):
 *
 * - a field the table has no column for is added as a nullable column (`ALTER TABLE ... ADD`) when `auto.evolve`
 *   is on and the field is optional; a new required field, or any new field with `auto.evolve` off, is
 *   SCHEMA_EVOLUTION_REFUSED naming the field (Connect refuses both: it adds only optional fields or fields with a
 *   default, and our converters carry no defaults);
 * - a field whose type no longer fits its column's (a string field into an integer column) is
 *   SCHEMA_EVOLUTION_REFUSED too (Connect would fail at the INSERT instead).
 *
 * The check runs before the write's transaction, in the order of the records, so a column is there before the
 * first row that needs it, and no record is skipped or reordered. Several writers adding one column race safely:
 * the loser re-reads the columns. Columns are read once, again only when a schema names one they lack.
 */
import type { Knex } from 'knex';
import type { SinkRecord } from '../../records';
import { SchemaEvolutionError } from '../errors';
import { columnBuilder, createTableIfMissing } from './ddl';
import type { SqlDialect } from './dialect';
import type { JdbcColumn } from './jdbc-columns';
import type { ColumnType } from './mapping';

/** How a table follows its records' schemas (Connect's `auto.create`, `auto.evolve`). */
export interface JdbcTableOptions { autoCreate: boolean; autoEvolve: boolean }

/** The family of a database column type, as knex's columnInfo names it on SQLite, PostgreSQL and MySQL / MariaDB. */
type Family = 'int' | 'float' | 'numeric' | 'string' | 'boolean' | 'json' | 'time' | 'bytes' | 'int-or-boolean' | 'unknown';

/** The family of a column type name (`integer`, `character varying`, `varchar(255)`, `timestamp with time zone`, ...). */
export function columnFamily(type: string): Family {
  const t = type.toLowerCase().replace(/\(.*$/, '').trim();
  if (t === 'tinyint') return 'int-or-boolean'; // MySQL's BOOLEAN is TINYINT(1)
  if (/^(int|integer|smallint|bigint|mediumint|int2|int4|int8|serial|bigserial)$/.test(t)) return 'int';
  if (/^(double|double precision|float|real|float4|float8)$/.test(t)) return 'float';
  if (/^(numeric|decimal)$/.test(t)) return 'numeric';
  if (/^(text|varchar|character varying|character|char|string|longtext|mediumtext|tinytext|clob|uuid)$/.test(t)) return 'string';
  if (/^(boolean|bool)$/.test(t)) return 'boolean';
  if (/^(json|jsonb)$/.test(t)) return 'json';
  if (/^(timestamp|timestamp with time zone|timestamp without time zone|timestamptz|datetime|date)$/.test(t)) return 'time';
  if (/^(bytea|blob|longblob|mediumblob|tinyblob|varbinary|binary)$/.test(t)) return 'bytes';
  return 'unknown';
}

const FITS: Record<ColumnType, readonly Family[]> = {
  integer: ['int', 'int-or-boolean', 'numeric'],
  bigint: ['int', 'numeric'],
  float: ['float', 'numeric'],
  numeric: ['numeric', 'float'],
  string: ['string', 'json'],
  boolean: ['boolean', 'int-or-boolean', 'int'],
  json: ['json', 'string'],
  timestamp: ['time'],
  bytes: ['bytes'],
};

/** Whether a field of column type `type` fits a column whose database type is `dbType` (unknown types always fit). */
export function fitsColumn(type: ColumnType, dbType: string): boolean {
  const f = columnFamily(dbType);
  return f === 'unknown' || FITS[type].includes(f);
}

/** A table of the JDBC sink (see the module comment). */
export class JdbcTable {
  private created: Promise<void> | undefined;
  private columns: Map<string, string> | undefined;
  private readonly checked = new WeakSet<readonly JdbcColumn[]>();

  constructor(private readonly knex: Knex, readonly name: string, private readonly dialect: SqlDialect,
    private readonly options: JdbcTableOptions) {}

  /**
   * Makes the table fit `columns` (the schemas of `record`): creates it, adds optional fields, checks types.
   * @throws SchemaEvolutionError for a change it will not make; driver errors of the DDL
   */
  async prepare(columns: readonly JdbcColumn[], keyColumns: readonly string[], record: SinkRecord): Promise<void> {
    if (this.checked.has(columns)) return;
    if (this.options.autoCreate) {
      this.created ??= createTableIfMissing(this.knex, this.name, (t) => {
        if (this.dialect === 'mysql') t.engine('InnoDB');
        for (const c of columns) {
          const col = columnBuilder(t, c.name, c.type, this.dialect, c.key);
          if (c.nullable && !c.key) col.nullable(); else col.notNullable();
        }
        if (keyColumns.length > 0) t.primary([...keyColumns]);
      }).catch((e: unknown) => { this.created = undefined; throw e; });
      await this.created;
    }
    this.columns ??= await this.readColumns();
    if (columns.some((c) => !this.columns!.has(c.name))) this.columns = await this.readColumns();
    if (this.columns.size === 0 && !(await this.knex.schema.hasTable(this.name))) {
      const c = columns[0]!;
      throw new SchemaEvolutionError(this.name, c.name, c.source, 'the table does not exist and auto.create is false: create it, or set '
        + 'auto.create=true', record);
    }
    for (const c of columns) {
      const dbType = this.columns.get(c.name);
      if (dbType === undefined) await this.addColumn(c, record);
      else if (!fitsColumn(c.type, dbType)) {
        throw new SchemaEvolutionError(this.name, c.name, c.source, `the field is now ${c.type}, which does not fit the column's `
          + `type ${dbType}: a type change is not evolved (Kafka Connect's JDBC sink cannot either); alter the column or the producer`,
        record);
      }
    }
    this.checked.add(columns);
  }

  private async addColumn(c: JdbcColumn, record: SinkRecord): Promise<void> {
    if (!this.options.autoEvolve) {
      throw new SchemaEvolutionError(this.name, c.name, c.source, `the table has no column ${c.name} and auto.evolve is false: add the `
        + `column (${c.type}${c.nullable ? ', nullable' : ''}) or set auto.evolve=true`, record);
    }
    if (!c.nullable || c.key) {
      throw new SchemaEvolutionError(this.name, c.name, c.source, `a new required (not optional) field cannot be added to a table `
        + 'that has rows (Kafka Connect refuses it too): make the field optional, or add the column yourself', record);
    }
    try {
      await this.knex.schema.alterTable(this.name, (t) => { columnBuilder(t, c.name, c.type, this.dialect, false).nullable(); });
    } catch (err) {
      // Another writer added it first: fine if it is there now.
      this.columns = await this.readColumns();
      if (!this.columns.has(c.name)) throw err;
      return;
    }
    this.columns = await this.readColumns();
  }

  private async readColumns(): Promise<Map<string, string>> {
    const info = await this.knex(this.name).columnInfo() as unknown as Record<string, { type: string }>;
    return new Map(Object.entries(info).map(([n, i]) => [n, i.type]));
  }
}
