/**
 * HdfsPositionStore (the HDFS sink's positions for `kafka-eos offsets`) against the in-process
 * WebHDFS server: positions read as the sink's recovery reads them; targets inside a file aligned
 * to whole files; a rewind interrupted half-way leaves a state the sink's recovery repairs (each
 * offset still in exactly one committed file) and that a second run completes; a skip forward is
 * an empty claim the sink resumes after.
 */
import * as path from 'node:path';
import { HdfsPositionStore } from '../../src/offsets/hdfs-positions';
import { listClaims, readPosition } from '../../src/sinks/hdfs/recovery';
import { HdfsSink } from '../../src/sinks/hdfs/hdfs-sink';
import { WebHdfsServer } from '../../src/testing/webhdfs-server/server';
import { batch, committedFiles, committedOffsets, range } from '../sinks/hdfs/helpers';

let hdfs: WebHdfsServer;
beforeAll(async () => { hdfs = await WebHdfsServer.start(); });
afterAll(async () => { await hdfs.stop(); });

const tp = { topic: 't', partition: 0 };
let n = 0;

/** A topicsDir holding files [0..9], [10..19], [20..29] of partition t-0, written by the sink. */
async function threeFiles(): Promise<{ dir: string; store: HdfsPositionStore }> {
  const dir = `/hp${++n}`;
  const sink = new HdfsSink({ url: hdfs.url, topicsDir: dir, flushSize: 10, includeKafkaCoordinates: true });
  await sink.open('g', [tp]);
  expect(await sink.write('g', [batch('t', 0, -1n, 0n, 30n)])).toEqual({ status: 'committed' });
  await sink.close();
  return { dir, store: new HdfsPositionStore({ url: hdfs.url, topicsDir: dir }) };
}

/** What a new owner of the partition sees: the sink's own open() (recovery). */
async function reopen(dir: string): Promise<{ sink: HdfsSink; position: bigint }> {
  const sink = new HdfsSink({ url: hdfs.url, topicsDir: dir, flushSize: 10, includeKafkaCoordinates: true });
  const position = (await sink.open('g', [tp])).get('t:0')!;
  return { sink, position };
}

test('lists positions from the newest claim; a target inside a file lands on its first offset, or after it before the log start',
  async () => {
  const { store } = await threeFiles();
  expect(await store.exists()).toBe(true);
  expect(await store.list('g')).toEqual([{ topic: 't', partition: 0, nextOffset: 30n }]);
  expect(await store.align(tp, 15n, 0n)).toEqual({ target: 10n,
    note: expect.stringMatching(/15 is inside the file of 10\.\.19, rewound to 10/) });
  expect(await store.align(tp, 20n, 0n)).toEqual({ target: 20n });
  expect(await store.align(tp, 5n, 3n)).toEqual({ target: 10n, note: expect.stringMatching(/before the log start: kept, position 10/) });
  expect(await store.align(tp, 40n, 0n)).toEqual({ target: 40n });
  expect(await new HdfsPositionStore({ url: hdfs.url, topicsDir: '/nowhere' }).exists()).toBe(false);
});

