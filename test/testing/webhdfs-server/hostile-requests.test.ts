/**
 * Hostile requests against the WebHDFS test server (issue 19, item 4): none may bring down the process that
 * hosts it (a jest worker, the demo's parent, a user's test process), none may learn the server's local
 * directory, and a long-lived server's memory stays bounded (request bodies, the request log, the metadata).
 */
import * as http from 'node:http';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';

let hdfs: WebHdfsServer;
beforeAll(async () => { hdfs = await WebHdfsServer.start({ maxBodyBytes: 64 * 1024, requestLogLimit: 50 }); });
afterAll(() => hdfs.stop());

/** One raw HTTP request (the path sent exactly as given, no client-side normalisation): status and body, or 'closed'. */
function send(base: string, method: string, target: string, body?: Buffer): Promise<{ status: number; body: string } | 'closed'> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const req = http.request({ host: hostname, port, method, path: target, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      res.on('error', () => resolve('closed'));
    });
    req.on('error', () => resolve('closed'));
    req.end(body);
  });
}

test('bad percent-encoding in the path answers 400 IllegalArgumentException, and the server keeps serving', async () => {
  for (const target of ['/webhdfs/v1/%E0%A4%A?op=LISTSTATUS', '/webhdfs/v1/%?op=LISTSTATUS', '/webhdfs/v1/a%zz?op=GETFILESTATUS']) {
    const r = await send(hdfs.url, 'GET', target);
    expect(r).toEqual({ status: 400, body: expect.any(String) });
    expect(JSON.parse((r as { body: string }).body)).toEqual({ RemoteException: {
      exception: 'IllegalArgumentException', javaClassName: 'java.lang.IllegalArgumentException',
      message: expect.stringMatching(/^Malformed percent-encoded octet at index \d+$/),
    } });
  }
  const dn = await send(hdfs.dataNodeUrl, 'PUT', '/webhdfs/v1/%?op=CREATE');
  expect(dn).toMatchObject({ status: 400 });
  // Well-formed escapes of bytes that are not UTF-8 read as U+FFFD (as Java's decoder reads them): an ordinary miss.
  expect(await send(hdfs.url, 'GET', '/webhdfs/v1/%E0%A4?op=LISTSTATUS'))
    .toMatchObject({ status: 404, body: expect.stringContaining('\ufffd') });
  expect(await new WebHdfsClient({ url: hdfs.url }).list('/')).not.toBeNull();
});

test('no answer shows the server\'s local directory; an over-long path component is Hadoop\'s PathComponentTooLongException', async () => {
  const long = 'x'.repeat(256);
  const r = await send(hdfs.url, 'PUT', `/webhdfs/v1/ok/${long}/f?op=MKDIRS`);
  expect(r).toMatchObject({ status: 403 });
  expect(JSON.parse((r as { body: string }).body).RemoteException).toEqual({
    exception: 'PathComponentTooLongException',
    javaClassName: 'org.apache.hadoop.hdfs.protocol.FSLimitException$PathComponentTooLongException',
    message: `The maximum path component name limit of ${long} in directory /ok is exceeded: limit=255 length=256`,
  });
  const client = new WebHdfsClient({ url: hdfs.url, retries: 0 });
  await expect(client.create(`/ok/${long}`, Buffer.from('x')))
    .rejects.toMatchObject({ status: 403, exception: 'PathComponentTooLongException' });
  await client.create('/ok/src', Buffer.from('x'));
  await expect(client.rename('/ok/src', `/ok/${long}`)).rejects.toMatchObject({ exception: 'PathComponentTooLongException' });
  expect(await client.list('/ok')).toEqual([expect.objectContaining({ pathSuffix: 'src' })]);
  // Components within HDFS's limit but a path longer than the local file system takes (PATH_MAX 4096).
  const deep = `/${Array.from({ length: 20 }, () => 'd'.repeat(250)).join('/')}`;
  const answers = await Promise.all([
    send(hdfs.url, 'PUT', `/webhdfs/v1${deep}?op=MKDIRS`),
    send(hdfs.url, 'GET', `/webhdfs/v1${deep}?op=GETFILESTATUS`),
    send(hdfs.url, 'PUT', `/webhdfs/v1/ok/src?op=RENAME&destination=${deep}`),
  ]);
  for (const a of answers) {
    expect(a).not.toBe('closed');
    expect((a as { body: string }).body).not.toContain(hdfs.root);
  }
  expect((answers[0] as { status: number }).status).toBe(500);
});

test('a request body over maxBodyBytes is refused (403 DSQuotaExceededException) without being read whole', async () => {
  const nn = await send(hdfs.url, 'PUT', '/webhdfs/v1/big?op=CREATE&noredirect=true');
  const location = JSON.parse((nn as { body: string }).body).Location as string;
  const u = new URL(location);
  const r = await send(hdfs.dataNodeUrl, 'PUT', `${u.pathname}${u.search}`, Buffer.alloc(1024 * 1024, 1));
  if (r !== 'closed') { // the client may see the close before the answer while it is still sending
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).RemoteException.exception).toBe('DSQuotaExceededException');
  }
  const status = await new WebHdfsClient({ url: hdfs.url }).status('/big');
  expect(status!.length).toBeLessThanOrEqual(64 * 1024);
  // A NameNode request with a body over the bound: the connection is closed; the server keeps serving.
  expect(await send(hdfs.url, 'PUT', '/webhdfs/v1/x?op=MKDIRS', Buffer.alloc(1024 * 1024))).toBe('closed');
  expect(await send(hdfs.url, 'PUT', '/webhdfs/v1/x?op=MKDIRS')).toMatchObject({ status: 200 });
});

test('a long-lived server keeps a bounded request log, and metadata only for paths that exist', async () => {
  const client = new WebHdfsClient({ url: hdfs.url, user: 'bob' });
  const before = hdfs.recordedPaths;
  for (let i = 0; i < 60; i++) {
    await client.create(`/churn/${i}/f`, Buffer.from('x'));
    await client.delete(`/churn/${i}`, true);
  }
  await client.delete('/churn', true);
  expect(hdfs.recordedPaths).toBe(before);
  expect(hdfs.requests.length).toBeLessThan(100);
  expect(hdfs.requests.at(-1)).toMatchObject({ op: 'DELETE', path: '/churn' });
});
