/**
 * Protobuf compatibility as Confluent's registry decides it (Confluent's documentation, "Schema Evolution
 * and Compatibility", and its protobuf-provider `diff` package): the two `.proto` files are compared type
 * by type and field by field (fields matched by tag number), and each difference has a type; a check passes
 * when every difference is one of the compatible ones:
 *
 * - compatible: MESSAGE_ADDED, MESSAGE_MOVED (reordered: message indexes are read against the writer's
 *   schema), ENUM_ADDED, ENUM_REMOVED, ENUM_CONST_ADDED, ENUM_CONST_CHANGED, ENUM_CONST_REMOVED,
 *   FIELD_ADDED, FIELD_REMOVED, FIELD_NAME_CHANGED, ONEOF_ADDED, ONEOF_REMOVED, ONEOF_FIELD_ADDED;
 * - incompatible: PACKAGE_CHANGED, MESSAGE_REMOVED, FIELD_KIND_CHANGED (scalar or enum / message / map),
 *   FIELD_SCALAR_KIND_CHANGED (outside one wire-compatible group: int32, int64, uint32, uint64, bool and
 *   enums; sint32, sint64; string, bytes; fixed32, sfixed32; fixed64, sfixed64; float; double),
 *   FIELD_NAMED_TYPE_CHANGED (another message, or a referenced message changed incompatibly),
 *   REQUIRED_FIELD_ADDED, REQUIRED_FIELD_REMOVED (proto2), ONEOF_FIELD_REMOVED,
 *   MULTIPLE_FIELDS_MOVED_TO_ONEOF, FIELD_MOVED_TO_EXISTING_ONEOF.
 *
 * BACKWARD compares the previous schema (original) with the new one (update); FORWARD the other way round.
 * Labels (repeated, optional) are not compared, as Confluent's current checker does not compare them. A
 * proto3 `optional` field is a field, not a oneof (protobufjs models it as a synthetic oneof `_name`).
 */
import * as protobuf from 'protobufjs';
import type { Difference, SchemaInput } from './types';

const COMPATIBLE = new Set([
  'MESSAGE_ADDED', 'MESSAGE_MOVED', 'ENUM_ADDED', 'ENUM_REMOVED', 'ENUM_CONST_ADDED', 'ENUM_CONST_CHANGED', 'ENUM_CONST_REMOVED',
  'FIELD_ADDED', 'FIELD_REMOVED', 'FIELD_NAME_CHANGED', 'FIELD_STRING_OR_BYTES_LABEL_CHANGED', 'ONEOF_ADDED', 'ONEOF_REMOVED',
  'ONEOF_FIELD_ADDED', 'ONEOF_FIELD_MOVED_TO_TOP_LEVEL',
]);

/** Whether a Protobuf difference type is compatible (see the module comment). */
export const isCompatibleProtobufChange = (type: string): boolean => COMPATIBLE.has(type);

/** A field's type: a name as written (scalar, message or enum), or a map's key and value. */
type FieldType = string | { key: string; value: string };
/** `label`: as written (proto3 fields without one have none; oneof members and map fields have none). */
interface Field { name: string; tag: number; type: FieldType; required: boolean; label?: 'optional' | 'required' | 'repeated';
  oneof?: string }
interface Message { kind: 'message'; name: string; fields: Field[]; oneofs: string[]; nested: Node[] }
interface Enum { kind: 'enum'; name: string; values: Map<number, string> }
type Node = Message | Enum;
interface ProtoFile { pkg: string; types: Node[] }
/**
 * A type by full name (package included, no leading dot): where it is declared, and the schema that holds it
 * (`source`: '' for the schema itself, else the referenced schema's text).
 */
interface TypeInfo { node: Node; pkg: string; source: string }

/** A `.proto` file as declared (no resolution: that needs its imports, see {@link typeMap}). @throws Error from protobufjs */
function parseFile(text: string): ProtoFile {
  const parsed = protobuf.parse(text, new protobuf.Root(), { keepCase: true });
  const pkg = parsed.package ?? '';
  const ns = (pkg ? parsed.root.lookup(pkg) : parsed.root) as protobuf.Namespace | null;
  return { pkg, types: (ns?.nestedArray ?? []).map(toNode).filter((n): n is Node => n !== undefined) };
}

