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
import { badArg, HdfsNamespace, normalize, notFound, RemoteError, type HdfsFileStatus } from './namespace';

export type { HdfsFileStatus } from './namespace';

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

/** Options of {@link WebHdfsServer.start}. */
export interface WebHdfsServerOptions {
  /** Backing directory (default: a new temp directory, removed by stop()). */
  root?: string;
  /** Refuse requests without `user.name` with 401 SecurityException (default false: anonymous is `dr.who`). */
  requireUser?: boolean;
  /**
   * The largest request body accepted, bytes (default 512 MiB): a longer upload is refused as a space quota
   * would refuse it (403 DSQuotaExceededException, the bytes up to the bound kept, the connection closed).
   */
  maxBodyBytes?: number;
  /** How many entries {@link WebHdfsServer.requests} keeps, the newest (default 100000). */
  requestLogLimit?: number;
  /** The NameNode's HTTP port (default 0: any free port; Hadoop's default is 9870). */
  port?: number;
  /** The DataNode's HTTP port (default 0: any free port; Hadoop's default is 9864). */
  dataNodePort?: number;
  /** The address both listen on and the redirects name (default 127.0.0.1). */
  host?: string;
}

const METHODS: Record<WebHdfsOp, string> = {
  CREATE: 'PUT', MKDIRS: 'PUT', RENAME: 'PUT', APPEND: 'POST', DELETE: 'DELETE',
  OPEN: 'GET', LISTSTATUS: 'GET', GETFILESTATUS: 'GET', GETCONTENTSUMMARY: 'GET', GETHOMEDIRECTORY: 'GET',
};
const DATANODE_OPS = new Set<string>(['CREATE', 'APPEND', 'OPEN']);
const PREFIX = '/webhdfs/v1';

/** The in-process WebHDFS NameNode + DataNode for tests (see the module comment). */
export class WebHdfsServer {
  /** The NameNode's base URL, e.g. `http://127.0.0.1:41234`. */
  url = '';
  /** The DataNode's base URL. */
  dataNodeUrl = '';
  /** The requests handled, in arrival order: the newest `requestLogLimit` (default 100000) of them. */
  readonly requests: WebHdfsRequestLog[] = [];
  /** Called as each request arrives, before it is handled (e.g. to kill a client at a chosen request). */
  onRequest: ((r: WebHdfsRequestLog) => void) | undefined;
  private faults: (WebHdfsFault & { left: number })[] = [];
  private readonly nameNode: http.Server;
  private readonly dataNode: http.Server;
  private readonly ownsRoot: boolean;
  /** The file-system rules (namespace.ts). */
  private readonly fs: HdfsNamespace;
  private readonly maxBodyBytes: number;
  private readonly requestLogLimit: number;
  readonly root: string;

  private constructor(private readonly options: WebHdfsServerOptions) {
    this.ownsRoot = options.root === undefined;
    this.root = options.root ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-webhdfs-'));
    this.fs = new HdfsNamespace(this.root);
    this.maxBodyBytes = options.maxBodyBytes ?? 512 * 1024 * 1024;
    this.requestLogLimit = options.requestLogLimit ?? 100_000;
    // A request never brings the process down: whatever escapes the handler closes that request's connection.
    const serve = (node: 'namenode' | 'datanode') => (req: http.IncomingMessage, res: http.ServerResponse) =>
      void this.handle(node, req, res).catch(() => req.socket.destroy());
    this.nameNode = http.createServer(serve('namenode'));
    this.dataNode = http.createServer(serve('datanode'));
  }

  /** Number of paths whose owner and permission the server records (bounded by the paths that exist). */
  get recordedPaths(): number {
    return this.fs.recordedPaths;
  }

