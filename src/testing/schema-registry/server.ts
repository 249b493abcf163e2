/**
 * An in-process Confluent Schema Registry for tests: the REST API the Confluent clients use (Confluent's
 * "Schema Registry API Reference"), in memory (store.ts), on 127.0.0.1. Answers carry Confluent's content
 * type `application/vnd.schemaregistry.v1+json` and its error bodies `{"error_code": 40401, "message": ...}`.
 *
 * - POST /subjects/{subject}/versions (register: `{id}`; the same schema twice gives the same id),
 *   POST /subjects/{subject} (lookup), GET /subjects, GET /subjects/{subject}/versions[/{version|latest}[/schema]],
 *   GET .../versions/{version}/referencedby, DELETE /subjects/{subject}[/versions/{version}] (soft; `permanent=true`);
 * - GET /schemas/ids/{id}[/schema | /versions | /subjects], GET /schemas/types;
 * - GET|PUT /config, GET|PUT|DELETE /config/{subject} (`defaultToGlobal=true`);
 * - POST /compatibility/subjects/{subject}/versions[/{version}] (`verbose=true` adds `messages`);
 * - GET /mode (READWRITE), GET / ({}).
 *
 * Compatibility (BACKWARD by default, FORWARD, FULL, their TRANSITIVE forms, NONE) is checked for Avro;
 * the differences from Confluent's server are listed in docs/converters.md. Faults: {@link SchemaRegistryServer.inject}.
 *
 * ```ts
 * const registry = await SchemaRegistryServer.start();
 * // ... point a client at registry.url (http://127.0.0.1:<port>) ...
 * await registry.stop();
 * ```
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RegistryError, RegistryStore, type SchemaRequest } from './store';

/** The content type of every answer (Confluent's v1 media type). */
export const SCHEMA_REGISTRY_CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

/** Options of {@link SchemaRegistryServer.start}. */
export interface SchemaRegistryServerOptions {
  /** Port (default 0: any free port). */
  port?: number;
  /** Interface (default 127.0.0.1). */
  host?: string;
  /** The largest request body read, bytes (default 16 MiB); a longer one is answered 413 and dropped. */
  maxBodyBytes?: number;
}

/**
 * A fault for the next `times` requests (default 1) whose path contains `pathContains` (default: every request):
 * answer `status` (default 503) with Confluent's error body (error_code 50001 for 500, 50003 otherwise), nothing done.
 */
export interface SchemaRegistryFault { status?: number; times?: number; pathContains?: string }

/** One request as the server saw it. */
export interface SchemaRegistryRequestLog { method: string; path: string; status: number }

type Params = Record<string, string>;
type Handler = (p: Params, q: URLSearchParams, body: unknown) => unknown;

