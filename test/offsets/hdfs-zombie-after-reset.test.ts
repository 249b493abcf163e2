/**
 * A zombie writer after `offsets reset --hdfs`: a sink that lost partition t-0 but still runs (stalled past its
 * session timeout) holds its old position and commits at a claim name the reset freed. Its claim does not chain
 * from the claims kept, and must never count: recovery checks the claims at the reset's hazards (the names it
 * freed, its old position), moves the stray aside (its published files with it) and resumes at the chain's end,
 * so every offset ends in exactly one committed file. Each test is named after what it guards (docs/hdfs-sink.md, "Recovery").
 */
import * as path from 'node:path';
import { HdfsPositionStore } from '../../src/offsets/hdfs-positions';
import { HdfsSink } from '../../src/sinks/hdfs/hdfs-sink';
import {
  hazardName, IMPORTED, listClaims, readClaims, readPosition, recover, rewoundDir, type StrayClaim,
} from '../../src/sinks/hdfs/recovery';
import { WebHdfsServer } from '../../src/testing/webhdfs-server/server';
import { batch, committedFiles, committedOffsets, range } from '../sinks/hdfs/helpers';

let hdfs: WebHdfsServer;
beforeAll(async () => { hdfs = await WebHdfsServer.start(); });
afterAll(async () => { await hdfs.stop(); });

const tp = { topic: 't', partition: 0 };
let n = 0;

/** A sink over `dir` that records the strays its recovery moves aside. */
function sinkOf(dir: string, flushSize = 10): { sink: HdfsSink; strays: StrayClaim[] } {
  const retry = { retries: 1, minTimeoutMs: 1 };
  const sink = new HdfsSink({ url: hdfs.url, topicsDir: dir, flushSize, includeKafkaCoordinates: true, retry });
  const strays: StrayClaim[] = [];
  sink.onStray = (s) => strays.push(s);
  return { sink, strays };
}

/** Commits offsets [0, end) of t-0 under `dir` (one writer, files of 10, then closed). */
async function committedUpTo(dir: string, end: bigint): Promise<void> {
  const writer = sinkOf(dir).sink;
  await writer.open('g', [tp]);
  expect(await writer.write('g', [batch('t', 0, -1n, 0n, end)])).toEqual({ status: 'committed' });
  await writer.close();
}

/** Files [0..9], [10..19], [20..29] of t-0, a zombie that opened t-0 at 30 (it still believes it owns it), a store. */
async function zombieAtThirty(dir: string): Promise<{ zombie: HdfsSink; store: HdfsPositionStore }> {
  await committedUpTo(dir, 30n);
  const zombie = sinkOf(dir).sink;
  expect((await zombie.open('g', [tp])).get('t:0')).toBe(30n);
  return { zombie, store: new HdfsPositionStore({ url: hdfs.url, topicsDir: dir }) };
}

/**
 * {@link zombieAtThirty}, then `offsets reset --hdfs` to 10 (claims 10 and 20 moved aside, their names and the
 * name 30 free).
 */
async function resetWithZombie(): Promise<{ dir: string; store: HdfsPositionStore; zombie: HdfsSink }> {
  const dir = `/zr${++n}`;
  const { zombie, store } = await zombieAtThirty(dir);
  await store.overwrite('g', [{ ...tp, nextOffset: 10n }]);
  expect(store.moves.map((m) => [m.from, m.to, m.movedAside.length])).toEqual([[30n, 10n, 2]]);
  return { dir, store, zombie };
}

const spans = async (store: HdfsPositionStore, dir: string) =>
  (await committedFiles(store.client, dir, 't')).map((f) => `${f.start}-${f.end}`);

