/**
 * Breaker tests (issue 25): the PostgreSQL steady-state CAS inlines the group id and topic as literals (escapeLiteral)
 * in the message that carries BEGIN. Hostile names must match exactly their own position row, under
 * standard_conforming_strings on and off, and a stale CAS must still be fenced; no connection is left in a transaction.
 */
import type { Knex } from 'knex';
import { SqlOffsetStore } from '../../../src/sinks/sql/offset-store';
import { describeOn, dropTables, openKnex, targets, uniqueName } from './fixtures';

const [, postgres] = targets();

const NAMES = [
  "it's", 'back\\slash', "\\'", "'; DROP TABLE x; --", '$$x$$', "E'x'", '\u2028\u2029', '/* c */', '--', '\\x41',
  "\\'; SELECT 1; --", 'x'.repeat(5000), '\u00e9\u4e2d\ud83d\ude00', "''", '\\\\',
];

for (const scs of ['on', 'off'] as const) describeOn(postgres!)(`CAS literals with standard_conforming_strings ${scs}`, () => {
  let k: Knex;
  let store: SqlOffsetStore;
  const table = uniqueName('brk_off');

  beforeAll(async () => {
    const cfg = postgres!.knexConfig();
    k = openKnex({
      ...cfg,
      pool: {
        min: 0, max: 2,
        afterCreate: (conn: { query(s: string, cb: (e: Error | null) => void): void }, done: (e: Error | null, c: unknown) => void) => {
          conn.query(`SET standard_conforming_strings = ${scs}`, (e) => done(e, conn));
        },
      },
    });
    store = new SqlOffsetStore({ knex: k, table });
    await store.ensureTable();
  });
  afterAll(async () => {
    await store?.close();
    if (k) { await dropTables(k, table); await k.destroy(); }
  });

  test.each(NAMES.map((n, i) => [i, n]))('name #%i: steady-state CAS matches only its own row; stale is fenced', async (_i, name) => {
    const group = `g${name}`;
    const decoy = 'A';
    const tps = [{ topic: name, partition: 0 }];
    await store.load(group, tps);
    await store.load(decoy, [{ topic: decoy, partition: 0 }]);
    await store.load(group, [{ topic: decoy, partition: 0 }]);
    const adv = (e: bigint, n: bigint) => [{ topic: name, partition: 0, expectedOffset: e, nextOffset: n }];
    expect((await store.withOffsetsOn(group, adv(-1n, 5n), async () => 'a')).status).toBe('committed');
    expect((await store.withOffsetsOn(group, adv(5n, 10n), async () => 'b')).status).toBe('committed'); // inline path
    const stale = await store.withOffsetsOn(group, adv(5n, 12n), async () => 'c');
    expect(stale).toEqual({ status: 'fenced', fenced: [{ topic: name, partition: 0, storedOffset: 10n }] });
    expect((await store.load(group, tps)).get(`${name}:0`)).toBe(10n);
    expect((await store.load(decoy, [{ topic: decoy, partition: 0 }])).get('A:0')).toBe(-1n);
    expect((await store.load(group, [{ topic: decoy, partition: 0 }])).get('A:0')).toBe(-1n);
    const open = await k.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()
      AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()`);
    expect(open.rows[0].n).toBe(0);
  });
});
