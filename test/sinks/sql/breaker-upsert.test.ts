/**
 * Breaker tests (issue 25): upsert on the flat path, repeated keys of one write collapsed with a Map (the last record
 * of a key wins, across batches), composite keys, keys told apart by type; a record rejected by the database among
 * collapsed rows is blamed at its own offset.
 */
import type { Knex } from 'knex';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import type { SinkBatch } from '../../../src/records';
import { describeOn, dropTables, openKnex, record, targets, uniqueName } from './fixtures';

const [sqlite, postgres] = targets();

for (const target of [sqlite!, postgres!]) describeOn(target)(`upsert with repeated keys on ${target.name}`, () => {
  let k: Knex;
  const tables: string[] = [];
  const sinks: SqlSink[] = [];
  beforeAll(() => { k = openKnex(target.knexConfig()); });
  afterAll(async () => {
    for (const s of sinks) await s.close();
    if (k) { await dropTables(k, ...tables); await k.destroy(); }
    target.cleanup();
  });

  function sink(upsertKey: string[], columns: Record<string, { type: 'string' | 'integer' | 'bigint' }>): SqlSink {
    const table = uniqueName('brk_up');
    const offsetsTable = uniqueName('brk_uo');
    tables.push(table, offsetsTable);
    const s = new SqlSink({
      knex: k, table, offsetsTable, mode: 'upsert', upsertKey, mapping: { columns }, autoCreate: true,
      retry: { retries: 1, minTimeoutMs: 1, maxTimeoutMs: 2 },
    });
    sinks.push(s);
    return s;
  }
  const b = (topic: string, partition: number, expected: bigint, values: unknown[]): SinkBatch => {
    const from = expected < 0n ? 0n : expected;
    return {
      topic, partition, expectedOffset: expected, nextOffset: from + BigInt(values.length),
      records: values.map((v, i) => record(topic, partition, from + BigInt(i), v)),
    };
  };

  test('one key repeated within a batch and across batches of one write: the last record (later batch) wins', async () => {
    const s = sink(['id'], { id: { type: 'string' }, v: { type: 'integer' } });
    await s.open('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
    const res = await s.write('g', [
      b('t', 0, -1n, [{ id: 'a', v: 1 }, { id: 'b', v: 2 }, { id: 'a', v: 3 }, { id: '1', v: 4 }]),
      b('t', 1, -1n, [{ id: 'b', v: 5 }, { id: 'c', v: 6 }]),
    ]);
    expect(res).toEqual({ status: 'committed' });
    const rows = await k(s.table).select('id', 'v', 'kafka_partition', 'kafka_offset').orderBy('id');
    expect(rows.map((r: Record<string, unknown>) => [r.id, Number(r.v), Number(r.kafka_partition), Number(r.kafka_offset)]))
      .toEqual([['1', 4, 0, 3], ['a', 3, 0, 2], ['b', 5, 1, 0], ['c', 6, 1, 1]]);
    const pos = await s.offsets.read('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
    expect([pos.get('t:0'), pos.get('t:1')]).toEqual([4n, 2n]);
    // The next write updates in place.
    expect(await s.write('g', [b('t', 0, 4n, [{ id: 'a', v: 7 }, { id: 'a', v: 8 }])])).toEqual({ status: 'committed' });
    expect(Number((await k(s.table).where('id', 'a').first()).v)).toBe(8);
  });

  test('composite key: rows equal on one key column only are both kept; a full repeat collapses to the last', async () => {
    const s = sink(['a', 'n'], { a: { type: 'string' }, n: { type: 'bigint' }, v: { type: 'integer' } });
    await s.open('g', [{ topic: 't', partition: 0 }]);
    const res = await s.write('g', [b('t', 0, -1n, [
      { a: 'x', n: 1, v: 1 }, { a: 'x', n: 2, v: 2 }, { a: 'x', n: '1', v: 3 }, { a: '["x",1]', n: 1, v: 4 },
      { a: 'y', n: '9007199254740993', v: 5 }, { a: 'y', n: '9007199254740993', v: 6 },
    ])]);
    expect(res).toEqual({ status: 'committed' });
    const rows = await k(s.table).select('a', k.raw('CAST(n AS TEXT) AS n'), 'v').orderBy(['a', 'n']);
    expect(rows.map((r: Record<string, unknown>) => [r.a, String(r.n), Number(r.v)]))
      .toEqual([['["x",1]', '1', 4], ['x', '1', 3], ['x', '2', 2], ['y', '9007199254740993', 6]]);
  });

  // PostgreSQL only: the test adds a CHECK constraint to the table, which SQLite's ALTER TABLE cannot.
  if (target.name === 'postgres') {
    test('a rejected row among collapsed keys is blamed at its offset', async () => {
      const s = sink(['id'], { id: { type: 'string' }, v: { type: 'integer' } });
      await s.open('g', [{ topic: 't', partition: 0 }]);
      expect(await s.write('g', [b('t', 0, -1n, [{ id: 'z', v: 0 }])])).toEqual({ status: 'committed' });
      await k.raw(`ALTER TABLE "${s.table}" ADD CONSTRAINT brk_no13 CHECK (v <> 13)`);
      expect(await s.write('g', [b('t', 0, 1n, [{ id: 'b', v: 13 }, { id: 'b', v: 2 }])])).toEqual({ status: 'committed' });
      const err = await s.write('g', [b('t', 0, 3n, [{ id: 'a', v: 1 }, { id: 'c', v: 13 }, { id: 'a', v: 2 }])]).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'SINK_WRITE_FAILED', recordAtFault: true, topic: 't', partition: 0, offset: 4n });
      expect((await k(s.table).select('id').orderBy('id')).map((r: { id: string }) => r.id)).toEqual(['b', 'z']);
    });
  }
});
