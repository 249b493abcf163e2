/**
 * Breaker tests (issue 25): SQLite's cached BEGIN / COMMIT / CAS statements across a COMMIT that fails (a deferred
 * foreign key) and across a sink closed and another opened on the same knex instance.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Knex } from 'knex';
import { createKnex } from '../../../src/sinks/sql/dialect';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import type { SinkRecord } from '../../../src/records';
import { basicMapping, batch, countRows, uniqueName } from './fixtures';

describe('SQLite statement cache lifecycle', () => {
  let dir: string;
  const knexes: Knex[] = [];
  beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-brk-')); });
  afterAll(async () => {
    for (const k of knexes) await k.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const open = (hook?: (c: { exec(s: string, cb: (e: Error | null) => void): void }) => Promise<void>): Knex => {
    const k = createKnex({
      client: 'sqlite3', connection: { filename: path.join(dir, `${uniqueName('db')}.sqlite`) },
      pool: {
        min: 0, max: 1,
        afterCreate: (c: never, done: (e: Error | null, c: unknown) => void) => {
          (hook ? hook(c) : Promise.resolve()).then(() => done(null, c), (e: Error) => done(e, c));
        },
      },
    });
    knexes.push(k);
    return k;
  };

  test('a COMMIT refused (deferred foreign key): nothing written; the connection and statements still work', async () => {
    const k = open((c) => new Promise((res, rej) => c.exec('PRAGMA foreign_keys = ON', (e) => (e ? rej(e) : res()))));
    await k.raw('CREATE TABLE parent (id TEXT PRIMARY KEY)');
    await k.raw(`CREATE TABLE rows (id TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED, n INTEGER,
      kafka_topic TEXT, kafka_partition INTEGER, kafka_offset INTEGER)`);
    await k('parent').insert([{ id: 'ok' }]);
    const s = new SqlSink({
      knex: k, table: 'rows', offsetsTable: 'offs', mode: 'insert', autoCreate: true,
      mapping: { columns: { id: { type: 'string' }, n: { type: 'integer' } } }, retry: { retries: 1, minTimeoutMs: 1, maxTimeoutMs: 2 },
    });
    try {
      await s.open('g', [{ topic: 't', partition: 0 }]);
      const rec = (offset: bigint, id: string): SinkRecord => ({
        topic: 't', partition: 0, offset, key: null, value: Buffer.from(JSON.stringify({ id, n: 1 })), timestamp: 0n, headers: {},
      });
      const w = (e: bigint, ids: string[]) => s.write('g', [{ topic: 't', partition: 0, expectedOffset: e,
        nextOffset: (e < 0n ? 0n : e) + BigInt(ids.length), records: ids.map((id, i) => rec((e < 0n ? 0n : e) + BigInt(i), id)) }]);
      expect(await w(-1n, ['ok'])).toEqual({ status: 'committed' });
      const err = await w(1n, ['ok', 'missing']).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(await countRows(k, 'rows')).toBe(1);
      expect((await s.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(1n);
      expect(await w(1n, ['ok', 'ok'])).toEqual({ status: 'committed' });
      expect(await w(3n, ['ok'])).toEqual({ status: 'committed' });
      expect(await countRows(k, 'rows')).toBe(4);
    } finally {
      await s.close();
    }
  });

  test('a sink closed, then another on the same knex: writes go on (statements prepared again)', async () => {
    const k = open();
    const mk = () => new SqlSink({ knex: k, table: 'rows', offsetsTable: 'offs', mode: 'insert', mapping: basicMapping, autoCreate: true });
    const a = mk();
    await a.open('g', [{ topic: 't', partition: 0 }]);
    expect(await a.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    expect(await a.write('g', [batch('t', 0, 10n, 10n, 20n)])).toEqual({ status: 'committed' });
    await a.close();
    const b = mk();
    try {
      await b.open('g', [{ topic: 't', partition: 0 }]);
      expect(await b.write('g', [batch('t', 0, 20n, 20n, 30n)])).toEqual({ status: 'committed' });
      expect(await b.write('g', [batch('t', 0, 20n, 20n, 30n, 'zombie')])).toMatchObject({ status: 'fenced' });
      expect(await countRows(k, 'rows')).toBe(30);
    } finally {
      await b.close();
    }
  });
});
