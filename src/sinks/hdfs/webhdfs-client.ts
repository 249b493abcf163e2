/**
 * A small WebHDFS client on node:http / node:https (a keep-alive agent per protocol, shared by the clients of the
 * process), checking every outcome (docs/hdfs-sink.md, "The client"):
 * a `{"boolean": false}` is returned as false, never as success; any status other than the one
 * Hadoop's REST docs give for success is an error; a NameNode that does not redirect a CREATE is an
 * error (it does not hang); a body shorter than its Content-Length is an error.
 *
 * Only idempotent calls are retried (p-retry, on network errors and 5xx): GETs, MKDIRS, DELETE,
 * CREATE with overwrite=true. RENAME, CREATE with overwrite=false and APPEND are sent once: their
 * callers decide what a lost answer means (the HDFS sink checks the namespace, never re-sends data).
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { pRetry } from '../../util/vendored';
import { KafkaEosError } from '../../errors';
import type { LostAckRetry } from '../lost-ack';

/**
 * A FileStatus object of WebHDFS's JSON answers (GETFILESTATUS, LISTSTATUS), as Hadoop's WebHDFS REST API
 * documents it. Times are ms since the epoch; `length` and `blockSize` bytes; `permission` octal text.
 */
export interface HdfsFileStatus {
  accessTime: number; blockSize: number; childrenNum: number; fileId: number; group: string; length: number;
  modificationTime: number; owner: string; pathSuffix: string; permission: string; replication: number;
  storagePolicy: number; type: 'FILE' | 'DIRECTORY';
}

/**
 * A WebHDFS call failed. `status` is the HTTP status (undefined: no answer: connection refused, reset,
 * or the answer was lost: the operation may or may not have happened); `exception` is Hadoop's
 * RemoteException name (e.g. FileAlreadyExistsException). `retriable`: no answer, or 5xx.
 */
export class WebHdfsError extends KafkaEosError {
  constructor(
    readonly op: string, readonly path: string, message: string, readonly status?: number, readonly exception?: string, cause?: unknown,
  ) {
    super('HDFS_REQUEST_FAILED', `WebHDFS ${op} ${path}: ${message}`, { retriable: status === undefined || status >= 500, cause });
  }
}

/** Where and how the client talks to WebHDFS. */
export interface WebHdfsClientOptions {
  /** NameNode base URL, e.g. `http://namenode:9870`. */
  url: string;
  /** Sent as `user.name` (pseudo authentication). */
  user?: string;
  /** Retries of idempotent calls after the first try (default 4), exponential from `minTimeoutMs` (default 50 ms). */
  retries?: number;
  /** First retry delay, ms (default 50), doubling on each further retry. */
  minTimeoutMs?: number;
  /** Per-request timeout, ms (default 30000). A timed-out request counts as no answer. */
  timeoutMs?: number;
}

type Query = Record<string, string | number | boolean | undefined>;

/** One answer, read whole: the status, the redirect target of a 307 (if any), the body. */
interface Answer { status: number; location: string | undefined; body: Buffer }

/**
 * How long a pooled socket may sit idle before the client closes it, ms (undici's default, as fetch had). A server
 * that closes idle connections without a Keep-Alive hint (Jetty's idle timeout) would otherwise race a request sent
 * on the socket as it closes: ECONNRESET, an unknown outcome for a RENAME. The agent's `timeout` destroys only free
 * sockets; a request in flight is bounded by `timeoutMs`.
 */
const IDLE_SOCKET_MS = 4000;

/**
 * Keep-alive agents, one per protocol, for every client of the process (as fetch's global dispatcher pools its
 * connections). An idle pooled socket does not keep the process alive (the agent unrefs it). node:http costs a
 * third of fetch's CPU per request (measured: bench/hdfs-end-to-end.js, docs/hdfs-sink.md "Benchmark").
 */
const AGENTS = {
  'http:': new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  'https:': new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
};
const EMPTY = Buffer.alloc(0);

/** The WebHDFS operations the HDFS sink uses (see the module comment for retries). Every method throws WebHdfsError. */
export class WebHdfsClient {
  private readonly base: string;
  constructor(private readonly options: WebHdfsClientOptions) {
    if (!/^https?:\/\/[^/]+/.test(options.url)) {
      throw new KafkaEosError('CONFIG_INVALID', `hdfs url: expected http(s)://host:port, got ${options.url}`);
    }
    this.base = options.url.replace(/\/+$/, '');
  }

