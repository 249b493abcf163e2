/**
 * The file-system rules of the WebHDFS test server, apart from HTTP: an HDFS namespace (paths, owners,
 * permissions, the NameNode's checks) over a local directory. Errors are {@link RemoteError}s carrying
 * Hadoop's exception names and the HTTP status Hadoop's WebHDFS ExceptionHandler gives their class
 * (FileNotFoundException 404, any other IOException 403, IllegalArgumentException 400). Paths given and
 * named in messages are HDFS paths: the local directory never appears in an answer.
 * `server.ts` is the HTTP layer over it (two-step CREATE, faults, the request log).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KafkaEosError } from '../../errors';

/**
 * A failure as the NameNode reports it: `{"RemoteException": {exception, javaClassName, message}}` with `status`.
 * Answered by the server, never thrown to its caller (the SDK's client reads the answer as WebHdfsError); a
 * KafkaEosError HDFS_REQUEST_FAILED, retriable as a 5xx answer is.
 */
export class RemoteError extends KafkaEosError {
  constructor(readonly status: number, readonly exception: string, readonly javaClassName: string, message: string) {
    super('HDFS_REQUEST_FAILED', message, { retriable: status >= 500 });
  }
}
export const notFound = (m: string) => new RemoteError(404, 'FileNotFoundException', 'java.io.FileNotFoundException', m);
export const exists = (m: string) =>
  new RemoteError(403, 'FileAlreadyExistsException', 'org.apache.hadoop.fs.FileAlreadyExistsException', m);
export const badArg = (m: string) => new RemoteError(400, 'IllegalArgumentException', 'java.lang.IllegalArgumentException', m);
export const ioError = (m: string) => new RemoteError(403, 'IOException', 'java.io.IOException', m);
const parentNotDir = (m: string) =>
  new RemoteError(403, 'ParentNotDirectoryException', 'org.apache.hadoop.fs.ParentNotDirectoryException', m);

/** The FileStatus JSON object of WebHDFS. Times in ms since the epoch, lengths in bytes. */
export interface HdfsFileStatus {
  accessTime: number; blockSize: number; childrenNum: number; fileId: number; group: string; length: number;
  modificationTime: number; owner: string; pathSuffix: string; permission: string; replication: number;
  storagePolicy: number; type: 'FILE' | 'DIRECTORY';
}

/** The longest path component the NameNode accepts, bytes of UTF-8 (`dfs.namenode.fs-limits.max-component-length`). */
export const MAX_COMPONENT_LENGTH = 255;

interface Meta { owner: string; permission: string }

