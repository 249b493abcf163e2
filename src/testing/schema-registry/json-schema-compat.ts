/**
 * JSON Schema compatibility as Confluent's registry decides it (Confluent's documentation, "Schema Evolution
 * and Compatibility" for JSON Schema, and its json-schema-provider `diff` package, with its strict policy):
 * the two schemas are compared node by node, each difference has a type, and a check passes when every
 * difference is a compatible one. A node is read as Confluent reads it (with the everit library): `true`
 * and `{}` accept anything, `false` nothing, a `$ref` is the node it points at, several keyword groups on
 * one node (a `type` with an `enum`, say) are an `allOf` of them, and a `type` list is an `anyOf`.
 *
 * The rules, with the data they protect (the new schema must accept everything the old one did):
 * - type: another type is TYPE_CHANGED (incompatible), unless the new node accepts anything; integer → number
 *   TYPE_EXTENDED, number → integer TYPE_NARROWED;
 * - strings, numbers, arrays, objects: a bound tightened (minLength/minimum/minItems/minProperties up,
 *   max... down, a pattern, multipleOf or uniqueItems added or changed) is incompatible; loosened or removed
 *   is compatible;
 * - objects, by content model (open: additional properties allowed with no schema; closed: not allowed;
 *   partially open: allowed with a schema or by patternProperties): a property added to an open model is
 *   incompatible unless its schema is empty (old data may hold anything under that name); added to a closed
 *   model it is compatible unless required without a default; added to or removed from a partially open model
 *   it must agree with the model's schema; removed from an open model compatible, from a closed one only when
 *   its schema was `false`; a property made required (without a default) is incompatible, made optional
 *   compatible; additionalProperties removed or narrowed incompatible, added or extended compatible;
 * - arrays: `items` as a list follow the same content-model rules with additionalItems;
 * - enum: values added compatible, removed or changed incompatible; const changed incompatible;
 * - not: the negated schema narrowed compatible, extended incompatible;
 * - allOf / anyOf / oneOf: changing to anyOf (or between one-schema lists) is compatible, other changes of
 *   criterion not; a sum type (anyOf, oneOf) may grow, a product type (allOf) may shrink; the subschemas
 *   are matched pairwise (a maximum matching of compatible pairs) and must all find a partner; a node that
 *   becomes one branch of a new anyOf/oneOf is SUM_TYPE_EXTENDED, one branch of an old allOf that remains
 *   is PRODUCT_TYPE_NARROWED;
 * - $id, title, description and default may change.
 *
 * Not checked (accepted, listed in docs/converters.md): the draft 2019-09 / 2020-12 keywords
 * (unevaluatedProperties and unevaluatedItems, contains with minContains and maxContains, dependentSchemas,
 * dependentRequired, prefixItems, if/then/else), `format`, `propertyNames`, Confluent's metadata-based
 * rules (reserved properties) and its lenient policy. A recursive schema is compared once per pair of nodes on
 * the way down (a pair met again inside itself is taken as compatible, where Confluent iterates to a fixpoint).
 */
import { type Difference, InvalidSchemaError } from './types';

type Json = Record<string, unknown>;

