/**
 * Typed errors shared by every exactly-once sink (SQL, HDFS) and the SQL offset store: an invalid
 * configuration value, and a write that failed (with the record at fault when one is proven to be).
 * `sinks/sql/errors` re-exports them, so existing imports keep working.
 */
import { KafkaEosError } from '../errors';

/** A configuration value is invalid. `field` names it (dot path, e.g. `mapping.columns.price.type`). Never retriable. */
export class SinkConfigError extends KafkaEosError {
  readonly field: string;
  constructor(field: string, message: string) {
    super('CONFIG_INVALID', `${field}: ${message}`);
    this.field = field;
  }
}

/** Codes carried by {@link SinkWriteError}. */
export type SinkWriteErrorCode =
  | 'SINK_WRITE_FAILED'       // the store rejected the write (SQL: constraint violation, type error...;
                              // HDFS: a commit that failed): not retried
  | 'SINK_WRITE_REFUSED'      // the database refuses writes altogether (privilege, missing table, a rule refusing every row): retriable
  | 'SINK_MAPPING_FAILED'     // a record could not be mapped to a row: nothing was sent to the database
  | 'SINK_BATCH_INVALID'      // the batches handed to write() are inconsistent (offsets, duplicates): nothing was sent
  | 'SINK_RETRIES_EXHAUSTED'  // transient errors persisted past the retry budget: outcome unknown, re-open to re-read positions
  | 'SINK_CLOSED';            // write()/open() after close()

/**
 * A write failed and nothing of it is visible (except possibly for SINK_RETRIES_EXHAUSTED, whose outcome is unknown:
 * call open() again to re-read the stored positions before retrying). Where known, `topic`, `partition` and `offset`
 * point at the offending record; for a statement-level failure `offset`/`lastOffset` bound the chunk of rows sent.
 * `recordAtFault` is true only when the record named was proven to be the cause (see sql/rejection.ts and
 * {@link rejectedRecord} in ./sink): a chunk's bounds never make a record a poison record.
 */
export class SinkWriteError extends KafkaEosError {
  readonly topic: string | undefined;
  readonly partition: number | undefined;
  readonly offset: bigint | undefined;
  readonly lastOffset: bigint | undefined;
  readonly recordAtFault: boolean;
  constructor(
    code: SinkWriteErrorCode,
    message: string,
    where: { topic?: string; partition?: number; offset?: bigint; lastOffset?: bigint } = {},
    options: { cause?: unknown; retriable?: boolean; recordAtFault?: boolean } = {},
  ) {
    super(code, message, options);
    this.recordAtFault = options.recordAtFault ?? false;
    this.topic = where.topic;
    this.partition = where.partition;
    this.offset = where.offset;
    this.lastOffset = where.lastOffset;
  }
}

/** A record could not be mapped to a row (bad JSON, missing non-nullable field, wrong type, mapping function threw). */
export class SinkMappingError extends SinkWriteError {
  /** The target column, when the failure is about one column. */
  readonly column: string | undefined;
  constructor(message: string, where: { topic: string; partition: number; offset: bigint; column?: string }, cause?: unknown) {
    super(
      'SINK_MAPPING_FAILED',
      `${where.topic}:${where.partition}@${where.offset}${where.column === undefined ? '' : ` column ${where.column}`}: ${message}`,
      where,
      { cause, recordAtFault: true },
    );
    this.column = where.column;
  }
}

/**
 * A record's schema needs a change of its table that the sink will not make (Kafka Connect's JDBC sink cannot make it
 * either): a field's type changed, a new required field, a new field while `auto.evolve` is off. Not a poison record:
 * every later record of the schema has the same problem, so the consumer stops (code SCHEMA_EVOLUTION_REFUSED).
 */
export class SchemaEvolutionError extends KafkaEosError {
  constructor(readonly table: string, readonly column: string, readonly field: string, message: string,
    readonly record: { topic: string; partition: number; offset: bigint }) {
    super('SCHEMA_EVOLUTION_REFUSED', `table ${table}, column ${column} (${field}), first at ${record.topic}:${record.partition}@`
      + `${record.offset}: ${message}`);
  }
}
