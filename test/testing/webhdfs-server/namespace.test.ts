/** The WebHDFS test server's file-system rules without HTTP: rename, owners that follow their paths, Hadoop's limits. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HdfsNamespace } from '../../../src/testing/webhdfs-server/namespace';

let root: string;
let ns: HdfsNamespace;
beforeEach(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-ns-')); ns = new HdfsNamespace(root); });
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const file = (p: string, user = 'alice') =>
  fs.closeSync(ns.createFile(p, { user, permission: null, overwrite: false, createParent: true }));

test('rename follows ClientProtocol.rename; owners and permissions move with the path and go with a delete', () => {
  file('/a/f');
  ns.mkdirs('/b', 'bob', '700');
  expect(ns.rename('/a/f', '/b')).toBe(true); // onto a directory: moves inside it
  expect(ns.status('/b/f', 'f')).toMatchObject({ owner: 'alice', permission: '644', type: 'FILE' });
  expect(ns.rename('/missing', '/c')).toBe(false);
  expect(ns.rename('/b', '/b/inside')).toBe(false);
  expect(ns.rename('/b/f', '/nope/f')).toBe(false);
  expect(ns.rename('/b', '/')).toBe(true); // a directory onto its parent: itself
  expect(() => ns.rename('/b/f', 'relative')).toThrow(expect.objectContaining({ status: 400, exception: 'IllegalArgumentException' }));
  expect(ns.recordedPaths).toBe(3); // /a, /b, /b/f
  ns.delete('/b', true);
  ns.delete('/a', true);
  expect(ns.recordedPaths).toBe(0);
});

test('a component over 255 bytes is PathComponentTooLongException; nothing is made or recorded', () => {
  const name = 'é'.repeat(128); // 256 bytes
  expect(() => ns.mkdirs(`/a/${name}/b`, 'alice', '755')).toThrow(expect.objectContaining({
    status: 403, exception: 'PathComponentTooLongException', message: expect.stringContaining('limit=255 length=256'),
  }));
  expect(() => file(`/a/${name}`)).toThrow(expect.objectContaining({ exception: 'PathComponentTooLongException' }));
  expect(fs.readdirSync(root)).toEqual([]);
  expect(ns.recordedPaths).toBe(0);
  file(`/a/${'é'.repeat(127)}x`); // 255 bytes
});

test('scrub replaces the local directory in a message', () => {
  expect(ns.scrub(`ENAMETOOLONG: name too long, open '${root}/a/b'`)).toBe("ENAMETOOLONG: name too long, open '/a/b'");
});