  private url(p: string, op: string, q: Query = {}): string {
    const params = new URLSearchParams({ op });
    if (this.options.user) params.set('user.name', this.options.user);
    for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, String(v));
    return `${this.base}/webhdfs/v1${p.split('/').map(encodeURIComponent).join('/')}?${params}`;
  }

  /**
   * One HTTP exchange; the whole body is read. A body shorter than its Content-Length (the connection closed early),
   * no answer, or no complete answer within `timeoutMs` (default 30000) is a WebHdfsError of unknown outcome.
   */
  private send(op: string, p: string, method: string, url: string, body?: Buffer): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const noAnswer = (e: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new WebHdfsError(op, p, `no answer (${describe(e)}): the outcome is unknown`, undefined, undefined, e));
      };
      let req: http.ClientRequest;
      try {
        const u = new URL(url);
        const agent = AGENTS[u.protocol as keyof typeof AGENTS];
        if (!agent) {
          // Nothing was sent: a known outcome, not a lost answer.
          settled = true;
          reject(new WebHdfsError(op, p, `unsupported protocol ${u.protocol} (only http: and https:): nothing was sent`));
          return;
        }
        // A PUT or POST without data says so (Content-Length: 0), as fetch does.
        const length = body ? body.length : method === 'PUT' || method === 'POST' ? 0 : undefined;
        req = (u.protocol === 'https:' ? https : http).request(u, {
          method, agent, headers: length === undefined ? undefined : { 'content-length': length },
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', noAnswer);
          res.on('close', () => {
            if (!res.complete) { noAnswer(new Error('the answer was cut short')); return; }
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            const location = res.headers.location;
            resolve({
              status: res.statusCode ?? 0, location: location === '' ? undefined : location,
              body: chunks.length === 0 ? EMPTY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
            });
          });
        });
      } catch (e) {
        noAnswer(e);
        return;
      }
      const ms = this.options.timeoutMs ?? 30000;
      timer = setTimeout(() => req.destroy(new Error(`no complete answer within ${ms} ms`)), ms);
      req.on('error', noAnswer);
      req.end(body);
    });
  }

  private fail(op: string, p: string, r: Answer): never {
    let exception: string | undefined;
    let message = `HTTP ${r.status}`;
    try {
      const j = JSON.parse(r.body.toString('utf8')) as { RemoteException?: { exception?: string; message?: string } };
      if (j.RemoteException) {
        exception = j.RemoteException.exception;
        message += ` ${exception}: ${clip(String(j.RemoteException.message))}`;
      }
    } catch { /* not JSON */ }
    throw new WebHdfsError(op, p, message, r.status, exception);
  }

  private json<T>(op: string, p: string, r: Answer): T {
    if (r.status !== 200) this.fail(op, p, r);
    try {
      return JSON.parse(r.body.toString('utf8')) as T;
    } catch (e) {
      throw new WebHdfsError(op, p, `answer is not JSON: ${r.body.toString('utf8').slice(0, 80)}`, undefined, undefined, e);
    }
  }

  /** The retry budget of idempotent calls, for callers that retry others after re-reading (see sinks/lost-ack.ts). */
  get retryPolicy(): LostAckRetry {
    return { retries: this.options.retries ?? 4, minTimeoutMs: this.options.minTimeoutMs ?? 50, maxTimeoutMs: 2000 };
  }

  private retry<T>(idempotent: boolean, fn: () => Promise<T>): Promise<T> {
    if (!idempotent) return fn();
    return pRetry(fn, {
      retries: this.options.retries ?? 4, minTimeout: this.options.minTimeoutMs ?? 50, factor: 2,
      shouldRetry: ({ error }) => error instanceof WebHdfsError && error.retriable,
    });
  }

  private booleanOf(op: string, p: string, r: Answer): boolean {
    const j = this.json<{ boolean?: unknown }>(op, p, r);
    if (typeof j.boolean !== 'boolean') {
      throw new WebHdfsError(op, p, `expected {"boolean": ...}, got ${r.body.toString('utf8').slice(0, 80)}`);
    }
    return j.boolean;
  }

  /** Two-step write: the NameNode must answer 307 with a Location; the DataNode must answer `expect`. */
  private async twoStep(op: 'CREATE' | 'APPEND', p: string, method: string, q: Query, data: Buffer, expect: number): Promise<void> {
    const url = this.url(p, op, q);
    const first = await this.send(op, p, method, url);
    const location = resolveLocation(first.location, url);
    if (first.status !== 307 || !location) {
      if (first.status >= 300) this.fail(op, p, first);
      throw new WebHdfsError(
        op, p, `the NameNode answered ${first.status} without redirecting to a DataNode: nothing was written`, first.status,
      );
    }
    const second = await this.send(op, p, method, location, data);
    if (second.status !== expect) this.fail(op, p, second);
  }

  /**
   * Writes a whole file. With `overwrite: true` (retried), a lost or truncated upload is simply sent again;
   * with false (sent once), FileAlreadyExistsException is thrown as WebHdfsError.
   * @throws WebHdfsError; `createParent: false` and a missing parent → FileNotFoundException (404).
   */
  create(p: string, data: Buffer, opts: { overwrite?: boolean; permission?: string; createParent?: boolean } = {}): Promise<void> {
    const q = {
      overwrite: opts.overwrite ?? false, permission: opts.permission, createparent: opts.createParent === false ? false : undefined,
    };
    return this.retry(q.overwrite, () => this.twoStep('CREATE', p, 'PUT', q, data, 201));
  }

  /** Appends once, never retried (a lost answer would make a retry write the data twice). @throws WebHdfsError */
  append(p: string, data: Buffer): Promise<void> {
    return this.twoStep('APPEND', p, 'POST', {}, data, 200);
  }

  /** Reads a file (or `length` bytes from `offset`); retried. @throws WebHdfsError (404 FileNotFoundException when absent) */
  open(p: string, opts: { offset?: number; length?: number } = {}): Promise<Buffer> {
    return this.retry(true, async () => {
      const url = this.url(p, 'OPEN', opts);
      const first = await this.send('OPEN', p, 'GET', url);
      const location = resolveLocation(first.location, url);
      if (first.status === 200 && !location) return first.body;
      if (first.status !== 307 || !location) this.fail('OPEN', p, first);
      const second = await this.send('OPEN', p, 'GET', location);
      if (second.status !== 200) this.fail('OPEN', p, second);
      return second.body;
    });
  }

  /** MKDIRS (with parents); retried. True is the only success. @throws WebHdfsError */
  async mkdirs(p: string, permission?: string): Promise<void> {
    const ok = await this.retry(true, async () =>
      this.booleanOf('MKDIRS', p, await this.send('MKDIRS', p, 'PUT', this.url(p, 'MKDIRS', { permission }))));
    if (!ok) throw new WebHdfsError('MKDIRS', p, 'the NameNode answered {"boolean": false}');
  }

  /**
   * RENAME, sent once. Returns Hadoop's boolean: false when the source is missing, the destination exists
   * or its parent is missing. Onto an existing directory, HDFS moves the source inside it.
   * @throws WebHdfsError (no answer: the rename may or may not have happened)
   */
  async rename(src: string, dst: string): Promise<boolean> {
    return this.booleanOf('RENAME', src, await this.send('RENAME', src, 'PUT', this.url(src, 'RENAME', { destination: dst })));
  }

  /** DELETE; retried. True: deleted; false: nothing there. @throws WebHdfsError (PathIsNotEmptyDirectoryException...) */
  async delete(p: string, recursive = false): Promise<boolean> {
    return this.retry(true, async () =>
      this.booleanOf('DELETE', p, await this.send('DELETE', p, 'DELETE', this.url(p, 'DELETE', { recursive }))));
  }

  /** GETFILESTATUS; retried. Null when the path does not exist. @throws WebHdfsError */
  async status(p: string): Promise<HdfsFileStatus | null> {
    return this.retry(true, async () => {
      const r = await this.send('GETFILESTATUS', p, 'GET', this.url(p, 'GETFILESTATUS'));
      if (r.status === 404) return null;
      return this.json<{ FileStatus: HdfsFileStatus }>('GETFILESTATUS', p, r).FileStatus;
    });
  }

  /** LISTSTATUS; retried. Null when the directory does not exist. @throws WebHdfsError */
  async list(p: string): Promise<HdfsFileStatus[] | null> {
    return this.retry(true, async () => {
      const r = await this.send('LISTSTATUS', p, 'GET', this.url(p, 'LISTSTATUS'));
      if (r.status === 404) return null;
      return this.json<{ FileStatuses: { FileStatus: HdfsFileStatus[] } }>('LISTSTATUS', p, r).FileStatuses.FileStatus;
    });
  }

  /** GETCONTENTSUMMARY; retried. @throws WebHdfsError */
  async contentSummary(p: string): Promise<{ directoryCount: number; fileCount: number; length: number }> {
    return this.retry(true, async () => this.json<{ ContentSummary: { directoryCount: number; fileCount: number; length: number } }>(
      'GETCONTENTSUMMARY', p, await this.send('GETCONTENTSUMMARY', p, 'GET', this.url(p, 'GETCONTENTSUMMARY'))).ContentSummary);
  }
}

/**
 * A redirect's Location against the URL it answered (RFC 7231 §7.1.2 allows a relative one; a gateway in front of
 * WebHDFS may send it); an unparsable Location is kept as is (the request to it fails as no answer).
 */
function resolveLocation(location: string | undefined, base: string): string | undefined {
  if (!location) return location;
  try {
    return new URL(location, base).toString();
  } catch {
    return location;
  }
}

/** At most 1000 characters of a server's message (a RemoteException may carry megabytes), saying how many were cut. */
function clip(text: string): string {
  return text.length <= 1000 ? text : `${text.slice(0, 1000)}... (${text.length - 1000} more characters)`;
}

function describe(e: unknown): string {
  const c = (e as { cause?: { code?: string; message?: string } }).cause;
  return (e as { code?: string }).code ?? c?.code ?? c?.message ?? (e as Error).message;
}
