import * as sqlite3 from 'sqlite3';
import type { Knex } from 'knex';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import { basicMapping, batch, countRows, duplicateCoordinates, openKnex, sqliteTarget, uniqueName } from './fixtures';

describe('SQLite prepared statements reused across transactions', () => {
  const target = sqliteTarget();
  afterAll(() => target.cleanup());
  let prepares: jest.SpyInstance;
  beforeEach(() => { prepares = jest.spyOn(sqlite3.Database.prototype, 'prepare'); });
  afterEach(() => prepares.mockRestore());

  function sink(k: Knex, maxRowsPerStatement?: number): SqlSink {
    return new SqlSink({ knex: k, table: uniqueName('rows'), offsetsTable: uniqueName('offs'), mode: 'insert', mapping: basicMapping,
      autoCreate: true, maxRowsPerStatement });
  }

  test('one statement per row count, prepared once and reused by later writes; the tail uses power-of-two statements', async () => {
    const k = openKnex(target.knexConfig());
    const s = sink(k, 1000);
    try {
      let next = -1n;
      const write = async (n: bigint) => {
        const from = next < 0n ? 0n : next;
        expect(await s.write('g', [batch('t', 0, next, from, from + n)])).toEqual({ status: 'committed' });
        next = from + n;
      };
      // The INSERTs, and the transaction's own statements (BEGIN, the offsets CAS, COMMIT), each prepared once.
      const prepared = (head: string) => prepares.mock.calls.filter(([sql]) => String(sql).startsWith(head)).length;
      const own = () => ['BEGIN', 'UPDATE', 'COMMIT'].map(prepared);
      await write(2000n);
      expect(prepared('INSERT')).toBe(1);
      expect(own()).toEqual([1, 1, 1]);
      await write(2000n);
      await write(1000n);
      expect(prepared('INSERT')).toBe(1); // reused across transactions
      await write(2777n); // 2 x 1000 + 512 + 256 + 8 + 1
      expect(prepared('INSERT')).toBe(5);
      await write(2777n);
      await write(777n);
      expect(prepared('INSERT')).toBe(5);
      expect(own()).toEqual([1, 1, 1]);
      expect(prepares).toHaveBeenCalledTimes(8);
      expect(await countRows(k, s.table)).toBe(2000 + 2000 + 1000 + 2777 * 2 + 777);
      expect(await duplicateCoordinates(k, s.table)).toBe(0);
      expect((await s.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(BigInt(2000 + 2000 + 1000 + 2777 * 2 + 777));
    } finally {
      await s.close();
      await k.destroy(); // would fail with SQLITE_BUSY if a statement were left unfinalized
    }
  });

  test('a fenced or rejected write leaves the cached statements usable', async () => {
    const k = openKnex(target.knexConfig());
    const s = sink(k, 100);
    try {
      expect(await s.write('g', [batch('t', 0, -1n, 0n, 300n)])).toEqual({ status: 'committed' });
      expect(await s.write('g', [batch('t', 0, 0n, 0n, 300n)])).toMatchObject({ status: 'fenced' });
      await k.raw('CREATE TRIGGER ?? BEFORE INSERT ON ?? WHEN NEW.n = 450 BEGIN SELECT RAISE(ABORT, \'no 450\'); END',
        [uniqueName('trg'), s.table]);
      await expect(s.write('g', [batch('t', 0, 300n, 300n, 600n)]))
        .rejects.toMatchObject({ code: 'SINK_WRITE_FAILED', offset: 450n, lastOffset: 450n });
      expect(await countRows(k, s.table)).toBe(300);
      expect(await s.write('g', [batch('t', 0, 300n, 300n, 400n)])).toEqual({ status: 'committed' });
      expect(await countRows(k, s.table)).toBe(400);
    } finally {
      await s.close();
      await k.destroy();
    }
  });

  test('destroying the knex pool without closing the sink finalizes the statements first', async () => {
    // knex swallows a failed close, so watch sqlite3's own close callback (SQLITE_BUSY with a statement left).
    const closeErrors: (Error | null)[] = [];
    const realClose = sqlite3.Database.prototype.close;
    const close = jest.spyOn(sqlite3.Database.prototype, 'close')
      .mockImplementation(function (this: sqlite3.Database, cb?: (err: Error | null) => void) {
      return realClose.call(this, (err: Error | null) => { closeErrors.push(err); cb?.(err); });
    });
    try {
      const k = openKnex(target.knexConfig());
      const s = sink(k);
      expect(await s.write('g', [batch('t', 0, -1n, 0n, 50n)])).toEqual({ status: 'committed' });
      await k.destroy();
      await s.close();
      expect(closeErrors).toEqual([null]);
    } finally {
      close.mockRestore();
    }
  });
});