test('a zombie\'s commit at a name the reset freed is a stray: recovery resumes at the reset point, not after it (no gap)', async () => {
  const { dir, store, zombie } = await resetWithZombie();
  // The zombie wakes and commits [30..39] at the free name 30 (and publishes it: it believes the claim is its).
  expect(await zombie.write('g', [batch('t', 0, 30n, 30n, 40n)])).toEqual({ status: 'committed' });
  await zombie.close();
  // What describe shows, before any consumer starts: the chain's end, not the zombie's.
  expect(await readPosition(store.client, store.layout, 't', 0)).toBe(10n);
  expect(await new HdfsPositionStore({ url: hdfs.url, topicsDir: dir }).list('g')).toEqual([{ ...tp, nextOffset: 10n }]);
  expect((await readClaims(store.client, store.layout, 't', 0)).strays.map((s) => [s.claim, s.start, s.end]))
    .toEqual([['00000000000000000030', 30n, 39n]]);
  // The new owner's recovery: position 10 (before the fix: 40, and 10..29 never written again).
  const owner = sinkOf(dir);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(10n);
  expect(owner.strays.map((s) => [s.claim, s.start, s.end])).toEqual([['00000000000000000030', 30n, 39n]]);
  expect(owner.strays[0]!.movedTo).toMatch(new RegExp(`^${dir}/\\+rewound/t/0/\\d{8}T\\d{9}Z-stray-0{18}30$`));
  // The stray's published file went aside with it: readers see only the chain's files.
  expect(await spans(store, dir)).toEqual(['0-9']);
  expect((await store.client.list(owner.strays[0]!.movedTo))!.map((e) => e.pathSuffix).sort())
    .toEqual(['0.jsonl', '00000000000000000030', 't+0+00000000000000000030+00000000000000000039.commit']); // data, marker, manifest
  // The replay writes every offset once.
  expect(await owner.sink.write('g', [batch('t', 0, 10n, 10n, 40n)])).toEqual({ status: 'committed' });
  await owner.sink.close();
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, 40n));
  expect((await listClaims(store.client, store.layout, 't', 0)).map((c) => c.start)).toEqual([0n, 10n, 20n, 30n]);
  // The next recovery settles the hazards the replay's claims took; left: 40, the zombie's next name (above the chain).
  const next = sinkOf(dir);
  expect((await next.sink.open('g', [tp])).get('t:0')).toBe(40n);
  await next.sink.close();
  expect((await readClaims(store.client, store.layout, 't', 0)).hazards).toEqual(['00000000000000000040']);
  // A writer that then claims 40 (on the chain) settles it: the partition is back to one manifest read per recovery.
  const w = sinkOf(dir);
  await w.sink.open('g', [tp]);
  expect(await w.sink.write('g', [batch('t', 0, 40n, 40n, 50n)])).toEqual({ status: 'committed' });
  await w.sink.close();
  await sinkOf(dir).sink.open('g', [tp]);
  expect((await readClaims(store.client, store.layout, 't', 0)).hazards).toEqual([]);
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, 50n));
});

test('a zombie that claimed at a freed name and died before publishing: recovery never publishes its files', async () => {
  const { dir, store, zombie } = await resetWithZombie();
  // Every publish RENAME out of the zombie's claim 30 is refused with 503: the claim lands, its file stays inside.
  hdfs.inject({ op: 'RENAME', kind: 'unavailable', pathContains: `${dir}/+log/t/0/00000000000000000030/`, times: 1000 });
  await expect(zombie.write('g', [batch('t', 0, 30n, 30n, 40n)])).rejects.toMatchObject({ code: 'HDFS_REQUEST_FAILED' });
  hdfs.clearFaults();
  await zombie.close();
  expect((await readClaims(store.client, store.layout, 't', 0)).strays.map((s) => s.start)).toEqual([30n]);
  // Before the fix recovery took claim 30 as the newest and published it (position 40); now it goes aside unpublished.
  const owner = sinkOf(dir);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(10n);
  await owner.sink.close();
  expect(await spans(store, dir)).toEqual(['0-9']);
  expect((await store.client.list(owner.strays[0]!.movedTo))!.map((e) => e.pathSuffix)).toContain('0.jsonl');
});

