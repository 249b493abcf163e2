/**
 * The demo as a careless user runs it (issue 9): `--table` naming the offsets table (plain or
 * schema-qualified) or a table the demo did not create is refused before any DDL, leaving it
 * intact (item 2); many kills planned in a short run all happen before it can finish (the
 * producer is paced: src/cli/demo/pacing.ts), and the exit code reflects the data (item 9).
 * Uses the compiled CLI (`npm test` builds first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { ensureOffsetsTable } from '../../../src/sinks/sql/ddl';
import { pgUrl } from '../../sinks/sql/fixtures';
import { requireBuiltCli, runCli, expectDemoPassed } from './helpers';

jest.setTimeout(120000);

let dir: string;
beforeAll(() => {
  requireBuiltCli();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-demo-safety-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withOffsetsRow(k: Knex, group: string): Promise<() => Promise<number>> {
  await ensureOffsetsTable(k, 'kafka_eos_offsets');
  await k('kafka_eos_offsets').insert({ group_id: group, topic: 'orders', partition: 0, next_offset: 1234 });
  return async () => Number((await k('kafka_eos_offsets').where({ group_id: group }).first('next_offset'))?.next_offset ?? -1);
}

test('SQLite: --table naming the offsets table or a user table is refused, and both are left intact', async () => {
  const db = path.join(dir, 'user.sqlite');
  const k = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
  try {
    const stored = await withOffsetsRow(k, 'users-group');
    await k.schema.createTable('victim', (t) => { t.integer('id'); });
    await k('victim').insert({ id: 7 });
    for (const table of ['kafka_eos_offsets', 'KAFKA_EOS_OFFSETS', 'main.kafka_eos_offsets', 'victim']) {
      const { code, out } = await runCli(['demo', '--rows', '100', '--db', db, '--table', table, '--quiet'], 30000);
      expect(code).not.toBe(0);
      expect(out).toMatch(/DEMO_TABLE_REFUSED/);
    }
    expect(await stored()).toBe(1234);
    expect(await k('victim').select('id')).toEqual([{ id: 7 }]);
  } finally {
    await k.destroy();
  }
});

(pgUrl() || process.env.CI ? test : test.skip)(
  'PostgreSQL: --table public.kafka_eos_offsets and kafka_eos_offsets are refused, the offsets table intact', async () => {
  const url = pgUrl();
  if (!url) throw new Error('CI is set but KAFKA_EOS_PG_URL is not: the PostgreSQL tests must run in CI');
  const k = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  const group = `demo-safety-${process.pid}-${Date.now()}`;
  try {
    const stored = await withOffsetsRow(k, group);
    for (const table of ['public.kafka_eos_offsets', 'kafka_eos_offsets']) {
      const { code, out } = await runCli(['demo', '--rows', '100', '--db', url, '--table', table, '--quiet'], 30000);
      expect(code).not.toBe(0);
      expect(out).toMatch(/DEMO_TABLE_REFUSED/);
    }
    expect(await stored()).toBe(1234);
  } finally {
    await k('kafka_eos_offsets').where({ group_id: group }).delete().catch(() => undefined);
    await k.destroy();
  }
});

test('five kills in a 1,000-row run: every planned kill happens before the run can finish (demo pacing), exit code from the data',
  async () => {
  const db = path.join(dir, 'kills.sqlite');
  const { code, out } = await runCli(
    ['demo', '--rows', '1000', '--kills', '5', '--consumers', '2', '--db', db, '--session-timeout', '1000'], 110000);
  expectDemoPassed(out);
  expect(code).toBe(0);
  expect(Number(/(\d+) killed with SIGKILL/.exec(out)?.[1])).toBe(5);
  expect(out).not.toMatch(/planned kills? did not happen/);
  // The demo's own table, created by the first run, is dropped and recreated by the next one.
  const again = await runCli(['demo', '--rows', '100', '--kills', '0', '--consumers', '1', '--db', db, '--quiet'], 60000);
  expect(again.code).toBe(0);
  const k = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
  try {
    expect(Number((await k('flights').count({ n: '*' }))[0].n)).toBe(100);
  } finally {
    await k.destroy();
  }
});
