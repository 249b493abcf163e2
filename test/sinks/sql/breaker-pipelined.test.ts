/**
 * Breaker tests of the pipelined PostgreSQL write (src/sinks/sql/pg-pipelined.ts: `BEGIN; seeds; CAS; COPY ... FROM
 * STDIN; COMMIT` in one simple-query message, the rows streamed behind it, CopyDone only after every CAS changed one
 * row). Attacked as the frontend/backend protocol allows: a zombie and a live writer racing on the same partitions (small
 * writes, and 100k wide rows under backpressure), a serializable server (40001 at the CAS), timeouts of the client (pg's
 * query_timeout) and of the server (statement_timeout, idle_in_transaction_session_timeout) firing in the middle of the
 * message, cancel requests at random moments, the connection cut after N bytes, NOTICEs and trigger errors in the middle
 * of the COPY, COPY's end-of-data marker as a value, hostile names under standard_conforming_strings off, 500 partitions
 * in one message, a pool of one shared by everything, and the sizes around the 250-row chunk. What must hold each time:
 * all rows and every position together or nothing, no zombie write, no connection left in a transaction or in COPY mode,
 * typed errors, never a poison record that is not one.
 */
import { execFileSync } from 'node:child_process';
import * as net from 'node:net';
import type { Knex } from 'knex';
import type { ClientBase } from 'pg';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import type { SinkBatch } from '../../../src/records';
import type { WriteResult } from '../../../src/sink-contract';
import { basicMapping, batch, countRows, describeOn, dropTables, duplicateCoordinates, openKnex, pgUrl, record, targets,
  uniqueName } from './fixtures';

const [, postgres] = targets();

type SinkOptions = Partial<ConstructorParameters<typeof SqlSink>[0]>;

