/**
 * An in-process WebHDFS server for tests: a NameNode and a DataNode (two HTTP servers on
 * 127.0.0.1) speaking Hadoop's WebHDFS REST API (hadoop-hdfs WebHDFS.md, "WebHDFS REST API"),
 * backed by a temp directory. CREATE, APPEND and OPEN are two-step: the NameNode answers 307 with
 * a DataNode Location (or 200 `{"Location": ...}` with `noredirect=true`), the DataNode does the I/O.
 * RENAME follows ClientProtocol.rename (the one WebHDFS calls): `{"boolean": false}` when the source
 * is missing, the destination file exists or its parent is missing; onto an existing directory it
 * moves the source inside it. Errors are `{"RemoteException": {exception, javaClassName, message}}`
 * with the status codes of Hadoop's ExceptionHandler. Faults can be injected per operation.
 * Known differences from Hadoop: docs/hdfs-sink.md ("The WebHDFS test server").
 *
 * ```ts
 * const hdfs = await WebHdfsServer.start();
 * hdfs.inject({ op: 'RENAME', kind: 'lost-response' });
 * // ... point a client at hdfs.url (http://127.0.0.1:<port>) ...
 * await hdfs.stop();
 * ```
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The operations the server implements. */
export type WebHdfsOp =
  | 'CREATE' | 'APPEND' | 'OPEN' | 'MKDIRS' | 'RENAME' | 'DELETE'
  | 'LISTSTATUS' | 'GETFILESTATUS' | 'GETCONTENTSUMMARY' | 'GETHOMEDIRECTORY';

/**
 * A fault for the next `times` matching requests (default 1):
 * - `lost-response`: the operation is carried out, then the connection is closed without an answer;
 * - `unavailable`: 503 with a RetriableException, nothing done (a busy DataNode when `node` is 'datanode');
 * - `truncate-upload`: the DataNode stores the first `keepBytes` bytes of the body (default: half) and drops the connection;
 * - `truncate-response`: the answer announces its full length but the connection closes halfway;
 * - `latency`: the request waits `delayMs` first, then proceeds normally.
 */
export interface WebHdfsFault {
  op: WebHdfsOp | '*';
  kind: 'lost-response' | 'unavailable' | 'truncate-upload' | 'truncate-response' | 'latency';
  /** Which server the fault hits (default: the DataNode for CREATE/APPEND/OPEN, else the NameNode). */
  node?: 'namenode' | 'datanode';
  /** Only requests whose HDFS path contains this string. */
  pathContains?: string;
  times?: number;
  delayMs?: number;
  keepBytes?: number;
}

/** One request as the server saw it (for assertions). */
export interface WebHdfsRequestLog { node: 'namenode' | 'datanode'; method: string; op: string; path: string; status: number | 'dropped' }

/** The FileStatus JSON object of WebHDFS. Times in ms since the epoch, lengths in bytes. */
export interface HdfsFileStatus {
  accessTime: number; blockSize: number; childrenNum: number; fileId: number; group: string; length: number;
  modificationTime: number; owner: string; pathSuffix: string; permission: string; replication: number;
  storagePolicy: number; type: 'FILE' | 'DIRECTORY';
}

/** Options of {@link WebHdfsServer.start}. */
export interface WebHdfsServerOptions {
  /** Backing directory (default: a new temp directory, removed by stop()). */
  root?: string;
  /** Refuse requests without `user.name` with 401 SecurityException (default false: anonymous is `dr.who`). */
  requireUser?: boolean;
}

class RemoteError extends Error {
  constructor(readonly status: number, readonly exception: string, readonly javaClassName: string, message: string) { super(message); }
}
const notFound = (m: string) => new RemoteError(404, 'FileNotFoundException', 'java.io.FileNotFoundException', m);
const exists = (m: string) => new RemoteError(403, 'FileAlreadyExistsException', 'org.apache.hadoop.fs.FileAlreadyExistsException', m);
const badArg = (m: string) => new RemoteError(400, 'IllegalArgumentException', 'java.lang.IllegalArgumentException', m);
const ioError = (m: string) => new RemoteError(403, 'IOException', 'java.io.IOException', m);
const parentNotDir = (m: string) =>
  new RemoteError(403, 'ParentNotDirectoryException', 'org.apache.hadoop.fs.ParentNotDirectoryException', m);

