/** The demo's database: a SQLite file path (default) or a postgresql:// URL. */
import type { Knex } from 'knex';

export function isPostgres(db: string): boolean {
  return /^postgres(ql)?:\/\//.test(db);
}

/** knex logs connection errors with stack traces; the CLI reports each error once, by name. */
const quietLog = { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined };

export function knexConfig(db: string): Knex.Config {
  if (isPostgres(db)) return { client: 'pg', connection: db, pool: { min: 0, max: 4 }, log: quietLog };
  return { client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true, pool: { min: 1, max: 1 }, log: quietLog };
}

/** The declarative mapping from a flight's JSON value to the demo table's columns. */
export const FLIGHT_MAPPING = {
  columns: {
    seq: { path: 'seq', type: 'integer' as const },
    delay: { path: 'delay', type: 'integer' as const },
    distance: { path: 'distance', type: 'integer' as const },
    time: { path: 'time', type: 'float' as const },
  },
  includeKafkaCoordinates: true,
};