function toNode(r: protobuf.ReflectionObject): Node | undefined {
  if (r instanceof protobuf.Enum) {
    return { kind: 'enum', name: r.name, values: new Map(Object.entries(r.values).map(([n, v]) => [v, n])) };
  }
  if (!(r instanceof protobuf.Type)) return undefined;
  const proto2 = (r as unknown as { _edition?: string })._edition === 'proto2';
  const fields = r.fieldsArray.map((f): Field => {
    const synthetic = f.options?.proto3_optional === true;
    const map = f instanceof protobuf.MapField;
    const inOneof = f.partOf !== null && !synthetic;
    const label = f.rule === 'repeated' || f.rule === 'required' ? f.rule
      : synthetic || (proto2 && !map && !inOneof) ? 'optional' : undefined;
    return {
      name: f.name, tag: f.id, required: f.rule === 'required', ...(label ? { label } : {}),
      type: map ? { key: (f as protobuf.MapField).keyType, value: f.type } : f.type,
      ...(inOneof ? { oneof: f.partOf!.name } : {}),
    };
  });
  const oneofs = r.oneofsArray.filter((o) => !o.fieldsArray.every((f) => f.options?.proto3_optional === true)).map((o) => o.name);
  return { kind: 'message', name: r.name, fields, oneofs, nested: r.nestedArray.map(toNode).filter((n): n is Node => n !== undefined) };
}

/** Every type of `file` and its references (and the well-known types they import) by full name. */
function typeMap(file: ProtoFile, references: { name: string; schema: string }[]): Map<string, TypeInfo> {
  const map = new Map<string, TypeInfo>();
  const add = (f: ProtoFile, source: string) => {
    const walk = (nodes: Node[], prefix: string) => {
      for (const n of nodes) {
        const full = prefix ? `${prefix}.${n.name}` : n.name;
        map.set(full, { node: n, pkg: f.pkg, source });
        if (n.kind === 'message') walk(n.nested, full);
      }
    };
    walk(f.types, f.pkg);
  };
  for (const r of references) {
    try { add(parseFile(r.schema), r.schema); } catch { /* a reference that does not parse was refused when it was registered */ }
  }
  // google/protobuf/*.proto imported without a reference: protobufjs ships them.
  for (const name of ['timestamp', 'duration', 'wrappers', 'any', 'empty', 'struct', 'field_mask']) {
    const common = (protobuf.common as unknown as { get(n: string): protobuf.INamespace | null }).get(`google/protobuf/${name}.proto`);
    if (!common) continue;
    const root = protobuf.Root.fromJSON(common);
    const ns = root.lookup('google.protobuf') as protobuf.Namespace | null;
    if (ns) add({ pkg: 'google.protobuf', types: ns.nestedArray.map(toNode).filter((n): n is Node => n !== undefined) },
      `google/protobuf/${name}.proto`);
  }
  add(file, '');
  return map;
}

const SCALAR_KINDS: Record<string, string> = {
  int32: 'number', int64: 'number', uint32: 'number', uint64: 'number', bool: 'number', sint32: 'signed', sint64: 'signed',
  string: 'text', bytes: 'text', fixed32: 'fixed32', sfixed32: 'fixed32', fixed64: 'fixed64', sfixed64: 'fixed64',
  float: 'float', double: 'double',
};

/** One side of a comparison: its package and types. */
interface Side { pkg: string; types: Map<string, TypeInfo> }

/** The comparison's state: both sides, the path of the place compared, the messages being compared (recursion). */
class Context {
  readonly diffs: Difference[] = [];
  readonly path: string[] = [];
  names: string[] = [];
  readonly inProgress: Set<Message>;
  constructor(readonly original: Side, readonly update: Side, inProgress = new Set<Message>()) { this.inProgress = inProgress; }

  add(type: string): void { this.diffs.push({ type, path: `#/${this.path.join('/')}` }); }
  at<T>(segment: string, fn: () => T): T { this.path.push(segment); try { return fn(); } finally { this.path.pop(); } }
  named<T>(name: string, fn: () => T): T {
    this.names.push(name);
    try { return this.at(name, fn); } finally { this.names.pop(); }
  }
  /**
   * A context for comparing the message named `name` (its path segments, without the package) apart, with its own
   * differences; names inside it resolve from the packages that declare it.
   */
  sub(name: string[], originalPkg: string, updatePkg: string): Context {
    const c = new Context({ ...this.original, pkg: originalPkg }, { ...this.update, pkg: updatePkg }, new Set(this.inProgress));
    c.path.push(...name);
    c.names = [...name];
    return c;
  }
  compatible(): boolean { return this.diffs.every((d) => COMPATIBLE.has(d.type)); }