/** The in-process Schema Registry (see the module comment). */
export class SchemaRegistryServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url = '';
  port = 0;
  /** Every request handled, in arrival order. */
  readonly requests: SchemaRegistryRequestLog[] = [];
  readonly store = new RegistryStore();
  private faults: (SchemaRegistryFault & { left: number })[] = [];
  private readonly server: http.Server;
  private readonly routes: { method: string; pattern: RegExp; names: string[]; handler: Handler }[] = [];

  private constructor(private readonly maxBodyBytes: number) {
    // A request that breaks off (or anything unforeseen) ends its own connection, never the process hosting the server.
    this.server = http.createServer((req, res) => { this.handle(req, res).catch(() => res.destroy()); });
    this.defineRoutes();
  }

  /** Starts the server (see {@link SchemaRegistryServerOptions}). @throws the listen error (e.g. EADDRINUSE) */
  static async start(options: SchemaRegistryServerOptions = {}): Promise<SchemaRegistryServer> {
    const s = new SchemaRegistryServer(options.maxBodyBytes ?? 16 * 1024 * 1024);
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      s.server.once('error', reject);
      s.server.listen(options.port ?? 0, host, () => { s.server.off('error', reject); resolve(); });
    });
    s.port = (s.server.address() as AddressInfo).port;
    s.url = `http://${host}:${s.port}`;
    return s;
  }

  /** Adds a fault (see {@link SchemaRegistryFault}); faults match in the order added. */
  inject(fault: SchemaRegistryFault): void {
    this.faults.push({ ...fault, left: fault.times ?? 1 });
  }

  /** Removes every pending fault. */
  clearFaults(): void {
    this.faults = [];
  }

  /** Stops listening and closes open connections. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private route(method: string, path: string, handler: Handler): void {
    const names: string[] = [];
    const pattern = new RegExp(`^${path.replace(/\{(\w+)\}/g, (_m, n: string) => { names.push(n); return '([^/]+)'; })}/?$`);
    this.routes.push({ method, pattern, names, handler });
  }

  private defineRoutes(): void {
    const st = this.store;
    const flag = (q: URLSearchParams, n: string) => q.get(n) === 'true';
    const versionBody = (v: ReturnType<RegistryStore['version']>) => ({
      subject: v.subject, version: v.version, id: v.id, ...(v.schemaType === 'AVRO' ? {} : { schemaType: v.schemaType }),
      ...(v.references.length > 0 ? { references: v.references } : {}), schema: v.schema,
    });
    const rawSchema = (s: { schema: string; schemaType: string }) =>
      (s.schemaType === 'PROTOBUF' ? s.schema : JSON.parse(s.schema) as unknown);
    this.route('GET', '', () => ({}));
    this.route('GET', '/mode', () => ({ mode: 'READWRITE' }));
    this.route('GET', '/schemas/types', () => ['JSON', 'PROTOBUF', 'AVRO']);
    this.route('GET', '/schemas/ids/{id}', (p) => {
      const s = st.schemaById(idOf(p.id!));
      return { ...(s.schemaType === 'AVRO' ? {} : { schemaType: s.schemaType }),
        ...(s.references.length > 0 ? { references: s.references } : {}),
        schema: s.schema };
    });
    this.route('GET', '/schemas/ids/{id}/schema', (p) => rawSchema(st.schemaById(idOf(p.id!))));
    this.route('GET', '/schemas/ids/{id}/versions', (p, q) => st.versionsOfId(idOf(p.id!), flag(q, 'deleted')));
    this.route('GET', '/schemas/ids/{id}/subjects',
      (p, q) => [...new Set(st.versionsOfId(idOf(p.id!), flag(q, 'deleted')).map((v) => v.subject))]);
    this.route('GET', '/subjects', (_p, q) => st.subjectNames(flag(q, 'deleted'), q.get('subjectPrefix') ?? ''));
    this.route('POST', '/subjects/{subject}/versions', (p, _q, b) => ({ id: st.register(p.subject!, b as SchemaRequest) }));
    this.route('POST', '/subjects/{subject}', (p, q, b) => versionBody(st.lookup(p.subject!, b as SchemaRequest, flag(q, 'deleted'))));
    this.route('GET', '/subjects/{subject}/versions', (p, q) => st.versionNumbers(p.subject!, flag(q, 'deleted')));
    this.route('GET', '/subjects/{subject}/versions/{version}',
      (p, q) => versionBody(st.version(p.subject!, p.version!, flag(q, 'deleted'))));
    this.route('GET', '/subjects/{subject}/versions/{version}/schema',
      (p, q) => rawSchema(st.version(p.subject!, p.version!, flag(q, 'deleted'))));
    this.route('GET', '/subjects/{subject}/versions/{version}/referencedby', (p) => st.referencedBy(p.subject!, p.version!));
    this.route('DELETE', '/subjects/{subject}', (p, q) => st.deleteSubject(p.subject!, flag(q, 'permanent')));
    this.route('DELETE', '/subjects/{subject}/versions/{version}',
      (p, q) => st.deleteVersion(p.subject!, p.version!, flag(q, 'permanent')));
    this.route('GET', '/config', () => ({ compatibilityLevel: st.configOf(undefined, true) }));
    this.route('PUT', '/config',
      (_p, _q, b) => ({ compatibility: st.setConfig(undefined, (b as { compatibility?: unknown })?.compatibility) }));
    this.route('GET', '/config/{subject}', (p, q) => ({ compatibilityLevel: st.configOf(p.subject!, flag(q, 'defaultToGlobal')) }));
    this.route('PUT', '/config/{subject}',
      (p, _q, b) => ({ compatibility: st.setConfig(p.subject!, (b as { compatibility?: unknown })?.compatibility) }));
    this.route('DELETE', '/config/{subject}', (p) => ({ compatibilityLevel: st.deleteConfig(p.subject!) }));
    const compat = (p: Params, q: URLSearchParams, b: unknown) => {
      const r = st.checkCompatibility(p.subject!, p.version, b as SchemaRequest);
      return { is_compatible: r.compatible, ...(flag(q, 'verbose') ? { messages: r.messages } : {}) };
    };
    this.route('POST', '/compatibility/subjects/{subject}/versions/{version}', compat);
    this.route('POST', '/compatibility/subjects/{subject}/versions', compat);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://registry');
    const path = url.pathname.replace(/\/+$/, '');
    const method = req.method ?? 'GET';
    const answer = (status: number, body: unknown) => {
      this.requests.push({ method, path, status });
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': SCHEMA_REGISTRY_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size <= this.maxBodyBytes) chunks.push(c as Buffer);
    }
    if (size > this.maxBodyBytes) {
      return answer(413, { error_code: 413, message: `HTTP 413 Payload Too Large: the body is over ${this.maxBodyBytes} bytes` });
    }
    const fault = this.faults.find((f) => f.pathContains === undefined || path.includes(f.pathContains));
    if (fault) {
      if (--fault.left <= 0) this.faults = this.faults.filter((f) => f !== fault);
      const status = fault.status ?? 503;
      return answer(status, { error_code: status === 500 ? 50001 : 50003, message: `injected fault: HTTP ${status}` });
    }
    const matches = this.routes.filter((r) => r.pattern.test(path));
    const route = matches.find((r) => r.method === method);
    if (!route) {
      return matches.length > 0 ? answer(405, { error_code: 405, message: 'HTTP 405 Method Not Allowed' })
        : answer(404, { error_code: 404, message: 'HTTP 404 Not Found' });
    }
    const m = route.pattern.exec(path)!;
    const params: Params = {};
    try {
      route.names.forEach((n, i) => { params[n] = decodeURIComponent(m[i + 1]!); });
    } catch {
      return answer(400, { error_code: 400, message: `HTTP 400 Bad Request: malformed percent-encoding in ${path.slice(0, 200)}` });
    }
    let body: unknown;
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() !== '') {
      try { body = JSON.parse(text); } catch (e) {
        return answer(400, { error_code: 400, message: `Unexpected character: ${(e as Error).message}` });
      }
    }
    try {
      answer(200, route.handler(params, url.searchParams, body));
    } catch (e) {
      if (e instanceof RegistryError) return answer(e.status, { error_code: e.errorCode, message: e.message });
      answer(500, { error_code: 50001, message: `Error in the backend datastore: ${(e as Error).message}` });
    }
  }
}

/** A schema id path segment. @throws RegistryError 40403 for anything but a positive integer */
function idOf(s: string): number {
  const n = /^\d+$/.test(s) ? Number(s) : NaN;
  if (!Number.isInteger(n) || n < 1) throw new RegistryError(404, 40403, `Schema ${s} not found`);
  return n;
}