/** Confluent's compatible difference types (its strict policy). */
const COMPATIBLE = new Set([
  'ID_CHANGED', 'DESCRIPTION_CHANGED', 'TITLE_CHANGED', 'DEFAULT_CHANGED', 'SCHEMA_REMOVED', 'TYPE_EXTENDED',
  'MAX_LENGTH_INCREASED', 'MAX_LENGTH_REMOVED', 'MIN_LENGTH_DECREASED', 'MIN_LENGTH_REMOVED', 'PATTERN_REMOVED',
  'MAXIMUM_INCREASED', 'MAXIMUM_REMOVED', 'MINIMUM_DECREASED', 'MINIMUM_REMOVED', 'EXCLUSIVE_MAXIMUM_INCREASED',
  'EXCLUSIVE_MAXIMUM_REMOVED', 'EXCLUSIVE_MINIMUM_DECREASED', 'EXCLUSIVE_MINIMUM_REMOVED', 'MULTIPLE_OF_REDUCED', 'MULTIPLE_OF_REMOVED',
  'REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED', 'REQUIRED_ATTRIBUTE_REMOVED', 'DEPENDENCY_ARRAY_NARROWED', 'DEPENDENCY_ARRAY_REMOVED',
  'DEPENDENCY_SCHEMA_REMOVED', 'MAX_PROPERTIES_INCREASED', 'MAX_PROPERTIES_REMOVED', 'MIN_PROPERTIES_DECREASED', 'MIN_PROPERTIES_REMOVED',
  'ADDITIONAL_PROPERTIES_ADDED', 'ADDITIONAL_PROPERTIES_EXTENDED', 'PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL',
  'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL', 'OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL',
  'PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL', 'PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL',
  'PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', 'PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'MAX_ITEMS_INCREASED', 'MAX_ITEMS_REMOVED', 'MIN_ITEMS_DECREASED', 'MIN_ITEMS_REMOVED', 'UNIQUE_ITEMS_REMOVED', 'ADDITIONAL_ITEMS_ADDED',
  'ADDITIONAL_ITEMS_EXTENDED', 'ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL', 'ITEM_ADDED_TO_CLOSED_CONTENT_MODEL',
  'ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL', 'ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL',
  'ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', 'ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'ENUM_ARRAY_EXTENDED', 'COMBINED_TYPE_EXTENDED', 'PRODUCT_TYPE_NARROWED', 'SUM_TYPE_EXTENDED', 'NOT_TYPE_NARROWED',
]);

/** Whether a JSON Schema difference type is compatible (see the module comment). */
export const isCompatibleJsonSchemaChange = (type: string): boolean => COMPATIBLE.has(type);

type Criterion = 'allOf' | 'anyOf' | 'oneOf';
/** A schema node as Confluent's loader classifies it; `raw` is its JSON (for the keywords each kind reads). */
type Node =
  | { kind: 'empty' | 'false' | 'boolean' | 'null' | 'string' | 'object' | 'array'; raw: Json }
  | { kind: 'number'; raw: Json; integer: boolean }
  | { kind: 'enum'; raw: Json; values: unknown[] }
  | { kind: 'const'; raw: Json; value: unknown }
  | { kind: 'not'; raw: Json; schema: unknown }
  | { kind: 'combined'; raw: Json; criterion: Criterion; subschemas: unknown[] };

const OBJECT_WORDS =
  ['properties', 'required', 'additionalProperties', 'patternProperties', 'minProperties', 'maxProperties', 'dependencies'];
const ARRAY_WORDS = ['items', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems'];
const NUMBER_WORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const STRING_WORDS = ['minLength', 'maxLength', 'pattern'];

/** Resolves `$ref`s: local JSON pointers, and the schema's references by name or `$id`. */
class Refs {
  constructor(private readonly roots: Map<string, unknown>) {}

  /** The node `raw` stands for once its `$ref`s are followed (at most 32), with the document it lives in. */
  resolve(raw: unknown, doc: unknown): { raw: unknown; doc: unknown } {
    for (let i = 0; i < 32; i++) {
      if (raw === null || typeof raw !== 'object' || typeof (raw as Json).$ref !== 'string') return { raw, doc };
      const ref = (raw as Json).$ref as string;
      const hash = ref.indexOf('#');
      const file = hash < 0 ? ref : ref.slice(0, hash);
      const base = file === '' ? doc : this.roots.get(file);
      if (base === undefined) throw new InvalidSchemaError(`$ref ${ref} names no schema`);
      let cur: unknown = base;
      for (const part of (hash < 0 ? '' : ref.slice(hash + 1)).split('/').filter((p) => p !== '')) {
        const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
        cur = cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, key) ? (cur as Json)[key] : undefined;
      }
      if (cur === undefined) throw new InvalidSchemaError(`$ref ${ref} points at nothing`);
      raw = cur;
      doc = base;
    }
    throw new InvalidSchemaError('$ref chain longer than 32');
  }
}

/** Every node {@link nodeOf} made (a synthesized allOf or anyOf holds nodes, not raw schemas). */
const NODES = new WeakSet<object>();

/** Classifies a raw schema (see the module comment): several keyword groups on one node become an allOf. */
function nodeOf(raw: unknown): Node {
  const n = classify(raw);
  NODES.add(n);
  return n;
}

