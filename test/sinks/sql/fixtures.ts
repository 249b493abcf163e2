/** Shared fixtures for the SQL sink and SQL offset store tests (not a test file). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { knex as makeKnex, type Knex } from 'knex';
import type { SinkBatch, SinkRecord } from '../../../src/records';
import { createKnex } from '../../../src/sinks/sql/dialect';

/**
 * A database the suites run against. `knexConfig()` throws when PostgreSQL is required (CI) but not configured.
 * `skip`: PostgreSQL without KAFKA_EOS_PG_URL outside CI; its suites are reported as skipped (see {@link describeOn}).
 */
export interface Target { name: 'sqlite' | 'postgres' | 'mysql'; skip: boolean; knexConfig(): Knex.Config; cleanup(): void }

export function pgUrl(): string | undefined {
  const u = process.env.KAFKA_EOS_PG_URL;
  return u === undefined || u === '' ? undefined : u;
}

export function mariadbUrl(): string | undefined {
  const u = process.env.KAFKA_EOS_MARIADB_URL;
  return u === undefined || u === '' ? undefined : u;
}

/**
 * MariaDB (MySQL dialect, mysql2): runs when KAFKA_EOS_MARIADB_URL is set (.ci/run starts a server); when CI is set
 * without it, its suites run and fail; locally without it, they are reported as skipped.
 */
export function mariadbTarget(): Target {
  const url = mariadbUrl();
  return {
    name: 'mysql',
    skip: url === undefined && !process.env.CI,
    knexConfig: url === undefined
      ? () => { throw new Error('CI is set but KAFKA_EOS_MARIADB_URL is not: the MariaDB tests must run in CI'); }
      : () => ({ client: 'mysql2', connection: url, pool: { min: 0, max: 4 } }),
    cleanup: () => undefined,
  };
}

/**
 * SQLite, PostgreSQL and MariaDB ({@link mariadbTarget}). PostgreSQL runs when KAFKA_EOS_PG_URL is set; when CI is set without it, its
 * suites run and fail (knexConfig throws); locally without it, they are skipped and show as skipped in jest's summary
 * (test/global-setup.js says why, once per run).
 */
export function targets(): Target[] {
  const url = pgUrl();
  const missing = () => { throw new Error('CI is set but KAFKA_EOS_PG_URL is not: the PostgreSQL tests must run in CI'); };
  return [sqliteTarget(), {
    name: 'postgres',
    skip: url === undefined && !process.env.CI,
    knexConfig: url === undefined ? missing : () => ({ client: 'pg', connection: url, pool: { min: 0, max: 4 } }),
    cleanup: () => undefined,
  }, mariadbTarget()];
}

/** `describe`, or `describe.skip` for a target that is skipped (so its tests are counted as skipped). */
export function describeOn(target: Target): jest.Describe {
  return target.skip ? describe.skip : describe;
}

export function sqliteTarget(): Target {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-sql-'));
  return {
    name: 'sqlite',
    skip: false,
    knexConfig: () => ({ client: 'sqlite3', connection: { filename: path.join(dir, `db-${uniqueName('f')}.sqlite`) } }),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

let counter = 0;
/** A table name unique to this process and call (PostgreSQL suites share one database). */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${(counter++).toString(36)}`;
}

/** A knex instance for direct inspection, with the sink's SQLite and MySQL connection settings. */
export function openKnex(config: Knex.Config): Knex {
  return config.client === 'sqlite3' || config.client === 'mysql2' ? createKnex(config) : makeKnex(config);
}

export async function dropTables(k: Knex, ...tables: string[]): Promise<void> {
  for (const t of tables) await k.schema.dropTableIfExists(t);
}

export function record(topic: string, partition: number, offset: bigint, value: unknown, key: string | null = null): SinkRecord {
  return {
    topic, partition, offset,
    key: key === null ? null : Buffer.from(key),
    value: value === undefined ? null : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    timestamp: 1_700_000_000_000n + offset,
    headers: {},
  };
}

/** A batch of records at offsets [from, to) with JSON values { id, n, writer }. */
export function batch(topic: string, partition: number, expected: bigint, from: bigint, to: bigint, writer = 'w'): SinkBatch {
  const records: SinkRecord[] = [];
  for (let o = from; o < to; o++) records.push(record(topic, partition, o, { id: `${topic}-${partition}-${o}`, n: Number(o), writer }));
  return { topic, partition, expectedOffset: expected, nextOffset: to, records };
}

/** A declarative mapping for the values made by {@link batch}. */
export const basicMapping = {
  columns: {
    id: { type: 'string' as const },
    n: { type: 'bigint' as const },
    writer: { type: 'string' as const },
  },
};

/** Rows of (kafka_topic, kafka_partition, kafka_offset) appearing more than once. */
export async function duplicateCoordinates(k: Knex, table: string): Promise<number> {
  const rows = await k(table).select('kafka_topic', 'kafka_partition', 'kafka_offset').count({ c: '*' })
    .groupBy('kafka_topic', 'kafka_partition', 'kafka_offset').havingRaw('count(*) > ?', [1]);
  return rows.length;
}

export async function countRows(k: Knex, table: string): Promise<number> {
  const [r] = await k(table).count({ c: '*' });
  return Number(r!.c);
}
