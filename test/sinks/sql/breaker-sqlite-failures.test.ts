/**
 * Breaker tests (issue 25): the SQLite write transaction on a raw connection with cached BEGIN / COMMIT / CAS
 * statements, under failures: another connection holding the write lock, the database full (max_page_count),
 * the table dropped / recreated / altered by another connection between writes. Outcome: committed exactly once or
 * retried, never half a write, never a poison verdict for a failure that is not one record's fault.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Knex } from 'knex';
import { createKnex } from '../../../src/sinks/sql/dialect';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import { basicMapping, batch, countRows, duplicateCoordinates, uniqueName } from './fixtures';

describe('SQLite raw transactions under failures', () => {
  let dir: string;
  const open: { close(): Promise<void> }[] = [];
  const knexes: Knex[] = [];

  beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-brk-')); });
  afterAll(async () => {
    for (const s of open) await s.close();
    for (const k of knexes) await k.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function setup(busyMs = 20): { k: Knex; other: Knex; sink: SqlSink } {
    const filename = path.join(dir, `${uniqueName('db')}.sqlite`);
    const k = createKnex({ client: 'sqlite3', connection: { filename }, pool: { min: 0, max: 1 } }, { sqliteBusyTimeoutMs: busyMs });
    const other = createKnex({ client: 'sqlite3', connection: { filename }, pool: { min: 0, max: 1 } }, { sqliteBusyTimeoutMs: busyMs });
    knexes.push(k, other);
    const sink = new SqlSink({
      knex: k, table: 'rows', offsetsTable: 'offs', mode: 'insert', mapping: basicMapping, autoCreate: true,
      retry: { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 20 },
    });
    open.push(sink);
    return { k, other, sink };
  }

  /** Holds the write lock on `other`'s connection until the returned function is called. */
  async function holdWriteLock(other: Knex): Promise<() => Promise<void>> {
    const pool = other.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<unknown> };
    const conn = await pool.acquireConnection() as { exec(s: string, cb: (e: Error | null) => void): void };
    const exec = (s: string) => new Promise<void>((res, rej) => conn.exec(s, (e) => (e ? rej(e) : res())));
    await exec('BEGIN IMMEDIATE');
    return async () => { await exec('ROLLBACK'); await pool.releaseConnection(conn); };
  }

  test('another connection holds the write lock past the retry budget: retriable error, nothing written, then committed once', async () => {
    const { k, other, sink } = setup();
    await sink.open('g', [{ topic: 't', partition: 0 }]);
    expect(await sink.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    const release = await holdWriteLock(other);
    let err: unknown;
    try {
      await sink.write('g', [batch('t', 0, 10n, 10n, 20n)]);
    } catch (e) { err = e; } finally { await release(); }
    expect(err).toMatchObject({ retriable: true });
    expect((err as { recordAtFault?: unknown }).recordAtFault).not.toBe(true);
    expect(await countRows(k, 'rows')).toBe(10);
    expect(await sink.write('g', [batch('t', 0, 10n, 10n, 20n)])).toEqual({ status: 'committed' });
    expect(await sink.write('g', [batch('t', 0, 20n, 20n, 30n)])).toEqual({ status: 'committed' });
    expect(await countRows(k, 'rows')).toBe(30);
    expect(await duplicateCoordinates(k, 'rows')).toBe(0);
  });

  test('a write lock released during the retries: committed exactly once', async () => {
    const { k, other, sink } = setup();
    await sink.open('g', [{ topic: 't', partition: 0 }]);
    expect(await sink.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    const release = await holdWriteLock(other);
    const w = sink.write('g', [batch('t', 0, 10n, 10n, 20n)]);
    await new Promise((r) => setTimeout(r, 25));
    await release();
    expect(await w).toEqual({ status: 'committed' });
    expect(await countRows(k, 'rows')).toBe(20);
    expect((await sink.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(20n);
  });

  test('database full (max_page_count): no poison verdict, nothing half-written; once room is made the same write commits', async () => {
    const { k, sink } = setup();
    await sink.open('g', [{ topic: 't', partition: 0 }]);
    expect(await sink.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    const pages = Number((await k.raw('PRAGMA page_count'))[0].page_count);
    await k.raw(`PRAGMA max_page_count = ${pages + 2}`);
    let err: unknown;
    try {
      await sink.write('g', [batch('t', 0, 10n, 10n, 5000n)]);
    } catch (e) { err = e; }
    expect(err).toMatchObject({ retriable: true });
    expect((err as { recordAtFault?: unknown }).recordAtFault).not.toBe(true);
    expect(await countRows(k, 'rows')).toBe(10);
    expect((await sink.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(10n);
    await k.raw('PRAGMA max_page_count = 1000000');
    expect(await sink.write('g', [batch('t', 0, 10n, 10n, 5000n)])).toEqual({ status: 'committed' });
    expect(await sink.write('g', [batch('t', 0, 5000n, 5000n, 5010n)])).toEqual({ status: 'committed' });
    expect(await countRows(k, 'rows')).toBe(5010);
    expect(await duplicateCoordinates(k, 'rows')).toBe(0);
  });

  test('the data table dropped and recreated, then altered, by another connection between writes (cached statements)', async () => {
    const { k, other, sink } = setup();
    await sink.open('g', [{ topic: 't', partition: 0 }]);
    expect(await sink.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    expect(await sink.write('g', [batch('t', 0, 10n, 10n, 20n)])).toEqual({ status: 'committed' });
    const ddl = (await other.raw("SELECT sql FROM sqlite_master WHERE name = 'rows'"))[0].sql as string;
    await other.raw('DROP TABLE "rows"');
    await other.raw(ddl);
    expect(await sink.write('g', [batch('t', 0, 20n, 20n, 30n)])).toEqual({ status: 'committed' });
    expect(await countRows(k, 'rows')).toBe(10);
    await other.raw('ALTER TABLE "rows" ADD COLUMN extra TEXT');
    expect(await sink.write('g', [batch('t', 0, 30n, 30n, 40n)])).toEqual({ status: 'committed' });
    await other.raw('ALTER TABLE "offs" ADD COLUMN extra2 TEXT');
    expect(await sink.write('g', [batch('t', 0, 40n, 40n, 50n)])).toEqual({ status: 'committed' });
    expect(await countRows(k, 'rows')).toBe(30);
    expect((await sink.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(50n);
  });
});