function classify(raw: unknown): Node {
  if (raw === true) return { kind: 'empty', raw: {} };
  if (raw === false) return { kind: 'false', raw: {} };
  const o = raw as Json;
  const parts: Node[] = [];
  const typed = (t: unknown): Node => {
    let n: Node;
    if (t === 'integer' || t === 'number') n = { kind: 'number', raw: o, integer: t === 'integer' };
    else if (t === 'string' || t === 'object' || t === 'array' || t === 'boolean' || t === 'null') n = { kind: t, raw: o };
    else throw new InvalidSchemaError(`unknown type ${JSON.stringify(t)}`);
    NODES.add(n);
    return n;
  };
  if (Array.isArray(o.type)) {
    if (o.type.length === 1) parts.push(typed(o.type[0]));
    else parts.push({ kind: 'combined', raw: o, criterion: 'anyOf', subschemas: o.type.map((t) => typed(t)) });
  } else if (o.type !== undefined) {
    parts.push(typed(o.type));
  } else {
    const has = (words: string[]) => words.some((w) => w in o);
    if (has(OBJECT_WORDS)) parts.push(typed('object'));
    if (has(ARRAY_WORDS)) parts.push(typed('array'));
    if (has(NUMBER_WORDS)) parts.push(typed('number'));
    if (has(STRING_WORDS)) parts.push(typed('string'));
  }
  const part = (n: Node) => { NODES.add(n); parts.push(n); };
  if (Array.isArray(o.enum)) part({ kind: 'enum', raw: o, values: o.enum });
  if ('const' in o) part({ kind: 'const', raw: o, value: o.const });
  if ('not' in o) part({ kind: 'not', raw: o, schema: o.not });
  for (const c of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(o[c])) part({ kind: 'combined', raw: o, criterion: c, subschemas: o[c] as unknown[] });
  }
  if (parts.length === 0) return { kind: 'empty', raw: o };
  if (parts.length === 1) return parts[0]!;
  return { kind: 'combined', raw: o, criterion: 'allOf', subschemas: parts };
}

/** A subschema is a raw schema, or a Node already classified (the parts of a synthesized allOf or anyOf). */
const isNode = (x: unknown): x is Node => x !== null && typeof x === 'object' && NODES.has(x);

/** The comparison's state (see {@link Context.add} for the path of a difference). */
class Context {
  readonly diffs: Difference[] = [];
  constructor(readonly refs: Refs, readonly path: string[], readonly inProgress: Set<string>,
    private readonly ids: { map: WeakMap<object, number>; next: number }) {}
  add(type: string, ...segments: string[]): void {
    this.diffs.push({ type, path: `#/${[...this.path, ...segments].join('/')}` });
  }
  at(segment: string, fn: () => void): void {
    this.path.push(...segment.split('/')); try { fn(); } finally { this.path.splice(-segment.split('/').length); }
  }
  sub(): Context { return new Context(this.refs, [...this.path], this.inProgress, this.ids); }
  compatible(): boolean { return this.diffs.every((d) => COMPATIBLE.has(d.type)); }
  /** A key for a pair of raw schema objects (identity), for the recursion guard. */
  pairKey(a: unknown, b: unknown): string { return `${this.idOf(a)}:${this.idOf(b)}`; }
  private idOf(x: unknown): number {
    if (x === null || typeof x !== 'object') return -1;
    let id = this.ids.map.get(x);
    if (id === undefined) { id = ++this.ids.next; this.ids.map.set(x, id); }
    return id;
  }
}

/**
 * The differences between `original` and `update` (parsed JSON Schemas; `references`: name or `$id` → document).
 * @throws InvalidSchemaError for a `$ref` that points at nothing or an unknown type (a registered schema has neither)
 */
export function jsonSchemaDifferences(original: unknown, update: unknown, references: Map<string, unknown> = new Map()): Difference[] {
  const roots = new Map(references);
  for (const doc of [...references.values(), original, update]) {
    const id = doc !== null && typeof doc === 'object' ? ((doc as Json).$id ?? (doc as Json).id) : undefined;
    if (typeof id === 'string' && !roots.has(id)) roots.set(id, doc);
  }
  const ctx = new Context(new Refs(roots), [], new Set(), { map: new WeakMap(), next: 0 });
  compare(ctx, { raw: original, doc: original }, { raw: update, doc: update });
  return ctx.diffs;
}

/** A raw subschema with the document its local `$ref`s resolve in. */
interface At { raw: unknown; doc: unknown }