  /** The full name `name` refers to from the current scope (Protobuf's scoping rules), or undefined. */
  resolve(name: string, side: Side): string | undefined {
    if (name.startsWith('.')) return side.types.has(name.slice(1)) ? name.slice(1) : undefined;
    const scope = [...(side.pkg ? side.pkg.split('.') : []), ...this.names];
    for (let i = scope.length; i >= 0; i--) {
      const full = [...scope.slice(0, i), name].join('.');
      if (side.types.has(full)) return full;
    }
    return undefined;
  }
}

/**
 * The differences between `original` and `update` (see the module comment; Confluent's Difference types).
 * @throws Error when either does not parse (a registered schema always does)
 */
export function protobufDifferences(original: SchemaInput, update: SchemaInput): Difference[] {
  const a = parseFile(original.schema);
  const b = parseFile(update.schema);
  const ctx = new Context({ pkg: a.pkg, types: typeMap(a, original.references) }, { pkg: b.pkg, types: typeMap(b, update.references) });
  if (a.pkg !== b.pkg) ctx.add('PACKAGE_CHANGED');
  compareTypes(ctx, a.types, b.types);
  return ctx.diffs;
}

function compareTypes(ctx: Context, original: Node[], update: Node[]): void {
  const messages = (nodes: Node[]) => new Map(nodes.filter((n): n is Message => n.kind === 'message').map((m, i) => [m.name, { m, i }]));
  const enums = (nodes: Node[]) => new Map(nodes.filter((n): n is Enum => n.kind === 'enum').map((e) => [e.name, e]));
  const [om, um] = [messages(original), messages(update)];
  for (const name of new Set([...om.keys(), ...um.keys()])) {
    ctx.named(name, () => {
      const o = om.get(name);
      const u = um.get(name);
      if (!u) ctx.add('MESSAGE_REMOVED');
      else if (!o) ctx.add('MESSAGE_ADDED');
      else {
        compareMessages(ctx, o.m, u.m);
        if (o.i !== u.i) ctx.add('MESSAGE_MOVED');
      }
    });
  }
  const [oe, ue] = [enums(original), enums(update)];
  for (const name of new Set([...oe.keys(), ...ue.keys()])) {
    ctx.named(name, () => {
      const o = oe.get(name);
      const u = ue.get(name);
      if (!u) ctx.add('ENUM_REMOVED');
      else if (!o) ctx.add('ENUM_ADDED');
      else compareEnums(ctx, o, u);
    });
  }
}

function compareEnums(ctx: Context, original: Enum, update: Enum): void {
  for (const n of new Set([...original.values.keys(), ...update.values.keys()])) {
    ctx.at(String(n), () => {
      const o = original.values.get(n);
      const u = update.values.get(n);
      if (u === undefined) ctx.add('ENUM_CONST_REMOVED');
      else if (o === undefined) ctx.add('ENUM_CONST_ADDED');
      else if (o !== u) ctx.add('ENUM_CONST_CHANGED');
    });
  }
}

function compareMessages(ctx: Context, original: Message, update: Message): void {
  if (!ctx.inProgress.has(original)) {
    ctx.inProgress.add(original);
    try {
      compareFields(ctx, original, update);
    } finally {
      ctx.inProgress.delete(original);
    }
  }
  compareTypes(ctx, original.nested, update.nested);
}

