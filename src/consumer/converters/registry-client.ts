/**
 * A Confluent Schema Registry client (REST, `application/vnd.schemaregistry.v1+json`): schemas fetched
 * by id and cached for the client's lifetime (an id names one schema forever), subjects' latest
 * versions cached for `latestCacheTtlMs`, registration and lookup for serializers, and Confluent's
 * subject name strategies (TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy).
 *
 * Errors say whose fault a failure is: an id the registry does not know (404 with Confluent's error_code
 * 40403) is `SCHEMA_NOT_FOUND` (not retriable: the record that named it is at fault); the registry
 * unreachable, timing out, answering 5xx, 408 or 429, or answering what is not its JSON (a proxy's error
 * page, a body without the schema) is `SCHEMA_REGISTRY_UNAVAILABLE` (retriable: never a record's fault);
 * any other refusal (401, 403, a 404 without Confluent's error body: the URL is not a registry's) is
 * `SCHEMA_REGISTRY_REQUEST_FAILED` with the HTTP status and Confluent's `error_code` when there is one.
 */
import { KafkaEosError } from '../../errors';

/** Confluent's `schemaType`: AVRO (the default, omitted on the wire), PROTOBUF, JSON (JSON Schema). */
export type SchemaType = 'AVRO' | 'PROTOBUF' | 'JSON';

/** A schema reference (Confluent SchemaReference): `name` as the referring schema spells it, and where it is registered. */
export interface SchemaReference { name: string; subject: string; version: number }

/**
 * A schema as the registry stores it. `schemaType` is the registry's word as given (AVRO when absent), so a type this
 * client does not know (a registry with other schema providers) reaches the converter, which names it.
 */
export interface RegisteredSchema { schema: string; schemaType: SchemaType; references: SchemaReference[] }

/** A subject's version (GET /subjects/{subject}/versions/{version}). */
export interface SubjectVersion extends RegisteredSchema { subject: string; version: number; id: number }

/** Confluent's subject name strategies (io.confluent.kafka.serializers.subject.*Strategy). */
export type SubjectNameStrategy = 'TopicName' | 'RecordName' | 'TopicRecordName';

/**
 * The subject of a topic's key or value schema: `<topic>-key` / `<topic>-value` (TopicName, the default),
 * `<record full name>` (RecordName), `<topic>-<record full name>` (TopicRecordName).
 * @throws KafkaEosError CONFIG_INVALID when a record strategy has no record name (a primitive schema).
 */
export function subjectName(strategy: SubjectNameStrategy, topic: string, isKey: boolean, recordName?: string): string {
  if (strategy === 'TopicName') return `${topic}-${isKey ? 'key' : 'value'}`;
  if (!recordName) {
    throw new KafkaEosError('CONFIG_INVALID',
      `subject name strategy ${strategy} needs a named record schema (${topic} ${isKey ? 'key' : 'value'})`);
  }
  return strategy === 'RecordName' ? recordName : `${topic}-${recordName}`;
}

/** Options of {@link SchemaRegistryClient}. */
export interface SchemaRegistryClientOptions {
  /** Base URL, e.g. `http://127.0.0.1:8081` (Connect's `schema.registry.url`). */
  url: string;
  /** HTTP basic auth (Connect's `basic.auth.user.info` as user and password). */
  basicAuth?: {
    /** The user. */
    username: string;
    /** The password. */
    password: string;
  };
  /** Timeout of one request, ms (default 10000). */
  requestTimeoutMs?: number;
  /** How long a subject's latest version is cached, ms (default 60000; Confluent's `latest.cache.ttl.sec`). */
  latestCacheTtlMs?: number;
}

/** A failed registry request: `status` (HTTP) and `errorCode` (Confluent's `error_code`) when the registry answered. */
export class SchemaRegistryError extends KafkaEosError {
  constructor(
    code: 'SCHEMA_NOT_FOUND' | 'SCHEMA_REGISTRY_UNAVAILABLE' | 'SCHEMA_REGISTRY_REQUEST_FAILED', message: string,
    readonly status: number | undefined, readonly errorCode: number | undefined, options: { cause?: unknown } = {},
  ) {
    super(code, message, { retriable: code === 'SCHEMA_REGISTRY_UNAVAILABLE', cause: options.cause });
  }
}

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