function compare(ctx: Context, original: At | undefined, update: At | undefined): void {
  if (original?.raw === undefined && update?.raw === undefined) return;
  if (original?.raw === undefined) { ctx.add('SCHEMA_ADDED'); return; }
  if (update?.raw === undefined) { ctx.add('SCHEMA_REMOVED'); return; }
  const o = isNode(original.raw) ? original : ctx.refs.resolve(original.raw, original.doc);
  const u = isNode(update.raw) ? update : ctx.refs.resolve(update.raw, update.doc);
  const key = ctx.pairKey(o.raw, u.raw);
  if (ctx.inProgress.has(key)) return; // a cycle: this pair is being compared further up
  ctx.inProgress.add(key);
  try {
    compareNodes(ctx, { node: isNode(o.raw) ? o.raw : nodeOf(o.raw), doc: o.doc },
      { node: isNode(u.raw) ? u.raw : nodeOf(u.raw), doc: u.doc });
  } finally {
    ctx.inProgress.delete(key);
  }
}

interface Side { node: Node; doc: unknown }

/** Compares `a` and `b` apart: whether they are compatible, and their differences. */
function trial(ctx: Context, a: At, b: At): { ok: boolean; diffs: Difference[] } {
  const sub = ctx.sub();
  compare(sub, a, b);
  return { ok: sub.compatible(), diffs: sub.diffs };
}

function compareNodes(ctx: Context, o: Side, u: Side): void {
  const on = o.node;
  const un = u.node;
  if (on.kind !== 'combined' && un.kind === 'combined') {
    const subs = un.subschemas.map((s) => ({ raw: s, doc: u.doc }));
    if (subs.length === 1) {
      const t = trial(ctx, { raw: on, doc: o.doc }, subs[0]!);
      if (t.ok) { ctx.diffs.push(...t.diffs); return; }
    } else if (un.criterion !== 'allOf') {
      for (const s of subs) {
        const t = trial(ctx, { raw: on, doc: o.doc }, s);
        if (t.ok) { ctx.diffs.push(...t.diffs); ctx.add('SUM_TYPE_EXTENDED'); return; }
      }
    }
  } else if (on.kind === 'combined' && un.kind !== 'combined') {
    const subs = on.subschemas.map((s) => ({ raw: s, doc: o.doc }));
    if (subs.length === 1) {
      const t = trial(ctx, subs[0]!, { raw: un, doc: u.doc });
      if (t.ok) { ctx.diffs.push(...t.diffs); return; }
    } else if (on.criterion === 'allOf') {
      for (const s of subs) {
        const t = trial(ctx, s, { raw: un, doc: u.doc });
        if (t.ok) { ctx.diffs.push(...t.diffs); ctx.add('PRODUCT_TYPE_NARROWED'); return; }
      }
    }
  }
  const same = on.kind === un.kind || (on.kind === 'number' && un.kind === 'number');
  if (!same) {
    if (on.kind === 'false' || un.kind === 'empty') return;
    ctx.add('TYPE_CHANGED');
    return;
  }
  const [oa, ua] = [on.raw, un.raw];
  const changed = (k: string) => JSON.stringify(oa[k]) !== JSON.stringify(ua[k]);
  if (changed('$id') || changed('id')) ctx.add('ID_CHANGED');
  if (changed('title')) ctx.add('TITLE_CHANGED');
  if (changed('description')) ctx.add('DESCRIPTION_CHANGED');
  if (changed('default')) ctx.add('DEFAULT_CHANGED');
  switch (on.kind) {
    case 'string': compareString(ctx, oa, ua); break;
    case 'number': compareNumber(ctx, on, un as typeof on); break;
    case 'enum': compareEnum(ctx, on.values, (un as typeof on).values); break;
    case 'const': if (JSON.stringify(on.value) !== JSON.stringify((un as typeof on).value)) ctx.add('ENUM_ARRAY_CHANGED', 'const'); break;
    case 'not': compareNot(ctx, { raw: on.schema, doc: o.doc }, { raw: (un as typeof on).schema, doc: u.doc }); break;
    case 'combined': compareCombined(ctx, on, o.doc, un as typeof on, u.doc); break;
    case 'object': compareObject(ctx, o, u); break;
    case 'array': compareArray(ctx, o, u); break;
    default: break;
  }
}

