/**
 * Whose fault a refused write is (src/sinks/sql/rejection.ts): one record's only when the database
 * rejects that row and accepts the others; otherwise SINK_WRITE_REFUSED (retriable, no record named).
 */
import type { Knex } from 'knex';
import { rejectedRecord } from '../../../src/sink-contract';
import { SqlSink } from '../../../src/sinks/sql';
import { classifyRejection, isSystemicSqlError } from '../../../src/sinks/sql/rejection';
import { batch, countRows, openKnex, describeOn, targets, uniqueName } from './fixtures';

jest.setTimeout(30000);

for (const target of targets()) {
  describeOn(target)(target.name, () => {
    let k: Knex;
    const sinks: SqlSink[] = [];
    const tables: string[] = [];
    beforeAll(() => { k = openKnex(target.knexConfig()); });
    afterAll(async () => {
      for (const s of sinks) await s.close();
      for (const t of tables) await k.schema.dropTableIfExists(t).catch(() => undefined);
      await k.destroy();
      target.cleanup();
    });

    /** A sink over a table whose `n` column must be below `limit` (a CHECK constraint). */
    async function checkedSink(limit: number): Promise<SqlSink> {
      const table = uniqueName('rej');
      const offsetsTable = `${table}_o`;
      tables.push(table, offsetsTable);
      await k.schema.createTable(table, (t) => {
        t.text('kafka_topic'); t.integer('kafka_partition'); t.bigInteger('kafka_offset'); t.text('id');
        t.bigInteger('n'); t.text('writer');
        t.check(`?? < ${limit}`, ['n']);
      });
      const s = new SqlSink({ knex: k, table, offsetsTable, mode: 'insert', autoCreate: false,
        mapping: { columns: { id: { type: 'string' }, n: { type: 'bigint' }, writer: { type: 'string' } } } });
      sinks.push(s);
      return s;
    }

    test('one row refused, the others accepted: that record is at fault (poison)', async () => {
      const s = await checkedSink(1000);
      const b = batch('t', 0, -1n, 0n, 6n);
      b.records[4] = { ...b.records[4]!, value: Buffer.from(JSON.stringify({ id: 'x', n: 5000, writer: 'w' })) };
      const err = await s.write('g', [b]).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'SINK_WRITE_FAILED', offset: 4n, recordAtFault: true, retriable: false });
      expect(rejectedRecord(err, b.records)).toBe(b.records[4]);
      expect(await countRows(k, s.table)).toBe(0);
      // The proof: the rest commits without it.
      await expect(s.write('g', [{ ...b, records: b.records.filter((r) => r.offset !== 4n) }])).resolves.toEqual({ status: 'committed' });
      expect(await countRows(k, s.table)).toBe(5);
    });

    test('every row refused (a CHECK no row passes): SINK_WRITE_REFUSED, retriable, no record blamed', async () => {
      const s = await checkedSink(0);
      const b = batch('t', 0, -1n, 0n, 5n);
      const err = await s.write('g', [b]).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'SINK_WRITE_REFUSED', retriable: true, recordAtFault: false, offset: undefined });
      expect(rejectedRecord(err, b.records)).toBeUndefined();
      expect(await countRows(k, s.table)).toBe(0);
    });

    test('a write of one refused row cannot prove it is the record: refused, not poison', async () => {
      const s = await checkedSink(0);
      const err = await s.write('g', [batch('t', 0, -1n, 0n, 1n)]).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'SINK_WRITE_REFUSED', retriable: true });
      expect((err as Error).message).toMatch(/only row/);
    });

    test('a run of same-cause refusals between accepted rows is poison, not systemic: the first refused record is blamed', async () => {
      const s = await checkedSink(1000);
      // Offsets 0..6: 2 accepted, 3 refused by the CHECK (same cause), 2 accepted.
      const b = batch('t', 0, -1n, 0n, 7n);
      for (const i of [2, 3, 4]) b.records[i] = { ...b.records[i]!,
        value: Buffer.from(JSON.stringify({ id: `x${i}`, n: 5000, writer: 'w' })) };
      const err = await s.write('g', [b]).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'SINK_WRITE_FAILED', offset: 2n, recordAtFault: true, retriable: false });
      // Skipping them one by one, each next write blames the next, then the good rows commit.
      let rest = b.records.filter((r) => r.offset !== 2n);
      for (const bad of [3n, 4n]) {
        const e = await s.write('g', [{ ...b, records: rest }]).catch((x: unknown) => x);
        expect(e).toMatchObject({ code: 'SINK_WRITE_FAILED', offset: bad, recordAtFault: true });
        rest = rest.filter((r) => r.offset !== bad);
      }
      await expect(s.write('g', [{ ...b, records: rest }])).resolves.toEqual({ status: 'committed' });
      expect(await countRows(k, s.table)).toBe(4);
    });

    test('the data table missing (renamed by a migration): refused without blaming a record', async () => {
      const s = await checkedSink(1000);
      await s.open('g', [{ topic: 't', partition: 0 }]);
      const moved = `${s.table}_moved`;
      tables.push(moved);
      await k.schema.renameTable(s.table, moved);
      const err = await s.write('g', [batch('t', 0, -1n, 0n, 3n)]).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'SINK_WRITE_REFUSED', retriable: true, recordAtFault: false });
      expect(isSystemicSqlError((err as Error).cause)).toBe(true);
      expect((await s.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(-1n);
    });

  });
}

test('error classes no row can cause are systemic; constraint, data and trigger errors need the replay', () => {
  const pg = (code: string) => Object.assign(new Error(`insert into "t" values (1) - ${code}`), { code });
  for (const code of ['42501', '42P01', '42703', '25006', '53100', '57014', '58030', '0A000', 'XX000'])
    expect(isSystemicSqlError(pg(code))).toBe(true);
  for (const code of ['23505', '23514', '23502', '22003', 'P0001']) expect(isSystemicSqlError(pg(code))).toBe(false);
  const sqlite = (code: string, msg: string) => Object.assign(new Error(`insert into "t" values (1) - ${code}: ${msg}`), { code });
  expect(isSystemicSqlError(sqlite('SQLITE_READONLY', 'attempt to write a readonly database'))).toBe(true);
  expect(isSystemicSqlError(sqlite('SQLITE_FULL', 'database or disk is full'))).toBe(true);
  expect(isSystemicSqlError(sqlite('SQLITE_ERROR', 'no such table: t'))).toBe(true);
  expect(isSystemicSqlError(sqlite('SQLITE_CONSTRAINT', 'CHECK constraint failed: n < 3'))).toBe(false);
  expect(isSystemicSqlError(sqlite('SQLITE_CONSTRAINT', 'inserts are blocked'))).toBe(false);
  // Wrapped in our own error, the driver's cause decides.
  expect(isSystemicSqlError(new Error('wrapped', { cause: pg('42501') }))).toBe(true);
});

test('a transient error while the rows are replayed (connection lost, busy): SINK_UNAVAILABLE, retriable, no record named', async () => {
  const k = openKnex(targets()[0]!.knexConfig());
  try {
    const origins = [0n, 1n, 2n].map((offset) => ({ topic: 't', partition: 0, offset }));
    const lost = new Error('Connection terminated unexpectedly');
    const insertOne = async (_trx: unknown, i: number) => { if (i === 1) throw lost; };
    const err = await classifyRejection(k, origins, insertOne, new Error('refused')).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SINK_UNAVAILABLE', retriable: true, cause: lost });
    expect((err as { recordAtFault?: boolean }).recordAtFault).not.toBe(true);
  } finally {
    await k.destroy();
  }
});
