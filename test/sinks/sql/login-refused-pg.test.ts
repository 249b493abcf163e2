/**
 * A database that starts refusing the sink's login while the consumer runs (a rotated password, pg_hba.conf changed)
 * is an outage, not a failure: the sink reports it as retriable (SINK_RETRIES_EXHAUSTED after its retries), so the
 * exactly-once strategy waits it out with sink-unavailable reports instead of failing the consumer. Found by the
 * breaker: the re-read of positions after a refused write threw PostgreSQL's raw 28P01 and `kafka-eos run` exited.
 */
import knexFactory, { Knex } from 'knex';
import { SqlSink } from '../../../src/sinks/sql';
import { SinkWriteError } from '../../../src/sinks/errors';
import { pgUrl, uniqueName } from './fixtures';

const url = pgUrl();
(url || process.env.CI ? describe : describe.skip)('a refused login on a real PostgreSQL', () => {
  let direct: Knex;
  beforeAll(() => {
    if (!url) throw new Error('CI is set but KAFKA_EOS_PG_URL is not: the PostgreSQL tests must run in CI');
    direct = knexFactory({ client: 'pg', connection: url });
  });
  afterAll(async () => { await direct?.destroy(); });

  test('positions read after the password changed fail as retriable, never as the raw login error', async () => {
    const role = uniqueName('rot');
    const table = uniqueName('rot_rows');
    const offsetsTable = uniqueName('rot_off');
    await direct.raw(`CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD 'first'`);
    const asRole = new URL(url as string);
    asRole.username = role;
    asRole.password = 'first';
    const sink = new SqlSink({
      knex: { client: 'pg', connection: asRole.toString(), pool: { min: 0, max: 1 } },
      table, offsetsTable, mode: 'insert', autoCreate: true,
      mapping: { columns: { id: { path: 'id', type: 'string' } } },
      retry: { retries: 2, minTimeoutMs: 10, maxTimeoutMs: 20 },
    });
    try {
      expect((await sink.open('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(-1n);
      await direct.raw(`ALTER ROLE ${role} PASSWORD 'second'`);
      await direct.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = ?', [role]);
      const refused = await sink.open('g', [{ topic: 't', partition: 0 }]).then(() => null, (e: unknown) => e);
      expect(refused).toBeInstanceOf(SinkWriteError);
      expect(refused).toMatchObject({ code: 'SINK_RETRIES_EXHAUSTED', retriable: true });
      expect(String((refused as Error).message)).toMatch(/password authentication failed/);
      // The login works again: the same sink reads its position, nothing lost.
      await direct.raw(`ALTER ROLE ${role} PASSWORD 'first'`);
      expect((await sink.open('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(-1n);
    } finally {
      await sink.close();
      await direct.schema.dropTableIfExists(table);
      await direct.schema.dropTableIfExists(offsetsTable);
      await direct.raw(`DROP ROLE IF EXISTS ${role}`);
    }
  }, 60000);
});
