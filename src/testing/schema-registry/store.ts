/**
 * The state of the test Schema Registry, in memory, changed only through its methods: schemas by global id
 * (one id per canonical schema, whatever the subject, as Confluent assigns them), subjects with their
 * versions (soft-deleted or not), and the compatibility configuration (global and per subject). Every
 * refusal is a {@link RegistryError} carrying Confluent's HTTP status and `error_code`
 * (io.confluent.kafka.schemaregistry.rest.exceptions.Errors).
 */
import {
  canonicalSchema, COMPATIBILITY_LEVELS, type CompatibilityLevel, incompatibilities, InvalidSchemaError, type SchemaInput,
  type SchemaType, storedText,
} from './compatibility';
import { KafkaEosError } from '../../errors';

/** A refusal in Confluent's terms: HTTP `status`, `errorCode` (error_code) and message. */
export class RegistryError extends KafkaEosError {
  constructor(readonly status: number, readonly errorCode: number, message: string) {
    super('SCHEMA_REGISTRY_REQUEST_FAILED', message);
  }
}

const subjectNotFound = (s: string) => new RegistryError(404, 40401, `Subject '${s}' not found.`);
const versionNotFound = (v: number | string) => new RegistryError(404, 40402, `Version ${v} not found.`);
const schemaNotFound = (id?: number) => new RegistryError(404, 40403, id === undefined ? 'Schema not found' : `Schema ${id} not found`);

/** A schema reference as registered. */
export interface Reference { name: string; subject: string; version: number }

interface StoredSchema { id: number; schema: string; schemaType: SchemaType; references: Reference[]; key: string }
interface Version { version: number; id: number; deleted: boolean }

/** What register() and the version endpoints answer. */
export interface VersionView {
  subject: string; version: number; id: number; schema: string; schemaType: SchemaType; references: Reference[] }

/** A schema as a request carries it. */
export interface SchemaRequest { schema?: unknown; schemaType?: unknown; references?: unknown }

export class RegistryStore {
  private readonly schemas = new Map<number, StoredSchema>();
  private readonly byKey = new Map<string, number>();
  private readonly subjects = new Map<string, Version[]>();
  private readonly subjectLevels = new Map<string, CompatibilityLevel>();
  private globalLevel: CompatibilityLevel = 'BACKWARD';
  private nextId = 1;