describeOn(postgres!)('pipelined PostgreSQL writes under attack', () => {
  let inspect: Knex;
  const tables: string[] = [];
  const sinks: SqlSink[] = [];
  const knexes: Knex[] = [];
  /** Messages that opened a pipelined write, over every knex made by {@link pool}. */
  let pipelined = 0;
  /** The errors that ended pipelined writes: `SQLSTATE@stage` (stage as pg-pipelined.ts reports it). */
  const errorCodes: string[] = [];
  /** Called with the text of every query sent on a connection of {@link pool}, before it is sent. */
  let hook: ((text: string, conn: ClientBase) => void) | undefined;

  beforeAll(() => { inspect = openKnex(postgres!.knexConfig()); });
  const proxies: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const p of proxies) await p.close();
    for (const s of sinks) await s.close();
    for (const k of knexes) await k.destroy();
    if (inspect) { await dropTables(inspect, ...tables); await inspect.destroy(); }
  });

  /** A knex pool of `max` pg connections with extra pg connection options (query_timeout, `options: '-c ...'`). */
  function pool(connection: Record<string, unknown> = {}, max = 1): Knex {
    const k = openKnex({
      client: 'pg',
      connection: { connectionString: pgUrl(), ...connection },
      pool: {
        min: 0, max,
        afterCreate: (conn: ClientBase, done: (e: Error | null, c: unknown) => void) => {
          const query = conn.query.bind(conn) as (...a: unknown[]) => unknown;
          (conn as unknown as { query: unknown }).query = (...args: unknown[]) => {
            const q = args[0] as { submit?: unknown; text?: string } | string;
            if (typeof q === 'object' && q.submit && q.text?.startsWith('BEGIN;')) {
              pipelined++;
              // The write's own view of where it was (its private fields): the COPY's tag seen, or its rows being read.
              const w = q as unknown as { handleError(e: unknown): void; copyReported: boolean; inCopy: boolean };
              const handle = w.handleError.bind(w);
              w.handleError = (e: unknown) => {
                const at = w.copyReported ? 'commit' : w.inCopy ? 'copy' : 'statements';
                errorCodes.push(`${String((e as { code?: unknown })?.code)}@${at}`);
                handle(e);
              };
            }
            const text = typeof q === 'string' ? q : q?.text;
            if (hook && typeof text === 'string') hook(text, conn);
            return query(...args);
          };
          done(null, conn);
        },
      },
    });
    knexes.push(k);
    return k;
  }

  function sink(k: Knex, options: SinkOptions = {}): SqlSink {
    const table = options.table ?? uniqueName('bpipe_rows');
    const offsetsTable = options.offsetsTable ?? uniqueName('bpipe_offs');
    tables.push(table, offsetsTable);
    const s = new SqlSink({
      knex: k, table, offsetsTable, mode: 'insert', mapping: basicMapping, autoCreate: true,
      retry: { retries: 4, minTimeoutMs: 10, maxTimeoutMs: 50 }, ...options,
    });
    sinks.push(s);
    return s;
  }

  const idleInTransaction = async (): Promise<number> => (await inspect.raw(`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND state LIKE 'idle in transaction%'`)).rows[0].n;
  const positions = async (s: SqlSink, group: string, partitions: number[]) => {
    const stored = await s.offsets.read(group, partitions.map((partition) => ({ topic: 't', partition })));
    return partitions.map((p) => stored.get(`t:${p}`));
  };
  /** Rows per (partition, writer), and the highest offset + 1 per partition. */
  const rowsBy = async (table: string) => (await inspect.raw(`SELECT kafka_partition::int AS p, writer, count(*)::int AS n,
    max(kafka_offset)::bigint + 1 AS next FROM ?? GROUP BY 1, 2 ORDER BY 1, 2`, [table])).rows as
    { p: number; writer: string; n: number; next: string }[];

  /** Every error thrown by the sink is typed: a KafkaEosError with a code, never a recordAtFault without a refused row. */
  const expectTyped = (err: unknown) => {
    expect(err).toBeInstanceOf(Error);
    expect(typeof (err as { code?: unknown }).code).toBe('string');
    expect((err as { recordAtFault?: boolean }).recordAtFault).not.toBe(true);
  };

  test('zombie and live racing on the same three partitions, 40 rounds: exactly one commits each round, only its rows', async () => {
    const live = sink(pool());
    const zombie = sink(pool(), { table: live.table, offsetsTable: live.offsets.table });
    const parts = [0, 1, 2];
    await live.open('g', parts.map((partition) => ({ topic: 't', partition })));
    let pos = [-1n, -1n, -1n];
    const sizes = [1, 250, 251, 7, 500, 3];
    const won: Record<string, number> = { live: 0, zombie: 0 };
    for (let round = 0; round < 40; round++) {
      const n = BigInt(sizes[round % sizes.length]!);
      const make = (writer: string): SinkBatch[] => parts.map((p) => {
        const from = pos[p]! < 0n ? 0n : pos[p]!;
        return batch('t', p, pos[p]!, from, from + n + BigInt(p), writer);
      });
      // Every third round the zombie also carries a stale position for partition 1 (it never moved on from it).
      const zb = make('zombie');
      if (round % 3 === 2) zb[1] = { ...zb[1]!, expectedOffset: zb[1]!.expectedOffset - 1n };
      // Who sends first alternates: each wins the row locks of the CAS some rounds.
      const [a, b] = round % 2 === 0
        ? await Promise.all([live.write('g', make('live')), zombie.write('g', zb)])
        : (await Promise.all([zombie.write('g', zb), live.write('g', make('live'))])).reverse();
      const committed = [a, b].filter((r) => r.status === 'committed').length;
      expect({ round, committed }).toEqual({ round, committed: 1 });
      const winner = a.status === 'committed' ? 'live' : 'zombie';
      if (round % 3 === 2) expect({ round, winner }).toEqual({ round, winner: 'live' });
      won[winner]!++;
      const loser = a.status === 'committed' ? b : a;
      expect(loser.status).toBe('fenced');
      pos = pos.map((x, p) => (x < 0n ? 0n : x) + n + BigInt(p));
      expect(await positions(live, 'g', parts)).toEqual(pos);
    }
    // Both won some rounds (else the race was not one), and every partition holds exactly the winners' rows.
    expect(won.live! + won.zombie!).toBe(40);
    expect(won.zombie).toBeGreaterThan(0);
    const rows = await rowsBy(live.table);
    for (const p of parts) {
      const mine = rows.filter((r) => r.p === p);
      expect(mine.reduce((s, r) => s + r.n, 0)).toBe(Number(pos[p]));
      expect(BigInt(Math.max(...mine.map((r) => Number(r.next))))).toBe(pos[p]);
    }
    expect(await duplicateCoordinates(inspect, live.table)).toBe(0);
    expect(await idleInTransaction()).toBe(0);
    expect(pipelined).toBeGreaterThanOrEqual(80);
  }, 60_000);

  test('serializable server (default_transaction_isolation): racing writers on shared rows, never thrown nor a poison record',
    async () => {
      const serializable = { options: '-c default_transaction_isolation=serializable' };
      const a = sink(pool(serializable));
      const b = sink(pool(serializable), { table: a.table, offsetsTable: a.offsets.table });
      const parts = [0, 1];
      await a.open('g', parts.map((partition) => ({ topic: 't', partition })));
      const check = await pool(serializable).raw('SHOW default_transaction_isolation');
      expect(check.rows[0].default_transaction_isolation).toBe('serializable');
      let pos = [-1n, -1n];
      pipelined = 0;
      for (let round = 0; round < 25; round++) {
        const make = (writer: string, p: number): SinkBatch => {
          const from = pos[p]! < 0n ? 0n : pos[p]!;
          return batch('t', p, pos[p]!, from, from + 300n, writer);
        };
        // a writes both partitions, b only partition 1 or 0 (alternating): CAS on overlapping and disjoint rows.
        const results = await Promise.all([
          a.write('g', [make('a', 0), make('a', 1)]).catch((e: unknown) => e),
          b.write('g', [make('b', round % 2)]).catch((e: unknown) => e),
        ]);
        for (const r of results) expect(r).not.toBeInstanceOf(Error);
        pos = await positions(a, 'g', parts) as bigint[];
      }
      const rows = await rowsBy(a.table);
      for (const p of parts) expect(rows.filter((r) => r.p === p).reduce((s, r) => s + r.n, 0)).toBe(Number(pos[p]));
      expect(await duplicateCoordinates(inspect, a.table)).toBe(0);
      expect(await idleInTransaction()).toBe(0);
    }, 60_000);

  test('one stale partition among eight, CAS of the stale one last and first: fenced, nothing of any partition written',
    async () => {
      const s = sink(pool());
      const parts = [0, 1, 2, 3, 4, 5, 6, 7];
      await s.open('g', parts.map((partition) => ({ topic: 't', partition })));
      expect(await s.write('g', parts.map((p) => batch('t', p, -1n, 0n, 10n)))).toEqual({ status: 'committed' });
      for (const stale of [7, 0, 4]) {
        const bs = parts.map((p) => batch('t', p, 10n, 10n, 600n));
        bs[stale] = batch('t', stale, 9n, 9n, 600n);
        expect(await s.write('g', bs)).toEqual({ status: 'fenced', fenced: [{ topic: 't', partition: stale, storedOffset: 10n }] });
        expect(await countRows(inspect, s.table)).toBe(80);
        expect(await positions(s, 'g', parts)).toEqual(parts.map(() => 10n));
      }
      expect(await idleInTransaction()).toBe(0);
      expect(await s.write('g', parts.map((p) => batch('t', p, 10n, 10n, 20n)))).toEqual({ status: 'committed' });
      expect(await countRows(inspect, s.table)).toBe(160);
    });

  test.each([0, 1, 249, 250, 251, 500, 501])('a write of %i rows: every row once, position moved, connection fine', async (n) => {
    const s = sink(pool());
    await s.open('g', [{ topic: 't', partition: 0 }]);
    pipelined = 0;
    expect(await s.write('g', [batch('t', 0, -1n, 0n, BigInt(n))])).toEqual({ status: 'committed' });
    expect(pipelined).toBe(n === 0 ? 0 : 1);
    expect(await s.write('g', [batch('t', 0, BigInt(n), BigInt(n), BigInt(n) + 1n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(n + 1);
    expect(await positions(s, 'g', [0])).toEqual([BigInt(n) + 1n]);
    expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
  });

  test.each([0, 249, 250, 499])('a record that cannot be mapped at row %i: SINK_MAPPING_FAILED, nothing written, connection fine',
    async (at) => {
      const s = sink(pool());
      await s.open('g', [{ topic: 't', partition: 0 }]);
      const b = batch('t', 0, -1n, 0n, 500n);
      b.records[at] = record('t', 0, BigInt(at), { id: 'x', n: 'not a number', writer: 'w' });
      await expect(s.write('g', [b])).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED', offset: BigInt(at) });
      expect(await countRows(inspect, s.table)).toBe(0);
      expect(await positions(s, 'g', [0])).toEqual([-1n]);
      expect(await idleInTransaction()).toBe(0);
      expect(await s.write('g', [batch('t', 0, -1n, 0n, 500n)])).toEqual({ status: 'committed' });
      expect(await countRows(inspect, s.table)).toBe(500);
    });

  test('a mapping failure in a zombie write: fenced or the mapping error, never a row written', async () => {
    const s = sink(pool());
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    const b = batch('t', 0, 5n, 5n, 800n);
    b.records[700] = record('t', 0, 705n, { id: 'x', n: 'nan', writer: 'w' });
    const r = await s.write('g', [b]).catch((e: unknown) => e);
    if (r instanceof Error) expect(r).toMatchObject({ code: 'SINK_MAPPING_FAILED' });
    else expect(r).toEqual({ status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: 10n }] });
    expect(await countRows(inspect, s.table)).toBe(10);
    expect(await idleInTransaction()).toBe(0);
  });

  test('a trigger that RAISEs NOTICE on every row (20000 NOTICEs in the middle of the COPY): committed once', async () => {
    const s = sink(pool());
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 1n)])).toEqual({ status: 'committed' });
    const fn = uniqueName('bpipe_notice');
    await inspect.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE NOTICE 'row % %', NEW.n, repeat('x', 200); RETURN NEW; END $$`);
    await inspect.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON ?? FOR EACH ROW EXECUTE FUNCTION ${fn}()`, [s.table]);
    expect(await s.write('g', [batch('t', 0, 1n, 1n, 20001n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(20001);
    expect(await positions(s, 'g', [0])).toEqual([20001n]);
    expect(await s.write('g', [batch('t', 0, 20001n, 20001n, 20002n)])).toEqual({ status: 'committed' });
    await inspect.raw(`DROP TRIGGER ${fn} ON ??`, [s.table]);
    await inspect.raw(`DROP FUNCTION ${fn}()`);
  }, 30_000);

  test('a trigger that raises an error on row 700 (COPY line 701, chunk 3): that record at fault, nothing written', async () => {
    const s = sink(pool());
    await s.open('g', [{ topic: 't', partition: 0 }]);
    const fn = uniqueName('bpipe_raise');
    await inspect.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN IF NEW.n = 700 THEN RAISE EXCEPTION 'no 700'; END IF; RETURN NEW; END $$`);
    await inspect.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON ?? FOR EACH ROW EXECUTE FUNCTION ${fn}()`, [s.table]);
    const err = await s.write('g', [batch('t', 0, -1n, 0n, 1000n)]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SINK_WRITE_FAILED', recordAtFault: true, offset: 700n });
    expect(await countRows(inspect, s.table)).toBe(0);
    expect(await positions(s, 'g', [0])).toEqual([-1n]);
    expect(await idleInTransaction()).toBe(0);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 700n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(700);
  });

  test('statement_timeout firing in the middle of the COPY (a slow row): refused (retriable), not a poison record', async () => {
    const k = pool({ options: '-c statement_timeout=300' });
    const s = sink(k);
    await s.open('g', [{ topic: 't', partition: 0 }]);
    const fn = uniqueName('bpipe_slow');
    await inspect.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN IF NEW.n = 600 THEN PERFORM pg_sleep(1); END IF; RETURN NEW; END $$`);
    await inspect.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON ?? FOR EACH ROW EXECUTE FUNCTION ${fn}()`, [s.table]);
    const err = await s.write('g', [batch('t', 0, -1n, 0n, 1000n)]).catch((e: unknown) => e);
    expectTyped(err);
    expect(err).toMatchObject({ retriable: true });
    expect(await countRows(inspect, s.table)).toBe(0);
    expect(await positions(s, 'g', [0])).toEqual([-1n]);
    expect(await idleInTransaction()).toBe(0);
    await inspect.raw(`DROP TRIGGER ${fn} ON ??`, [s.table]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 1000n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(1000);
  });

  /** A deferred constraint trigger that sleeps `seconds` at COMMIT when the row with n = `at` is in the transaction. */
  async function slowCommit(table: string, at: number, seconds: number): Promise<string> {
    const fn = uniqueName('bpipe_slowc');
    await inspect.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN IF NEW.n = ${at} THEN PERFORM pg_sleep(${seconds}); END IF; RETURN NULL; END $$`);
    await inspect.raw(`CREATE CONSTRAINT TRIGGER ${fn} AFTER INSERT ON ?? DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION ${fn}()`, [table]);
    return fn;
  }

  test.each([['pipelined', 'g'], ['statements', 'g\\statements']])('%s write, pg query_timeout firing while the COMMIT runs '
    + '(it lands): committed once, no untyped error, never a poison record', async (path, group) => {
    const s = sink(pool({ query_timeout: 300 }));
    await s.open(group, [{ topic: 't', partition: 0 }]);
    expect(await s.write(group, [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    await slowCommit(s.table, 15, 1);
    pipelined = 0;
    const r: WriteResult | Error = await s.write(group, [batch('t', 0, 10n, 10n, 600n)]).catch((e: Error) => e);
    if (path === 'pipelined') expect(pipelined).toBeGreaterThanOrEqual(1); else expect(pipelined).toBe(0);
    await new Promise((res) => setTimeout(res, 1200)); // the COMMIT has finished on the server
    // The COMMIT landed: committed (recovered on the re-read) or fenced at the write's own next offset (a retry met
    // the landed COMMIT); anything else must at least be typed and retriable.
    if (r instanceof Error) {
      expectTyped(r);
      expect(r).toMatchObject({ retriable: true });
    } else if (r.status === 'fenced') {
      expect(r.fenced).toEqual([{ topic: 't', partition: 0, storedOffset: 600n }]);
    } else {
      expect(r).toEqual({ status: 'committed' });
    }
    expect(await countRows(inspect, s.table)).toBe(600);
    expect(await positions(s, group, [0])).toEqual([600n]);
    expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
    expect(await idleInTransaction()).toBe(0);
    expect(await s.write(group, [batch('t', 0, 600n, 600n, 700n)])).toEqual({ status: 'committed' });
  }, 20_000);

  test.each([['pipelined', 'g'], ['statements', 'g\\statements']])('%s write, pg query_timeout firing while the CAS waits for a '
    + 'row lock: nothing half written, then committed once (retried), no untyped error', async (path, group) => {
    const s = sink(pool({ query_timeout: 300 }));
    await s.open(group, [{ topic: 't', partition: 0 }]);
    expect(await s.write(group, [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    // Another session holds the position row locked for 1 s: the CAS waits, pg gives up on the message first.
    const locker = pool();
    const held = locker.transaction(async (trx) => {
      await trx.raw('SELECT * FROM ?? WHERE group_id = ? FOR UPDATE', [s.offsets.table, group]);
      await new Promise((res) => setTimeout(res, 1000));
    });
    await new Promise((res) => setTimeout(res, 50));
    pipelined = 0;
    const r: WriteResult | Error = await s.write(group, [batch('t', 0, 10n, 10n, 600n)]).catch((e: Error) => e);
    await held;
    expect(pipelined).toBeGreaterThanOrEqual(path === 'pipelined' ? 1 : 0);
    if (r instanceof Error) {
      expectTyped(r);
      expect(r).toMatchObject({ retriable: true });
      expect(await countRows(inspect, s.table)).toBe(10);
      expect(await positions(s, group, [0])).toEqual([10n]);
      expect(await s.write(group, [batch('t', 0, 10n, 10n, 600n)])).toEqual({ status: 'committed' });
    } else {
      expect(r).toEqual({ status: 'committed' });
    }
    expect(await countRows(inspect, s.table)).toBe(600);
    expect(await positions(s, group, [0])).toEqual([600n]);
    expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
    expect(await idleInTransaction()).toBe(0);
  }, 20_000);

  test('pipelined write, pg query_timeout firing after CopyDone while a row trigger sleeps: committed once, typed', async () => {
    const s = sink(pool({ query_timeout: 300 }));
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    const fn = uniqueName('bpipe_slow');
    await inspect.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN IF NEW.n = 500 THEN PERFORM pg_sleep(1); END IF; RETURN NEW; END $$`);
    await inspect.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON ?? FOR EACH ROW EXECUTE FUNCTION ${fn}()`, [s.table]);
    const r: WriteResult | Error = await s.write('g', [batch('t', 0, 10n, 10n, 600n)]).catch((e: Error) => e);
    await new Promise((res) => setTimeout(res, 1200));
    // The COMMIT ran behind the CopyDone already sent: committed (re-read), or fenced at the write's own next offset.
    if (r instanceof Error) expectTyped(r);
    if (r instanceof Error || r.status !== 'fenced') expect(r).toEqual({ status: 'committed' });
    else expect(r.fenced).toEqual([{ topic: 't', partition: 0, storedOffset: 600n }]);
    expect(await countRows(inspect, s.table)).toBe(600);
    expect(await positions(s, 'g', [0])).toEqual([600n]);
    expect(await idleInTransaction()).toBe(0);
    await inspect.raw(`DROP TRIGGER ${fn} ON ??`, [s.table]);
    expect(await s.write('g', [batch('t', 0, 600n, 600n, 700n)])).toEqual({ status: 'committed' });
  }, 20_000);

  test('pg_cancel_backend at random moments of 5000-row writes, 25 rounds: never a poison record, every range once', async () => {
    const k = pool();
    const s = sink(k, { retry: { retries: 2, minTimeoutMs: 5, maxTimeoutMs: 20 } });
    await s.open('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
    const pids = async () => (await inspect.raw(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
      AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE 'BEGIN;%' || ?`, [`%${s.table}%`])).rows;
    // The COPY takes its time on the server (a short sleep every 500 rows): a cancel finds it running.
    const fn = uniqueName('bpipe_tick');
    await s.write('g', [batch('t', 5, -1n, 0n, 1n)]); // creates the table
    await inspect.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN IF NEW.n % 500 = 0 THEN PERFORM pg_sleep(0.004); END IF; RETURN NEW; END $$`);
    await inspect.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON ?? FOR EACH ROW EXECUTE FUNCTION ${fn}()`, [s.table]);
    let pos = -1n;
    let cancelled = 0;
    let refused = 0;
    for (let round = 0; round < 25; round++) {
      const from = pos < 0n ? 0n : pos;
      const from1 = BigInt(round * 10);
      const write = () => s.write('g', [batch('t', 0, pos, from, from + 5000n), batch('t', 1, round ? from1 : -1n, from1, from1 + 10n)]);
      // Cancels the sink's backend 0 to 60 ms after the write starts: before, during or after its message.
      const canceller = new Promise<void>((res) => setTimeout(async () => {
        for (const { pid } of await pids()) if ((await inspect.raw('SELECT pg_cancel_backend(?) AS ok', [pid])).rows[0].ok) cancelled++;
        res();
      }, (round * 13) % 61));
      let r = await write().catch((e: unknown) => e);
      await canceller;
      while (r instanceof Error) {
        expectTyped(r);
        expect(r).toMatchObject({ retriable: true });
        refused++;
        r = await write().catch((e: unknown) => e);
      }
      // A retry that meets its own landed write is fenced at its own next offset.
      if ((r as WriteResult).status === 'fenced') {
        expect((r as { fenced: unknown }).fenced).toEqual([{ topic: 't', partition: 0, storedOffset: from + 5000n },
          { topic: 't', partition: 1, storedOffset: from1 + 10n }]);
      }
      pos = from + 5000n;
      expect(await positions(s, 'g', [0])).toEqual([pos]);
    }
    expect(await countRows(inspect, s.table)).toBe(25 * 5010 + 1);
    expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
    expect(await idleInTransaction()).toBe(0);
    // The attack happened: cancels reached running writes, which were refused (typed, retriable) and written again.
    expect(cancelled).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 60_000);

  /**
   * A TCP proxy to PostgreSQL that, once armed, lets through `n` more bytes from the client, counted from the start of
   * the next pipelined write ('Q' + `BEGIN;`), and then closes both sides (a server or network gone mid-stream).
   * `measured()`: the client's bytes of the last pipelined write that went through whole (Query to CopyDone).
   */
  function cuttingProxy(): Promise<{ port: number; arm(n: number): void; cuts(): number; measured(): number; close(): Promise<void> }> {
    let armedAt: number | undefined;
    let cuts = 0;
    let measured = 0;
    const sockets = new Set<net.Socket>();
    const target = new URL(pgUrl()!);
    const copyDone = Buffer.from([0x63, 0, 0, 0, 4]);
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      sockets.add(client).add(upstream);
      let left: number | undefined;
      let counting: number | undefined;
      client.on('data', (chunk: Buffer) => {
        const at = chunk.indexOf('BEGIN;');
        const starts = at >= 5 && chunk[at - 5] === 0x51;
        if (starts) counting = -(at - 5);
        if (counting !== undefined) {
          counting += chunk.length;
          if (chunk.length >= 5 && chunk.subarray(chunk.length - 5).equals(copyDone)) { measured = counting; counting = undefined; }
        }
        if (left === undefined && armedAt !== undefined && starts) {
          left = armedAt + (at - 5);
          armedAt = undefined;
        }
        if (left === undefined) { upstream.write(chunk); return; }
        if (left > 0) upstream.write(chunk.subarray(0, left));
        left -= Math.min(left, chunk.length);
        // Let what was sent reach the server, then close both sides.
        if (left === 0) { left = -1; cuts++; setTimeout(() => { client.destroy(); upstream.destroy(); }, 50); }
      });
      upstream.on('data', (chunk) => { if (left !== -1) client.write(chunk); }); // nothing once cut
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
      port: (server.address() as net.AddressInfo).port,
      arm: (n) => { armedAt = n; },
      cuts: () => cuts,
      measured: () => measured,
      close: () => new Promise<void>((r) => { for (const x of sockets) x.destroy(); server.close(() => r()); }),
    })));
  }

  test('the connection cut after N bytes of a pipelined write (in the Query, in the rows, around CopyDone): committed exactly once',
    async () => {
      const proxy = await cuttingProxy();
      proxies.push(proxy);
      const via = new URL(pgUrl()!);
      via.hostname = '127.0.0.1';
      via.port = String(proxy.port);
      const k = openKnex({ client: 'pg', connection: via.toString(), pool: { min: 0, max: 1 } });
      knexes.push(k);
      const s = sink(k);
      await s.open('g', [{ topic: 't', partition: 0 }]);
      // Offsets of 5 digits from here on: every 1000-row write below is a message of the same size.
      expect(await s.write('g', [batch('t', 0, -1n, 0n, 10000n)])).toEqual({ status: 'committed' });
      expect(await s.write('g', [batch('t', 0, 10000n, 10000n, 11000n)])).toEqual({ status: 'committed' });
      const size = proxy.measured();
      expect(size).toBeGreaterThan(20000);
      let pos = 11000n;
      // Bytes let through: inside the Query, in the first rows, in the middle, before / inside / at the end of CopyDone.
      for (const n of [1, 100, 400, 3000, Math.floor(size / 2), size - 6, size - 5, size - 2, size]) {
        const from = pos;
        const b = batch('t', 0, pos, from, from + 1000n);
        proxy.arm(n);
        const cutsBefore = proxy.cuts();
        const r: WriteResult | Error = await s.write('g', [b]).catch((e: Error) => e);
        expect({ n, cuts: proxy.cuts() - cutsBefore }).toEqual({ n, cuts: 1 });
        if (r instanceof Error) { expectTyped(r); expect(r).toMatchObject({ retriable: true }); }
        else if (r.status === 'fenced') expect(r.fenced).toEqual([{ topic: 't', partition: 0, storedOffset: from + 1000n }]);
        else expect(r).toEqual({ status: 'committed' });
        if (r instanceof Error) expect(await s.write('g', [b])).toEqual({ status: 'committed' });
        pos = from + 1000n;
        expect({ n, pos: await positions(s, 'g', [0]) }).toEqual({ n, pos: [pos] });
        expect({ n, rows: await countRows(inspect, s.table) }).toEqual({ n, rows: Number(pos) });
      }
      expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
      expect(await idleInTransaction()).toBe(0);
    }, 60_000);

  test.each(['on', 'off'])('hostile group id, table and column names, standard_conforming_strings %s: one message, only its own '
    + 'rows and position, a stale twin fenced', async (scs) => {
    const k = pool({ options: `-c standard_conforming_strings=${scs}` });
    const table = `q"'; --\u2028${uniqueName('t').slice(-18)}`;
    const mapping = { columns: { "i'd": { type: 'string' as const, path: 'id' }, 'n;"': { type: 'bigint' as const, path: 'n' },
      writer: { type: 'string' as const } } };
    const s = sink(k, { table, mapping: mapping as never, offsetsTable: `o'${uniqueName('o').slice(-20)}` });
    const groups = ["g'; COMMIT; --", "g'; COMMIT; --\u2028", '$$g$$', 'g'.repeat(3000), "e'\u4e2d\ud83d\ude00"];
    for (const g of groups) await s.open(g, [{ topic: 't', partition: 0 }]);
    pipelined = 0;
    for (const [i, g] of groups.entries()) {
      expect(await s.write(g, [batch('t', 0, -1n, 0n, BigInt(10 + i))])).toEqual({ status: 'committed' });
    }
    expect(pipelined).toBe(groups.length);
    for (const [i, g] of groups.entries()) expect(await positions(s, g, [0])).toEqual([BigInt(10 + i)]);
    // A stale write of one group moves nothing, its twin (same name but the last character) goes on.
    expect(await s.write(groups[0]!, [batch('t', 0, 5n, 5n, 100n)])).toEqual({
      status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: 10n }] });
    expect(await s.write(groups[1]!, [batch('t', 0, 11n, 11n, 100n)])).toEqual({ status: 'committed' });
    expect(await positions(s, groups[0]!, [0])).toEqual([10n]);
    expect(await countRows(inspect, table)).toBe(10 + 11 + 12 + 13 + 14 + 89);
    const cols = (await inspect.raw(`SELECT count(*)::int AS n FROM ?? WHERE ?? LIKE 't-0-%' AND ?? >= 0`, [table, "i'd", 'n;"']));
    expect(cols.rows[0].n).toBe(10 + 11 + 12 + 13 + 14 + 89);
    expect(await idleInTransaction()).toBe(0);
  });

  test('pool of one: writes, a fenced zombie write, a refused row (replayed), seek() and offsets.read() all at once, 15 rounds',
    async () => {
      const s = sink(pool({}, 1));
      const parts = [0, 1, 2, 3];
      await s.open('g', parts.map((partition) => ({ topic: 't', partition })));
      await s.write('g', [batch('t', 9, -1n, 0n, 1n)]); // creates the table
      await inspect.raw("ALTER TABLE ?? ADD CONSTRAINT no_bad CHECK (writer <> 'bad')", [s.table]);
      let p0 = -1n;
      let p1 = -1n;
      let p3 = -1n;
      for (let round = 0; round < 15; round++) {
        const f0 = p0 < 0n ? 0n : p0;
        const f1 = p1 < 0n ? 0n : p1;
        const f3 = p3 < 0n ? 0n : p3;
        const stale = round === 0 ? 5n : p1 - 1n;
        const poisoned = batch('t', 2, -1n, 0n, 300n);
        poisoned.records[round * 10] = record('t', 2, BigInt(round * 10), { id: 'x', n: 1, writer: 'bad' });
        const [w0, zombie, refused, sought, read] = await Promise.all([
          s.write('g', [batch('t', 0, p0, f0, f0 + 700n)]),
          s.write('g', [batch('t', 1, stale, stale, stale + 3n)]),
          s.write('g', [poisoned]).catch((e: unknown) => e),
          s.seek('g', { topic: 't', partition: 3, expectedOffset: p3, offset: f3 + 2n }),
          s.offsets.read('g', parts.map((partition) => ({ topic: 't', partition }))),
        ]);
        expect(w0).toEqual({ status: 'committed' });
        expect(zombie.status).toBe('fenced');
        expect(refused).toMatchObject({ code: 'SINK_WRITE_FAILED', recordAtFault: true, offset: BigInt(round * 10) });
        expect(sought).toEqual({ status: 'committed' });
        expect(read.size).toBeGreaterThan(0);
        // The live writer of partition 1 moves it on (the zombie above never can).
        expect(await s.write('g', [batch('t', 1, p1, f1, f1 + 3n)])).toEqual({ status: 'committed' });
        p0 = f0 + 700n;
        p1 = f1 + 3n;
        p3 = f3 + 2n;
      }
      expect(await positions(s, 'g', parts)).toEqual([p0, p1, -1n, p3]);
      expect(await countRows(inspect, s.table)).toBe(1 + 15 * 703);
      expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
      expect(await idleInTransaction()).toBe(0);
    }, 60_000);

  test('the backend terminated while a refused write is replayed row by row: a typed retriable error, then the record at fault',
    async () => {
      const s = sink(pool({}, 1));
      await s.open('g', [{ topic: 't', partition: 0 }]);
      await s.write('g', [batch('t', 9, -1n, 0n, 1n)]); // creates the table
      await inspect.raw("ALTER TABLE ?? ADD CONSTRAINT no_bad CHECK (writer <> 'bad')", [s.table]);
      const b = batch('t', 0, -1n, 0n, 600n);
      b.records[400] = record('t', 0, 400n, { id: 'x', n: 1, writer: 'bad' });
      let kills = 0;
      hook = (text, conn) => {
        if (!/^SAVEPOINT/i.test(text) || kills > 0) return;
        kills++;
        const pid = (conn as unknown as { processID: number }).processID;
        execFileSync('psql', [pgUrl()!, '-qAtc', `SELECT pg_terminate_backend(${pid})`]);
      };
      const err = await s.write('g', [b]).catch((e: unknown) => e);
      hook = undefined;
      expect(kills).toBe(1);
      expectTyped(err);
      expect(err).toMatchObject({ code: 'SINK_UNAVAILABLE', retriable: true });
      expect(await countRows(inspect, s.table)).toBe(1);
      expect(await idleInTransaction()).toBe(0);
      // Asked again (as the consumer does after a retriable error): the record at fault is named.
      await expect(s.write('g', [b])).rejects.toMatchObject({ code: 'SINK_WRITE_FAILED', recordAtFault: true, offset: 400n });
    });

  test('100k rows of 300 bytes (drain path), zombie and live at once: one commits, the zombie sends CopyFail under backpressure',
    async () => {
      const live = sink(pool());
      const zombie = sink(pool(), { table: live.table, offsetsTable: live.offsets.table });
      await live.open('g', [{ topic: 't', partition: 0 }]);
      expect(await live.write('g', [batch('t', 0, -1n, 0n, 1n)])).toEqual({ status: 'committed' });
      const wide = (writer: string) => {
        const b = batch('t', 0, 1n, 1n, 100_001n, writer);
        for (const r of b.records) {
          r.value = Buffer.from(JSON.stringify({ id: `t-0-${r.offset}`, n: Number(r.offset), writer: writer.repeat(300) }));
        }
        return b;
      };
      const [a, z] = await Promise.all([live.write('g', [wide('l')]), zombie.write('g', [wide('z')])]);
      expect([a.status, z.status].sort()).toEqual(['committed', 'fenced']);
      const winner = a.status === 'committed' ? 'l' : 'z';
      const rows = await rowsBy(live.table);
      expect(rows.filter((r) => r.writer !== 'w')).toEqual([{ p: 0, writer: winner.repeat(300), n: 100_000, next: '100001' }]);
      expect(await positions(live, 'g', [0])).toEqual([100_001n]);
      expect(await idleInTransaction()).toBe(0);
      // Both connections go on: the loser's next write (from the stored position) commits.
      const loser = winner === 'l' ? live : zombie;
      expect(await loser.write('g', [batch('t', 0, 100_001n, 100_001n, 100_002n)])).toEqual({ status: 'committed' });
    }, 60_000);

  test('idle_in_transaction_session_timeout of 1 ms: pipelined writes, fenced writes and a refused row, all typed, all or nothing',
    async () => {
      const s = sink(pool({ options: '-c idle_in_transaction_session_timeout=1' }));
      // knex's own transactions (the tables' creation) may be cut too: typed, retriable, asked again as a consumer does.
      const again = async <T>(fn: () => Promise<T>): Promise<T> => {
        for (;;) {
          const r = await fn().catch((e: unknown) => e);
          if (!(r instanceof Error)) return r as T;
          expectTyped(r);
          expect(r).toMatchObject({ retriable: true });
        }
      };
      await again(() => s.open('g', [{ topic: 't', partition: 0 }]));
      await again(() => s.write('g', [batch('t', 9, -1n, 0n, 1n)])); // creates the table
      await inspect.raw("ALTER TABLE ?? ADD CONSTRAINT no_bad CHECK (writer <> 'bad')", [s.table]);
      let pos = -1n;
      for (let round = 0; round < 20; round++) {
        const from = pos < 0n ? 0n : pos;
        const stale = s.write('g', [batch('t', 0, from + 7n, from + 7n, from + 9n)]).catch((e: unknown) => e);
        const bad = batch('t', 0, pos, from, from + 300n);
        bad.records[150] = record('t', 0, from + 150n, { id: 'x', n: 1, writer: 'bad' });
        const refused = await s.write('g', [bad]).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(Error);
        expect(typeof (refused as { code?: unknown }).code).toBe('string');
        if ((refused as { recordAtFault?: boolean }).recordAtFault) expect(refused).toMatchObject({ offset: from + 150n });
        else expect(refused).toMatchObject({ retriable: true });
        const z = await stale;
        expect(z instanceof Error ? (z as { code?: unknown }).code : (z as WriteResult).status).toMatch(/fenced|SINK_/);
        const r = await again(() => s.write('g', [batch('t', 0, pos, from, from + 300n)]));
        if (r.status === 'fenced') expect(r.fenced).toEqual([{ topic: 't', partition: 0, storedOffset: from + 300n }]);
        pos = from + 300n;
      }
      expect(await positions(s, 'g', [0])).toEqual([pos]);
      expect(await countRows(inspect, s.table)).toBe(1 + 20 * 300);
      expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
    }, 60_000);

  test('serializable: the CAS meets 40001 (its position row updated by a transaction that committed after its snapshot): '
    + 'retried, committed once', async () => {
    const s = sink(pool({ options: '-c default_transaction_isolation=serializable' }));
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    // Another session updates the row (to the same position) and commits while the write's CAS waits for it.
    const other = pool();
    const held = other.transaction(async (trx) => {
      await trx.raw('UPDATE ?? SET next_offset = next_offset WHERE group_id = ?', [s.offsets.table, 'g']);
      await new Promise((res) => setTimeout(res, 300));
    });
    await new Promise((res) => setTimeout(res, 50));
    errorCodes.length = 0;
    pipelined = 0;
    expect(await s.write('g', [batch('t', 0, 10n, 10n, 600n)])).toEqual({ status: 'committed' });
    await held;
    expect(errorCodes).toEqual(['40001@statements']);
    expect(pipelined).toBe(2);
    expect(await countRows(inspect, s.table)).toBe(600);
    expect(await positions(s, 'g', [0])).toEqual([600n]);
    expect(await idleInTransaction()).toBe(0);
  });

  test('one-column rows whose value is the end-of-data marker `\\.` (and other COPY escapes) across chunks: every row, as sent',
    async () => {
      const s = sink(pool(), { mapping: { columns: { v: { type: 'string' as const } } }, includeKafkaCoordinates: false });
      await s.open('g', [{ topic: 't', partition: 0 }]);
      const values = ['\\.', '\\', '.', '\r\n', '\t', '\\N', 'a\u2028b', '\ud83d\ude00', '\\.\n\\.', ''];
      const b = batch('t', 0, -1n, 0n, 600n);
      for (const r of b.records) r.value = Buffer.from(JSON.stringify({ v: values[Number(r.offset) % values.length] }));
      expect(await s.write('g', [b])).toEqual({ status: 'committed' });
      const rows = (await inspect.raw('SELECT v, count(*)::int AS n FROM ?? GROUP BY v', [s.table])).rows as { v: string; n: number }[];
      expect(rows.reduce((t, r) => t + r.n, 0)).toBe(600);
      expect(new Map(rows.map((r) => [r.v, r.n]))).toEqual(new Map(values.map((v) => [v, 60])));
    });

  test('500 partitions in one write (1000 seeds and CAS statements in the message), then one of them stale: fenced, nothing',
    async () => {
      const s = sink(pool());
      const parts = Array.from({ length: 500 }, (_, p) => p);
      await s.open('g', parts.map((partition) => ({ topic: 't', partition })));
      pipelined = 0;
      expect(await s.write('g', parts.map((p) => batch('t', p, -1n, 0n, 2n)))).toEqual({ status: 'committed' });
      const next = parts.map((p) => batch('t', p, 2n, 2n, 3n));
      next[321] = batch('t', 321, 1n, 1n, 3n);
      expect(await s.write('g', next)).toEqual({ status: 'fenced', fenced: [{ topic: 't', partition: 321, storedOffset: 2n }] });
      expect(pipelined).toBe(2);
      expect(await countRows(inspect, s.table)).toBe(1000);
      expect(new Set(await positions(s, 'g', parts))).toEqual(new Set([2n]));
      expect(await idleInTransaction()).toBe(0);
    }, 30_000);

  test('serializable: 40001 at the COMMIT of the message (a read/write cycle with a transaction that committed first): '
    + 'retried, committed once, never a poison record', async () => {
    const serializable = { options: '-c default_transaction_isolation=serializable' };
    const s = sink(pool(serializable));
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    const side = uniqueName('bpipe_side');
    tables.push(side);
    await inspect.raw('CREATE TABLE ?? (x int)', [side]);
    // Each row the write inserts reads the side table; at COMMIT the write waits 0.5 s (its deferred triggers run first).
    const reads = uniqueName('bpipe_reads');
    await inspect.raw(`CREATE FUNCTION ${reads}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN PERFORM count(*) FROM ${side}; RETURN NEW; END $$`);
    await inspect.raw(`CREATE TRIGGER ${reads} BEFORE INSERT ON ?? FOR EACH ROW EXECUTE FUNCTION ${reads}()`, [s.table]);
    await slowCommit(s.table, 15, 0.5);
    // The other transaction reads the data table and writes the side table, and commits while the write is at COMMIT.
    const other = pool(serializable);
    let otherCommitted = false;
    const rival = other.transaction(async (trx) => {
      await trx.raw('SELECT count(*) FROM ??', [s.table]);
      await trx.raw('INSERT INTO ?? VALUES (1)', [side]);
      await new Promise((res) => setTimeout(res, 250));
    }).then(() => { otherCommitted = true; });
    await new Promise((res) => setTimeout(res, 50));
    errorCodes.length = 0;
    pipelined = 0;
    const r = await s.write('g', [batch('t', 0, 10n, 10n, 600n)]).catch((e: unknown) => e);
    await rival;
    expect(otherCommitted).toBe(true);
    expect(r).toEqual({ status: 'committed' });
    expect(errorCodes).toEqual(['40001@commit']);
    expect(pipelined).toBe(2);
    expect(await countRows(inspect, s.table)).toBe(600);
    expect(await positions(s, 'g', [0])).toEqual([600n]);
    expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
    expect(await idleInTransaction()).toBe(0);
  }, 20_000);

  test('upsert by one message: the stage table gone from the connection (DISCARD TEMP, a pooler\'s reset): the write goes on',
    async () => {
      const k = pool({}, 1);
      const s = sink(k, { mode: 'upsert', upsertKey: ['id'] });
      await s.open('g', [{ topic: 't', partition: 0 }]);
      expect(await s.write('g', [batch('t', 0, -1n, 0n, 100n)])).toEqual({ status: 'committed' });
      pipelined = 0;
      expect(await s.write('g', [batch('t', 0, 100n, 100n, 200n)])).toEqual({ status: 'committed' });
      expect(pipelined).toBe(1); // the stage is held: the upsert went as one message
      await k.raw('DISCARD TEMP'); // the pool's only connection
      const tries: unknown[] = [];
      let r: unknown;
      for (let i = 0; i < 3; i++) {
        r = await s.write('g', [batch('t', 0, 200n, 200n, 300n)]).catch((e: unknown) => e);
        if (!(r instanceof Error)) break;
        expectTyped(r);
        expect(r).toMatchObject({ retriable: true });
        tries.push((r as { code?: string }).code);
      }
      // Not one refusal (each would be asked again, and refused again: a sink blocked for good): committed at once.
      expect(tries).toEqual([]);
      expect(r).toEqual({ status: 'committed' });
      expect(await countRows(inspect, s.table)).toBe(300);
      expect(await positions(s, 'g', [0])).toEqual([300n]);
      // The stage was built again on the connection: the next upsert is one message again.
      pipelined = 0;
      expect(await s.write('g', [batch('t', 0, 300n, 300n, 400n)])).toEqual({ status: 'committed' });
      expect(pipelined).toBe(1);
      expect(await countRows(inspect, s.table)).toBe(400);
      expect(await idleInTransaction()).toBe(0);
    });

  test('upsert by one message: zombie and live racing on two partitions, 30 rounds: one commits each round, its rows only',
    async () => {
      const live = sink(pool(), { mode: 'upsert', upsertKey: ['id'] });
      const zombie = sink(pool(), { table: live.table, offsetsTable: live.offsets.table, mode: 'upsert', upsertKey: ['id'] });
      await live.open('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
      let pos = -1n;
      const won: string[] = [];
      pipelined = 0;
      for (let round = 0; round < 30; round++) {
        const from = pos < 0n ? 0n : pos;
        const n = BigInt(1 + ((round * 97) % 400));
        const make = (writer: string) => [batch('t', 0, pos, from, from + n, writer), batch('t', 1, pos, from, from + n, writer)];
        const [a, b] = round % 2 === 0
          ? await Promise.all([live.write('g', make('live')), zombie.write('g', make('zombie'))])
          : (await Promise.all([zombie.write('g', make('zombie')), live.write('g', make('live'))])).reverse();
        expect({ round, statuses: [a.status, b.status].sort() }).toEqual({ round, statuses: ['committed', 'fenced'] });
        const winner = a.status === 'committed' ? 'live' : 'zombie';
        won.push(winner);
        const got = (await inspect.raw('SELECT writer, count(*)::int AS n FROM ?? WHERE kafka_offset >= ? GROUP BY 1',
          [live.table, String(from)])).rows;
        expect({ round, got }).toEqual({ round, got: [{ writer: winner, n: Number(n) * 2 }] });
        pos = from + n;
      }
      expect(new Set(won)).toEqual(new Set(['live', 'zombie']));
      expect(pipelined).toBeGreaterThan(30); // after each sink's first write, the upserts went as one message
      expect(await positions(live, 'g', [0, 1])).toEqual([pos, pos]);
      expect(await countRows(inspect, live.table)).toBe(Number(pos) * 2);
      expect(await idleInTransaction()).toBe(0);
    }, 60_000);
});
