/** The demo's database: a SQLite file path (default) or a postgresql:// URL. */
import type { Knex } from 'knex';
import { quietKnexLog } from '../knex-log';

export function isPostgres(db: string): boolean {
  return /^postgres(ql)?:\/\//.test(db);
}


export function knexConfig(db: string): Knex.Config {
  if (isPostgres(db)) return { client: 'pg', connection: db, pool: { min: 0, max: 4 }, log: quietKnexLog };
  return { client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true, pool: { min: 1, max: 1 }, log: quietKnexLog };
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
