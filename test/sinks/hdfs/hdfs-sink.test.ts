/**
 * HdfsSink against the WebHDFS test server: names, staging and rotation, recovery from HDFS,
 * the start-offset claim (zombie), faults, partitioners and formats.
 */
import { spawnSync } from 'node:child_process';
import { HdfsSink } from '../../../src/sinks/hdfs/hdfs-sink';
import type { HdfsSinkConfig } from '../../../src/sinks/hdfs/config';
import type { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { batch, committedFiles, committedOffsets, range, rec, useWebHdfsServer } from './helpers';
import { until } from '../../helpers/until';

const fx = useWebHdfsServer();

let n = 0;
function sink(extra: Partial<HdfsSinkConfig> = {}, dir?: string): HdfsSink {
  return new HdfsSink({
    url: fx.server.url, user: 'etl', topicsDir: dir ?? `/t${++n}`, includeKafkaCoordinates: true, retry: { minTimeoutMs: 5 }, ...extra,
  });
}
const tp = [{ topic: 'orders', partition: 0 }];

test('committed names carry zero-padded offsets; writes are staged until flushSize; recovery reads the names', async () => {
  const s = sink({ flushSize: 25 });
  const dir = s.layout.topicsDir;
  expect(await s.open('g', tp)).toEqual(new Map([['orders:0', -1n]]));
  expect(await s.write('g', [batch('orders', 0, -1n, 0n, 10n)]))
    .toEqual({ status: 'staged', durable: [{ topic: 'orders', partition: 0, storedOffset: -1n }] });
  expect(await s.write('g', [batch('orders', 0, 10n, 10n, 30n)]))
    .toEqual({ status: 'staged', durable: [{ topic: 'orders', partition: 0, storedOffset: 25n }] });
  const files = await committedFiles(s.client, dir, 'orders');
  expect(files.map((f) => f.path)).toEqual([`${dir}/orders/partition=0/orders+0+00000000000000000000+00000000000000000024.jsonl`]);
  expect(await s.flush('g', tp)).toEqual({ status: 'staged', durable: [{ topic: 'orders', partition: 0, storedOffset: 30n }] });
  expect(await committedOffsets(s.client, dir, 'orders', 0)).toEqual(range(0n, 30n));
  await s.close();
  const again = sink({}, dir);
  expect(await again.open('g', tp)).toEqual(new Map([['orders:0', 30n]]));
  expect((await again.client.list(`${dir}/+tmp/orders/0`))).toBeNull();
  await again.close();
});

test('a write that does not continue the staged end is fenced, with the durable position read from HDFS', async () => {
  const s = sink({ flushSize: 5 });
  await s.open('g', tp);
  await s.write('g', [batch('orders', 0, -1n, 0n, 7n)]);
  expect(await s.write('g', [batch('orders', 0, 3n, 3n, 9n)]))
    .toEqual({ status: 'fenced', fenced: [{ topic: 'orders', partition: 0, storedOffset: 5n }] });
  expect(s.positions().get('orders:0')).toEqual({ durable: 5n, staged: null });
  await s.close();
});

test('zombie: two writers from the same start offset, only one commits; the other is fenced and no offset is written twice', async () => {
  const dir = `/zombie${++n}`;
  const zombie = sink({ flushSize: 1000 }, dir);
  const owner = sink({ flushSize: 1000 }, dir);
  await zombie.open('g', tp);
  await zombie.write('g', [batch('orders', 0, -1n, 0n, 20n)]);
  await zombie.flush('g', tp); // [0, 19] committed
  await zombie.write('g', [batch('orders', 0, 20n, 20n, 50n)]); // staged, then the zombie stalls
  expect(await owner.open('g', tp)).toEqual(new Map([['orders:0', 20n]]));
  await owner.write('g', [batch('orders', 0, 20n, 20n, 35n)]);
  const [a, b] = await Promise.all([owner.flush('g', tp), zombie.flush('g', tp)]);
  const results = [a, b].map((r) => r.status);
  expect(results.sort()).toEqual(['fenced', 'staged']);
  const offsets = await committedOffsets(owner.client, dir, 'orders', 0);
  expect(new Set(offsets).size).toBe(offsets.length);
  const end = a.status === 'staged' ? 35n : 50n;
  expect(offsets).toEqual(range(0n, end));
  // Each start offset has exactly one claim; the loser's files are gone.
  const files = await committedFiles(owner.client, dir, 'orders');
  expect(files.map((f) => [f.start, f.end])).toEqual([[0n, 19n], [20n, end - 1n]]);
  await zombie.close();
  await owner.close();
});

test('rebalance mid-file: the new owner resumes from HDFS (the committed names), not from what the old owner staged', async () => {
  const dir = `/rebalance${++n}`;
  const old = sink({ flushSize: 10 }, dir);
  await old.open('g', tp);
  await old.write('g', [batch('orders', 0, -1n, 0n, 14n)]); // [0, 9] committed, 10..13 staged
  await old.discard(tp); // lost without a flush
  const next = sink({ flushSize: 10 }, dir);
  expect(await next.open('g', tp)).toEqual(new Map([['orders:0', 10n]]));
  await next.write('g', [batch('orders', 0, 10n, 10n, 20n)]);
  expect(await committedOffsets(next.client, dir, 'orders', 0)).toEqual(range(0n, 20n));
  await old.close();
  await next.close();
});

test('a zombie whose attempt directory was cleaned up by the new owner cannot claim', async () => {
  const dir = `/cleanup${++n}`;
  const zombie = sink({ flushSize: 1000 }, dir);
  await zombie.open('g', tp);
  await zombie.write('g', [batch('orders', 0, -1n, 0n, 10n)]);
  // The zombie's commit stalls after MKDIRS of its attempt directory; meanwhile the new owner recovers.
  fx.server.inject({ op: 'CREATE', kind: 'latency', delayMs: 400, pathContains: '/+tmp/' });
  const flushing = zombie.flush('g', tp);
  await until(() => fx.server.requests.some((r) => r.op === 'CREATE' && r.path.includes('/+tmp/')),
    'the zombie to stall in its CREATE', 10_000);
  const owner = sink({ flushSize: 1000 }, dir);
  expect(await owner.open('g', tp)).toEqual(new Map([['orders:0', -1n]]));
  expect((await flushing).status).toBe('fenced');
  expect(await committedFiles(owner.client, dir, 'orders')).toEqual([]);
  await owner.write('g', [batch('orders', 0, -1n, 0n, 10n)]);
  await owner.flush('g', tp);
  expect(await committedOffsets(owner.client, dir, 'orders', 0)).toEqual(range(0n, 10n));
  await zombie.close();
  await owner.close();
});

describe('faults: never a duplicate, never a loss', () => {
  const cases: [string, Parameters<WebHdfsServer['inject']>[0]][] = [
    ['a lost RENAME answer on the claim', { op: 'RENAME', kind: 'lost-response', pathContains: '/+tmp/' }],
    ['a lost RENAME answer on publish', { op: 'RENAME', kind: 'lost-response', pathContains: '/+log/' }],
    ['a DataNode 503 on upload', { op: 'CREATE', kind: 'unavailable', times: 2 }],
    ['a truncated upload', { op: 'CREATE', kind: 'truncate-upload' }],
    ['a lost CREATE answer', { op: 'CREATE', kind: 'lost-response' }],
    // Nothing done, so the re-read finds the rename not landed and the lost-ack loop sends it again.
    ['a 503 on the claim RENAME (re-read, then retried)', { op: 'RENAME', kind: 'unavailable', pathContains: '/+tmp/', times: 2 }],
    ['a 503 on the publish RENAME (re-read, then retried)', { op: 'RENAME', kind: 'unavailable', pathContains: '/+log/', times: 2 }],
  ];
  test.each(cases)('%s', async (_name, fault) => {
    const s = sink({ flushSize: 10 });
    const dir = s.layout.topicsDir;
    await s.open('g', tp);
    fx.server.inject(fault);
    const r = await s.write('g', [batch('orders', 0, -1n, 0n, 25n)]);
    expect(r).toEqual({ status: 'staged', durable: [{ topic: 'orders', partition: 0, storedOffset: 20n }] });
    await s.flush('g', tp);
    expect(await committedOffsets(s.client, dir, 'orders', 0)).toEqual(range(0n, 25n));
    await s.close();
  });

  test('HDFS down past the retries: the write fails retriable, nothing is claimed, recovery resumes exactly', async () => {
    const s = sink({ flushSize: 10, retry: { retries: 1, minTimeoutMs: 1 } });
    const dir = s.layout.topicsDir;
    await s.open('g', tp);
    fx.server.inject({ op: '*', kind: 'unavailable', times: 1000, node: 'datanode' });
    await expect(s.write('g', [batch('orders', 0, -1n, 0n, 15n)])).rejects.toMatchObject({ retriable: true });
    fx.server.clearFaults();
    expect(await s.open('g', tp)).toEqual(new Map([['orders:0', -1n]]));
    await s.write('g', [batch('orders', 0, -1n, 0n, 15n)]);
    await s.flush('g', tp);
    expect(await committedOffsets(s.client, dir, 'orders', 0)).toEqual(range(0n, 15n));
    await s.close();
  });
});

test('rotation by record time: a record this far past the file\'s first record starts a new file', async () => {
  const s = sink({ flushSize: 1000, rotateIntervalMs: 10_000 });
  await s.open('g', tp);
  await s.write('g', [batch('orders', 0, -1n, 0n, 25n)]); // one record per second
  const files = await committedFiles(s.client, s.layout.topicsDir, 'orders');
  expect(files.map((f) => [f.start, f.end])).toEqual([[0n, 9n], [10n, 19n]]);
  await s.close();
});

test('rotation on a wall-clock schedule fires without traffic and reports the durable position it moved (onDurable)', async () => {
  const s = sink({ flushSize: 1000, rotateScheduleIntervalMs: 100 });
  const reported: unknown[] = [];
  const off = s.onDurable((positions) => reported.push(...positions));
  await s.open('g', tp);
  await s.write('g', [batch('orders', 0, -1n, 0n, 5n)]);
  await until(async () => (await committedFiles(s.client, s.layout.topicsDir, 'orders')).length > 0, 'a committed file', 10_000);
  await until(async () => reported.length > 0, 'the schedule to report', 5_000);
  expect(reported).toEqual([{ topic: 'orders', partition: 0, storedOffset: 5n }]);
  off();
  expect((await committedFiles(s.client, s.layout.topicsDir, 'orders')).map((f) => [f.start, f.end])).toEqual([[0n, 4n]]);
  expect(await s.write('g', [batch('orders', 0, 5n, 5n, 6n)]))
    .toEqual({ status: 'staged', durable: [{ topic: 'orders', partition: 0, storedOffset: 5n }] });
  await s.close();
});

test('field and time partitioners put each record under its own directory; one rotation commits them all', async () => {
  const f = sink({ flushSize: 9, partitioner: { type: 'field', field: 'k' } });
  await f.open('g', tp);
  await f.write('g', [batch('orders', 0, -1n, 0n, 9n)]);
  expect((await committedFiles(f.client, f.layout.topicsDir, 'orders')).map((x) => x.path.split('/').slice(3).join('/'))).toEqual([
    'k=0/orders+0+00000000000000000000+00000000000000000008.jsonl',
    'k=1/orders+0+00000000000000000000+00000000000000000008.jsonl',
    'k=2/orders+0+00000000000000000000+00000000000000000008.jsonl',
  ]);
  await f.close();
  const t = sink({
    flushSize: 2,
    partitioner: { type: 'time', pathFormat: "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH", durationMs: 3_600_000, timezone: 'Asia/Kolkata' },
  });
  await t.open('g', tp);
  await t.write('g', [{
    ...batch('orders', 0, -1n, 0n, 2n),
    records: [rec('orders', 0, 0n, {}, 1_700_000_000_000n), rec('orders', 0, 1n, {}, 1_700_003_600_000n)],
  }]);
  expect((await committedFiles(t.client, t.layout.topicsDir, 'orders'))
    .map((x) => x.path.split('/').slice(3, 7).join('/')).sort()).toEqual([
    'year=2023/month=11/day=15/hour=03', 'year=2023/month=11/day=15/hour=04',
  ]);
  await t.close();
});

test('a record that cannot be written is refused by name before anything of its write is staged', async () => {
  const s = sink({ flushSize: 3, format: { type: 'csv', columns: [{ name: 'n', type: 'int64', nullable: false }] } });
  await s.open('g', tp);
  const b = batch('orders', 0, -1n, 0n, 5n);
  b.records[3] = { ...b.records[3]!, value: Buffer.from('{"n": "x"}') };
  await expect(s.write('g', [b])).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED', offset: 3n, column: 'n' });
  expect(s.positions().get('orders:0')).toEqual({ durable: -1n, staged: null });
  expect(await committedFiles(s.client, s.layout.topicsDir, 'orders')).toEqual([]);
  await s.close();
});

test('JSON lines: a value that is not JSON is refused by name (syntax check, no parse); a multi-line value is written on one '
  + 'line', async () => {
  const s = sink({ flushSize: 3, includeKafkaCoordinates: false });
  await s.open('g', tp);
  const b = batch('orders', 0, -1n, 0n, 5n);
  b.records[2] = { ...b.records[2]!, value: Buffer.from('{"n": 1,}') };
  await expect(s.write('g', [b])).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED', offset: 2n, partition: 0, topic: 'orders' });
  expect(s.positions().get('orders:0')).toEqual({ durable: -1n, staged: null });
  const ok = batch('orders', 0, -1n, 0n, 3n);
  ok.records[1] = { ...ok.records[1]!, value: Buffer.from('{\n  "n": 1,\r\n  "s": "a\\nb"\n}') };
  await s.write('g', [ok]);
  const [file] = await committedFiles(s.client, s.layout.topicsDir, 'orders');
  const lines = (await s.client.open(file!.path)).toString('utf8').split('\n');
  expect(lines).toHaveLength(4);
  expect(lines[1]).toBe('{   "n": 1,    "s": "a\\nb" }'); // the value's own bytes, its line breaks turned into spaces
  expect(lines.slice(0, 3).map((l) => JSON.parse(l))).toEqual([
    JSON.parse(ok.records[0]!.value!.toString()), { n: 1, s: 'a\nb' }, JSON.parse(ok.records[2]!.value!.toString()),
  ]);
  await s.close();
});

test('CSV files have a header and RFC 4180 quoting', async () => {
  const s = sink({
    flushSize: 2, includeKafkaCoordinates: false,
    format: { type: 'csv', columns: [{ name: 'n', type: 'int64' }, { name: 's', type: 'string' }] },
  });
  await s.open('g', tp);
  await s.write('g', [{
    topic: 'orders', partition: 0, expectedOffset: -1n, nextOffset: 2n,
    records: [rec('orders', 0, 0n, { n: 1, s: 'a,"b"' }), rec('orders', 0, 1n, { n: 2, s: 'plain' })],
  }]);
  const [file] = await committedFiles(s.client, s.layout.topicsDir, 'orders');
  expect((await s.client.open(file!.path)).toString()).toBe('n,s\r\n1,"a,""b"""\r\n2,plain\r\n');
  await s.close();
});

test('Parquet files open in an independent reader (hyparquet, in a separate Node process)', async () => {
  const s = sink({ flushSize: 50, format: { type: 'parquet', columns: [{ name: 'n', type: 'int64' }, { name: 'k', type: 'double' }] } });
  await s.open('g', tp);
  await s.write('g', [batch('orders', 0, -1n, 0n, 50n)]);
  const [file] = await committedFiles(s.client, s.layout.topicsDir, 'orders');
  expect(file!.path.endsWith('.parquet')).toBe(true);
  const script = `import('hyparquet').then(async ({ parquetReadObjects, parquetMetadata }) => {
    const buf = require('fs').readFileSync(process.argv[1]); const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
    const rows = await parquetReadObjects({ file: ab });
    console.log(JSON.stringify({ n: Number(parquetMetadata(ab).num_rows), `
    + `rows: rows.map((r) => [String(r._offset), String(r.n), r.k, r._topic]) }));
  })`;
  const out = spawnSync(process.execPath, ['-e', script, fx.server.localPath(file!.path)], { encoding: 'utf8', cwd: process.cwd() });
  expect(out.stderr).toBe('');
  const parsed = JSON.parse(out.stdout) as { n: number; rows: [string, string, number, string][] };
  expect(parsed.n).toBe(50);
  expect(parsed.rows[7]).toEqual(['7', '7', 1, 'orders']);
  await s.close();
});