/** A bound that may be added, removed, raised or lowered (`prefix`: MAX_LENGTH, MIN_ITEMS, ...). */
function compareBound(ctx: Context, word: string, prefix: string, a: unknown, b: unknown): void {
  const [x, y] = [typeof a === 'number' ? a : undefined, typeof b === 'number' ? b : undefined];
  if (x === y) return;
  if (x === undefined) ctx.add(`${prefix}_ADDED`, word);
  else if (y === undefined) ctx.add(`${prefix}_REMOVED`, word);
  else ctx.add(x < y ? `${prefix}_INCREASED` : `${prefix}_DECREASED`, word);
}

function compareString(ctx: Context, o: Json, u: Json): void {
  compareBound(ctx, 'maxLength', 'MAX_LENGTH', o.maxLength, u.maxLength);
  compareBound(ctx, 'minLength', 'MIN_LENGTH', o.minLength, u.minLength);
  const [p, q] = [typeof o.pattern === 'string' ? o.pattern : undefined, typeof u.pattern === 'string' ? u.pattern : undefined];
  if (p === undefined && q !== undefined) ctx.add('PATTERN_ADDED', 'pattern');
  else if (p !== undefined && q === undefined) ctx.add('PATTERN_REMOVED', 'pattern');
  else if (p !== q) ctx.add('PATTERN_CHANGED', 'pattern');
}

function compareNumber(ctx: Context, o: Node & { kind: 'number' }, u: Node & { kind: 'number' }): void {
  compareBound(ctx, 'maximum', 'MAXIMUM', o.raw.maximum, u.raw.maximum);
  compareBound(ctx, 'minimum', 'MINIMUM', o.raw.minimum, u.raw.minimum);
  compareBound(ctx, 'exclusiveMaximum', 'EXCLUSIVE_MAXIMUM', o.raw.exclusiveMaximum, u.raw.exclusiveMaximum);
  compareBound(ctx, 'exclusiveMinimum', 'EXCLUSIVE_MINIMUM', o.raw.exclusiveMinimum, u.raw.exclusiveMinimum);
  const [a, b] = [typeof o.raw.multipleOf === 'number' ? o.raw.multipleOf : undefined,
    typeof u.raw.multipleOf === 'number' ? u.raw.multipleOf : undefined];
  if (a !== b) {
    // Exact in decimal: 0.1 and 0.3 are compared as 1 and 3 tenths, not as binary fractions.
    const scale = 10 ** Math.max(decimals(a), decimals(b));
    const [x, y] = [a === undefined ? 0 : Math.round(a * scale), b === undefined ? 0 : Math.round(b * scale)];
    if (a === undefined) ctx.add('MULTIPLE_OF_ADDED', 'multipleOf');
    else if (b === undefined) ctx.add('MULTIPLE_OF_REMOVED', 'multipleOf');
    else if (x !== 0 && y % x === 0) ctx.add('MULTIPLE_OF_EXPANDED', 'multipleOf');
    else if (y !== 0 && x % y === 0) ctx.add('MULTIPLE_OF_REDUCED', 'multipleOf');
    else ctx.add('MULTIPLE_OF_CHANGED', 'multipleOf');
  }
  if (o.integer !== u.integer) ctx.add(o.integer ? 'TYPE_EXTENDED' : 'TYPE_NARROWED');
}

const decimals = (n: number | undefined) => (n === undefined ? 0 : (String(n).split('.')[1] ?? '').length);

function compareEnum(ctx: Context, o: unknown[], u: unknown[]): void {
  const [os, us] = [new Set(o.map((v) => JSON.stringify(v))), new Set(u.map((v) => JSON.stringify(v)))];
  if (os.size === us.size && [...os].every((v) => us.has(v))) return;
  if ([...os].every((v) => us.has(v))) ctx.add('ENUM_ARRAY_EXTENDED', 'enum');
  else if ([...us].every((v) => os.has(v))) ctx.add('ENUM_ARRAY_NARROWED', 'enum');
  else ctx.add('ENUM_ARRAY_CHANGED', 'enum');
}

function compareNot(ctx: Context, o: At, u: At): void {
  ctx.at('not', () => {
    // The negated schemas compare the other way round: a narrower negation accepts more.
    ctx.add(trial(ctx, u, o).ok ? 'NOT_TYPE_NARROWED' : 'NOT_TYPE_EXTENDED');
  });
}

