/**
 * The HDFS claim RENAME under a lost or refused answer with another writer acting before the re-read: the
 * lost-acknowledgement loop must decide from the namespace, so the partition ends with each offset in
 * exactly one committed file (no duplicate, no gap) and the zombie fenced. The zombie's re-read is held at
 * a gate (its first GETFILESTATUS) until the new owner has finished, so the interleaving is exact.
 */
import { HdfsSink } from '../../../src/sinks/hdfs/hdfs-sink';
import type { HdfsSinkConfig } from '../../../src/sinks/hdfs/config';
import { batch, committedFiles, committedOffsets, range, useWebHdfsServer } from './helpers';

const fx = useWebHdfsServer();

let n = 0;
const tp = [{ topic: 'orders', partition: 0 }];
const sink = (dir: string, extra: Partial<HdfsSinkConfig> = {}) =>
  new HdfsSink({
    url: fx.server.url, user: 'etl', topicsDir: dir, includeKafkaCoordinates: true, flushSize: 1000, retry: { minTimeoutMs: 5 }, ...extra,
  });

/** Holds the sink's first GETFILESTATUS (the lost-ack re-read) until `release()`; `reached` resolves when it is called. */
function gateFirstStatus(s: HdfsSink) {
  let release!: () => void;
  let reached!: () => void;
  const open = new Promise<void>((r) => { release = r; });
  const hit = new Promise<void>((r) => { reached = r; });
  const real = s.client.status.bind(s.client);
  let first = true;
  s.client.status = async (p: string) => {
    if (first) { first = false; reached(); await open; }
    return real(p);
  };
  return { release, reached: hit };
}

/**
 * A zombie that staged [0, 9] and is flushing with `fault` on its claim RENAME, held at its re-read;
 * `owner` is a second sink on the same directory, free to act before `gate.release()`.
 */
async function zombieAtReread(dir: string, fault: 'lost-response' | 'unavailable') {
  const zombie = sink(dir);
  await zombie.open('g', tp);
  await zombie.write('g', [batch('orders', 0, -1n, 0n, 10n)]);
  fx.server.inject({ op: 'RENAME', kind: fault, pathContains: '/+tmp/' });
  const gate = gateFirstStatus(zombie);
  const flushing = zombie.flush('g', tp);
  await gate.reached;
  return { zombie, owner: sink(dir), gate, flushing };
}

async function expectExactlyOnce(s: HdfsSink, dir: string, end: bigint, claims: [bigint, bigint][]) {
  expect(await committedOffsets(s.client, dir, 'orders', 0)).toEqual(range(0n, end));
  expect((await committedFiles(s.client, dir, 'orders')).map((f) => [f.start, f.end])).toEqual(claims);
  const names = claims.map(([a]) => (a === 0n ? 'first' : a.toString().padStart(20, '0'))).sort();
  expect((await s.client.list(`${dir}/+log/orders/0`))!.map((e) => e.pathSuffix).sort()).toEqual(names);
}

test('a lost claim answer, then a new owner recovers and claims the next range: the zombie re-reads landed, its next claim is fenced',
  async () => {
  const dir = `/lost-then-next${++n}`;
  const { zombie, owner, gate, flushing } = await zombieAtReread(dir, 'lost-response');
  expect(await owner.open('g', tp)).toEqual(new Map([['orders:0', 10n]])); // recovery sees the landed claim and publishes it
  await owner.write('g', [batch('orders', 0, 10n, 10n, 15n)]);
  await owner.flush('g', tp);
  gate.release();
  expect(await flushing).toMatchObject({ status: 'staged', durable: [{ topic: 'orders', partition: 0, storedOffset: 10n }] });
  await zombie.write('g', [batch('orders', 0, 10n, 10n, 20n)]);
  expect((await zombie.flush('g', tp)).status).toBe('fenced');
  await expectExactlyOnce(owner, dir, 15n, [[0n, 9n], [10n, 14n]]);
  await zombie.close();
  await owner.close();
});

test('a 503 on the claim (nothing renamed), then a new owner recovers and claims the same start: the zombie re-reads and is fenced',
  async () => {
  const dir = `/503-then-same${++n}`;
  const { zombie, owner, gate, flushing } = await zombieAtReread(dir, 'unavailable');
  expect(await owner.open('g', tp)).toEqual(new Map([['orders:0', -1n]])); // deletes the zombie's attempt directory
  await owner.write('g', [batch('orders', 0, -1n, 0n, 7n)]);
  await owner.flush('g', tp);
  gate.release();
  expect((await flushing).status).toBe('fenced');
  await expectExactlyOnce(owner, dir, 7n, [[0n, 6n]]);
  await zombie.close();
  await owner.close();
});

test('a 503 on the claim, then a new owner only recovers (no claim yet): the zombie\'s attempt is gone, so it is fenced, never re-sent',
  async () => {
  const dir = `/503-then-recover${++n}`;
  const { zombie, owner, gate, flushing } = await zombieAtReread(dir, 'unavailable');
  await owner.open('g', tp);
  const renames = fx.server.requests.filter((r) => r.op === 'RENAME').length;
  gate.release();
  expect((await flushing).status).toBe('fenced');
  expect(fx.server.requests.filter((r) => r.op === 'RENAME').length).toBe(renames);
  await owner.write('g', [batch('orders', 0, -1n, 0n, 12n)]);
  await owner.flush('g', tp);
  await expectExactlyOnce(owner, dir, 12n, [[0n, 11n]]);
  await zombie.close();
  await owner.close();
});

test('503s on the claim past the retry budget: the write fails retriable, the outcome is decided by recovery, exactly once', async () => {
  const dir = `/503-exhausted${++n}`;
  const s = sink(dir, { flushSize: 10, retry: { retries: 2, minTimeoutMs: 1 } });
  await s.open('g', tp);
  fx.server.inject({ op: 'RENAME', kind: 'unavailable', pathContains: '/+tmp/', times: 100 });
  await expect(s.write('g', [batch('orders', 0, -1n, 0n, 15n)])).rejects.toMatchObject({ retriable: true });
  fx.server.clearFaults();
  expect(await s.open('g', tp)).toEqual(new Map([['orders:0', -1n]]));
  await s.write('g', [batch('orders', 0, -1n, 0n, 15n)]);
  await s.flush('g', tp);
  await expectExactlyOnce(s, dir, 15n, [[0n, 9n], [10n, 14n]]);
  await s.close();
});

test.each([
  ['GETFILESTATUS', 'the claim\'s status'], ['LISTSTATUS', 'the manifest listing'],
])('a lost claim answer whose re-read (%s, %s) gets a 503 is re-read again, and lands once', async (op, _what) => {
  const dir = `/reread-503${++n}`;
  const s = sink(dir, { flushSize: 10 });
  await s.open('g', tp);
  fx.server.inject({ op: 'RENAME', kind: 'lost-response', pathContains: '/+tmp/' });
  fx.server.inject({ op: op as 'LISTSTATUS', kind: 'unavailable', pathContains: '/+log/', times: 2 });
  expect(await s.write('g', [batch('orders', 0, -1n, 0n, 12n)])).toMatchObject({ durable: [{ storedOffset: 10n }] });
  await s.flush('g', tp);
  // one lost, one for [10, 11]
  expect(fx.server.requests.filter((r) => r.op === 'RENAME' && r.path.startsWith(`${dir}/+tmp/`))).toHaveLength(2);
  await expectExactlyOnce(s, dir, 12n, [[0n, 9n], [10n, 11n]]);
  await s.close();
});
