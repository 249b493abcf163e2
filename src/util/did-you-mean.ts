/**
 * Did-you-mean for unknown option names, one rule everywhere (the consumer's options, both sinks' configs, the
 * `run` config): an alias table first (e.g. KafkaJS's names), then a known name equal but for case or a missing
 * `Ms` unit suffix, then the nearest known name within an edit distance of 2 (at most a third of the name's length).
 */
import { z } from 'zod';

/** Levenshtein distance of two short strings. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * What to suggest for an unknown option `name`, given the known names at that level (`known`) and names other
 * libraries use for them (`aliases`: their name → ours, or what to do instead); null when nothing is close.
 */
export function suggestName(name: string, known: readonly string[], aliases: Readonly<Record<string, string>> = {}): string | null {
  if (Object.hasOwn(aliases, name)) return aliases[name]!;
  const lower = name.toLowerCase();
  const exact = known.find((k) => k.toLowerCase() === lower || k.toLowerCase() === `${lower}ms`);
  if (exact) return exact;
  let best: string | null = null;
  let bestDistance = Math.min(2, Math.floor(name.length / 3));
  for (const k of known) {
    const d = distance(lower, k.toLowerCase());
    if (d <= bestDistance && (best === null || d < bestDistance)) { best = k; bestDistance = d; }
  }
  return best;
}

/** `unknown option` and, when one is close, `: did you mean <name>?` (the message of every unknown-key refusal). */
export function unknownOptionMessage(name: string, known: readonly string[], aliases: Readonly<Record<string, string>> = {}): string {
  const suggestion = suggestName(name, known, aliases);
  return `unknown option${suggestion ? `: did you mean ${suggestion}?` : ''}`;
}

/** The first key of `value` (an object) not in `known`, if any. */
export function unknownKey(value: object, known: readonly string[]): string | undefined {
  return Object.keys(value).find((k) => !known.includes(k));
}

/**
 * The keys a zod object schema allows at `path` inside `schema` (optional, nullable and default wrappers unwrapped;
 * in a union the option `input` takes at that point: by its discriminator, else every object option's keys; array
 * elements and record values by index and key), or [] when `path` leads to no object. For did-you-mean messages.
 */
export function schemaKeysAt(schema: z.ZodType, path: readonly PropertyKey[], input: unknown): string[] {
  const unwrap = (s: z.ZodType): z.ZodType => {
    let cur = s;
    for (let i = 0; i < 10; i++) {
      if (cur instanceof z.ZodOptional || cur instanceof z.ZodNullable || cur instanceof z.ZodDefault) cur = cur.unwrap() as z.ZodType;
      else if (cur instanceof z.ZodPipe) cur = cur.in as z.ZodType;
      else break;
    }
    return cur;
  };
  const objectsOf = (s: z.ZodType, value: unknown): z.ZodObject[] => {
    const u = unwrap(s);
    if (u instanceof z.ZodObject) return [u];
    if (u instanceof z.ZodDiscriminatedUnion || u instanceof z.ZodUnion) {
      const options = (u.options as z.ZodType[]).flatMap((o) => objectsOf(o, value));
      const d = u instanceof z.ZodDiscriminatedUnion ? (u._zod.def as { discriminator?: string }).discriminator : undefined;
      const tag = d !== undefined && value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[d] : undefined;
      const chosen = options.filter((o) => {
        const lit = d !== undefined ? unwrap(o.shape[d] as z.ZodType) : undefined;
        return lit instanceof z.ZodLiteral && (lit.values as Set<unknown>).has(tag);
      });
      return chosen.length > 0 ? chosen : options;
    }
    return [];
  };
  let nodes: z.ZodType[] = [schema];
  let value = input;
  for (const step of path) {
    const next: z.ZodType[] = [];
    for (const n of nodes) {
      const u = unwrap(n);
      if (u instanceof z.ZodArray) next.push(u.element as z.ZodType);
      else if (u instanceof z.ZodRecord) next.push(u.valueType as z.ZodType);
      else for (const o of objectsOf(u, value)) if (Object.hasOwn(o.shape, step)) next.push(o.shape[step as string] as z.ZodType);
    }
    nodes = next;
    value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[step] : undefined;
  }
  return [...new Set(nodes.flatMap((n) => objectsOf(n, value)).flatMap((o) => Object.keys(o.shape)))];
}
