/**
 * Breaker test (issue 25): the PostgreSQL steady-state CAS inlines the group id as a literal. Under a client-only
 * client_encoding (GBK, BIG5: a byte 0x5C can be the second byte of a character), the UTF-8 bytes node-postgres
 * sends can swallow one backslash of an escaped `\\`, leaving `\'`: PostgreSQL refuses it (22P06, with the default
 * backslash_quote) and the write never commits although the parameterised CAS works; with backslash_quote on, the
 * quote is escaped and the rest of the name runs as SQL. A name holding a backslash must keep the parameterised CAS.
 */
import type { Knex } from 'knex';
import { SqlOffsetStore } from '../../../src/sinks/sql/offset-store';
import { describeOn, dropTables, openKnex, targets, uniqueName } from './fixtures';

const [, postgres] = targets();

for (const encoding of ['GBK', 'BIG5']) describeOn(postgres!)(`steady-state CAS under client_encoding ${encoding}`, () => {
  let k: Knex;
  let store: SqlOffsetStore;
  const table = uniqueName('brk_enc');

  beforeAll(async () => {
    k = openKnex({
      ...postgres!.knexConfig(),
      pool: {
        min: 0, max: 1,
        afterCreate: (conn: { query(s: string, cb: (e: Error | null) => void): void }, done: (e: Error | null, c: unknown) => void) => {
          conn.query(`SET client_encoding = '${encoding}'; SET backslash_quote = on`, (e) => done(e, conn));
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

  test('a group id with a backslash after a CJK character: committed, only its own row moved', async () => {
    const group = "中\\' OR 1=1 --";
    const tp = { topic: 't', partition: 0 };
    await store.load(group, [tp]);
    await store.load('other', [tp]);
    const adv = (e: bigint, n: bigint) => [{ ...tp, expectedOffset: e, nextOffset: n }];
    expect((await store.withOffsetsOn('other', adv(-1n, 5n), async () => 1)).status).toBe('committed');
    expect((await store.withOffsetsOn(group, adv(-1n, 5n), async () => 1)).status).toBe('committed');
    expect((await store.withOffsetsOn(group, adv(5n, 9n), async () => 1)).status).toBe('committed');
    expect((await store.read('other', [tp])).get('t:0')).toBe(5n);
    expect((await store.read(group, [tp])).get('t:0')).toBe(9n);
  });
});
