/** The demo's database: a SQLite file path (default), a postgresql:// URL or a mysql:// URL (MySQL / MariaDB). */
import type { Knex } from 'knex';
import { mysqlConnection } from '../../sinks/sql/dialect';
import { quietKnexLog } from '../knex-log';

export function isPostgres(db: string): boolean {
  return /^postgres(ql)?:\/\//.test(db);
}

/** Whether `db` is a mysql:// (or mariadb://) URL. */
export function isMysql(db: string): boolean {
  return /^(mysql|mariadb):\/\//.test(db);
}

/** What the demo says it writes to. */
export function databaseName(db: string): string {
  return isPostgres(db) ? 'PostgreSQL' : isMysql(db) ? 'MySQL/MariaDB' : `SQLite ${db}`;
}


export function knexConfig(db: string): Knex.Config {
  if (isPostgres(db)) return { client: 'pg', connection: db, pool: { min: 0, max: 4 }, log: quietKnexLog };
  if (isMysql(db)) {
    return { client: 'mysql2', connection: mysqlConnection(db.replace(/^mariadb:/, 'mysql:')), pool: { min: 0, max: 4 },
      log: quietKnexLog };
  }
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