  /**
   * Starts both servers on `host` (default 127.0.0.1), on `port` / `dataNodePort` (default: ephemeral ports).
   * @throws Error (the listen error, e.g. EADDRINUSE) when a port cannot be bound; nothing is left listening.
   */
  static async start(options: WebHdfsServerOptions = {}): Promise<WebHdfsServer> {
    const s = new WebHdfsServer(options);
    const host = options.host ?? '127.0.0.1';
    const listen = (srv: http.Server, port: number) => new Promise<number>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, host, () => {
        srv.off('error', reject);
        resolve((srv.address() as AddressInfo).port);
      });
    });
    const urlHost = host.includes(':') ? `[${host}]` : host;
    try {
      s.url = `http://${urlHost}:${await listen(s.nameNode, options.port ?? 0)}`;
      s.dataNodeUrl = `http://${urlHost}:${await listen(s.dataNode, options.dataNodePort ?? 0)}`;
    } catch (e) {
      await s.stop();
      throw e;
    }
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
    return this.fs.localPath(hdfsPath);
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
    let u: URL;
    try { u = new URL(req.url ?? '/', 'http://x'); } catch { u = new URL('http://x/'); } // answered below: not a WebHDFS path
    const op = (u.searchParams.get('op') ?? '').toUpperCase();
    const raw = u.pathname.startsWith(PREFIX) ? u.pathname.slice(PREFIX.length) || '/' : u.pathname;
    let hdfsPath = raw;
    let malformed: RemoteError | undefined;
    try { hdfsPath = decodePath(raw); } catch (e) { malformed = e as RemoteError; }
    const entry: WebHdfsRequestLog = { node, method: req.method ?? '', op, path: hdfsPath, status: 'dropped' };
    this.requests.push(entry);
    if (this.requests.length >= 2 * this.requestLogLimit) this.requests.splice(0, this.requests.length - this.requestLogLimit);
    this.onRequest?.(entry);
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      const text = body === undefined ? '' : JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
      res.end(text);
    };
    const drop = () => { entry.status = 'dropped'; req.socket.destroy(); };
    try {
      if (malformed) throw malformed;
      let fault = this.takeFault(node, op, hdfsPath);
      if (fault?.kind === 'latency') {
        await new Promise((r) => setTimeout(r, fault!.delayMs ?? 100));
        fault = undefined;
      }
      if (fault?.kind === 'unavailable') {
        await this.drain(req);
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
        node, op: op as WebHdfsOp, p: normalize(hdfsPath), q: u.searchParams, user: user ?? 'dr.who', req, res, fault, send, drop, entry,
      };
      await this.dispatch(ctx);
    } catch (e) {
      if (e instanceof RemoteError) {
        await this.drain(req).catch(() => undefined);
        if (!res.headersSent) return send(e.status, remote(e));
      }
      entry.status = 500;
      // A failure of the local file system, named by HDFS path (the server's local directory is never shown).
      const message = this.fs.scrub((e as Error).message);
      if (!res.headersSent) send(500, remote(new RemoteError(500, 'RuntimeException', 'java.lang.RuntimeException', message)));
      else res.destroy();
    }
  }

  private async dispatch(c: OpContext): Promise<void> {
    if (c.node === 'namenode' && DATANODE_OPS.has(c.op)) {
      // As Hadoop's NameNode: CREATE is redirected after checking its parameters only (the DataNode's create
      // finds an existing file); APPEND and OPEN look the file up first (choosing a DataNode needs its blocks).
      if (c.op === 'CREATE') this.fs.checkPermission(c.q.get('permission'));
      else this.fs.fileStat(c.p);
      const q = new URLSearchParams(c.q);
      q.set('namenoderpcaddress', this.url.replace('http://', ''));
      q.delete('noredirect');
      const location = `${this.dataNodeUrl}${PREFIX}${encodePath(c.p)}?${q}`;
      await this.drain(c.req);
      if (c.q.get('noredirect') === 'true') return c.send(200, { Location: location });
      return c.send(307, undefined, { Location: location });
    }
    if (c.node === 'datanode' && !DATANODE_OPS.has(c.op)) throw badArg(`${c.op} is not a DataNode operation`);
    switch (c.op) {
      case 'CREATE': return this.create(c);
      case 'APPEND': return this.append(c);
      case 'OPEN': return this.open(c);
      case 'MKDIRS': return this.answer(c, { boolean: this.fs.mkdirs(c.p, c.user, c.q.get('permission') ?? '755') });
      case 'RENAME': return this.answer(c, { boolean: this.fs.rename(c.p, c.q.get('destination')) });
      case 'DELETE': return this.answer(c, { boolean: this.fs.delete(c.p, c.q.get('recursive') === 'true') });
      case 'GETFILESTATUS': return this.answer(c, { FileStatus: this.fs.status(c.p, '') });
      case 'LISTSTATUS': return this.answer(c, { FileStatuses: { FileStatus: this.fs.list(c.p) } });
      case 'GETCONTENTSUMMARY': return this.answer(c, { ContentSummary: this.fs.summary(c.p) });
      case 'GETHOMEDIRECTORY': return this.answer(c, { Path: `/user/${c.user}` });
    }
  }

  /** Sends a JSON answer, or carries out the operation and drops the connection (lost-response), or cuts the answer short. */
  private async answer(c: OpContext, body: unknown): Promise<void> {
    await this.drain(c.req);
    if (c.fault?.kind === 'lost-response') return c.drop();
    if (c.fault?.kind === 'truncate-response') return cutShort(c, Buffer.from(JSON.stringify(body)));
    c.send(200, body);
  }

  private async create(c: OpContext): Promise<void> {
    const fd = this.fs.createFile(c.p, {
      user: c.user, permission: c.q.get('permission'), overwrite: c.q.get('overwrite') === 'true',
      createParent: c.q.get('createparent') !== 'false',
    });
    await this.receive(c, fd, 201, { Location: `webhdfs://${this.url.replace('http://', '')}${c.p}` });
  }

  private async append(c: OpContext): Promise<void> {
    await this.receive(c, this.fs.appendFile(c.p), 200);
  }

  /** Streams the request body into fd, then answers (or drops the answer, or stops halfway). */
  private async receive(c: OpContext, fd: number, status: number, headers: Record<string, string> = {}): Promise<void> {
    const total = Number(c.req.headers['content-length'] ?? NaN);
    const keep = c.fault?.kind === 'truncate-upload'
      ? (c.fault.keepBytes ?? Math.floor((Number.isFinite(total) ? total : 2) / 2))
      : Infinity;
    let written = 0;
    let received = 0;
    let tooLarge = false;
    const done = await new Promise<boolean | 'too-large'>((resolve, reject) => {
      c.req.on('data', (chunk: Buffer) => {
        if (tooLarge) return;
        received += chunk.length;
        if (received > this.maxBodyBytes && written < keep) {
          const part = chunk.subarray(0, Math.max(0, Math.min(chunk.length - (received - this.maxBodyBytes), keep - written)));
          fs.writeSync(fd, part);
          written += part.length;
          tooLarge = true;
          c.req.pause();
          resolve('too-large');
          return;
        }
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
    if (done === 'too-large') return this.refuseBody(c, written);
    if (!done || c.fault?.kind === 'truncate-upload' || c.fault?.kind === 'lost-response') return c.drop();
    c.send(status, undefined, headers);
  }

  private async open(c: OpContext): Promise<void> {
    const buf = this.fs.read(c.p, c.q.get('offset'), c.q.get('length'));
    const length = buf.length;
    if (c.fault?.kind === 'lost-response') return c.drop();
    if (c.fault?.kind === 'truncate-response') return cutShort(c, buf, 'application/octet-stream');
    c.res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(length) });
    c.res.end(buf);
    c.entry.status = 200;
  }

  /**
   * Answers an upload over `maxBodyBytes` as a space quota would (the bytes up to the bound are kept, as HDFS keeps
   * the blocks written before a quota refusal), then closes the connection rather than read the rest.
   */
  private refuseBody(c: OpContext, kept: number): void {
    const e = new RemoteError(403, 'DSQuotaExceededException', 'org.apache.hadoop.hdfs.protocol.DSQuotaExceededException',
      `The DiskSpace quota of ${c.p} is exceeded: quota = ${this.maxBodyBytes} B but the upload exceeds it (${kept} B kept)`);
    c.res.setHeader('Connection', 'close');
    c.send(e.status, remote(e));
    c.res.once('finish', () => c.req.socket.destroy());
  }

  /** Reads and discards a request body (a NameNode request's); one over `maxBodyBytes` closes the connection. */
  private async drain(req: http.IncomingMessage): Promise<void> {
    if (req.readableEnded) return;
    let n = 0;
    for await (const chunk of req) {
      n += (chunk as Buffer).length;
      if (n > this.maxBodyBytes) {
        req.socket.destroy();
        throw badArg(`request body over ${this.maxBodyBytes} bytes`);
      }
    }
  }
}

interface OpContext {
  node: 'namenode' | 'datanode'; op: WebHdfsOp; p: string; q: URLSearchParams; user: string;
  req: http.IncomingMessage; res: http.ServerResponse; fault: WebHdfsFault | undefined;
  send: (status: number, body?: unknown, headers?: Record<string, string>) => void; drop: () => void;
  /** This request's entry in the request log. */
  entry: WebHdfsRequestLog;
}

function remote(e: RemoteError) {
  return { RemoteException: { exception: e.exception, javaClassName: e.javaClassName, message: e.message } };
}

function encodePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

/**
 * A request path's percent-encoding decoded as Hadoop's web layer (Jersey) decodes it: `%` must start two hex
 * digits (else 400 IllegalArgumentException, as Jersey's "Malformed percent-encoded octet"), and the bytes are
 * read as UTF-8 with a malformed sequence read as U+FFFD (Java's decoder replaces, it does not throw).
 */
export function decodePath(raw: string): string {
  if (!raw.includes('%')) return raw;
  const bytes: number[] = [];
  const text = Buffer.from(raw, 'utf8');
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== 0x25) { bytes.push(text[i]!); continue; }
    const hex = text.subarray(i + 1, i + 3).toString('latin1');
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw badArg(`Malformed percent-encoded octet at index ${i}`);
    bytes.push(parseInt(hex, 16));
    i += 2;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Announces the full length, sends half, closes the connection. */
function cutShort(c: OpContext, body: Buffer, type = 'application/json'): void {
  c.res.writeHead(200, { 'Content-Type': type, 'Content-Length': String(body.length) });
  c.res.write(body.subarray(0, Math.floor(body.length / 2)), () => c.req.socket.destroy());
}