/**
 * A Confluent Schema Registry REST client (`new SchemaRegistryClient({ url })`): schemas by id cached for its lifetime,
 * a subject's latest version cached for `latestCacheTtlMs`, registration for serializers. One per consumer is enough:
 * its caches are shared by every converter. Errors are {@link SchemaRegistryError}s: SCHEMA_NOT_FOUND (the registry's
 * 40403: the record's fault), SCHEMA_REGISTRY_UNAVAILABLE (unreachable, 5xx, 408, 429, not its JSON: retriable),
 * SCHEMA_REGISTRY_REQUEST_FAILED (401, 403, a 404 that is not the registry's).
 */
export class SchemaRegistryClient {
  readonly url: string;
  private readonly byId = new Map<number, Promise<RegisteredSchema>>();
  private readonly latest = new Map<string, { at: number; version: Promise<SubjectVersion> }>();
  private readonly registered = new Map<string, Promise<number>>();
  private readonly headers: Record<string, string>;

  constructor(private readonly options: SchemaRegistryClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.headers = { accept: CONTENT_TYPE, 'content-type': CONTENT_TYPE };
    if (options.basicAuth) {
      const { username, password } = options.basicAuth;
      this.headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    }
  }

  /**
   * The schema registered under `id` (GET /schemas/ids/{id}), cached once fetched; a failed fetch is not cached.
   * @throws SchemaRegistryError SCHEMA_NOT_FOUND (40403), SCHEMA_REGISTRY_UNAVAILABLE, SCHEMA_REGISTRY_REQUEST_FAILED
   */
  schemaById(id: number): Promise<RegisteredSchema> {
    let p = this.byId.get(id);
    if (!p) {
      const what = `schema id ${id}`;
      p = this.request('GET', `/schemas/ids/${id}`, undefined, what).then((body) => toRegistered(body, this.url, what));
      this.byId.set(id, p);
      p.catch(() => { if (this.byId.get(id) === p) this.byId.delete(id); });
    }
    return p;
  }

  /** A schema already fetched by id, or undefined (no request). */
  cachedId(id: number): boolean {
    return this.byId.has(id);
  }

  /** A subject's version (`latest` cached for latestCacheTtlMs). @throws SchemaRegistryError */
  subjectVersion(subject: string, version: number | 'latest' = 'latest'): Promise<SubjectVersion> {
    const path = `/subjects/${encodeURIComponent(subject)}/versions/${version}`;
    const what = `subject ${subject} version ${version}`;
    const fetchIt = () => this.request('GET', path, undefined, what).then((b) => {
      const o = b as { subject: string; version: number; id: number };
      return { ...toRegistered(b, this.url, what), subject: o.subject, version: o.version, id: o.id };
    });
    if (version !== 'latest') return fetchIt();
    const hit = this.latest.get(subject);
    const ttl = this.options.latestCacheTtlMs ?? 60000;
    if (hit && Date.now() - hit.at < ttl) return hit.version;
    const p = fetchIt();
    this.latest.set(subject, { at: Date.now(), version: p });
    p.catch(() => { if (this.latest.get(subject)?.version === p) this.latest.delete(subject); });
    return p;
  }

  /**
   * Registers `schema` under `subject` (POST /subjects/{subject}/versions) and returns its id; the same schema
   * twice gives the same id (cached). @throws SchemaRegistryError (409 incompatible, 422 invalid: REQUEST_FAILED)
   */
  register(subject: string, schema: RegisteredSchema): Promise<number> {
    const key = `${subject}\u0000${schema.schemaType}\u0000${schema.schema}`;
    let p = this.registered.get(key);
    if (!p) {
      p = this.request('POST', `/subjects/${encodeURIComponent(subject)}/versions`, wireSchema(schema), `subject ${subject}`)
        .then((b) => {
          const id = (b as { id?: unknown }).id;
          if (!Number.isInteger(id)) {
            throw new SchemaRegistryError('SCHEMA_REGISTRY_UNAVAILABLE', `the Schema Registry at ${this.url} answered a registration `
              + `without an id (subject ${subject}): ${JSON.stringify(b).slice(0, 120)}`, undefined, undefined);
          }
          return id as number;
        });
      this.registered.set(key, p);
      p.catch(() => { if (this.registered.get(key) === p) this.registered.delete(key); });
    }
    return p;
  }