test('a reset run after a zombie\'s stray moves it aside first (reported in strays) and rewinds the chain only', async () => {
  const { dir, store, zombie } = await resetWithZombie();
  expect(await zombie.write('g', [batch('t', 0, 30n, 30n, 40n)])).toEqual({ status: 'committed' });
  await zombie.close();
  const again = new HdfsPositionStore({ url: hdfs.url, topicsDir: dir });
  expect(await again.list('g')).toEqual([{ ...tp, nextOffset: 10n }]);
  // The operator rewinds further, to 0: the stray goes aside through recovery, then the chain's claims.
  await again.overwrite('g', [{ ...tp, nextOffset: 0n }]);
  expect(again.strays.map((s) => [s.start, s.end])).toEqual([[30n, 39n]]);
  expect(again.moves.map((m) => [m.from, m.to, m.movedAside.length, m.emptyClaim])).toEqual([[10n, -1n, 1, false]]);
  expect(await spans(store, dir)).toEqual([]);
  const owner = sinkOf(dir);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(-1n);
  expect(await owner.sink.write('g', [batch('t', 0, -1n, 0n, 40n)])).toEqual({ status: 'committed' });
  await owner.sink.close();
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, 40n));
});

test('a zombie that commits several ranges past the reset: every one of its claims is a stray', async () => {
  const { dir, store, zombie } = await resetWithZombie();
  expect(await zombie.write('g', [batch('t', 0, 30n, 30n, 50n)])).toEqual({ status: 'committed' }); // claims 30 and 40
  await zombie.close();
  const owner = sinkOf(dir);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(10n);
  expect(owner.strays.map((s) => s.start)).toEqual([40n, 30n]); // newest first
  expect(await spans(store, dir)).toEqual(['0-9']);
  expect(await owner.sink.write('g', [batch('t', 0, 10n, 10n, 50n)])).toEqual({ status: 'committed' });
  await owner.sink.close();
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, 50n));
});

test('a zombie\'s claim between the new owner\'s claims (their range jumps over its name) is a stray: no overlap', async () => {
  const { dir, store, zombie } = await resetWithZombie();
  // The new owner starts first and writes [10..34] in one file (flushSize 25): it jumps over the name 30.
  const owner = sinkOf(dir, 25);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(10n);
  expect(await owner.sink.write('g', [batch('t', 0, 10n, 10n, 35n)])).toEqual({ status: 'committed' });
  // The zombie claims the free name 30 ([30..39] overlaps the owner's file); the owner goes on past it, unaware.
  expect(await zombie.write('g', [batch('t', 0, 30n, 30n, 40n)])).toEqual({ status: 'committed' });
  await zombie.close();
  expect(await owner.sink.write('g', [batch('t', 0, 35n, 35n, 60n)])).toEqual({ status: 'committed' });
  await owner.sink.close();
  expect(await readPosition(store.client, store.layout, 't', 0)).toBe(60n);
  // The next owner's recovery moves the stray in the middle aside: each offset in exactly one committed file.
  const next = sinkOf(dir);
  expect((await next.sink.open('g', [tp])).get('t:0')).toBe(60n);
  await next.sink.close();
  expect(next.strays.map((s) => [s.start, s.end])).toEqual([[30n, 39n]]);
  expect(await spans(store, dir)).toEqual(['0-9', '10-34', '35-59']);
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, 60n));
});