/** `/a/b/` and `a//b` as `/a/b`. */
export function normalize(p: string): string {
  const n = path.posix.normalize(`/${p}`);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

/**
 * An HDFS namespace over the local directory `root` (see the module comment). Owners and permissions are
 * recorded for the paths that exist (an entry goes with its path: set after the path is made, moved by
 * RENAME, dropped by DELETE or when the path is found missing), so the map never outgrows the namespace.
 */
export class HdfsNamespace {
  private readonly meta = new Map<string, Meta>();

  constructor(readonly root: string) {}

  /** The local file backing an HDFS path. */
  localPath(hdfsPath: string): string {
    return path.join(this.root, path.posix.normalize(`/${hdfsPath}`));
  }

  /** A message with the local directory replaced by the namespace's root (for errors from the local file system). */
  scrub(message: string): string {
    return message.split(this.root).join('');
  }

  private stat(p: string): fs.Stats | undefined {
    try { return fs.statSync(this.localPath(p)); } catch { return undefined; }
  }

  /** The file at `p`. @throws RemoteError FileNotFoundException when it is missing or a directory. */
  fileStat(p: string): fs.Stats {
    const st = this.stat(p);
    if (!st) throw notFound(`File does not exist: ${p}`);
    if (!st.isFile()) throw notFound(`Path is not a file: ${p}`);
    return st;
  }

  /** A `permission` parameter (octal, e.g. 644 or 1777). @throws RemoteError IllegalArgumentException */
  checkPermission(perm: string | null): void {
    if (perm !== null && !/^[0-1]?[0-7]{3}$/.test(perm)) throw badArg(`Invalid value for webhdfs parameter "permission": ${perm}`);
  }

  /**
   * Creates (or with `overwrite` truncates) the file `p`, its missing parents with `createParent`, and returns an open
   * descriptor to write its bytes (as in HDFS, the file exists from here on). @throws RemoteError
   */
  createFile(p: string, o: { user: string; permission: string | null; overwrite: boolean; createParent: boolean }): number {
    const st = this.stat(p);
    if (st?.isDirectory()) throw exists(`${p} already exists as a directory`);
    if (st && !o.overwrite) throw exists(`${p} for client 127.0.0.1 already exists`);
    this.checkPermission(o.permission);
    this.checkParent(p, o.createParent);
    this.checkComponents(p);
    this.mkdirs(path.posix.dirname(p), o.user, '755');
    const fd = fs.openSync(this.localPath(p), 'w');
    this.meta.set(p, { owner: o.user, permission: o.permission ?? '644' });
    return fd;
  }

  /** An open descriptor appending to the existing file `p`. @throws RemoteError FileNotFoundException */
  appendFile(p: string): number {
    this.fileStat(p);
    return fs.openSync(this.localPath(p), 'a');
  }

  /** OPEN: `length` bytes (default: to the end) of file `p` from `offset` (default 0), as given. @throws RemoteError */
  read(p: string, offsetParam: string | null, lengthParam: string | null): Buffer {
    const st = this.fileStat(p);
    const offset = Number(offsetParam ?? 0);
    if (!Number.isInteger(offset) || offset < 0) throw badArg(`Invalid value for webhdfs parameter "offset": ${offsetParam}`);
    if (offset > st.size) throw ioError(`Offset=${offset} out of the range [0, ${st.size}]`);
    const length = lengthParam === null ? st.size - offset : Math.min(Number(lengthParam), st.size - offset);
    if (!Number.isInteger(length) || length < 0) throw badArg(`Invalid value for webhdfs parameter "length": ${lengthParam}`);
    const buf = Buffer.alloc(length);
    const fd = fs.openSync(this.localPath(p), 'r');
    try { fs.readSync(fd, buf, 0, length, offset); } finally { fs.closeSync(fd); }
    return buf;
  }

  /** MKDIRS: the directory and its missing parents; true (as Hadoop). @throws RemoteError when a path on the way is a file */
  mkdirs(p: string, user: string, permission: string): boolean {
    this.checkParent(`${p}/x`, true);
    const st = this.stat(p);
    if (st && !st.isDirectory()) {
      throw new RemoteError(
        403, 'FileAlreadyExistsException', 'org.apache.hadoop.fs.FileAlreadyExistsException', `Path is not a directory: ${p}`,
      );
    }
    this.checkComponents(p);
    const made: string[] = [];
    for (let dir = p; dir !== '/' && !this.stat(dir); dir = path.posix.dirname(dir)) made.push(dir);
    fs.mkdirSync(this.localPath(p), { recursive: true });
    for (const dir of made) this.meta.set(dir, { owner: user, permission });
    return true;
  }

  /** ClientProtocol.rename semantics (the deprecated rename WebHDFS calls without rename options). */
  rename(src: string, destination: string | null): boolean {
    if (destination === null || !destination.startsWith('/')) {
      throw badArg(`Invalid value for webhdfs parameter "destination": ${destination}`);
    }
    let dst = normalize(destination);
    const s = this.stat(src);
    if (!s || src === '/') return false;
    const d = this.stat(dst);
    if (d?.isDirectory()) dst = path.posix.join(dst, path.posix.basename(src));
    // FSDirRenameOp.unprotectedRenameTo: true when the resolved destination is the source (a file onto itself,
    // a directory onto its parent), before any other check.
    if (dst === src) return true;
    if (dst.startsWith(`${src}/`)) return false;
    if (this.stat(dst)) return false;
    const parent = this.stat(path.posix.dirname(dst));
    if (!parent?.isDirectory()) return false;
    this.checkComponents(dst);
    fs.renameSync(this.localPath(src), this.localPath(dst));
    for (const [k, v] of [...this.meta]) {
      if (k === src || k.startsWith(`${src}/`)) { this.meta.delete(k); this.meta.set(dst + k.slice(src.length), v); }
    }
    return true;
  }

  /** DELETE: false when `p` is missing. @throws RemoteError for `/` and a non-empty directory without `recursive` */
  delete(p: string, recursive: boolean): boolean {
    const st = this.stat(p);
    if (!st) return false;
    if (p === '/') throw ioError('Cannot delete /');
    if (st.isDirectory() && !recursive && fs.readdirSync(this.localPath(p)).length > 0) {
      throw new RemoteError(
        403, 'PathIsNotEmptyDirectoryException', 'org.apache.hadoop.fs.PathIsNotEmptyDirectoryException',
        `\`${p} is non empty': Directory is not empty`,
      );
    }
    fs.rmSync(this.localPath(p), { recursive: true, force: true });
    this.forget(p);
    return true;
  }

  /** GETFILESTATUS (`suffix` '') or one entry of LISTSTATUS. @throws RemoteError FileNotFoundException */
  status(p: string, suffix: string): HdfsFileStatus {
    const st = this.stat(p);
    if (!st) {
      this.forget(p);
      throw notFound(`File does not exist: ${p}`);
    }
    const m = this.meta.get(p);
    const dir = st.isDirectory();
    return {
      accessTime: dir ? 0 : Math.floor(st.atimeMs), blockSize: dir ? 0 : 134217728,
      childrenNum: dir ? fs.readdirSync(this.localPath(p)).length : 0, fileId: st.ino, group: 'supergroup',
      length: dir ? 0 : st.size, modificationTime: Math.floor(st.mtimeMs), owner: m?.owner ?? 'hdfs', pathSuffix: suffix,
      permission: m?.permission ?? (dir ? '755' : '644'), replication: dir ? 0 : 1, storagePolicy: 0, type: dir ? 'DIRECTORY' : 'FILE',
    };
  }

  /** LISTSTATUS: a directory's entries by name, or a file's own status. @throws RemoteError FileNotFoundException */
  list(p: string): HdfsFileStatus[] {
    const st = this.stat(p);
    if (!st) throw notFound(`File ${p} does not exist.`);
    if (!st.isDirectory()) return [this.status(p, '')];
    return fs.readdirSync(this.localPath(p)).sort().map((name) => this.status(path.posix.join(p, name), name));
  }

  /** GETCONTENTSUMMARY. @throws RemoteError FileNotFoundException */
  summary(p: string): Record<string, number> {
    const st = this.stat(p);
    if (!st) throw notFound(`File does not exist: ${p}`);
    let files = 0; let dirs = 0; let length = 0;
    const walk = (q: string) => {
      const s = fs.statSync(q);
      if (s.isDirectory()) { dirs++; for (const n of fs.readdirSync(q)) walk(path.join(q, n)); } else { files++; length += s.size; }
    };
    walk(this.localPath(p));
    return { directoryCount: dirs, fileCount: files, length, quota: -1, spaceConsumed: length, spaceQuota: -1 };
  }

  /** Number of paths with recorded owner and permission (for tests of the server's bounds). */
  get recordedPaths(): number {
    return this.meta.size;
  }

  private forget(p: string): void {
    for (const k of [...this.meta.keys()]) if (k === p || k.startsWith(`${p}/`)) this.meta.delete(k);
  }

  private checkParent(p: string, createParent: boolean): void {
    let dir = path.posix.dirname(p);
    const first = dir;
    while (dir !== '/') {
      const st = this.stat(dir);
      if (st && !st.isDirectory()) throw parentNotDir(`Parent path is not a directory: ${dir}`);
      if (st) return;
      if (!createParent) throw notFound(`Parent directory doesn't exist: ${first}`);
      dir = path.posix.dirname(dir);
    }
  }

  /**
   * FSDirectory.verifyMaxComponentLength: every component `p` would add is at most {@link MAX_COMPONENT_LENGTH}
   * bytes. @throws RemoteError PathComponentTooLongException (an IOException: 403)
   */
  private checkComponents(p: string): void {
    for (let dir = p; dir !== '/' && !this.stat(dir); dir = path.posix.dirname(dir)) {
      const name = path.posix.basename(dir);
      const length = Buffer.byteLength(name);
      if (length > MAX_COMPONENT_LENGTH) {
        throw new RemoteError(403, 'PathComponentTooLongException',
          'org.apache.hadoop.hdfs.protocol.FSLimitException$PathComponentTooLongException',
          `The maximum path component name limit of ${name} in directory ${path.posix.dirname(dir)} is exceeded: `
          + `limit=${MAX_COMPONENT_LENGTH} length=${length}`);
      }
    }
  }
}