test('a rewind stopped after moving a claim\'s file back is repaired by the sink\'s recovery; running it again completes it', async () => {
  const { dir, store } = await threeFiles();
  const client = store.client;
  // Interrupted: the newest claim's file was renamed back into its claim directory, the claim not yet moved aside.
  const newest = (await listClaims(client, store.layout, 't', 0)).at(-1)!;
  expect(await client.rename(newest.files[0]!.target, path.posix.join(newest.dir, newest.files[0]!.name))).toBe(true);
  expect((await committedFiles(client, dir, 't')).map((f) => `${f.start}-${f.end}`)).toEqual(['0-9', '10-19']);
  // A consumer starting now would recover: the claim is still the newest, its file published again. No gap.
  const { sink, position } = await reopen(dir);
  await sink.close();
  expect(position).toBe(30n);
  expect(await committedOffsets(client, dir, 't', 0)).toEqual(range(0n, 30n));

  // The same move again, and the reset run to its end.
  expect(await client.rename(newest.files[0]!.target, path.posix.join(newest.dir, newest.files[0]!.name))).toBe(true);
  await store.overwrite('g', [{ ...tp, nextOffset: 10n }]);
  expect(store.moves.map((m) => [m.from, m.to, m.movedAside.length, m.emptyClaim])).toEqual([[30n, 10n, 2, false]]);
  expect((await committedFiles(client, dir, 't')).map((f) => `${f.start}-${f.end}`)).toEqual(['0-9']);
  for (const aside of store.moves[0]!.movedAside) expect(aside).toMatch(new RegExp(`^${dir}/\\+rewound/t/0/\\d{8}T\\d{9}Z-\\d{20}$`));

  // The replay: the sink resumes at 10 and writes the same ranges; each offset once.
  const again = await reopen(dir);
  expect(again.position).toBe(10n);
  expect(await again.sink.write('g', [batch('t', 0, 10n, 10n, 30n)])).toEqual({ status: 'committed' });
  await again.sink.close();
  expect((await committedFiles(client, dir, 't')).map((f) => `${f.start}-${f.end}`)).toEqual(['0-9', '10-19', '20-29']);
  expect(await committedOffsets(client, dir, 't', 0)).toEqual(range(0n, 30n));
});

test('skip forward commits an empty claim the sink resumes after; a rewind to 0 leaves no claim (the consumer starts from the log start)',
  async () => {
  const { dir, store } = await threeFiles();
  await store.overwrite('g', [{ ...tp, nextOffset: 45n }]);
  expect(await readPosition(store.client, store.layout, 't', 0)).toBe(45n);
  expect((await listClaims(store.client, store.layout, 't', 0)).at(-1)).toMatchObject({ start: 30n, end: 44n, files: [] });
  const { sink, position } = await reopen(dir);
  expect(position).toBe(45n);
  expect(await sink.write('g', [batch('t', 0, 45n, 45n, 55n)])).toEqual({ status: 'committed' });
  await sink.close();
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual([...range(0n, 30n), ...range(45n, 55n)]);

  const { dir: dir2, store: store2 } = await threeFiles();
  await store2.overwrite('g', [{ ...tp, nextOffset: 0n }]);
  expect(await readPosition(store2.client, store2.layout, 't', 0)).toBe(-1n);
  expect(await committedFiles(store2.client, dir2, 't')).toEqual([]);
  await expect(store2.overwrite('g', [{ ...tp, nextOffset: -1n }])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
});

test.each([
  ['a lost answer to a file\'s move back', { op: 'RENAME' as const, kind: 'lost-response' as const, pathContains: '/t/' }],
  ['a lost answer to the claim\'s move aside', { op: 'RENAME' as const, kind: 'lost-response' as const, pathContains: '/+log/' }],
  ['a 503 on the claim\'s move aside', { op: 'RENAME' as const, kind: 'unavailable' as const, pathContains: '/+log/', times: 5 }],
])('a rewind hit by %s fails with HDFS_REQUEST_FAILED or completes; run again, the replay covers each offset once',
  async (_name, fault) => {
  const { dir, store } = await threeFiles();
  hdfs.inject({ ...fault, pathContains: `${dir}${fault.pathContains}` });
  const first = await store.overwrite('g', [{ ...tp, nextOffset: 10n }]).then(() => 'done', (e: { code?: string }) => e.code);
  hdfs.clearFaults();
  expect(['done', 'HDFS_REQUEST_FAILED']).toContain(first);
  // Whatever the fault left, a consumer starting now sees every offset in exactly one committed file.
  const now = await reopen(dir);
  await now.sink.close();
  expect(now.position).toBe(first === 'done' ? 10n : 30n);
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, now.position));
  const again = new HdfsPositionStore({ url: hdfs.url, topicsDir: dir });
  await again.overwrite('g', [{ ...tp, nextOffset: 10n }]);
  expect(await readPosition(store.client, store.layout, 't', 0)).toBe(10n);
  const replay = await reopen(dir);
  expect(await replay.sink.write('g', [batch('t', 0, 10n, 10n, 30n)])).toEqual({ status: 'committed' });
  await replay.sink.close();
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, 30n));
});
