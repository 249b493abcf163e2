/**
 * The WebHDFS test server with the two npm clients, for the calls they support: both understand its
 * answers. The same runs show why the sink does not rest on `webhdfs` 1.2.0: it reports a refused
 * RENAME ({"boolean": false}) as success (docs/hdfs-sink.md, "The client").
 */
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const WebHDFS = require('webhdfs') as { createClient(o: object): Record<string, (...a: unknown[]) => unknown> };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { WebHDFSClient } = require('node-webhdfs') as { WebHDFSClient: new (o: object) => Record<string, (...a: unknown[]) => unknown> };

/** Calls a callback-style method; the first callback wins; a client that never calls back fails the test by name. */
function call<T>(client: Record<string, (...a: unknown[]) => unknown>, method: string, ...args: unknown[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${method}: no callback in 5 s`)), 5000);
    client[method]!(...args, (err: unknown, value: T) => { clearTimeout(timer); if (err) reject(err); else resolve(value); });
  });
}

let hdfs: WebHdfsServer;
let port: number;
beforeAll(async () => { hdfs = await WebHdfsServer.start(); port = Number(new URL(hdfs.url).port); });
afterAll(() => hdfs.stop());

test('webhdfs 1.2.0: mkdir, writeFile (two-step CREATE), readFile, stat, readdir, rename, unlink', async () => {
  const c = WebHDFS.createClient({ host: '127.0.0.1', port, path: '/webhdfs/v1', user: 'alice' });
  await call(c, 'mkdir', '/w1/dir');
  await call(c, 'writeFile', '/w1/dir/a.txt', 'hello');
  expect(String(await call(c, 'readFile', '/w1/dir/a.txt'))).toBe('hello');
  expect(await call(c, 'stat', '/w1/dir/a.txt')).toMatchObject({ type: 'FILE', length: 5, owner: 'alice' });
  expect((await call<{ pathSuffix: string }[]>(c, 'readdir', '/w1/dir')).map((s) => s.pathSuffix)).toEqual(['a.txt']);
  await call(c, 'rename', '/w1/dir/a.txt', '/w1/dir/b.txt');
  expect(hdfs.requests.at(-1)).toMatchObject({ op: 'RENAME', status: 200 });
  await call(c, 'unlink', '/w1/dir/b.txt');
  await expect(call(c, 'readFile', '/w1/dir/b.txt')).rejects.toThrow(/does not exist/);
});

test('webhdfs 1.2.0 reports a refused RENAME as success (the fault the sink guards against)', async () => {
  const c = WebHDFS.createClient({ host: '127.0.0.1', port, path: '/webhdfs/v1' });
  await call(c, 'writeFile', '/w2/a', 'a');
  await call(c, 'writeFile', '/w2/b', 'b');
  await expect(call(c, 'rename', '/w2/a', '/w2/b')).resolves.not.toBeInstanceOf(Error); // no error: HDFS said false
  expect(String(await call(c, 'readFile', '/w2/b'))).toBe('b'); // nothing was renamed
});

test('node-webhdfs: mkdirs, create, append, open, getFileStatus, listStatus, getContentSummary, rename, del', async () => {
  const c = new WebHDFSClient({ namenode_host: '127.0.0.1', namenode_port: port, user: 'bob' });
  expect(await call(c, 'mkdirs', '/n1/dir')).toBe(true);
  await call(c, 'create', '/n1/dir/f', 'abc');
  await call(c, 'append', '/n1/dir/f', 'def');
  expect(await call(c, 'getFileStatus', '/n1/dir/f')).toMatchObject({ type: 'FILE', length: 6, owner: 'bob' });
  expect((await call<{ pathSuffix: string }[]>(c, 'listStatus', '/n1/dir')).map((s) => s.pathSuffix)).toEqual(['f']);
  expect(await call(c, 'getContentSummary', '/n1')).toMatchObject({ fileCount: 1, length: 6 });
  expect(await call(c, 'rename', '/n1/dir/f', '/n1/dir/g')).toBe(true);
  expect(await call(c, 'rename', '/n1/dir/missing', '/n1/dir/h')).toBe(false);
  expect(await call(c, 'del', '/n1', { recursive: true })).toBe(true);
  await expect(call(c, 'getFileStatus', '/n1')).rejects.toMatchObject({ exception: 'FileNotFoundException' });
});
