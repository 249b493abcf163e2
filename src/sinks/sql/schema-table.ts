/**
 * The data table of a `mapping.fromSchema` sink: created from the first record's schemas when `autoCreate` is set
 * (columns, types and nullability from sinks/schema-columns.ts), and checked against each new schema before its
 * rows are sent: a schema field the table has no column for is SINK_MAPPING_FAILED naming the record, the column,
 * the schema field and the schema id (the poison policy applies; add the column and the records go in). The
 * table's columns are read once and again only when a schema names a column they lack (an ALTER TABLE since).
 * Tombstones are handled before mapping (`behaviorOnNullValues`).
 */
import type { Knex } from 'knex';
import type { SinkBatch, SinkRecord } from '../../records';
import { schemaKey } from '../schema-columns';
import { ensureDataTable } from './ddl';
import { SinkMappingError } from './errors';
import type { CompiledSchemaMapping } from './schema-mapping';

/** Creates (autoCreate) and checks the table of a schema mapping (see the module comment). */
export class SchemaTable {
  private created: Promise<void> | undefined;
  private columns: Set<string> | undefined;
  private readonly checked = new Set<string>();

  constructor(
    private readonly knex: Knex, private readonly table: string, private readonly mapping: CompiledSchemaMapping,
    private readonly options: { autoCreate: boolean; includeKafkaCoordinates: boolean; primaryKey: string[] | undefined },
  ) {}

  /** Makes sure every schema of the write fits the table. @throws SinkMappingError naming the first record whose schema does not */
  async prepare(mapped: { batch: SinkBatch }[]): Promise<void> {
    let lastK: unknown;
    let lastV: unknown;
    for (const { batch } of mapped) {
      for (const r of batch.records) {
        const k = r.convertedKey?.schema;
        const v = r.convertedValue?.schema;
        if (v !== undefined && v === lastV && k === lastK) continue;
        [lastK, lastV] = [k, v];
        const key = schemaKey(r);
        if (this.checked.has(key)) continue;
        await this.check(r);
        this.checked.add(key);
      }
    }
  }

  private async check(r: SinkRecord): Promise<void> {
    const cols = this.mapping.columnsOf(r);
    if (this.options.autoCreate) {
      this.created ??= ensureDataTable(this.knex, this.table, {
        columns: cols.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable })),
        includeKafkaCoordinates: this.options.includeKafkaCoordinates, primaryKey: this.options.primaryKey,
      }).catch((e: unknown) => { this.created = undefined; throw e; });
      await this.created;
    }
    this.columns ??= await this.readColumns();
    let missing = cols.find((c) => !this.columns!.has(c.name));
    if (missing) {
      this.columns = await this.readColumns();
      missing = cols.find((c) => !this.columns!.has(c.name));
    }
    if (missing) {
      const id = r.convertedValue?.schemaId;
      throw new SinkMappingError(`table ${this.table} has no column ${missing.name} for schema field ${missing.source}`
        + `${id === undefined ? '' : ` (schema id ${id})`}: add the column (${missing.type}${missing.nullable ? ', nullable' : ''}) `
        + 'and the record goes in', { topic: r.topic, partition: r.partition, offset: r.offset, column: missing.name });
    }
  }

  private async readColumns(): Promise<Set<string>> {
    return new Set(Object.keys(await this.knex(this.table).columnInfo()));
  }
}

/**
 * The records of a write without its tombstones ('ignore': their offsets stay covered by the batch's CAS range),
 * or SINK_MAPPING_FAILED for the first one ('fail').
 */
export function tombstonesHandled(records: SinkRecord[], behavior: 'ignore' | 'fail'): SinkRecord[] {
  const isTombstone = (r: SinkRecord) => r.value === null;
  if (!records.some(isTombstone)) return records;
  if (behavior === 'fail') {
    const r = records.find(isTombstone)!;
    throw new SinkMappingError('a tombstone (null value) and behaviorOnNullValues is fail',
      { topic: r.topic, partition: r.partition, offset: r.offset });
  }
  return records.filter((r) => !isTombstone(r));
}
