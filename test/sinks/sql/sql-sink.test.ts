import type { Knex } from 'knex';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import { SinkMappingError, SinkWriteError } from '../../../src/sinks/sql/errors';
import type { SqlSinkConfig } from '../../../src/sinks/sql/config';
import { basicMapping, batch, countRows, dropTables, duplicateCoordinates, openKnex, record, describeOn, targets,
  uniqueName } from './fixtures';

for (const target of targets()) describeOn(target)(`SqlSink on ${target.name}`, () => {
  let k: Knex;
  const tables: string[] = [];
  const sinks: SqlSink[] = [];

  function sink(overrides: Partial<SqlSinkConfig> = {}): SqlSink {
    const table = overrides.table ?? uniqueName('rows');
    const offsetsTable = overrides.offsetsTable ?? uniqueName('offs');
    tables.push(table, offsetsTable);
    const s = new SqlSink({ knex: k, table, offsetsTable, mode: 'insert', mapping: basicMapping, autoCreate: true,
      retry: { retries: 2, minTimeoutMs: 1, maxTimeoutMs: 5 }, ...overrides });
    sinks.push(s);
    return s;
  }

  beforeAll(() => { k = openKnex(target.knexConfig()); });
  afterAll(async () => {
    for (const s of sinks) await s.close();
    if (k) {
      await dropTables(k, ...tables);
      await k.destroy();
    }
    target.cleanup();
  });

  test('zombie writer: a stale writer at the same expected offset is fenced; exactly 100 rows, no duplicates', async () => {
    const a = sink();
    const b = sink({ table: a.table, offsetsTable: a.offsets.table }); // same tables, another writer
    expect((await a.open('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(-1n);
    expect((await b.open('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(-1n);
    expect(await a.write('g', [batch('t', 0, -1n, 0n, 100n, 'A')])).toEqual({ status: 'committed' });
    expect(await b.write('g', [batch('t', 0, -1n, 0n, 100n, 'B')]))
      .toEqual({ status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: 100n }] });
    const table = a.table;
    expect(await countRows(k, table)).toBe(100);
    expect(await duplicateCoordinates(k, table)).toBe(0);
    expect(await k(table).where('writer', 'B').count({ c: '*' }).then((r) => Number(r[0]!.c))).toBe(0);
    expect((await a.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(100n);
    // A continues from 100
    expect(await a.write('g', [batch('t', 0, 100n, 100n, 150n, 'A')])).toEqual({ status: 'committed' });
    expect(await countRows(k, table)).toBe(150);
  });

  test('steady-state writes (the CAS sent with BEGIN on PostgreSQL): quotes and backslashes in the group and topic, a stale writer fenced',
    async () => {
    const group = "g'\\'; DROP TABLE x; --";
    const topic = "t'\\x\\\\";
    const a = sink();
    const b = sink({ table: a.table, offsetsTable: a.offsets.table });
    const w = (s: SqlSink, expected: bigint, from: bigint, to: bigint, writer: string) =>
      s.write(group, [{ ...batch(topic, 3, expected, from, to, writer) }]);
    expect(await w(a, -1n, 0n, 10n, 'A')).toEqual({ status: 'committed' });
    expect(await w(a, 10n, 10n, 20n, 'A')).toEqual({ status: 'committed' });
    expect(await w(b, 10n, 10n, 25n, 'B')).toEqual({ status: 'fenced', fenced: [{ topic, partition: 3, storedOffset: 20n }] });
    expect(await w(a, 20n, 20n, 30n, 'A')).toEqual({ status: 'committed' });
    expect(await countRows(k, a.table)).toBe(30);
    expect(await k(a.table).where('writer', 'B').count({ c: '*' }).then((r) => Number(r[0]!.c))).toBe(0);
    expect((await a.offsets.read(group, [{ topic, partition: 3 }])).get(`${topic}:3`)).toBe(30n);
    expect(await k(a.offsets.table).where({ group_id: group, topic, partition: 3 }).first())
      .toMatchObject({ next_offset: expect.anything() });
  });

  test('grouped write: one fenced partition means nothing of the group is written', async () => {
    const s = sink();
    const table = s.table;
    await s.open('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }, { topic: 'u', partition: 0 }]);
    expect(await s.write('g', [batch('t', 1, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    const res = await s.write('g', [batch('t', 0, -1n, 0n, 20n), batch('t', 1, -1n, 0n, 10n), batch('u', 0, -1n, 5n, 30n)]);
    expect(res).toEqual({ status: 'fenced', fenced: [{ topic: 't', partition: 1, storedOffset: 10n }] });
    expect(await countRows(k, table)).toBe(10);
    const pos = await s.offsets.read('g', [{ topic: 't', partition: 0 }, { topic: 'u', partition: 0 }]);
    expect(pos.get('t:0')).toBe(-1n);
    expect(pos.get('u:0')).toBe(-1n);
    // with the right positions the same group commits
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 20n), batch('t', 1, 10n, 10n, 15n), batch('u', 0, -1n, 5n, 30n)]))
      .toEqual({ status: 'committed' });
    expect(await countRows(k, table)).toBe(10 + 20 + 5 + 25);
    expect(await duplicateCoordinates(k, table)).toBe(0);
  });

  test('empty batches advance the offset; non-contiguous offsets use nextOffset, not a count', async () => {
    const s = sink();
    const table = s.table;
    expect(await s.write('g', [{ topic: 't', partition: 0, expectedOffset: -1n, nextOffset: 7n, records: [] }]))
      .toEqual({ status: 'committed' });
    const sparse = { topic: 't', partition: 0, expectedOffset: 7n, nextOffset: 42n,
      records: [record('t', 0, 9n, { id: 'x', n: 9, writer: 'w' }), record('t', 0, 40n, { id: 'y', n: 40, writer: 'w' })] };
    expect(await s.write('g', [sparse])).toEqual({ status: 'committed' });
    expect((await s.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(42n);
    const rows = await k(table).select('kafka_offset', 'n').orderBy('kafka_offset');
    expect(rows.map((r) => [String(r.kafka_offset), String(r.n)])).toEqual([['9', '9'], ['40', '40']]);
  });

  test('upsert and kafka-key replays leave the same table', async () => {
    const recs = (from: bigint, to: bigint) => {
      const b = batch('t', 0, -1n, from, to);
      // keys repeat every 7 records: upsert collapses them to the latest
      b.records = b.records.map((r) => record('t', 0, r.offset, { id: `k${Number(r.offset) % 7}`, n: Number(r.offset), writer: 'w' }));
      return b;
    };
    for (const mode of ['upsert', 'kafka-key'] as const) {
      const s = sink({ mode, upsertKey: mode === 'upsert' ? ['id'] : undefined });
      const table = s.table;
      const snapshot = async () => (await k(table).select('id', 'n', 'kafka_offset'))
        .map((r) => `${r.id}/${String(r.n)}/${String(r.kafka_offset)}`).sort();
      expect(await s.write('g', [recs(0n, 20n)])).toEqual({ status: 'committed' });
      expect(await s.write('g', [{ ...recs(20n, 30n), expectedOffset: 20n }])).toEqual({ status: 'committed' });
      const before = await snapshot();
      expect(before.length).toBe(mode === 'upsert' ? 7 : 30);
      if (mode === 'upsert') expect(before).toContain('k1/29/29');
      // rewind the stored position (an operator replays the partition), then replay both batches
      await k(s.offsets.table).update({ next_offset: -1 });
      expect(await s.write('g', [recs(0n, 20n)])).toEqual({ status: 'committed' });
      expect(await s.write('g', [{ ...recs(20n, 30n), expectedOffset: 20n }])).toEqual({ status: 'committed' });
      expect(await snapshot()).toEqual(before);
    }
  });

  test('upsert across partitions of one write: the later batch wins a repeated key; a composite key; distinct keys all land', async () => {
    const keyed = (p: number, from: bigint, to: bigint, id: (o: number) => string) => {
      const b = batch('t', p, -1n, from, to);
      b.records = b.records.map((r) =>
        record('t', p, r.offset, { id: id(Number(r.offset)), n: Number(r.offset) * 10 + p, writer: `w${p}` }));
      return b;
    };
    const s = sink({ mode: 'upsert', upsertKey: ['id'] });
    expect(await s.write('g', [keyed(0, 0n, 5n, (o) => `k${o}`), keyed(1, 0n, 3n, (o) => `k${o + 2}`)])).toEqual({ status: 'committed' });
    const rows = (await k(s.table).select('id', 'n', 'writer', 'kafka_partition', 'kafka_offset'))
      .map((r) => `${r.id}/${String(r.n)}/${r.writer}/${String(r.kafka_partition)}@${String(r.kafka_offset)}`).sort();
    // k2..k4 came from partition 0 first, then again from partition 1 (later in the write): partition 1's rows win
    expect(rows).toEqual(['k0/0/w0/0@0', 'k1/10/w0/0@1', 'k2/1/w1/1@0', 'k3/11/w1/1@1', 'k4/21/w1/1@2']);
    const pair = sink({ mode: 'upsert', upsertKey: ['id', 'writer'] });
    expect(await pair.write('g', [keyed(0, 0n, 4n, (o) => `k${o % 2}`), keyed(1, 0n, 2n, () => 'k0')])).toEqual({ status: 'committed' });
    const pairs = (await k(pair.table).select('id', 'writer', 'n')).map((r) => `${r.id}/${r.writer}/${String(r.n)}`).sort();
    expect(pairs).toEqual(['k0/w0/20', 'k0/w1/11', 'k1/w0/30']);
    expect((await s.offsets.read('g', [{ topic: 't', partition: 1 }])).get('t:1')).toBe(3n);
  });

  test('mapping failure: typed error with the record coordinates, nothing written, offset unchanged', async () => {
    const s = sink();
    const table = s.table;
    await s.open('g', [{ topic: 't', partition: 0 }]);
    const b = batch('t', 0, -1n, 0n, 10n);
    b.records[6] = record('t', 0, 6n, { id: 'x', n: 'not a number', writer: 'w' });
    const err = await s.write('g', [b]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkMappingError);
    expect(err).toMatchObject({ code: 'SINK_MAPPING_FAILED', topic: 't', partition: 0, offset: 6n, column: 'n', retriable: false });
    b.records[6] = record('t', 0, 6n, '{not json');
    await expect(s.write('g', [b])).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED', offset: 6n });
    const fn = sink({ mapping: () => { throw new Error('nope'); }, autoCreate: false, table: table });
    await expect(fn.write('g', [b])).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED', offset: 0n });
    expect(await countRows(k, table)).toBe(0);
    expect((await s.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(-1n);
  });

  test('constraint violation: typed error, whole transaction rolled back, not retried', async () => {
    const table = uniqueName('strict');
    tables.push(table);
    await k.schema.createTable(table, (t) => {
      t.text('kafka_topic'); t.integer('kafka_partition'); t.bigInteger('kafka_offset'); t.text('id').unique();
      t.bigInteger('n'); t.text('writer');
    });
    let calls = 0;
    const s = sink({ table, autoCreate: false, mapping: (r) => { calls++; return { ...JSON.parse(r.value!.toString()) }; } });
    const b1 = batch('t', 0, -1n, 0n, 5n);
    const b2 = batch('t', 1, -1n, 0n, 5n);
    b2.records[3] = record('t', 1, 3n, { id: 't-0-2', n: 3, writer: 'w' }); // collides with b1's row at offset 2
    const err = await s.write('g', [b1, b2]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkWriteError);
    // The offending record itself is named, not just its statement's range.
    expect(err).toMatchObject({ code: 'SINK_WRITE_FAILED', topic: 't', partition: 1, offset: 3n, lastOffset: 3n, retriable: false });
    expect(calls).toBe(10); // mapped once: not retried
    expect(await countRows(k, table)).toBe(0);
    const pos = await s.offsets.read('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
    expect([pos.get('t:0'), pos.get('t:1')]).toEqual([-1n, -1n]);
  });

  test('identifiers with quotes, semicolons and spaces are quoted, never injected', async () => {
    const evilTable = `ev"il\`; DROP TABLE x; --${uniqueName('')}`.slice(0, 60);
    const evilOffsets = `o'ff"; --${uniqueName('')}`.slice(0, 60);
    const s = sink({
      table: evilTable, offsetsTable: evilOffsets, mode: 'upsert', upsertKey: ['the "id"; --'],
      mapping: { columns: { 'the "id"; --': { path: 'id', type: 'string' }, "n'); DROP": { path: 'n', type: 'bigint' },
        'w`x': { path: 'writer', type: 'string', nullable: true } } },
    });
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 3n)])).toEqual({ status: 'committed' });
    expect(await s.write('g', [batch('t', 0, 3n, 3n, 5n)])).toEqual({ status: 'committed' });
    const rows = await k(evilTable).select('the "id"; --', "n'); DROP", 'w`x').orderBy('the "id"; --');
    expect(rows.map((r) => r['the "id"; --'])).toEqual(['t-0-0', 't-0-1', 't-0-2', 't-0-3', 't-0-4']);
    expect((await s.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(5n);
  });

  test('typed columns: integer, float, boolean, json, timestamp, $key, $headers', async () => {
    const s = sink({
      mode: 'kafka-key',
      mapping: { columns: {
        i: { path: 'a.i', type: 'integer' }, f: { path: 'a.f', type: 'float' }, b: { path: 'b', type: 'boolean' },
        j: { path: 'j', type: 'json' }, ts: { path: '$timestamp', type: 'timestamp' }, k: { path: '$key', type: 'string', nullable: true },
        h: { path: '$headers.trace', type: 'string', nullable: true }, missing: { path: 'nope', type: 'string', nullable: true },
      } },
    });
    const r = record('t', 0, 0n, { a: { i: 42, f: 1.5 }, b: true, j: { x: [1, 2] } }, 'key-1');
    r.headers = { trace: Buffer.from('abc') };
    expect(await s.write('g', [{ topic: 't', partition: 0, expectedOffset: -1n, nextOffset: 1n, records: [r] }]))
      .toEqual({ status: 'committed' });
    const [row] = await k(s.table).select('*');
    expect(row.i).toBe(42);
    expect(row.f).toBe(1.5);
    expect(Boolean(row.b)).toBe(true);
    expect(typeof row.j === 'string' ? JSON.parse(row.j) : row.j).toEqual({ x: [1, 2] });
    expect(new Date(row.ts).getTime()).toBe(1_700_000_000_000);
    expect([row.k, row.h, row.missing]).toEqual(['key-1', 'abc', null]);
  });

  test('large batches are split into several statements', async () => {
    const s = sink({ maxRowsPerStatement: 37 });
    const n = 1000n;
    expect(await s.write('g', [batch('t', 0, -1n, 0n, n)])).toEqual({ status: 'committed' });
    expect(await countRows(k, s.table)).toBe(Number(n));
    expect(await duplicateCoordinates(k, s.table)).toBe(0);
  });

  test('invalid batches are rejected before any write', async () => {
    const s = sink();
    const b = batch('t', 0, -1n, 0n, 5n);
    await expect(s.write('g', [{ ...b, nextOffset: 4n }])).rejects.toMatchObject({ code: 'SINK_BATCH_INVALID', offset: 4n });
    await expect(s.write('g', [{ ...b, records: [b.records[1]!, b.records[0]!] }])).rejects.toMatchObject({ code: 'SINK_BATCH_INVALID' });
    await expect(s.write('g', [{ ...b, records: [record('x', 0, 1n, {})] }])).rejects.toMatchObject({ code: 'SINK_BATCH_INVALID' });
    await expect(s.write('g', [b, b])).rejects.toMatchObject({ code: 'SINK_BATCH_INVALID' });
    expect(await countRows(k, s.table)).toBe(0);
    await s.close();
    await expect(s.write('g', [b])).rejects.toMatchObject({ code: 'SINK_CLOSED' });
  });
});
