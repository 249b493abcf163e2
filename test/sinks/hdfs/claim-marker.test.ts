/**
 * The claim without a separate check, and attempt directories made ahead of their commit (docs/hdfs-sink.md,
 * "The commit protocol"): a claim holds the marker `<claim>/<claim>`, so a RENAME of another attempt onto it is
 * refused (Hadoop's rename moves a source into an existing directory, and answers false when that name is taken);
 * an attempt made ahead and deleted by a new owner's recovery fences its writer; a failed commit's attempt is
 * never reused.
 */
import { commitFiles, HdfsLayout } from '../../../src/sinks/hdfs/commit';
import { readPosition, recover } from '../../../src/sinks/hdfs/recovery';
import { HdfsSink } from '../../../src/sinks/hdfs/hdfs-sink';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { batch, committedFiles, committedOffsets, range, useWebHdfsServer } from './helpers';
import { until } from '../../helpers/until';

const fx = useWebHdfsServer();

let n = 0;
const tp = [{ topic: 'orders', partition: 0 }];
const sink = (dir: string, flushSize = 1000) =>
  new HdfsSink({ url: fx.server.url, topicsDir: dir, includeKafkaCoordinates: true, flushSize, retry: { retries: 2, minTimeoutMs: 1 } });
const file = (bytes: string) => [{ partitionPath: 'partition=0', bytes: Buffer.from(bytes), records: 1 }];

test('a second writer\'s claim of a taken start offset is refused by the marker: fenced, nothing moved into the claim', async () => {
  const dir = `/marker${++n}`;
  const client = new WebHdfsClient({ url: fx.server.url, retries: 1, minTimeoutMs: 1 });
  const layout = new HdfsLayout(dir, 'jsonl');
  expect(await recover(client, layout, 'orders', 0)).toBe(-1n);
  const first = await commitFiles(client, layout, 'orders', 0, 0n, 4n, true, file('{"a":1}\n'));
  expect(first.status).toBe('committed');
  const claim = `${dir}/+log/orders/0/first`;
  const before = (await client.list(claim))!.map((e) => `${e.type} ${e.pathSuffix}`).sort();
  // The marker and the manifest (the data file, published, has left the claim).
  expect(before).toEqual(['DIRECTORY first', 'FILE orders+0+00000000000000000000+00000000000000000004.commit']);
  const seen = fx.server.requests.length;
  // Another writer that read the same (empty) chain claims `first` too, with another end.
  const second = await commitFiles(client, layout, 'orders', 0, 0n, 6n, true, file('{"b":2}\n'));
  expect(second).toEqual({ status: 'fenced' });
  expect((await client.list(claim))!.map((e) => `${e.type} ${e.pathSuffix}`).sort()).toEqual(before);
  expect(await client.list(`${claim}/first`)).toEqual([]); // the marker, still empty: the loser was not moved inside
  expect(await readPosition(client, layout, 'orders', 0)).toBe(5n);
  expect((await committedFiles(client, dir, 'orders')).map((f) => [f.start, f.end])).toEqual([[0n, 4n]]);
  // The commit path asks nothing of the claim after a RENAME that answered: no GETFILESTATUS of a claim in either
  // commit (the fenced writer's recovery asks for the status of +rewound, where a reset's claims would be).
  expect(fx.server.requests.slice(seen).filter((r) => r.op === 'GETFILESTATUS' && r.path.includes('/+log/'))).toEqual([]);
});