function compareCombined(ctx: Context, o: Node & { kind: 'combined' }, odoc: unknown, u: Node & { kind: 'combined' }, udoc: unknown): void {
  if (o.criterion !== u.criterion) {
    const single = (n: Node & { kind: 'combined' }) => n.subschemas.length === 1;
    const extended = u.criterion === 'anyOf' || (single(o) && single(u)) || (single(o) && u.criterion === 'oneOf')
      || (single(u) && o.criterion === 'allOf');
    ctx.add(extended ? 'COMBINED_TYPE_EXTENDED' : 'COMBINED_TYPE_CHANGED');
    if (!extended) return;
  }
  const dedupe = (subs: unknown[]) => [...new Map(subs.map((s) => [JSON.stringify(isNode(s) ? s.raw : s), s])).values()];
  const [os, us] = [dedupe(o.subschemas), dedupe(u.subschemas)];
  if (os.length < us.length) ctx.add(u.criterion === 'allOf' ? 'PRODUCT_TYPE_EXTENDED' : 'SUM_TYPE_EXTENDED');
  else if (os.length > us.length) ctx.add(o.criterion === 'allOf' ? 'PRODUCT_TYPE_NARROWED' : 'SUM_TYPE_NARROWED');
  // Compatible pairs, then a maximum matching (augmenting paths): every subschema of the smaller side needs a partner.
  const edges: ({ ok: boolean; diffs: Difference[] } | undefined)[][] = os.map((a, i) => {
    let row: ({ ok: boolean; diffs: Difference[] } | undefined)[] = [];
    ctx.at(`${o.criterion}/${i}`, () => {
      row = us.map((b) => { const t = trial(ctx, { raw: a, doc: odoc }, { raw: b, doc: udoc }); return t.ok ? t : undefined; });
    });
    return row;
  });
  const partnerOf = new Array<number>(us.length).fill(-1);
  const augment = (i: number, seen: Set<number>): boolean => {
    for (let j = 0; j < us.length; j++) {
      if (!edges[i]![j] || seen.has(j)) continue;
      seen.add(j);
      if (partnerOf[j] === -1 || augment(partnerOf[j]!, seen)) { partnerOf[j] = i; return true; }
    }
    return false;
  };
  let matched = 0;
  for (let i = 0; i < os.length; i++) if (augment(i, new Set())) matched++;
  partnerOf.forEach((i, j) => { if (i >= 0) ctx.diffs.push(...edges[i]![j]!.diffs); });
  if (matched < Math.min(os.length, us.length)) ctx.add('COMBINED_TYPE_SUBSCHEMAS_CHANGED');
}

/** An object's properties, required names, additionalProperties (permitted; its schema) and patternProperties. */
function objectModel(raw: Json) {
  const props = raw.properties !== null && typeof raw.properties === 'object' ? raw.properties as Json : {};
  const additional = raw.additionalProperties;
  const patterns = raw.patternProperties !== null && typeof raw.patternProperties === 'object' ? raw.patternProperties as Json : {};
  return {
    props, required: new Set(Array.isArray(raw.required) ? raw.required as string[] : []),
    permits: additional !== false, schema: additional === undefined || typeof additional === 'boolean' ? undefined : additional, patterns,
  };
}
type ObjectModel = ReturnType<typeof objectModel>;

const isOpen = (m: ObjectModel) => m.permits && m.schema === undefined && Object.keys(m.patterns).length === 0;

/** The schema a partially open object gives `name` (a matching patternProperties, else additionalProperties). */
function partialSchema(m: ObjectModel, name: string): unknown {
  for (const [p, s] of Object.entries(m.patterns)) {
    try { if (new RegExp(p, 'u').test(name)) return s; } catch { /* an invalid pattern matches nothing */ }
  }
  return m.schema;
}

const isEmptySchema = (s: unknown) =>
  s === true || (s !== null && typeof s === 'object' && !Array.isArray(s) && nodeOf(s).kind === 'empty');
const hasDefault = (s: unknown) => s !== null && typeof s === 'object' && 'default' in (s as Json);

