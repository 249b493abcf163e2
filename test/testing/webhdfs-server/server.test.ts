/**
 * The WebHDFS test server answers as Hadoop's REST docs say, and the client never reports a
 * failure as success (the faults webhdfs 1.2.0 hides: refused RENAME, failed DELETE, DataNode
 * 503, a NameNode answering 201 without a redirect, a lost answer).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient, WebHdfsError } from '../../../src/sinks/hdfs/webhdfs-client';

let hdfs: WebHdfsServer;
let client: WebHdfsClient;
beforeAll(async () => {
  hdfs = await WebHdfsServer.start(); client = new WebHdfsClient({ url: hdfs.url, user: 'alice', minTimeoutMs: 5 });
});
afterAll(() => hdfs.stop());
afterEach(() => hdfs.clearFaults());

const raw = (method: string, p: string, q: string, body?: Buffer) =>
  fetch(`${hdfs.url}/webhdfs/v1${p}?${q}`, { method, body, redirect: 'manual' });

test('CREATE is two-step: the NameNode answers 307 to a DataNode, which answers 201; noredirect answers 200 with the Location',
  async () => {
  const first = await raw('PUT', '/a/two-step.txt', 'op=CREATE&user.name=alice');
  expect(first.status).toBe(307);
  const loc = first.headers.get('location')!;
  expect(loc.startsWith(hdfs.dataNodeUrl)).toBe(true);
  const second = await fetch(loc, { method: 'PUT', body: Buffer.from('hello') });
  expect(second.status).toBe(201);
  expect(second.headers.get('location')).toMatch(/^webhdfs:\/\/.*\/a\/two-step.txt$/);
  const nr = await raw('PUT', '/a/nr.txt', 'op=CREATE&noredirect=true');
  expect(nr.status).toBe(200);
  expect((await nr.json() as { Location: string }).Location.startsWith(hdfs.dataNodeUrl)).toBe(true);
  const st = await client.status('/a/two-step.txt');
  expect(st).toMatchObject({ type: 'FILE', length: 5, owner: 'alice', permission: '644', pathSuffix: '' });
});

test('CREATE without overwrite refuses an existing file with FileAlreadyExistsException (403); overwrite=true replaces it', async () => {
  await client.create('/b/f', Buffer.from('one'));
  const nn = await raw('PUT', '/b/f', 'op=CREATE');
  expect(nn.status).toBe(307); // as Hadoop: the NameNode redirects; the DataNode's create refuses
  const r = await fetch(nn.headers.get('location')!, { method: 'PUT', body: Buffer.from('two') });
  expect(r.status).toBe(403);
  expect(await r.json()).toEqual({ RemoteException: { exception: 'FileAlreadyExistsException',
    javaClassName: 'org.apache.hadoop.fs.FileAlreadyExistsException', message: expect.stringContaining('/b/f') } });
  await expect(client.create('/b/f', Buffer.from('two'))).rejects.toMatchObject({ status: 403, exception: 'FileAlreadyExistsException' });
  await client.create('/b/f', Buffer.from('three'), { overwrite: true, permission: '600' });
  expect((await client.open('/b/f')).toString()).toBe('three');
  expect((await client.status('/b/f'))!.permission).toBe('600');
  await expect(client.create('/b/g', Buffer.from('x'), { permission: '999' }))
    .rejects.toMatchObject({ status: 400, exception: 'IllegalArgumentException' });
  await expect(client.create('/nope/dir/f', Buffer.from('x'), { createParent: false }))
    .rejects.toMatchObject({ status: 404, exception: 'FileNotFoundException' });
});

test('APPEND adds bytes; OPEN honours offset and length; a missing file is FileNotFoundException (404)', async () => {
  await client.create('/c/f', Buffer.from('0123'));
  await client.append('/c/f', Buffer.from('4567'));
  expect((await client.open('/c/f')).toString()).toBe('01234567');
  expect((await client.open('/c/f', { offset: 2, length: 3 })).toString()).toBe('234');
  expect((await client.open('/c/f', { offset: 6 })).toString()).toBe('67');
  await expect(client.open('/c/missing')).rejects.toMatchObject({ status: 404, exception: 'FileNotFoundException' });
  await expect(client.append('/c/missing', Buffer.from('x'))).rejects.toMatchObject({ status: 404 });
});

test('RENAME answers {"boolean": false} for a missing source, an existing destination, a missing parent; onto a directory it moves inside',
  async () => {
  await client.create('/r/a', Buffer.from('a'));
  await client.create('/r/b', Buffer.from('b'));
  expect(await client.rename('/r/missing', '/r/x')).toBe(false);
  expect(await client.rename('/r/a', '/r/b')).toBe(false);
  expect((await client.open('/r/b')).toString()).toBe('b');
  expect(await client.rename('/r/a', '/r/no/such/parent')).toBe(false);
  await client.mkdirs('/r/dir');
  expect(await client.rename('/r/a', '/r/dir')).toBe(true);
  expect((await client.open('/r/dir/a')).toString()).toBe('a');
  expect(await client.rename('/r/b', '/r/c')).toBe(true);
  expect(await client.status('/r/b')).toBeNull();
});

test('RENAME onto the source itself (FSDirRenameOp): true for a file, or a directory onto its parent; false into itself', async () => {
  // renameTo: a directory destination becomes <dst>/<source's name>; unprotectedRenameTo answers true when that
  // is the source (before any other check), and false for a destination under the source.
  await client.create('/s/dir/f', Buffer.from('f'));
  expect(await client.rename('/s/dir/f', '/s/dir/f')).toBe(true);
  expect(await client.rename('/s/dir/f', '/s/dir')).toBe(true);
  expect(await client.rename('/s/dir', '/s')).toBe(true);
  expect(await client.rename('/s/dir', '/s/dir')).toBe(false);
  expect((await client.open('/s/dir/f')).toString()).toBe('f');
});

test('DELETE: false when absent, PathIsNotEmptyDirectoryException without recursive, true with it; LISTSTATUS and GETCONTENTSUMMARY',
  async () => {
  await client.create('/d/x/1', Buffer.from('12'));
  await client.create('/d/x/2', Buffer.from('345'));
  expect(await client.delete('/d/none')).toBe(false);
  await expect(client.delete('/d/x')).rejects.toMatchObject({ status: 403, exception: 'PathIsNotEmptyDirectoryException' });
  expect((await client.list('/d/x'))!.map((s) => [s.pathSuffix, s.length])).toEqual([['1', 2], ['2', 3]]);
  expect(await client.contentSummary('/d')).toMatchObject({ directoryCount: 2, fileCount: 2, length: 5 });
  expect(await client.list('/d/none')).toBeNull();
  expect(await client.delete('/d/x', true)).toBe(true);
  expect(await client.status('/d/x')).toBeNull();
});

test('bad requests: unknown op, wrong method, user.name required', async () => {
  expect((await raw('GET', '/x', 'op=NOPE')).status).toBe(400);
  expect(((await (await raw('GET', '/x', 'op=MKDIRS')).json()) as { RemoteException: { exception: string } }).RemoteException.exception)
    .toBe('IllegalArgumentException');
  const strict = await WebHdfsServer.start({ requireUser: true });
  try {
    const r = await fetch(`${strict.url}/webhdfs/v1/x?op=GETFILESTATUS`);
    expect(r.status).toBe(401);
    expect(((await r.json()) as { RemoteException: { exception: string } }).RemoteException.exception).toBe('SecurityException');
  } finally { await strict.stop(); }
});

test('a lost RENAME answer is an error of unknown outcome, never a success; the rename did happen', async () => {
  await client.create('/f/src', Buffer.from('s'));
  hdfs.inject({ op: 'RENAME', kind: 'lost-response' });
  const e = await client.rename('/f/src', '/f/dst').catch((x: unknown) => x);
  expect(e).toBeInstanceOf(WebHdfsError);
  expect((e as WebHdfsError).status).toBeUndefined();
  expect((e as WebHdfsError).retriable).toBe(true);
  expect(await client.status('/f/dst')).not.toBeNull();
  expect(hdfs.requests.filter((r) => r.op === 'RENAME' && r.path === '/f/src')).toHaveLength(1); // never re-sent
});

test('a DataNode 503 is retried for an idempotent CREATE and reported when it persists; no file claimed written', async () => {
  hdfs.inject({ op: 'CREATE', kind: 'unavailable', times: 2 });
  await client.create('/g/ok', Buffer.from('fine'), { overwrite: true });
  expect((await client.open('/g/ok')).toString()).toBe('fine');
  hdfs.inject({ op: 'CREATE', kind: 'unavailable', times: 100 });
  await expect(new WebHdfsClient({ url: hdfs.url, retries: 2, minTimeoutMs: 1 })
    .create('/g/never', Buffer.from('x'), { overwrite: true })).rejects.toMatchObject({ status: 503, exception: 'RetriableException' });
  expect(await client.status('/g/never')).toBeNull();
  hdfs.clearFaults();
  hdfs.inject({ op: 'CREATE', kind: 'unavailable' });
  await expect(client.create('/g/once', Buffer.from('x'))).rejects.toMatchObject({ status: 503 }); // overwrite=false: sent once
});

test('a truncated upload leaves a partial file and no success; the overwrite retry replaces it whole', async () => {
  hdfs.inject({ op: 'CREATE', kind: 'truncate-upload', keepBytes: 3 });
  const data = Buffer.alloc(100000, 7);
  await client.create('/h/f', data, { overwrite: true });
  expect((await client.open('/h/f')).equals(data)).toBe(true);
  expect(hdfs.requests.filter((r) => r.op === 'CREATE' && r.node === 'datanode' && r.path === '/h/f').map((r) => r.status))
    .toEqual(['dropped', 201]);
  hdfs.inject({ op: 'CREATE', kind: 'truncate-upload', keepBytes: 3 });
  await expect(client.create('/h/g', data)).rejects.toMatchObject({ retriable: true, status: undefined });
  expect((await client.status('/h/g'))!.length).toBe(3);
});

test('a truncated answer is an error, and latency only delays', async () => {
  await client.create('/i/f', Buffer.from('abcdefgh'));
  hdfs.inject({ op: 'OPEN', kind: 'truncate-response', times: 100 });
  await expect(new WebHdfsClient({ url: hdfs.url, retries: 1, minTimeoutMs: 1 }).open('/i/f')).rejects.toBeInstanceOf(WebHdfsError);
  hdfs.clearFaults();
  hdfs.inject({ op: 'GETFILESTATUS', kind: 'latency', delayMs: 150 });
  const t0 = Date.now();
  expect(await client.status('/i/f')).not.toBeNull();
  expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
});

test('a NameNode answering CREATE with 201 and no redirect is an error, not a hang or a success', async () => {
  const odd = http.createServer((req, res) => { req.resume(); res.writeHead(201); res.end(); });
  await new Promise<void>((r) => odd.listen(0, '127.0.0.1', () => r()));
  try {
    const c = new WebHdfsClient({ url: `http://127.0.0.1:${(odd.address() as AddressInfo).port}`, timeoutMs: 5000 });
    await expect(c.create('/x', Buffer.from('x'))).rejects.toThrow(/without redirecting/);
  } finally { odd.close(); }
});

test('a DELETE refused by HDFS is an error, and a RENAME refused is false (never true)', async () => {
  hdfs.inject({ op: 'DELETE', kind: 'unavailable', times: 100 });
  await expect(new WebHdfsClient({ url: hdfs.url, retries: 1, minTimeoutMs: 1 }).delete('/anything'))
    .rejects.toMatchObject({ status: 503 });
  hdfs.clearFaults();
  await client.create('/j/a', Buffer.from('a'));
  await client.create('/j/b', Buffer.from('b'));
  await expect(client.rename('/j/a', '/j/b')).resolves.toBe(false);
});