function compareFields(ctx: Context, original: Message, update: Message): void {
  const byTag = (m: Message) => new Map(m.fields.map((f) => [f.tag, f]));
  const [o, u] = [byTag(original), byTag(update)];
  // A oneof gone by name whose members are all gone too is a deletion (compatible); members that survive elsewhere
  // make the others' absence a removal.
  const deleted = new Set(original.oneofs.filter((n) => !update.oneofs.includes(n)
    && !original.fields.some((f) => f.oneof === n && u.has(f.tag))));
  // Newly mutually exclusive fields: an update oneof whose earlier members came from more than one place (a top-level
  // field is a place of its own, an original oneof another).
  for (const oneof of update.oneofs) {
    ctx.at(oneof, () => {
      const origins = new Set<string>();
      let fromTop = 0;
      for (const f of update.fields.filter((x) => x.oneof === oneof)) {
        const before = o.get(f.tag);
        if (before?.oneof !== undefined) origins.add(`oneof:${before.oneof}`);
        else if (before) { origins.add(`field:${f.tag}`); fromTop++; }
      }
      if (origins.size > 1) ctx.add(fromTop > 1 ? 'MULTIPLE_FIELDS_MOVED_TO_ONEOF' : 'FIELD_MOVED_TO_EXISTING_ONEOF');
    });
  }
  for (const oneof of [...new Set([...original.oneofs, ...update.oneofs])].sort()) {
    if (!update.oneofs.includes(oneof)) ctx.at(oneof, () => ctx.add('ONEOF_REMOVED'));
    else if (!original.oneofs.includes(oneof)) ctx.at(oneof, () => ctx.add('ONEOF_ADDED'));
  }
  for (const tag of [...new Set([...o.keys(), ...u.keys()])].sort((x, y) => x - y)) {
    const of = o.get(tag);
    const uf = u.get(tag);
    const where = (oneof: string | undefined, fn: () => void) => (oneof === undefined ? ctx.at(String(tag), fn)
      : ctx.at(oneof, () => ctx.at(String(tag), fn)));
    if (!uf) {
      if (of!.oneof === undefined) where(undefined, () => ctx.add(of!.required ? 'REQUIRED_FIELD_REMOVED' : 'FIELD_REMOVED'));
      else if (!deleted.has(of!.oneof)) where(of!.oneof, () => ctx.add('ONEOF_FIELD_REMOVED'));
    } else if (!of) {
      if (uf.oneof !== undefined) where(uf.oneof, () => ctx.add('ONEOF_FIELD_ADDED'));
      else where(undefined, () => ctx.add(uf.required ? 'REQUIRED_FIELD_ADDED' : 'FIELD_ADDED'));
    } else {
      if (of.oneof !== undefined && uf.oneof === undefined) where(undefined, () => ctx.add('ONEOF_FIELD_MOVED_TO_TOP_LEVEL'));
      where(uf.oneof, () => compareField(ctx, of, uf));
    }
  }
}

function compareField(ctx: Context, original: Field, update: Field): void {
  if (original.name !== update.name) ctx.add('FIELD_NAME_CHANGED');
  compareFieldTypes(ctx, original.type, update.type, original.label, update.label);
}

type Kind = 'scalar' | 'map' | 'message';

function kindOf(ctx: Context, t: FieldType, side: Side): Kind {
  if (typeof t !== 'string') return 'map';
  if (t in SCALAR_KINDS) return 'scalar';
  const full = ctx.resolve(t, side);
  return full !== undefined && side.types.get(full)!.node.kind === 'enum' ? 'scalar' : 'message';
}

function compareFieldTypes(ctx: Context, original: FieldType, update: FieldType, originalLabel?: string, updateLabel?: string): void {
  const [o, u] = [kindOf(ctx, original, ctx.original), kindOf(ctx, update, ctx.update)];
  if (o !== u) { ctx.add('FIELD_KIND_CHANGED'); return; }
  if (o === 'map') {
    const [om, um] = [original as { key: string; value: string }, update as { key: string; value: string }];
    compareFieldTypes(ctx, om.key, um.key);
    compareFieldTypes(ctx, om.value, um.value);
    return;
  }
  if (o === 'scalar') {
    const group = (t: string) => SCALAR_KINDS[t] ?? 'number'; // an enum is a varint
    const [og, ug] = [group(original as string), group(update as string)];
    if (og !== ug) ctx.add('FIELD_SCALAR_KIND_CHANGED');
    // optional ↔ repeated: length-delimited strings and bytes read either way; numbers may be packed.
    else if (originalLabel !== undefined && updateLabel !== undefined && originalLabel !== updateLabel) {
      ctx.add(og === 'text' ? 'FIELD_STRING_OR_BYTES_LABEL_CHANGED' : 'FIELD_NUMERIC_LABEL_CHANGED');
    }
    return;
  }
  const of = ctx.resolve(original as string, ctx.original);
  const uf = ctx.resolve(update as string, ctx.update);
  if (of === undefined || uf === undefined) {
    if (original !== update) ctx.add('FIELD_NAMED_TYPE_CHANGED');
    return;
  }
  const oi = ctx.original.types.get(of)!;
  const ui = ctx.update.types.get(uf)!;
  const local = (full: string, pkg: string) => (pkg && full.startsWith(`${pkg}.`) ? full.slice(pkg.length + 1) : full);
  const [ol, ul] = [local(of, oi.pkg), local(uf, ui.pkg)];
  if (ol !== ul) { ctx.add('FIELD_NAMED_TYPE_CHANGED'); return; }
  // Types of the schema itself are compared where they are declared; a referenced type is compared here, unless both
  // sides reference the same schema.
  if (oi.source === ui.source) return;
  const sub = ctx.sub(ol.split('.'), oi.pkg, ui.pkg);
  compareMessages(sub, oi.node as Message, ui.node as Message);
  ctx.diffs.push(...sub.diffs);
  if (!sub.compatible()) ctx.add('FIELD_NAMED_TYPE_CHANGED');
}