function compareObject(ctx: Context, o: Side, u: Side): void {
  const [om, um] = [objectModel(o.node.raw), objectModel(u.node.raw)];
  ctx.at('required', () => {
    for (const name of Object.keys(om.props)) {
      if (!(name in um.props)) continue;
      const [a, b] = [om.required.has(name), um.required.has(name)];
      if (a && !b) ctx.add('REQUIRED_ATTRIBUTE_REMOVED', name);
      else if (!a && b) ctx.add(hasDefault(um.props[name]) ? 'REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED' : 'REQUIRED_ATTRIBUTE_ADDED', name);
    }
  });
  ctx.at('properties', () => {
    for (const name of new Set([...Object.keys(om.props), ...Object.keys(um.props)])) {
      ctx.at(name, () => compareProperty(ctx, name, om, o.doc, um, u.doc));
    }
  });
  compareDependencies(ctx, o, u);
  ctx.at('additionalProperties', () => {
    if (om.permits !== um.permits) ctx.add(um.permits ? 'ADDITIONAL_PROPERTIES_ADDED' : 'ADDITIONAL_PROPERTIES_REMOVED');
    else if (om.schema === undefined && um.schema !== undefined) ctx.add('ADDITIONAL_PROPERTIES_NARROWED');
    else if (om.schema !== undefined && um.schema === undefined) ctx.add('ADDITIONAL_PROPERTIES_EXTENDED');
    else compare(ctx, om.schema === undefined ? undefined : { raw: om.schema, doc: o.doc }, um.schema === undefined ? undefined
      : { raw: um.schema, doc: u.doc });
  });
  compareBound(ctx, 'maxProperties', 'MAX_PROPERTIES', o.node.raw.maxProperties, u.node.raw.maxProperties);
  compareBound(ctx, 'minProperties', 'MIN_PROPERTIES', o.node.raw.minProperties, u.node.raw.minProperties);
}

