import type { Knex } from 'knex';
import { SqlOffsetStore } from '../../../src/sinks/sql/offset-store';
import { SinkConfigError, SinkWriteError } from '../../../src/sinks/sql/errors';
import { countRows, dropTables, openKnex, describeOn, targets, uniqueName } from './fixtures';

const tp = { topic: 'orders', partition: 3 };

for (const target of targets()) describeOn(target)(`SqlOffsetStore on ${target.name}`, () => {
  let k: Knex;
  let table: string;
  let store: SqlOffsetStore;
  const created: string[] = [];

  beforeAll(() => {
    k = openKnex(target.knexConfig());
  });
  beforeEach(() => {
    table = uniqueName('offs');
    created.push(table);
    store = new SqlOffsetStore({ knex: k, table, retry: { retries: 2, minTimeoutMs: 1, maxTimeoutMs: 5 } });
  });
  afterAll(async () => {
    if (k) {
      await dropTables(k, ...created);
      await k.destroy();
    }
    target.cleanup();
  });

  test('load creates the table, seeds -1 once, and does not overwrite an existing position', async () => {
    const first = await store.load('g', [tp, { topic: 'orders', partition: 4 }, tp]);
    expect([...first.entries()]).toEqual([['orders:3', -1n], ['orders:4', -1n]]);
    expect(await countRows(k, table)).toBe(2);
    expect(await store.compareAndSet(undefined, 'g', tp, -1n, 10n)).toBe(true);
    const again = await store.load('g', [tp]);
    expect(again.get('orders:3')).toBe(10n);
    expect(await countRows(k, table)).toBe(2);
    // another group is independent
    expect((await store.load('other', [tp])).get('orders:3')).toBe(-1n);
  });

  test('compareAndSet moves only from the expected position', async () => {
    await store.load('g', [tp]);
    expect(await store.compareAndSet(undefined, 'g', tp, 5n, 6n)).toBe(false);
    expect(await store.compareAndSet(undefined, 'g', tp, -1n, 100n)).toBe(true);
    expect(await store.compareAndSet(undefined, 'g', tp, -1n, 100n)).toBe(false); // a stale writer
    expect(await store.compareAndSet(undefined, 'g', tp, 99n, 200n)).toBe(false);
    expect(await store.compareAndSet(undefined, 'g', tp, 100n, 250n)).toBe(true); // non-contiguous advance
    expect((await store.read('g', [tp])).get('orders:3')).toBe(250n);
  });

  test('compareAndSet from -1 works on an absent row (seeds it), and read reports absent rows as -1', async () => {
    await store.ensureTable();
    expect((await store.read('g', [tp])).get('orders:3')).toBe(-1n);
    expect(await countRows(k, table)).toBe(0);
    expect(await store.compareAndSet(undefined, 'g', tp, -1n, 7n)).toBe(true);
    expect((await store.read('g', [tp])).get('orders:3')).toBe(7n);
  });

  test('offsets beyond 2^53 round-trip exactly', async () => {
    const big = 9_007_199_254_740_993n; // 2^53 + 1: not representable as a double
    const max = 9_223_372_036_854_775_807n;
    expect(await store.compareAndSet(undefined, 'g', tp, -1n, big)).toBe(true);
    expect((await store.read('g', [tp])).get('orders:3')).toBe(big);
    expect(await store.compareAndSet(undefined, 'g', tp, big - 1n, max)).toBe(false);
    expect(await store.compareAndSet(undefined, 'g', tp, big, max)).toBe(true);
    expect((await store.load('g', [tp])).get('orders:3')).toBe(max);
  });

  test('withOffsets commits the caller writes and the positions together', async () => {
    const data = uniqueName('data');
    created.push(data);
    await k.schema.createTable(data, (t) => { t.integer('v'); });
    const res = await store.withOffsets('g', [{ ...tp, expectedOffset: -1n, nextOffset: 3n }], async (trx) => {
      await trx(data).insert([{ v: 1 }, { v: 2 }]);
      return 'done';
    });
    expect(res).toEqual({ status: 'committed', recovered: false, value: 'done' });
    expect(await countRows(k, data)).toBe(2);
    expect((await store.read('g', [tp])).get('orders:3')).toBe(3n);

    // stale: fenced, callback not called, nothing written
    let called = false;
    const stale = await store.withOffsets('g', [{ ...tp, expectedOffset: -1n, nextOffset: 3n }], async (trx) => {
      called = true;
      await trx(data).insert({ v: 99 });
    });
    expect(stale).toEqual({ status: 'fenced', fenced: [{ ...tp, storedOffset: 3n }] });
    expect(called).toBe(false);
    expect(await countRows(k, data)).toBe(2);

    // the callback throws: positions roll back with the writes, the error comes out unchanged
    const boom = new Error('user failure');
    await expect(store.withOffsets('g', [{ ...tp, expectedOffset: 3n, nextOffset: 5n }], async (trx) => {
      await trx(data).insert({ v: 3 });
      throw boom;
    })).rejects.toBe(boom);
    expect(await countRows(k, data)).toBe(2);
    expect((await store.read('g', [tp])).get('orders:3')).toBe(3n);
  });

  test('withOffsets over several partitions: one stale partition fences the whole group', async () => {
    const a = { topic: 'a', partition: 0 };
    const b = { topic: 'b', partition: 1 };
    expect(await store.compareAndSet(undefined, 'g', b, -1n, 50n)).toBe(true);
    const res = await store.withOffsets('g', [
      { ...a, expectedOffset: -1n, nextOffset: 10n },
      { ...b, expectedOffset: 40n, nextOffset: 60n },
    ], async () => 'never');
    expect(res).toEqual({ status: 'fenced', fenced: [{ ...b, storedOffset: 50n }] });
    const stored = await store.read('g', [a, b]);
    expect(stored.get('a:0')).toBe(-1n); // a's CAS was rolled back
    expect(stored.get('b:1')).toBe(50n);
  });

  test('withOffsets rejects inconsistent advances before touching the database', async () => {
    await expect(store.withOffsets('g', [{ ...tp, expectedOffset: 5n, nextOffset: 4n }], async () => 1))
      .rejects.toMatchObject({ code: 'SINK_BATCH_INVALID' });
    await expect(store.withOffsets('g', [{ ...tp, expectedOffset: 1n, nextOffset: 2n }, { ...tp, expectedOffset: 2n, nextOffset: 3n }],
      async () => 1))
      .rejects.toBeInstanceOf(SinkWriteError);
    await expect(store.withOffsets('g', [{ ...tp, expectedOffset: -2n, nextOffset: 2n }], async () => 1))
      .rejects.toMatchObject({ code: 'SINK_BATCH_INVALID' });
  });

  test('two stores creating the same table at once both succeed', async () => {
    const shared = uniqueName('race');
    created.push(shared);
    const k2 = openKnex(target.knexConfig().client === 'sqlite3' ? { ...(k.client.config as Knex.Config) } : target.knexConfig());
    try {
      const s1 = new SqlOffsetStore({ knex: k, table: shared });
      const s2 = new SqlOffsetStore({ knex: k2, table: shared });
      const [m1, m2] = await Promise.all([s1.load('g', [tp]), s2.load('g', [tp])]);
      expect(m1.get('orders:3')).toBe(-1n);
      expect(m2.get('orders:3')).toBe(-1n);
      expect(await countRows(k, shared)).toBe(1);
    } finally {
      await k2.destroy();
    }
  });
});

describe('SqlOffsetStore config', () => {
  test('rejects bad names and retry options, naming the field', () => {
    const knexConfig = { client: 'sqlite3', connection: { filename: ':memory:' } };
    expect(() => new SqlOffsetStore({ knex: knexConfig, table: 'a.b' }))
      .toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: 'offsetsTable' }));
    expect(() => new SqlOffsetStore({ knex: knexConfig, retry: { retries: -1 } })).toThrow(SinkConfigError);
    expect(() => new SqlOffsetStore({ knex: { client: 'mssql' } })).toThrow(expect.objectContaining({ field: 'knex.client' }));
  });
});