test('a commit sends no claim check, and the next commit\'s attempt directory is made beside its uploads', async () => {
  const dir = `/ahead${++n}`;
  const s = sink(dir, 10);
  await s.open('g', tp);
  const seen = fx.server.requests.length;
  await s.write('g', [batch('orders', 0, -1n, 0n, 10n)]);
  await s.write('g', [batch('orders', 0, 10n, 10n, 20n)]);
  const ops = fx.server.requests.slice(seen).filter((r) => r.node === 'namenode').map((r) => r.op);
  expect(ops.filter((o) => o === 'GETFILESTATUS')).toEqual([]);
  // Two commits, one MKDIRS of an attempt each (the first at the first write, the second beside the first's uploads).
  const tmpMkdirs = fx.server.requests.slice(seen).filter((r) => r.op === 'MKDIRS' && r.path.includes('/+tmp/')).map((r) => r.path);
  const at = (o: string) => `${o.padStart(20, '0')}/${o.padStart(20, '0')}`;
  expect(tmpMkdirs.map((p) => p.split('/').slice(-2).join('/'))).toEqual(['first/first', at('10'), at('20')]);
  expect(await committedOffsets(s.client, dir, 'orders', 0)).toEqual(range(0n, 20n));
  await s.close();
  expect(await s.client.list(`${dir}/+tmp/orders/0`)).toEqual([]); // close removed the attempt made ahead
});

test('an attempt made ahead and deleted by a new owner\'s recovery fences its writer; the owner commits exactly once', async () => {
  const dir = `/ahead-fenced${++n}`;
  const zombie = sink(dir, 10);
  await zombie.open('g', tp);
  expect(await zombie.write('g', [batch('orders', 0, -1n, 0n, 5n)])).toMatchObject({ status: 'staged' });
  // The write sent the MKDIRS of its next attempt without waiting for it: wait until the server has made it.
  const made = () => fx.server.requests.some((r) => r.op === 'MKDIRS' && r.path.startsWith(`${dir}/+tmp/`) && r.status === 200);
  await until(made, 'the server to make the next attempt directory', 5000);
  const owner = sink(dir, 10);
  expect(await owner.open('g', tp)).toEqual(new Map([['orders:0', -1n]])); // deletes +tmp/orders/0, the zombie's attempt too
  const zombieClaims = fx.server.requests.length;
  expect(await zombie.write('g', [batch('orders', 0, 5n, 5n, 10n)]))
    .toEqual({ status: 'fenced', fenced: [{ topic: 'orders', partition: 0, storedOffset: -1n }] });
  expect(fx.server.requests.slice(zombieClaims).filter((r) => r.op === 'RENAME')).toEqual([]); // refused at upload, never claimed
  await owner.write('g', [batch('orders', 0, -1n, 0n, 10n)]);
  expect(await committedOffsets(owner.client, dir, 'orders', 0)).toEqual(range(0n, 10n));
  expect((await committedFiles(owner.client, dir, 'orders')).map((f) => [f.start, f.end])).toEqual([[0n, 9n]]);
  await zombie.close();
  await owner.close();
});

test('a commit that failed after its uploads never reuses its attempt: the next commit of that start has one manifest', async () => {
  const dir = `/no-reuse${++n}`;
  const s = sink(dir);
  await s.open('g', tp);
  await s.write('g', [batch('orders', 0, -1n, 0n, 5n)]);
  fx.server.inject({ op: 'RENAME', kind: 'unavailable', pathContains: '/+tmp/', times: 100 });
  await expect(s.flush('g', tp)).rejects.toMatchObject({ retriable: true }); // [0, 4] uploaded, never claimed
  fx.server.clearFaults();
  // Written again without a re-open (staging was dropped): another range of the same start, [0, 7].
  await s.write('g', [batch('orders', 0, -1n, 0n, 8n)]);
  expect(await s.flush('g', tp)).toMatchObject({ status: 'staged' });
  const claim = (await s.client.list(`${dir}/+log/orders/0/first`))!.map((e) => e.pathSuffix).sort();
  expect(claim).toEqual(['first', 'orders+0+00000000000000000000+00000000000000000007.commit']);
  expect((await committedFiles(s.client, dir, 'orders')).map((f) => [f.start, f.end])).toEqual([[0n, 7n]]);
  expect(await committedOffsets(s.client, dir, 'orders', 0)).toEqual(range(0n, 8n));
  await s.close();
});