const METHODS: Record<WebHdfsOp, string> = {
  CREATE: 'PUT', MKDIRS: 'PUT', RENAME: 'PUT', APPEND: 'POST', DELETE: 'DELETE',
  OPEN: 'GET', LISTSTATUS: 'GET', GETFILESTATUS: 'GET', GETCONTENTSUMMARY: 'GET', GETHOMEDIRECTORY: 'GET',
};
const DATANODE_OPS = new Set<string>(['CREATE', 'APPEND', 'OPEN']);
const PREFIX = '/webhdfs/v1';

interface Meta { owner: string; permission: string }

/** The in-process WebHDFS NameNode + DataNode for tests (see the module comment). */
export class WebHdfsServer {
  /** The NameNode's base URL, e.g. `http://127.0.0.1:41234`. */
  url = '';
  /** The DataNode's base URL. */
  dataNodeUrl = '';
  /** Every request handled, in arrival order. */
  readonly requests: WebHdfsRequestLog[] = [];
  /** Called as each request arrives, before it is handled (e.g. to kill a client at a chosen request). */
  onRequest: ((r: WebHdfsRequestLog) => void) | undefined;
  private faults: (WebHdfsFault & { left: number })[] = [];
  private readonly meta = new Map<string, Meta>();
  private readonly nameNode: http.Server;
  private readonly dataNode: http.Server;
  private readonly ownsRoot: boolean;
  readonly root: string;

  private constructor(private readonly options: WebHdfsServerOptions) {
    this.ownsRoot = options.root === undefined;
    this.root = options.root ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-webhdfs-'));
    this.nameNode = http.createServer((req, res) => void this.handle('namenode', req, res));
    this.dataNode = http.createServer((req, res) => void this.handle('datanode', req, res));
  }

  /** Starts both servers on ephemeral ports of 127.0.0.1. */
  static async start(options: WebHdfsServerOptions = {}): Promise<WebHdfsServer> {
    const s = new WebHdfsServer(options);
    const listen = (srv: http.Server) => new Promise<number>((resolve) =>
      srv.listen(0, '127.0.0.1', () => resolve((srv.address() as AddressInfo).port)));
    s.url = `http://127.0.0.1:${await listen(s.nameNode)}`;
    s.dataNodeUrl = `http://127.0.0.1:${await listen(s.dataNode)}`;
    return s;
  }

  /** Adds a fault (see {@link WebHdfsFault}); faults match in the order added. */
  inject(fault: WebHdfsFault): void {
    this.faults.push({ ...fault, left: fault.times ?? 1 });
  }

  /** Removes every fault not yet spent. */
  clearFaults(): void {
    this.faults = [];
  }

  /** The local file backing an HDFS path (for tests that inspect bytes directly). */
  localPath(hdfsPath: string): string {
    return path.join(this.root, path.posix.normalize(`/${hdfsPath}`));
  }

  /** Stops both servers (dropping open connections) and removes the temp root it created. */
  async stop(): Promise<void> {
    for (const srv of [this.nameNode, this.dataNode]) {
      srv.closeAllConnections();
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    }
    if (this.ownsRoot) fs.rmSync(this.root, { recursive: true, force: true });
  }

  private takeFault(node: 'namenode' | 'datanode', op: string, p: string): WebHdfsFault | undefined {
    const f = this.faults.find((x) => (x.op === '*' || x.op === op) && (x.node ?? (DATANODE_OPS.has(op) ? 'datanode' : 'namenode')) === node
      && (x.pathContains === undefined || p.includes(x.pathContains)));
    if (!f) return undefined;
    if (--f.left <= 0) this.faults = this.faults.filter((x) => x !== f);
    return f;
  }