  /** Looks `schema` up under `subject` (POST /subjects/{subject}): its id and version. @throws SchemaRegistryError */
  async lookup(subject: string, schema: RegisteredSchema): Promise<SubjectVersion> {
    const b = await this.request('POST', `/subjects/${encodeURIComponent(subject)}`, wireSchema(schema), `subject ${subject}`);
    const o = b as { subject: string; version: number; id: number };
    return { ...toRegistered(b, this.url, `subject ${subject}`), subject: o.subject, version: o.version, id: o.id };
  }

  /** Sends one request; parses the JSON answer. @throws SchemaRegistryError (see the module comment) */
  private async request(method: string, path: string, body: unknown, what: string): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method, headers: this.headers, body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 10000),
      });
    } catch (e) {
      throw new SchemaRegistryError('SCHEMA_REGISTRY_UNAVAILABLE',
        `the Schema Registry at ${this.url} cannot be reached (${what}): ` +
          `${(e as Error).cause ? String((e as Error).cause) : (e as Error).message}`,
        undefined, undefined, { cause: e });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw new SchemaRegistryError('SCHEMA_REGISTRY_UNAVAILABLE', `the Schema Registry at ${this.url} broke off its answer (${what}): `
        + `${(e as Error).message}`, res.status, undefined, { cause: e });
    }
    let parsed: unknown;
    try { parsed = text === '' ? undefined : JSON.parse(text); } catch { parsed = undefined; }
    if (res.ok) {
      if (parsed === null || typeof parsed !== 'object') {
        throw new SchemaRegistryError('SCHEMA_REGISTRY_UNAVAILABLE', `the Schema Registry at ${this.url} answered HTTP ${res.status} `
          + `without its JSON (${what}): ${JSON.stringify(text.slice(0, 120))}`, res.status, undefined);
      }
      return parsed;
    }
    const err = parsed !== null && typeof parsed === 'object' ? parsed as { error_code?: unknown; message?: unknown } : undefined;
    const errorCode = typeof err?.error_code === 'number' ? err.error_code : undefined;
    const message = typeof err?.message === 'string' ? err.message : text.slice(0, 200);
    const detail = `HTTP ${res.status}${errorCode ? ` error_code ${errorCode}` : ''}: ${message}`;
    if (res.status >= 500 || res.status === 408 || res.status === 429) {
      throw new SchemaRegistryError('SCHEMA_REGISTRY_UNAVAILABLE', `the Schema Registry at ${this.url} failed (${what}): ${detail}`,
        res.status, errorCode);
    }
    if (res.status === 404 && errorCode === 40403) {
      throw new SchemaRegistryError('SCHEMA_NOT_FOUND', `the Schema Registry at ${this.url} has no ${what} (${detail})`, res.status,
        errorCode);
    }
    throw new SchemaRegistryError('SCHEMA_REGISTRY_REQUEST_FAILED', `the Schema Registry at ${this.url} refused (${what}): ${detail}`
      + (res.status === 404 && errorCode === undefined ? ' (not the registry\'s own answer: is the URL a Schema Registry\'s?)' : ''),
    res.status, errorCode);
  }
}

/** A schema answer's fields. @throws SchemaRegistryError SCHEMA_REGISTRY_UNAVAILABLE for an answer without a schema string */
function toRegistered(body: unknown, url: string, what: string): RegisteredSchema {
  const o = body as { schema?: unknown; schemaType?: unknown; references?: unknown };
  if (typeof o?.schema !== 'string') {
    throw new SchemaRegistryError('SCHEMA_REGISTRY_UNAVAILABLE', `the Schema Registry at ${url} answered without a schema (${what}): `
      + JSON.stringify(body)?.slice(0, 120), undefined, undefined);
  }
  const type = (typeof o.schemaType === 'string' ? o.schemaType : 'AVRO') as SchemaType;
  const refs = Array.isArray(o.references) ? (o.references as SchemaReference[]).filter((r) => r && typeof r.name === 'string') : [];
  return { schema: o.schema, schemaType: type, references: refs };
}

function wireSchema(s: RegisteredSchema): Record<string, unknown> {
  return {
    schema: s.schema, ...(s.schemaType === 'AVRO' ? {} : { schemaType: s.schemaType }),
    ...(s.references.length > 0 ? { references: s.references } : {}),
  };
}