test('a zombie\'s claim at exactly the name the new chain needs next chains: the owner is fenced, no gap, no overlap', async () => {
  const { dir, store, zombie } = await resetWithZombie();
  const owner = sinkOf(dir);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(10n);
  expect(await owner.sink.write('g', [batch('t', 0, 10n, 10n, 30n)])).toEqual({ status: 'committed' }); // claims 10, 20
  expect(await zombie.write('g', [batch('t', 0, 30n, 30n, 40n)])).toEqual({ status: 'committed' }); // claims 30: 20..29 + 1
  await zombie.close();
  // The owner's next claim is the same name: fenced, it re-reads the position (the zombie's range counts).
  expect(await owner.sink.write('g', [batch('t', 0, 30n, 30n, 40n)]))
    .toEqual({ status: 'fenced', fenced: [{ ...tp, storedOffset: 40n }] });
  await owner.sink.close();
  expect(owner.strays).toEqual([]);
  expect(await spans(store, dir)).toEqual(['0-9', '10-19', '20-29', '30-39']);
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, 40n));
});

test.each([
  ['before the reset records its hazards', (op: string, p: string) => op === 'MKDIRS' && p.endsWith(hazardName('00000000000000000010'))],
  ['between the reset\'s two moves aside', (op: string, p: string) => op === 'RENAME' && p.endsWith('/+log/t/0/00000000000000000010')],
])('a zombie\'s commit during the reset (%s) never counts: the reset ends at its target, the next recovery moves it aside',
  async (_when, at) => {
  const dir = `/zr${++n}`;
  // The zombie commits [30..39] at the free name 30, whole, at the chosen step of the reset (after its recovery).
  const { zombie, store } = await zombieAtThirty(dir);
  const client = store.client;
  const [mkdirs, rename] = [client.mkdirs.bind(client), client.rename.bind(client)];
  let zombieCommitted = false;
  const hook = async (op: string, p: string) => {
    if (zombieCommitted || !at(op, p)) return;
    zombieCommitted = true;
    expect(await zombie.write('g', [batch('t', 0, 30n, 30n, 40n)])).toEqual({ status: 'committed' });
  };
  client.mkdirs = async (p, perm) => { await hook('MKDIRS', p); return mkdirs(p, perm); };
  client.rename = async (src, dst) => { await hook('RENAME', src); return rename(src, dst); };
  await store.overwrite('g', [{ ...tp, nextOffset: 10n }]);
  await zombie.close();
  expect(zombieCommitted).toBe(true);
  expect(store.moves.map((m) => [m.from, m.to])).toEqual([[30n, 10n]]);
  const owner = sinkOf(dir);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(10n);
  expect(owner.strays.map((s) => [s.start, s.end])).toEqual([[30n, 39n]]);
  expect(await spans(store, dir)).toEqual(['0-9']);
  expect(await owner.sink.write('g', [batch('t', 0, 10n, 10n, 40n)])).toEqual({ status: 'committed' });
  await owner.sink.close();
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, 40n));
});

test('a reset made before hazards were recorded still fences a zombie\'s claim: its hazards are read from +rewound', async () => {
  const { dir, store, zombie } = await resetWithZombie();
  // The layout an older reset left: no +h- entries, no import marker.
  const logDir = store.layout.logDir('t', 0);
  const marks = (await store.client.list(logDir))!.map((e) => e.pathSuffix).filter((e) => e.startsWith('+h-'));
  expect(marks.sort()).toEqual([IMPORTED, ...['10', '20', '30'].map((o) => hazardName(o.padStart(20, '0')))].sort());
  for (const m of marks) expect(await store.client.delete(path.posix.join(logDir, m), true)).toBe(true);
  expect(await zombie.write('g', [batch('t', 0, 30n, 30n, 40n)])).toEqual({ status: 'committed' });
  await zombie.close();
  const owner = sinkOf(dir);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(10n);
  await owner.sink.close();
  expect(owner.strays.map((s) => s.start)).toEqual([30n]);
  expect(await spans(store, dir)).toEqual(['0-9']);
  // Imported once: recorded as hazards, +rewound no longer read.
  const after = (await store.client.list(logDir))!.map((e) => e.pathSuffix).filter((e) => e.startsWith('+h-')).sort();
  expect(after).toEqual([IMPORTED, ...['10', '20', '30', '40'].map((o) => hazardName(o.padStart(20, '0')))].sort());
});

