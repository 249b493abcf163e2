import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GroupCommitSink } from '../../src/consumer/group-commit';
import type { ExactlyOnceSink, WriteResult } from '../../src/sink-contract';
import type { SinkBatch, TopicPartition } from '../../src/records';
import { SqlSink } from '../../src/sinks/sql';
import { batch, basicMapping } from '../sinks/sql/fixtures';

/** Counts the transactions the wrapped sink is asked for. */
class Counting implements ExactlyOnceSink {
  writes: number[] = [];
  constructor(readonly inner: SqlSink) {}
  open(g: string, p: TopicPartition[]) { return this.inner.open(g, p); }
  write(g: string, b: SinkBatch[]): Promise<WriteResult> { this.writes.push(b.length); return this.inner.write(g, b); }
  close() { return this.inner.close(); }
}

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-group-commit-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setup(name: string, maxRows?: number) {
  const sql = new SqlSink({ knex: { client: 'sqlite3', connection: { filename: path.join(dir, `${name}.sqlite`) }, useNullAsDefault: true },
    table: name, mode: 'insert', mapping: basicMapping, autoCreate: true });
  const counting = new Counting(sql);
  return { sql, counting, sink: new GroupCommitSink(counting, { maxRows }) };
}
const parts = [0, 1, 2].map((p) => ({ topic: 't', partition: p }));
const rows = async (sql: SqlSink) => Number((await sql.knex(sql.table).count({ n: '*' }))[0].n);

test('writes of three partitions arriving together share one transaction', async () => {
  const { sql, counting, sink } = setup('together');
  await sink.open('g', parts);
  const results = await Promise.all(parts.map((tp) => sink.write('g', [batch('t', tp.partition, -1n, 0n, 10n)])));
  expect(results).toEqual([{ status: 'committed' }, { status: 'committed' }, { status: 'committed' }]);
  expect(counting.writes).toEqual([3]);
  expect(await rows(sql)).toBe(30);
  await sink.close();
});

test('one fenced partition: its writer is told, the others are written in a second transaction', async () => {
  const { sql, counting, sink } = setup('fenced');
  await sink.open('g', parts);
  await sql.write('g', [batch('t', 1, -1n, 0n, 5n)]); // another writer moved partition 1 on
  counting.writes = [];
  const results = await Promise.all(parts.map((tp) => sink.write('g', [batch('t', tp.partition, -1n, 0n, 10n)])));
  expect(results[0]).toEqual({ status: 'committed' });
  expect(results[1]).toEqual({ status: 'fenced', fenced: [{ topic: 't', partition: 1, storedOffset: 5n }] });
  expect(results[2]).toEqual({ status: 'committed' });
  expect(counting.writes).toEqual([3, 2]);
  expect(await rows(sql)).toBe(5 + 20);
  await sink.close();
});

test('a record the database rejects fails only its own writer; the others commit', async () => {
  const { sql, sink } = setup('rejected');
  await sink.open('g', parts);
  const bad = batch('t', 2, -1n, 0n, 3n);
  bad.records[1] = { ...bad.records[1], value: Buffer.from('not json') };
  const results = await Promise.allSettled([sink.write('g', [batch('t', 0, -1n, 0n, 4n)]), sink.write('g', [batch('t', 1, -1n, 0n, 4n)]),
    sink.write('g', [bad])]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
  expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SINK_MAPPING_FAILED', partition: 2, offset: 1n });
  expect(await rows(sql)).toBe(8);
  const stored = await sql.offsets.read('g', parts);
  expect([...stored.values()]).toEqual([4n, 4n, -1n]);
  await sink.close();
});

test('maxRows caps a grouped transaction', async () => {
  const { counting, sink } = setup('capped', 25);
  await sink.open('g', parts);
  await Promise.all(parts.map((tp) => sink.write('g', [batch('t', tp.partition, -1n, 0n, 10n)])));
  expect(counting.writes).toEqual([2, 1]);
  await sink.close();
});

test('options are validated', () => {
  const { counting } = setup('opts');
  expect(() => new GroupCommitSink(counting, { maxRows: 0 })).toThrow(/groupCommit.maxRows/);
  expect(() => new GroupCommitSink(counting, { lingerMs: -1 })).toThrow(/groupCommit.lingerMs/);
});
