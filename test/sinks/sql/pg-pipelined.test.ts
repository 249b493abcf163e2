/**
 * The pipelined PostgreSQL write (src/sinks/sql/pg-pipelined.ts): BEGIN, the CAS, the COPY and COMMIT in one message,
 * the rows streamed behind it. Each way a write can end leaves the table and the connection as a transaction would:
 * all rows or none, no connection left in a transaction, the next write on the same (only) connection fine.
 */
import type { Knex } from 'knex';
import type { ClientBase } from 'pg';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import type { SinkBatch } from '../../../src/records';
import { basicMapping, batch, countRows, describeOn, dropTables, duplicateCoordinates, openKnex, record, targets,
  uniqueName } from './fixtures';

const [, postgres] = targets();

describeOn(postgres!)('pipelined PostgreSQL writes', () => {
  let k: Knex;
  let inspect: Knex;
  const tables: string[] = [];
  const sinks: SqlSink[] = [];
  /**
   * Messages that opened a pipelined write, and the BEGIN (alone or with the CAS) and COMMIT sent as messages of their
   * own, on the pool's one connection.
   */
  let pipelined = 0;
  let separate: string[] = [];
  /** The CopyFail messages sent (the server logs their text). */
  const copyFails: string[] = [];

  beforeAll(async () => {
    inspect = openKnex(postgres!.knexConfig());
    k = openKnex({
      ...postgres!.knexConfig(),
      pool: {
        min: 0, max: 1,
        afterCreate: (conn: ClientBase, done: (e: Error | null, c: unknown) => void) => {
          const query = conn.query.bind(conn) as (...a: unknown[]) => unknown;
          (conn as unknown as { query: unknown }).query = (...args: unknown[]) => {
            const q = args[0] as { submit?: unknown; text?: string } | string;
            if (typeof q === 'object' && q.submit && q.text?.startsWith('BEGIN;')) pipelined++;
            else if (typeof q === 'string' && (q.startsWith('BEGIN') || q === 'COMMIT')) separate.push(q.startsWith('BEGIN') ? 'BEGIN' : q);
            return query(...args);
          };
          const c = (conn as unknown as { connection: { sendCopyFail(m: string): void } }).connection;
          const fail = c.sendCopyFail.bind(c);
          c.sendCopyFail = (m: string) => { copyFails.push(m); fail(m); };
          done(null, conn);
        },
      },
    });
  });
  afterAll(async () => {
    for (const s of sinks) await s.close();
    if (inspect) { await dropTables(inspect, ...tables); await inspect.destroy(); }
    if (k) await k.destroy();
  });
  beforeEach(() => { pipelined = 0; separate = []; });

  type Mode = 'insert' | 'kafka-key' | 'upsert';
  type Mapping = ConstructorParameters<typeof SqlSink>[0]['mapping'];
  function sink(mapping: Mapping = basicMapping, mode: Mode = 'insert', table = uniqueName('pipe_rows')) {
    const offsetsTable = uniqueName('pipe_offs');
    tables.push(table, offsetsTable);
    const s = new SqlSink({ knex: k, table, offsetsTable, mode, mapping, autoCreate: typeof mapping !== 'function',
      retry: { retries: 2, minTimeoutMs: 5, maxTimeoutMs: 20 },
      ...(mode === 'upsert' ? { upsertKey: ['id'] } : {}) });
    sinks.push(s);
    return s;
  }
  const idleInTransaction = async (): Promise<number> => (await inspect.raw(`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND state LIKE 'idle in transaction%'`)).rows[0].n;
  const position = async (s: SqlSink, group: string, partition = 0) =>
    (await s.offsets.read(group, [{ topic: 't', partition }])).get(`t:${partition}`);

  test('a write is one message: no BEGIN or COMMIT of its own, first write (seed) and steady state alike', async () => {
    const s = sink();
    await s.open('g', [{ topic: 't', partition: 0 }]);
    pipelined = 0;
    separate = [];
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 600n)])).toEqual({ status: 'committed' });
    expect(await s.write('g', [batch('t', 0, 600n, 600n, 1300n)])).toEqual({ status: 'committed' });
    expect(pipelined).toBe(2);
    expect(separate).toEqual([]);
    expect(await countRows(inspect, s.table)).toBe(1300);
    expect(await position(s, 'g')).toBe(1300n);
  });

  test('several partitions in one write: one message, every CAS in it; one stale partition fences the write', async () => {
    const s = sink();
    const tps = [0, 1, 2].map((partition) => ({ topic: 't', partition }));
    await s.open('g', tps);
    const first: SinkBatch[] = [batch('t', 2, -1n, 0n, 300n), batch('t', 0, -1n, 0n, 10n), batch('t', 1, -1n, 0n, 1n)];
    expect(await s.write('g', first)).toEqual({ status: 'committed' });
    expect(pipelined).toBe(1);
    // A rival (another sink on the same tables) moves partition 1 on.
    const rival = new SqlSink({ knex: inspect, table: s.table, offsetsTable: s.offsets.table, mode: 'insert', mapping: basicMapping });
    expect(await rival.write('g', [batch('t', 1, 1n, 1n, 5n, 'rival')])).toEqual({ status: 'committed' });
    await rival.close();
    const stale = [batch('t', 0, 10n, 10n, 20n), batch('t', 1, 1n, 1n, 700n), batch('t', 2, 300n, 300n, 310n)];
    expect(await s.write('g', stale)).toEqual({ status: 'fenced', fenced: [{ topic: 't', partition: 1, storedOffset: 5n }] });
    expect(await countRows(inspect, s.table)).toBe(311 + 4);
    expect([await position(s, 'g', 0), await position(s, 'g', 1), await position(s, 'g', 2)]).toEqual([10n, 5n, 300n]);
    expect(await idleInTransaction()).toBe(0);
    // The same connection goes on.
    expect(await s.write('g', [batch('t', 0, 10n, 10n, 20n), batch('t', 1, 5n, 5n, 9n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(315 + 14);
  });

  test('a record that cannot be mapped, rows after the first chunks: SINK_MAPPING_FAILED, nothing written, connection fine', async () => {
    const s = sink();
    await s.open('g', [{ topic: 't', partition: 0 }]);
    const b = batch('t', 0, -1n, 0n, 1200n);
    b.records[1100] = record('t', 0, 1100n, { id: 'x', n: 'not a number', writer: 'w' });
    await expect(s.write('g', [b])).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED', offset: 1100n });
    expect(pipelined).toBe(1);
    expect(await countRows(inspect, s.table)).toBe(0);
    expect(await position(s, 'g')).toBe(-1n);
    expect(await idleInTransaction()).toBe(0);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 1200n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(1200);
  });

  test('a row the server refuses in a later chunk: that record is at fault, nothing written, connection fine', async () => {
    const s = sink();
    await s.open('g', [{ topic: 't', partition: 0 }]);
    await inspect.raw('ALTER TABLE ?? ADD CONSTRAINT n_small CHECK (n < 900)', [s.table]);
    const err = await s.write('g', [batch('t', 0, -1n, 0n, 1000n)]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SINK_WRITE_FAILED', recordAtFault: true, offset: 900n });
    expect(await countRows(inspect, s.table)).toBe(0);
    expect(await position(s, 'g')).toBe(-1n);
    expect(await idleInTransaction()).toBe(0);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 899n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(899);
  });

  test('a statement before the COPY fails (offsets table renamed): refused, retriable; the rows sent behind it are dropped', async () => {
    const s = sink();
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    const moved = `${s.offsets.table}_moved`;
    tables.push(moved);
    await inspect.raw('ALTER TABLE ?? RENAME TO ??', [s.offsets.table, moved]);
    const err = await s.write('g', [batch('t', 0, 10n, 10n, 2000n)]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SINK_WRITE_REFUSED', retriable: true });
    expect(pipelined).toBeGreaterThanOrEqual(1);
    await inspect.raw('ALTER TABLE ?? RENAME TO ??', [moved, s.offsets.table]);
    expect(await idleInTransaction()).toBe(0);
    // The connection's next query is read as a query, not swallowed by a COPY.
    expect(await s.write('g', [batch('t', 0, 10n, 10n, 2000n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(2000);
    expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
  });

  test('a COMMIT that fails (a deferred constraint): nothing written, the same error as on the path of separate statements', async () => {
    const errors: unknown[] = [];
    for (const group of ['g', 'g\\statements']) {
      const s = sink();
      await s.open(group, [{ topic: 't', partition: 0 }]);
      expect(await s.write(group, [batch('t', 0, -1n, 0n, 1n)])).toEqual({ status: 'committed' });
      await inspect.raw('ALTER TABLE ?? ADD CONSTRAINT ?? UNIQUE (id) DEFERRABLE INITIALLY DEFERRED', [s.table, `${s.table}_id`]);
      pipelined = 0;
      const dup = batch('t', 0, 1n, 1n, 600n);
      dup.records[598] = record('t', 0, 599n, { id: 't-0-5', n: 5, writer: 'w' }); // the id of offset 5, checked at COMMIT
      errors.push(await s.write(group, [dup]).catch((e: unknown) => e));
      expect(pipelined).toBe(group === 'g' ? 1 : 0);
      expect(await countRows(inspect, s.table)).toBe(1);
      expect(await position(s, group)).toBe(1n);
      expect(await idleInTransaction()).toBe(0);
      expect(await s.write(group, [batch('t', 0, 1n, 1n, 600n)])).toEqual({ status: 'committed' });
    }
    expect(errors[0]).toBeInstanceOf(Error);
    const shape = (e: unknown) => ({
      name: (e as Error).name, code: (e as { code?: unknown }).code, cause: ((e as { cause?: { code?: unknown } }).cause)?.code,
    });
    expect(shape(errors[0])).toEqual(shape(errors[1]));
    expect(JSON.stringify(shape(errors[0]))).toContain('23505');
  });

  test('a write of 5 MB (the socket pushes back): every row once', async () => {
    const s = sink();
    await s.open('g', [{ topic: 't', partition: 0 }]);
    const b = batch('t', 0, -1n, 0n, 5000n);
    for (const r of b.records) r.value = Buffer.from(JSON.stringify({ ...JSON.parse(r.value!.toString()), writer: 'w'.repeat(1000) }));
    expect(await s.write('g', [b])).toEqual({ status: 'committed' });
    expect(pipelined).toBe(1);
    expect(await countRows(inspect, s.table)).toBe(5000);
    expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
    expect(await position(s, 'g')).toBe(5000n);
  });

  test('kafka-key: a replayed range (rows already stored) meets the unique key, then goes by the staged path', async () => {
    const s = sink(basicMapping, 'kafka-key');
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 700n)])).toEqual({ status: 'committed' });
    await s.seek('g', { topic: 't', partition: 0, expectedOffset: 700n, offset: 100n } as never);
    expect(await s.write('g', [batch('t', 0, 100n, 100n, 800n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(800);
    expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
    expect(await idleInTransaction()).toBe(0);
  });

  test('upsert: the write that builds the stage table goes by statements, the next ones are one message; keys updated', async () => {
    const s = sink(basicMapping, 'upsert');
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 600n)])).toEqual({ status: 'committed' });
    expect([pipelined, separate]).toEqual([0, ['BEGIN', 'COMMIT']]);
    separate = [];
    // The same ids again (offsets 600..1199 carry ids t-0-600.. : make them repeat ids 0..599 with n changed).
    const again = batch('t', 0, 600n, 600n, 1200n, 'second');
    again.records = again.records.map((r, i) => record('t', 0, r.offset, { id: `t-0-${i}`, n: 10_000 + i, writer: 'second' }));
    expect(await s.write('g', [again])).toEqual({ status: 'committed' });
    expect([pipelined, separate]).toEqual([1, []]);
    expect(await countRows(inspect, s.table)).toBe(600);
    const r = await inspect(s.table).where({ id: 't-0-7' }).first();
    expect([Number(r.n), r.writer]).toEqual([10_007, 'second']);
    expect(await position(s, 'g')).toBe(1200n);
  });

  test('upsert: a row refused by the move from the stage (a CHECK): that record at fault, nothing written, stage rebuilt', async () => {
    const s = sink(basicMapping, 'upsert');
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    await inspect.raw('ALTER TABLE ?? ADD CONSTRAINT ?? CHECK (n < 500)', [s.table, `${s.table}_n`]);
    pipelined = 0;
    const err = await s.write('g', [batch('t', 0, 10n, 10n, 700n)]).catch((e: unknown) => e);
    expect(pipelined).toBeGreaterThanOrEqual(1);
    expect(err).toMatchObject({ code: 'SINK_WRITE_FAILED', recordAtFault: true, offset: 500n });
    expect(await countRows(inspect, s.table)).toBe(10);
    expect(await position(s, 'g')).toBe(10n);
    expect(await idleInTransaction()).toBe(0);
    pipelined = 0;
    separate = [];
    expect(await s.write('g', [batch('t', 0, 10n, 10n, 500n)])).toEqual({ status: 'committed' });
    expect([pipelined, separate]).toEqual([0, ['BEGIN', 'COMMIT']]); // the stage was forgotten, then rebuilt
    expect(await countRows(inspect, s.table)).toBe(500);
  });

  test('a function mapping (row objects) is pipelined too', async () => {
    const first = sink(); // makes the table
    await first.open('g0', [{ topic: 't', partition: 0 }]);
    const s = sink((r) => JSON.parse(r.value!.toString()) as Record<string, unknown>, 'insert', first.table);
    await s.open('g', [{ topic: 't', partition: 0 }]);
    pipelined = 0;
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 700n)])).toEqual({ status: 'committed' });
    expect(pipelined).toBe(1);
    expect(await countRows(inspect, s.table)).toBe(700);
    expect(await position(s, 'g')).toBe(700n);
  });

  test('pipelinedWrites: false sends BEGIN with the CAS, the COPY and COMMIT as messages of their own', async () => {
    const table = uniqueName('pipe_rows');
    const offsetsTable = uniqueName('pipe_offs');
    tables.push(table, offsetsTable);
    const s = new SqlSink({
      knex: k, table, offsetsTable, mode: 'insert', mapping: basicMapping, autoCreate: true, pipelinedWrites: false,
    });
    sinks.push(s);
    await s.open('g', [{ topic: 't', partition: 0 }]);
    pipelined = 0;
    separate = [];
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 600n)])).toEqual({ status: 'committed' });
    expect(await s.write('g', [batch('t', 0, 600n, 600n, 700n)])).toEqual({ status: 'committed' });
    expect([pipelined, separate]).toEqual([0, ['BEGIN', 'COMMIT', 'BEGIN', 'COMMIT']]);
    expect(await countRows(inspect, table)).toBe(700);
    expect(await position(s, 'g')).toBe(700n);
  });

  test('the CopyFail text (in the server log) never carries the record: a value that is not JSON', async () => {
    const s = sink();
    await s.open('g', [{ topic: 't', partition: 0 }]);
    const b = batch('t', 0, -1n, 0n, 800n);
    b.records[700] = { ...b.records[700]!, value: Buffer.from('card 4111-1111 not json') };
    copyFails.length = 0;
    const err = await s.write('g', [b]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SINK_MAPPING_FAILED', offset: 700n });
    expect((err as Error).message).toContain('not valid JSON');
    expect(copyFails).toHaveLength(1);
    expect(copyFails[0]).not.toMatch(/4111|card|JSON/);
    expect(await countRows(inspect, s.table)).toBe(0);
  });
});