test('a partition never rewound (the older layout, no hazards) recovers from its newest claim, reading one manifest', async () => {
  const dir = `/zr${++n}`;
  await committedUpTo(dir, 50n);
  const before = hdfs.requests.length;
  const owner = sinkOf(dir);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(50n);
  await owner.sink.close();
  const opens = hdfs.requests.slice(before).filter((r) => r.op === 'OPEN' && r.path.endsWith('.commit'));
  expect(new Set(opens.map((r) => r.path)).size).toBe(1);
  expect((await readClaims(owner.sink.client, owner.sink.layout, 't', 0)).hazards).toEqual([]);
});

test('a zombie that commits while the reset runs (after its recovery, before its listing): its next name is a hazard', async () => {
  const dir = `/zr${++n}`;
  const { zombie, store } = await zombieAtThirty(dir);
  // The zombie commits [30..39] at 30 once the reset's recovery has read the position (30), before the reset lists
  // the claims to move: the claim chains then, so the reset moves it aside with 10 and 20.
  const mkdirs = store.client.mkdirs.bind(store.client);
  let woke = false;
  store.client.mkdirs = async (p: string, permission?: string) => {
    if (!woke && p.endsWith(`/${IMPORTED}`)) {
      woke = true;
      expect(await zombie.write('g', [batch('t', 0, 30n, 30n, 40n)])).toEqual({ status: 'committed' });
    }
    return mkdirs(p, permission);
  };
  await store.overwrite('g', [{ ...tp, nextOffset: 10n }]);
  expect(woke).toBe(true);
  expect(store.moves.map((m) => [m.to, m.movedAside.length])).toEqual([[10n, 3]]);
  // The zombie goes on from its own claim's end: [40..49] at 40, a name no claim had when the reset listed them.
  expect(await zombie.write('g', [batch('t', 0, 40n, 40n, 50n)])).toEqual({ status: 'committed' });
  await zombie.close();
  // The new owner resumes at the reset point (before the fix: 50, and 10..39 never written again).
  expect(await readPosition(store.client, store.layout, 't', 0)).toBe(10n);
  const owner = sinkOf(dir);
  expect((await owner.sink.open('g', [tp])).get('t:0')).toBe(10n);
  expect(owner.strays.map((s) => [s.start, s.end])).toEqual([[40n, 49n]]);
  expect(await owner.sink.write('g', [batch('t', 0, 10n, 10n, 50n)])).toEqual({ status: 'committed' });
  await owner.sink.close();
  expect(await committedOffsets(store.client, dir, 't', 0)).toEqual(range(0n, 50n));
});

test('two recoveries racing over one stray (two members during a rebalance) both resume at the reset point, no error', async () => {
  // Four rounds: the race is decided by request timing (before the fix, the second recovery failed in every round).
  for (let round = 0; round < 4; round++) {
    const { dir, store, zombie } = await resetWithZombie();
    expect(await zombie.write('g', [batch('t', 0, 30n, 30n, 40n)])).toEqual({ status: 'committed' });
    await zombie.close();
    const [a, b] = [sinkOf(dir).sink, sinkOf(dir).sink];
    const reported: StrayClaim[] = [];
    const results = await Promise.allSettled([a, b].map((s) => recover(s.client, s.layout, 't', 0, (x) => reported.push(x))));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([10n, 10n]);
    // Moved aside once, reported once (by the recovery that moved it), its file with it.
    expect(reported.map((x) => x.start)).toEqual([30n]);
    const aside = (await store.client.list(rewoundDir(store.layout, 't', 0)))!.map((e) => e.pathSuffix)
      .filter((e) => e.includes('-stray-'));
    expect(aside).toHaveLength(1);
    expect(await spans(store, dir)).toEqual(['0-9']);
    expect(await readPosition(store.client, store.layout, 't', 0)).toBe(10n);
  }
});
