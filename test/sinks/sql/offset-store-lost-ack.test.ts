/**
 * SqlOffsetStore.withOffsets when a COMMIT's acknowledgement is lost and another writer acts before the
 * re-read (SQLite, and PostgreSQL when KAFKA_EOS_PG_URL is set): the caller's rows are written once, and
 * the answer is what the stored positions prove: recovered when they show this commit, fenced when they
 * show another writer's, never a second copy of the caller's writes.
 */
import type { Knex } from 'knex';
import { SqlOffsetStore } from '../../../src/sinks/sql/offset-store';
import { countRows, dropTables, openKnex, describeOn, targets, uniqueName } from './fixtures';

const tp = { topic: 'orders', partition: 0 };
const lostAck = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

/** A knex whose next transaction commits, runs `meanwhile` (another writer), then throws a lost acknowledgement. */
function losingKnex(k: Knex, meanwhile: () => Promise<unknown>) {
  let armed = true;
  let transactions = 0;
  const knex = new Proxy(k, {
    get(target, prop, receiver) {
      if (prop !== 'transaction') return Reflect.get(target, prop, receiver);
      return async (work: (trx: Knex.Transaction) => Promise<unknown>) => {
        transactions++;
        const result = await target.transaction(work);
        if (armed) { armed = false; await meanwhile(); throw lostAck(); }
        return result;
      };
    },
  });
  return { knex, transactions: () => transactions };
}

for (const target of targets()) describeOn(target)(`withOffsets after a lost COMMIT acknowledgement on ${target.name}`, () => {
  let k: Knex;
  const created: string[] = [];
  beforeAll(() => { k = openKnex(target.knexConfig()); });
  afterAll(async () => {
    if (k) { await dropTables(k, ...created); await k.destroy(); }
    target.cleanup();
  });

  async function setup(meanwhile: (other: SqlOffsetStore, rows: string) => Promise<unknown>) {
    const table = uniqueName('offs');
    const rows = uniqueName('rows');
    created.push(rows, table);
    await k.schema.createTable(rows, (t) => { t.string('writer'); t.bigInteger('n'); });
    const other = new SqlOffsetStore({ knex: k, table });
    await other.load('g', [tp]);
    const lossy = losingKnex(k, () => meanwhile(other, rows));
    const store = new SqlOffsetStore({ knex: lossy.knex, table, retry: { retries: 3, minTimeoutMs: 1, maxTimeoutMs: 5 } });
    return { store, other, rows, transactions: lossy.transactions };
  }
  const insert = (rows: string, writer: string, from: number, to: number) => async (trx: Knex.Transaction) => {
    await trx(rows).insert(Array.from({ length: to - from }, (_, i) => ({ writer, n: from + i })));
    return writer;
  };

  test('landed, then another writer continues from it before the re-read: fenced at its position, our rows once', async () => {
    const s = await setup((other, rows) => other.withOffsets('g', [{ ...tp, expectedOffset: 10n, nextOffset: 20n }],
      insert(rows, 'b', 10, 20)));
    const r = await s.store.withOffsets('g', [{ ...tp, expectedOffset: -1n, nextOffset: 10n }], insert(s.rows, 'a', 0, 10));
    expect(r).toEqual({ status: 'fenced', fenced: [{ ...tp, storedOffset: 20n }] });
    expect(await countRows(k, s.rows)).toBe(20);
    expect(Number((await k(s.rows).where('writer', 'a').count({ c: '*' }))[0]!.c)).toBe(10);
    expect((await s.other.read('g', [tp])).get('orders:0')).toBe(20n);
  });

  test('landed, then another writer reads the same position and is fenced: we re-read landed (recovered), rows once', async () => {
    let otherResult: unknown;
    const s = await setup(async (other, rows) => {
      otherResult = await other.withOffsets('g', [{ ...tp, expectedOffset: -1n, nextOffset: 10n }], insert(rows, 'b', 0, 10));
    });
    const r = await s.store.withOffsets('g', [{ ...tp, expectedOffset: -1n, nextOffset: 10n }], insert(s.rows, 'a', 0, 10));
    expect(otherResult).toEqual({ status: 'fenced', fenced: [{ ...tp, storedOffset: 10n }] });
    expect(r).toEqual({ status: 'committed', recovered: true, value: undefined });
    expect(s.transactions()).toBe(1); // the re-read decided: not written again
    expect(await k(s.rows).select('writer').distinct()).toEqual([{ writer: 'a' }]);
    expect(await countRows(k, s.rows)).toBe(10);
  });
});