  private async handle(node: 'namenode' | 'datanode', req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://x');
    const op = (u.searchParams.get('op') ?? '').toUpperCase();
    const hdfsPath = decodeURIComponent(u.pathname.startsWith(PREFIX) ? u.pathname.slice(PREFIX.length) || '/' : u.pathname);
    const entry: WebHdfsRequestLog = { node, method: req.method ?? '', op, path: hdfsPath, status: 'dropped' };
    this.requests.push(entry);
    this.onRequest?.(entry);
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      const text = body === undefined ? '' : JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
      res.end(text);
    };
    const drop = () => { entry.status = 'dropped'; req.socket.destroy(); };
    try {
      let fault = this.takeFault(node, op, hdfsPath);
      if (fault?.kind === 'latency') {
        await new Promise((r) => setTimeout(r, fault!.delayMs ?? 100));
        fault = undefined;
      }
      if (fault?.kind === 'unavailable') {
        await drain(req);
        return send(503, remote(new RemoteError(
          503, 'RetriableException', 'org.apache.hadoop.ipc.RetriableException',
          `${node === 'datanode' ? 'DataNode' : 'NameNode'} is busy, try again later`,
        )));
      }
      if (!u.pathname.startsWith(PREFIX)) throw notFound(`${u.pathname}: not a WebHDFS path (expected ${PREFIX}/...)`);
      if (!(op in METHODS)) throw badArg(`Invalid value for webhdfs parameter "op": No enum constant ${op || '(none)'}`);
      if (METHODS[op as WebHdfsOp] !== req.method) {
        throw badArg(`Invalid value for webhdfs parameter "op": ${op} is not a valid ${req.method} operation`);
      }
      const user = u.searchParams.get('user.name');
      if (user === null && this.options.requireUser) {
        throw new RemoteError(
          401, 'SecurityException', 'java.lang.SecurityException', 'Failed to obtain user group information: user.name is required',
        );
      }
      const ctx: OpContext = {
        node, op: op as WebHdfsOp, p: normalize(hdfsPath), q: u.searchParams, user: user ?? 'dr.who', req, res, fault, send, drop,
      };
      await this.dispatch(ctx);
    } catch (e) {
      if (e instanceof RemoteError) {
        await drain(req).catch(() => undefined);
        return send(e.status, remote(e));
      }
      entry.status = 500;
      if (!res.headersSent) send(500, remote(new RemoteError(500, 'RuntimeException', 'java.lang.RuntimeException', (e as Error).message)));
      else res.destroy();
    }
  }

  private async dispatch(c: OpContext): Promise<void> {
    if (c.node === 'namenode' && DATANODE_OPS.has(c.op)) {
      // As Hadoop's NameNode: CREATE is redirected after checking its parameters only (the DataNode's create
      // finds an existing file); APPEND and OPEN look the file up first (choosing a DataNode needs its blocks).
      if (c.op === 'CREATE') this.checkPermission(c);
      else this.fileStat(c.p);
      const q = new URLSearchParams(c.q);
      q.set('namenoderpcaddress', this.url.replace('http://', ''));
      q.delete('noredirect');
      const location = `${this.dataNodeUrl}${PREFIX}${encodePath(c.p)}?${q}`;
      await drain(c.req);
      if (c.q.get('noredirect') === 'true') return c.send(200, { Location: location });
      return c.send(307, undefined, { Location: location });
    }
    if (c.node === 'datanode' && !DATANODE_OPS.has(c.op)) throw badArg(`${c.op} is not a DataNode operation`);
    switch (c.op) {
      case 'CREATE': return this.create(c);
      case 'APPEND': return this.append(c);
      case 'OPEN': return this.open(c);
      case 'MKDIRS': return this.answer(c, { boolean: this.mkdirs(c.p, c.user, c.q.get('permission') ?? '755') });
      case 'RENAME': return this.answer(c, { boolean: this.rename(c.p, c.q.get('destination')) });
      case 'DELETE': return this.answer(c, { boolean: this.delete(c.p, c.q.get('recursive') === 'true') });
      case 'GETFILESTATUS': return this.answer(c, { FileStatus: this.status(c.p, '') });
      case 'LISTSTATUS': return this.answer(c, { FileStatuses: { FileStatus: this.list(c.p) } });
      case 'GETCONTENTSUMMARY': return this.answer(c, { ContentSummary: this.summary(c.p) });
      case 'GETHOMEDIRECTORY': return this.answer(c, { Path: `/user/${c.user}` });
    }
  }

  /** Sends a JSON answer, or carries out the operation and drops the connection (lost-response), or cuts the answer short. */
  private async answer(c: OpContext, body: unknown): Promise<void> {
    await drain(c.req);
    if (c.fault?.kind === 'lost-response') return c.drop();
    if (c.fault?.kind === 'truncate-response') return cutShort(c, Buffer.from(JSON.stringify(body)));
    c.send(200, body);
  }

  private stat(p: string): fs.Stats | undefined {
    try { return fs.statSync(this.localPath(p)); } catch { return undefined; }
  }

  private fileStat(p: string): fs.Stats {
    const st = this.stat(p);
    if (!st) throw notFound(`File does not exist: ${p}`);
    if (!st.isFile()) throw notFound(`Path is not a file: ${p}`);
    return st;
  }

  /** Checks a CREATE before anything is written; true when it answered already (no redirect). */
  private checkCreate(c: OpContext): boolean {
    const st = this.stat(c.p);
    if (st?.isDirectory()) throw exists(`${c.p} already exists as a directory`);
    if (st && c.q.get('overwrite') !== 'true') throw exists(`${c.p} for client 127.0.0.1 already exists`);
    this.checkPermission(c);
    this.checkParent(c.p, c.q.get('createparent') !== 'false');
    return false;
  }

  private checkPermission(c: OpContext): void {
    const perm = c.q.get('permission');
    if (perm !== null && !/^[0-1]?[0-7]{3}$/.test(perm)) throw badArg(`Invalid value for webhdfs parameter "permission": ${perm}`);
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

  private async create(c: OpContext): Promise<void> {
    this.checkCreate(c);
    this.mkdirs(path.posix.dirname(c.p), c.user, '755');
    this.meta.set(c.p, { owner: c.user, permission: c.q.get('permission') ?? '644' });
    // As in HDFS, the file exists from here on and fills as the upload streams in.
    const fd = fs.openSync(this.localPath(c.p), 'w');
    await this.receive(c, fd, 201, { Location: `webhdfs://${this.url.replace('http://', '')}${c.p}` });
  }

  private async append(c: OpContext): Promise<void> {
    this.fileStat(c.p);
    const fd = fs.openSync(this.localPath(c.p), 'a');
    await this.receive(c, fd, 200);
  }

  /** Streams the request body into fd, then answers (or drops the answer, or stops halfway). */
  private async receive(c: OpContext, fd: number, status: number, headers: Record<string, string> = {}): Promise<void> {
    const total = Number(c.req.headers['content-length'] ?? NaN);
    const keep = c.fault?.kind === 'truncate-upload'
      ? (c.fault.keepBytes ?? Math.floor((Number.isFinite(total) ? total : 2) / 2))
      : Infinity;
    let written = 0;
    const done = await new Promise<boolean>((resolve, reject) => {
      c.req.on('data', (chunk: Buffer) => {
        if (written >= keep) return;
        const part = written + chunk.length > keep ? chunk.subarray(0, keep - written) : chunk;
        fs.writeSync(fd, part);
        written += part.length;
        if (written >= keep) resolve(false);
      });
      c.req.on('end', () => resolve(true));
      c.req.on('error', reject);
      c.req.on('aborted', () => resolve(false));
    }).finally(() => fs.closeSync(fd));
    if (!done || c.fault?.kind === 'truncate-upload' || c.fault?.kind === 'lost-response') return c.drop();
    c.send(status, undefined, headers);
  }

  private async open(c: OpContext): Promise<void> {
    const st = this.fileStat(c.p);
    const offset = Number(c.q.get('offset') ?? 0);
    const lenParam = c.q.get('length');
    if (!Number.isInteger(offset) || offset < 0) throw badArg(`Invalid value for webhdfs parameter "offset": ${c.q.get('offset')}`);
    if (offset > st.size) throw ioError(`Offset=${offset} out of the range [0, ${st.size}]`);
    const length = lenParam === null ? st.size - offset : Math.min(Number(lenParam), st.size - offset);
    if (!Number.isInteger(length) || length < 0) throw badArg(`Invalid value for webhdfs parameter "length": ${lenParam}`);
    const buf = Buffer.alloc(length);
    const fd = fs.openSync(this.localPath(c.p), 'r');
    try { fs.readSync(fd, buf, 0, length, offset); } finally { fs.closeSync(fd); }
    if (c.fault?.kind === 'lost-response') return c.drop();
    if (c.fault?.kind === 'truncate-response') return cutShort(c, buf, 'application/octet-stream');
    c.res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(length) });
    c.res.end(buf);
    this.requests[this.requests.length - 1]!.status = 200;
  }

  private mkdirs(p: string, user: string, permission: string): boolean {
    this.checkParent(`${p}/x`, true);
    const st = this.stat(p);
    if (st && !st.isDirectory()) {
      throw new RemoteError(
        403, 'FileAlreadyExistsException', 'org.apache.hadoop.fs.FileAlreadyExistsException', `Path is not a directory: ${p}`,
      );
    }
    let dir = p;
    while (dir !== '/' && !this.stat(dir)) {
      this.meta.set(dir, { owner: user, permission });
      dir = path.posix.dirname(dir);
    }
    fs.mkdirSync(this.localPath(p), { recursive: true });
    return true;
  }

  /** ClientProtocol.rename semantics (the deprecated rename WebHDFS calls without rename options). */
  private rename(src: string, destination: string | null): boolean {
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
    fs.renameSync(this.localPath(src), this.localPath(dst));
    for (const [k, v] of [...this.meta]) {
      if (k === src || k.startsWith(`${src}/`)) { this.meta.delete(k); this.meta.set(dst + k.slice(src.length), v); }
    }
    return true;
  }

  private delete(p: string, recursive: boolean): boolean {
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
    for (const k of [...this.meta.keys()]) if (k === p || k.startsWith(`${p}/`)) this.meta.delete(k);
    return true;
  }

  private status(p: string, suffix: string): HdfsFileStatus {
    const st = this.stat(p);
    if (!st) throw notFound(`File does not exist: ${p}`);
    const m = this.meta.get(p);
    const dir = st.isDirectory();
    return {
      accessTime: dir ? 0 : Math.floor(st.atimeMs), blockSize: dir ? 0 : 134217728,
      childrenNum: dir ? fs.readdirSync(this.localPath(p)).length : 0, fileId: st.ino, group: 'supergroup',
      length: dir ? 0 : st.size, modificationTime: Math.floor(st.mtimeMs), owner: m?.owner ?? 'hdfs', pathSuffix: suffix,
      permission: m?.permission ?? (dir ? '755' : '644'), replication: dir ? 0 : 1, storagePolicy: 0, type: dir ? 'DIRECTORY' : 'FILE',
    };
  }

  private list(p: string): HdfsFileStatus[] {
    const st = this.stat(p);
    if (!st) throw notFound(`File ${p} does not exist.`);
    if (!st.isDirectory()) return [this.status(p, '')];
    return fs.readdirSync(this.localPath(p)).sort().map((name) => this.status(path.posix.join(p, name), name));
  }

  private summary(p: string): Record<string, number> {
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
}

interface OpContext {
  node: 'namenode' | 'datanode'; op: WebHdfsOp; p: string; q: URLSearchParams; user: string;
  req: http.IncomingMessage; res: http.ServerResponse; fault: WebHdfsFault | undefined;
  send: (status: number, body?: unknown, headers?: Record<string, string>) => void; drop: () => void;
}

function remote(e: RemoteError) {
  return { RemoteException: { exception: e.exception, javaClassName: e.javaClassName, message: e.message } };
}

function normalize(p: string): string {
  const n = path.posix.normalize(`/${p}`);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

function encodePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

async function drain(req: http.IncomingMessage): Promise<void> {
  if (req.readableEnded) return;
  for await (const _ of req) { /* discard */ }
}

/** Announces the full length, sends half, closes the connection. */
function cutShort(c: OpContext, body: Buffer, type = 'application/json'): void {
  c.res.writeHead(200, { 'Content-Type': type, 'Content-Length': String(body.length) });
  c.res.write(body.subarray(0, Math.floor(body.length / 2)), () => c.req.socket.destroy());
}