function compareProperty(ctx: Context, name: string, om: ObjectModel, odoc: unknown, um: ObjectModel, udoc: unknown): void {
  const [a, b] = [om.props[name], um.props[name]];
  if (b === undefined) {
    // Removing a property is safe only where the new model still accepts what old data holds under that name.
    if (isOpen(um)) { ctx.add('PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL'); return; }
    const partial = partialSchema(um, name);
    if (partial !== undefined) {
      const t = trial(ctx, { raw: a, doc: odoc }, { raw: partial, doc: udoc });
      ctx.diffs.push(...t.diffs);
      ctx.add(t.ok ? 'PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
        : 'PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL');
    } else {
      ctx.add(a === false ? 'PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL' : 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL');
    }
    return;
  }
  if (a === undefined) {
    // Adding a property is safe where old data could not hold that name, or held what the new schema accepts.
    if (isOpen(om)) {
      if (isEmptySchema(b)) ctx.add('PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL');
      else if (um.required.has(name)) {
        ctx.add(hasDefault(b) ? 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL'
          : 'REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL');
      } else ctx.add('OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL');
      return;
    }
    const partial = partialSchema(om, name);
    if (partial !== undefined) {
      const t = trial(ctx, { raw: partial, doc: odoc }, { raw: b, doc: udoc });
      ctx.diffs.push(...t.diffs);
      ctx.add(t.ok ? 'PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
        : 'PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL');
    }
    if (um.required.has(name)) {
      ctx.add(hasDefault(b) ? 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL'
        : 'REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL');
    } else ctx.add('OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL');
    return;
  }
  compare(ctx, { raw: a, doc: odoc }, { raw: b, doc: udoc });
}

function compareDependencies(ctx: Context, o: Side, u: Side): void {
  const deps = (raw: Json) => (raw.dependencies !== null && typeof raw.dependencies === 'object' ? raw.dependencies as Json : {});
  const [od, ud] = [deps(o.node.raw), deps(u.node.raw)];
  ctx.at('dependencies', () => {
    const arrays = (d: Json) => new Map(Object.entries(d).filter(([, v]) => Array.isArray(v)) as [string, string[]][]);
    const [oa, ua] = [arrays(od), arrays(ud)];
    for (const name of new Set([...oa.keys(), ...ua.keys()])) {
      const [a, b] = [oa.get(name), ua.get(name)];
      if (!b) ctx.add('DEPENDENCY_ARRAY_REMOVED', name);
      else if (!a) ctx.add('DEPENDENCY_ARRAY_ADDED', name);
      else {
        const [as, bs] = [new Set(a), new Set(b)];
        if (as.size === bs.size && [...as].every((x) => bs.has(x))) continue;
        if ([...as].every((x) => bs.has(x))) ctx.add('DEPENDENCY_ARRAY_EXTENDED', name);
        else if ([...bs].every((x) => as.has(x))) ctx.add('DEPENDENCY_ARRAY_NARROWED', name);
        else ctx.add('DEPENDENCY_ARRAY_CHANGED', name);
      }
    }
    const schemas = (d: Json) => new Map(Object.entries(d).filter(([, v]) => !Array.isArray(v)));
    const [os, us] = [schemas(od), schemas(ud)];
    for (const name of new Set([...os.keys(), ...us.keys()])) {
      const [a, b] = [os.get(name), us.get(name)];
      if (b === undefined) ctx.add('DEPENDENCY_SCHEMA_REMOVED', name);
      else if (a === undefined) ctx.add('DEPENDENCY_SCHEMA_ADDED', name);
      else ctx.at(name, () => compare(ctx, { raw: a, doc: o.doc }, { raw: b, doc: u.doc }));
    }
  });
}

function compareArray(ctx: Context, o: Side, u: Side): void {
  const [oa, ua] = [o.node.raw, u.node.raw];
  const all = (raw: Json) => (raw.items !== undefined && !Array.isArray(raw.items) ? raw.items : undefined);
  const list = (raw: Json) => (Array.isArray(raw.items) ? raw.items as unknown[] : []);
  ctx.at('items', () => {
    const [a, b] = [all(oa), all(ua)];
    compare(ctx, a === undefined ? undefined : { raw: a, doc: o.doc }, b === undefined ? undefined : { raw: b, doc: u.doc });
  });
  // Tuples: `items` as a list, with additionalItems as the content model of the positions after it.
  const model = (raw: Json) => ({ permits: raw.additionalItems !== false,
    schema: raw.additionalItems === undefined || typeof raw.additionalItems === 'boolean' ? undefined : raw.additionalItems });
  const [om, um] = [model(oa), model(ua)];
  const open = (m: ReturnType<typeof model>) => m.permits && m.schema === undefined;
  const [ol, ul] = [list(oa), list(ua)];
  for (let i = 0; i < Math.max(ol.length, ul.length); i++) {
    ctx.at(`items/${i}`, () => {
      if (i < ol.length && i < ul.length) { compare(ctx, { raw: ol[i], doc: o.doc }, { raw: ul[i], doc: u.doc }); return; }
      if (i < ol.length) {
        if (open(um)) { ctx.add('ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL'); return; }
        if (um.schema !== undefined) {
          const t = trial(ctx, { raw: ol[i], doc: o.doc }, { raw: um.schema, doc: u.doc });
          ctx.diffs.push(...t.diffs);
          ctx.add(t.ok ? 'ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
            : 'ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL');
        } else ctx.add(ol[i] === false ? 'ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL' : 'ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL');
        return;
      }
      if (open(om)) {
        ctx.add(isEmptySchema(ul[i]) ? 'ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL' : 'ITEM_ADDED_TO_OPEN_CONTENT_MODEL'); return;
      }
      if (om.schema !== undefined) {
        const t = trial(ctx, { raw: om.schema, doc: o.doc }, { raw: ul[i], doc: u.doc });
        ctx.diffs.push(...t.diffs);
        ctx.add(t.ok ? 'ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL' : 'ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL');
      } else ctx.add('ITEM_ADDED_TO_CLOSED_CONTENT_MODEL');
    });
  }
  ctx.at('additionalItems', () => {
    if (om.permits !== um.permits) ctx.add(om.permits ? 'ADDITIONAL_ITEMS_REMOVED' : 'ADDITIONAL_ITEMS_ADDED');
    else if (om.schema === undefined && um.schema !== undefined) ctx.add('ADDITIONAL_ITEMS_NARROWED');
    else if (om.schema !== undefined && um.schema === undefined) ctx.add('ADDITIONAL_ITEMS_EXTENDED');
    else if (om.schema !== undefined) compare(ctx, { raw: om.schema, doc: o.doc }, { raw: um.schema, doc: u.doc });
  });
  compareBound(ctx, 'maxItems', 'MAX_ITEMS', oa.maxItems, ua.maxItems);
  compareBound(ctx, 'minItems', 'MIN_ITEMS', oa.minItems, ua.minItems);
  if ((oa.uniqueItems === true) !== (ua.uniqueItems === true))
    ctx.add(oa.uniqueItems === true ? 'UNIQUE_ITEMS_REMOVED' : 'UNIQUE_ITEMS_ADDED', 'uniqueItems');
}