  /** POST /subjects/{subject}/versions: the id of `req` under `subject`, registering a new version if needed. */
  register(subject: string, req: SchemaRequest): number {
    const input = this.input(req);
    const key = this.keyOf(input);
    const versions = this.subjects.get(subject) ?? [];
    const same = versions.find((v) => !v.deleted && this.schemas.get(v.id)!.key === key);
    if (same) return same.id;
    const level = this.level(subject);
    const earlier = versions.filter((v) => !v.deleted).map((v) => ({ version: v.version, schema: this.inputOf(this.schemas.get(v.id)!) }));
    const problems = incompatibilities(level, input, earlier);
    if (problems.length > 0) {
      const details =
        problems.map((p) => `{errorType:'${p.errorType}', description:'${p.description}', oldSchemaVersion: ${p.oldVersion}}`);
      throw new RegistryError(409, 409, `Schema being registered is incompatible with an earlier schema for subject "${subject}", `
        + `details: [${details.join(', ')}, {compatibility: '${level}'}]`);
    }
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.nextId++;
      this.schemas.set(id, { id, schema: storedText(input), schemaType: input.schemaType, references: this.refsOf(req), key });
      this.byKey.set(key, id);
    }
    const version = versions.reduce((m, v) => Math.max(m, v.version), 0) + 1;
    versions.push({ version, id, deleted: false });
    this.subjects.set(subject, versions);
    return id;
  }

  /** POST /subjects/{subject}: the version of `subject` holding `req`. */
  lookup(subject: string, req: SchemaRequest, deleted: boolean): VersionView {
    const versions = this.subjects.get(subject);
    if (!versions || (!deleted && versions.every((v) => v.deleted))) throw subjectNotFound(subject);
    const key = this.keyOf(this.input(req));
    const v = [...versions].reverse().find((x) => (deleted || !x.deleted) && this.schemas.get(x.id)!.key === key);
    if (!v) throw schemaNotFound();
    return this.view(subject, v);
  }

  /**
   * GET /schemas/ids/{id}: found while a subject version (soft-deleted or not) holds it; once every version holding it
   * is permanently deleted, 40403 (as Confluent's registry forgets the id's subject versions).
   */
  schemaById(id: number): StoredSchema {
    const s = this.schemas.get(id);
    if (!s || ![...this.subjects.values()].some((vs) => vs.some((v) => v.id === id))) throw schemaNotFound(id);
    return s;
  }

  /** GET /schemas/ids/{id}/versions: the subject versions that hold schema `id`. */
  versionsOfId(id: number, deleted: boolean): { subject: string; version: number }[] {
    this.schemaById(id);
    const out: { subject: string; version: number }[] = [];
    for (const [subject, versions] of this.subjects) {
      for (const v of versions) if (v.id === id && (deleted || !v.deleted)) out.push({ subject, version: v.version });
    }
    return out;
  }

  /** GET /subjects. */
  subjectNames(deleted: boolean, prefix = ''): string[] {
    return [...this.subjects].filter(([s, vs]) => s.startsWith(prefix) && (deleted || vs.some((v) => !v.deleted))).map(([s]) => s).sort();
  }

  /** GET /subjects/{subject}/versions. */
  versionNumbers(subject: string, deleted: boolean): number[] {
    const vs = this.subjects.get(subject)?.filter((v) => deleted || !v.deleted) ?? [];
    if (vs.length === 0) throw subjectNotFound(subject);
    return vs.map((v) => v.version);
  }

  /** GET /subjects/{subject}/versions/{version}: `latest` (or -1) is the newest version not deleted. */
  version(subject: string, version: string, deleted: boolean): VersionView {
    const versions = this.subjects.get(subject);
    if (!versions || (!deleted && versions.every((v) => v.deleted))) throw subjectNotFound(subject);
    const n = parseVersion(version);
    const v = n === -1
      ? [...versions].reverse().find((x) => deleted || !x.deleted)
      : versions.find((x) => x.version === n && (deleted || !x.deleted));
    if (!v) throw versionNotFound(version);
    return this.view(subject, v);
  }

  /** GET .../versions/{version}/referencedby: ids of schemas whose references name this version. */
  referencedBy(subject: string, version: string): number[] {
    const v = this.version(subject, version, false);
    return [...this.schemas.values()].filter((s) => s.references.some((r) => r.subject === subject && r.version === v.version))
      .map((s) => s.id);
  }

  /** DELETE /subjects/{subject}[?permanent=true]: the versions deleted. */
  deleteSubject(subject: string, permanent: boolean): number[] {
    const versions = this.subjects.get(subject);
    if (!versions) throw subjectNotFound(subject);
    if (permanent) {
      if (versions.some((v) => !v.deleted)) {
        throw new RegistryError(404, 40405, `Subject '${subject}' was not deleted first before being permanently deleted`);
      }
      for (const v of versions) this.assertNotReferenced(subject, v.version);
      this.subjects.delete(subject);
      this.subjectLevels.delete(subject);
      return versions.map((v) => v.version);
    }
    if (versions.every((v) => v.deleted)) {
      throw new RegistryError(404, 40404, `Subject '${subject}' was soft deleted.Set permanent=true to delete permanently`);
    }
    const live = versions.filter((v) => !v.deleted);
    for (const v of live) this.assertNotReferenced(subject, v.version);
    for (const v of live) v.deleted = true;
    return live.map((v) => v.version);
  }

  /** DELETE /subjects/{subject}/versions/{version}[?permanent=true]: the version deleted. */
  deleteVersion(subject: string, version: string, permanent: boolean): number {
    const versions = this.subjects.get(subject);
    if (!versions) throw subjectNotFound(subject);
    const n = parseVersion(version);
    const v = n === -1 ? [...versions].reverse().find((x) => !x.deleted) : versions.find((x) => x.version === n);
    if (!v) throw versionNotFound(version);
    if (permanent) {
      if (!v.deleted) {
        throw new RegistryError(404, 40407,
          `Subject '${subject}' Version ${v.version} was not deleted first before being permanently deleted`);
      }
      this.assertNotReferenced(subject, v.version);
      versions.splice(versions.indexOf(v), 1);
      if (versions.length === 0) this.subjects.delete(subject);
      return v.version;
    }
    if (v.deleted) throw new RegistryError(404, 40406,
      `Subject '${subject}' Version ${v.version} was soft deleted.Set permanent=true to delete permanently`);
    this.assertNotReferenced(subject, v.version);
    v.deleted = true;
    return v.version;
  }

  /** GET /config (no subject) or /config/{subject}: the level set there (40408 when a subject has none and no fallback). */
  configOf(subject: string | undefined, defaultToGlobal: boolean): CompatibilityLevel {
    if (subject === undefined) return this.globalLevel;
    const l = this.subjectLevels.get(subject);
    if (l) return l;
    if (defaultToGlobal) return this.globalLevel;
    throw new RegistryError(404, 40408, `Subject '${subject}' does not have subject-level compatibility configured`);
  }

  /** PUT /config[/{subject}]. */
  setConfig(subject: string | undefined, level: unknown): CompatibilityLevel {
    const l = typeof level === 'string' ? level.toUpperCase() : level;
    if (!COMPATIBILITY_LEVELS.includes(l as CompatibilityLevel)) {
      throw new RegistryError(422, 42203, 'Invalid compatibility level. Valid values are none, backward, forward, full, '
        + 'backward_transitive, forward_transitive, and full_transitive');
    }
    if (subject === undefined) this.globalLevel = l as CompatibilityLevel;
    else this.subjectLevels.set(subject, l as CompatibilityLevel);
    return l as CompatibilityLevel;
  }

  /** DELETE /config/{subject}: the level removed (the subject falls back to the global level). */
  deleteConfig(subject: string): CompatibilityLevel {
    const l = this.configOf(subject, false);
    this.subjectLevels.delete(subject);
    return l;
  }

  /**
   * POST /compatibility/subjects/{subject}/versions[/{version}]: whether `req` is compatible with that version
   * (without a version: with the versions the subject's level checks), and the reasons when it is not.
   */
  checkCompatibility(subject: string, version: string | undefined, req: SchemaRequest): { compatible: boolean; messages: string[] } {
    const input = this.input(req);
    const versions = (this.subjects.get(subject) ?? []).filter((v) => !v.deleted);
    let level = this.level(subject);
    let earlier = versions;
    if (version !== undefined) {
      if (versions.length === 0) throw subjectNotFound(subject);
      const v = this.version(subject, version, false);
      earlier = versions.filter((x) => x.version === v.version);
      if (level.endsWith('_TRANSITIVE')) level = level.replace('_TRANSITIVE', '') as CompatibilityLevel;
    }
    const problems =
      incompatibilities(level, input, earlier.map((v) => ({ version: v.version, schema: this.inputOf(this.schemas.get(v.id)!) })));
    return { compatible: problems.length === 0, messages: problems.map((p) => `${p.errorType}: ${p.description}`) };
  }

  private level(subject: string): CompatibilityLevel {
    return this.subjectLevels.get(subject) ?? this.globalLevel;
  }

  private assertNotReferenced(subject: string, version: number): void {
    const by = [...this.schemas.values()].filter((s) => s.references.some((r) => r.subject === subject && r.version === version)
      && [...this.subjects.values()].some((vs) => vs.some((v) => v.id === s.id)));
    if (by.length > 0) {
      throw new RegistryError(422, 42206, `One or more references exist to the schema {subject=${subject},version=${version}}`);
    }
  }

  private view(subject: string, v: Version): VersionView {
    const s = this.schemas.get(v.id)!;
    return { subject, version: v.version, id: v.id, schema: s.schema, schemaType: s.schemaType, references: s.references };
  }

  private refsOf(req: SchemaRequest): Reference[] {
    return Array.isArray(req.references) ? (req.references as Reference[])
      .map((r) => ({ name: r.name, subject: r.subject, version: r.version })) : [];
  }

  /** Validates a request's schema and resolves its references. @throws RegistryError 42201 / 40402 */
  private input(req: SchemaRequest): SchemaInput & { key?: string } {
    if (typeof req?.schema !== 'string') throw new RegistryError(422, 42201, 'Invalid schema: the request has no "schema" string');
    const type = req.schemaType ?? 'AVRO';
    if (type !== 'AVRO' && type !== 'JSON' && type !== 'PROTOBUF') {
      throw new RegistryError(422, 42201, `Invalid schema: unknown schemaType ${JSON.stringify(type)}`);
    }
    const references: { name: string; schema: string }[] = [];
    for (const r of this.refsOf(req)) {
      if (typeof r.name !== 'string' || typeof r.subject !== 'string' || !Number.isInteger(r.version)) {
        throw new RegistryError(422, 42201, 'Invalid schema: a reference needs name, subject and version');
      }
      let v: VersionView;
      try {
        v = this.version(r.subject, String(r.version), false);
      } catch {
        throw new RegistryError(422, 42201,
          `Invalid schema: reference ${r.name} (subject ${r.subject} version ${r.version}) is not registered`);
      }
      references.push({ name: r.name, schema: v.schema });
    }
    return { schema: req.schema, schemaType: type, references };
  }

  private inputOf(s: StoredSchema): SchemaInput {
    return this.input({ schema: s.schema, schemaType: s.schemaType, references: s.references });
  }

  private keyOf(input: SchemaInput): string {
    try {
      return `${input.schemaType}\u0000${canonicalSchema(input)}\u0000` +
        `${input.references.map((r) => `${r.name}=${r.schema}`).join('\u0000')}`;
    } catch (e) {
      if (e instanceof InvalidSchemaError) throw new RegistryError(422, 42201, e.message);
      throw e;
    }
  }
}

/** A version path segment: a positive integer, or `latest` / -1. @throws RegistryError 42202 */
function parseVersion(v: string): number {
  if (v === 'latest' || v === '-1') return -1;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 2147483647) {
    throw new RegistryError(422, 42202, `The specified version '${v}' is not a valid version id. Allowed values are between [1, 2^31-1] `
      + 'and the string "latest"');
  }
  return n;
}
