/**
 * How each Kafka Connect key is understood: supported (same behaviour), differs (runs, with a difference the
 * operator is warned about), ignored (source-only or Connect-internal; one info line) or refused (named in an error
 * at start: the run does not begin). Every key a translator knows is a row of one of the tables it passes to
 * {@link Explanation.take}; docs/connect.md lists the same rows (test/connect/keys-documented.test.ts).
 */
import { suggestName } from '../util/did-you-mean';

/** How a key is understood (see the module comment). */
export type KeyStatus = 'supported' | 'differs' | 'ignored' | 'refused';

/**
 * A key's type as Kafka's `ConfigDef.Type` declares it, with the bounds of its `ConfigDef.Range` (numbers). INT, SHORT
 * and LONG are whole numbers in Java's ranges; BOOLEAN is `true` / `false` in any case; CLASS a Java class name;
 * LIST, STRING and PASSWORD take any text. `min` / `max` may be narrower than Connect's where kafka-eos needs it
 * (said in the key's note).
 */
export interface ConfigType {
  type: 'INT' | 'SHORT' | 'LONG' | 'BOOLEAN' | 'LIST' | 'CLASS' | 'PASSWORD' | 'STRING';
  min?: number;
  max?: number;
}

/** Row builders' ConfigDef types: INT, SHORT and LONG with an optional Range, BOOLEAN, LIST, CLASS. */
export const INT = (min?: number, max?: number): ConfigType => ({ type: 'INT', min, max });
export const SHORT = (min?: number, max?: number): ConfigType => ({ type: 'SHORT', min, max });
export const LONG = (min?: number, max?: number): ConfigType => ({ type: 'LONG', min, max });
export const BOOLEAN: ConfigType = { type: 'BOOLEAN' };
export const LIST: ConfigType = { type: 'LIST' };
export const CLASS: ConfigType = { type: 'CLASS' };

/** A row of a key table: the key's general status, what we do with it, and its ConfigDef type (checked before use). */
export interface KeyDoc { status: KeyStatus; note: string; def?: ConfigType }

/** One key of one file as this run understood it (`value` hidden for secrets). */
export interface KeyLine { file: string; key: string; value: string; status: KeyStatus; note: string }

const SECRET = /(password|secret|jaas\.config|user\.info|\.key$|keystore\.key)/i;

/** Collects the {@link KeyLine}s of one file, and refuses keys no table knows (with a did-you-mean). */
export class Explanation {
  readonly lines: KeyLine[] = [];
  /** The values {@link take} parsed by their key's {@link ConfigType}, by key as the file spells it. */
  private readonly parsed = new Map<string, ParsedValue>();
  constructor(readonly file: string) {}

  /** Records `key` with an explicit status and note (a value-dependent verdict). */
  note(key: string, value: string, status: KeyStatus, note: string): void {
    const shown = SECRET.test(key) ? '******'
      : value.replace(/(password=)[^&;]*/gi, '$1******').replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1******@');
    this.lines.push({ file: this.file, key, value: shown, status, note });
  }

  /**
   * Records `key` by its row in `table`, or as refused (unknown) with a suggestion from `table`'s keys. `shown` is
   * the key as the file spells it (with its prefix, e.g. `consumer.override.`), `key` without it.
   * @returns the row, or undefined for an unknown key
   */
  take(key: string, value: string, table: Readonly<Record<string, KeyDoc>>, what: string, shown = key): KeyDoc | undefined {
    const doc = table[key];
    if (doc) {
      this.note(shown, value, doc.status, doc.note);
      if (doc.def && doc.status !== 'refused') this.check(shown, value, doc.def);
      return doc;
    }
    const guess = suggestName(key, Object.keys(table));
    const prefix = shown.slice(0, shown.length - key.length);
    this.note(shown, value, 'refused', `not a key kafka-eos knows for ${what}${guess ? ` (did you mean ${prefix}${guess}?)` : ''}`);
    return undefined;
  }

  /** Sets the verdict of `key`'s line (recorded before, or a new line): a value-dependent refusal or difference. */
  verdict(key: string, value: string, status: KeyStatus, note: string): void {
    const line = this.lines.find((l) => l.key === key);
    if (line) { line.status = status; line.note = note; } else this.note(key, value, status, note);
  }

  /**
   * Parses `value` by its ConfigDef type as Connect's ConfigDef does before a connector starts, and refuses `key` with
   * Connect's message when it does not parse or lies out of range. @returns the parsed value, or undefined (refused)
   */
  check(key: string, value: string, def: ConfigType): ParsedValue | undefined {
    const parsed = parseConfigValue(key, value, def);
    if ('error' in parsed) { this.refuse(key, value, parsed.error); return undefined; }
    this.parsed.set(key, parsed.value);
    return parsed.value;
  }

  /** The value of `key` (as the file spells it) parsed by its type in {@link take}; undefined when not given or refused. */
  typed<T extends ParsedValue>(key: string): T | undefined {
    return this.parsed.get(key) as T | undefined;
  }

  /** {@link verdict} 'refused'. */
  refuse(key: string, value: string, why: string): void {
    this.verdict(key, value, 'refused', why);
  }

  /** The refused lines. */
  refused(): KeyLine[] {
    return this.lines.filter((l) => l.status === 'refused');
  }
}

/** A value parsed by its {@link ConfigType}: a number (INT, SHORT, LONG), a boolean, a list, or the trimmed text. */
export type ParsedValue = number | boolean | string[] | string;

const WHOLE_LIMITS = { SHORT: [-(2n ** 15n), 2n ** 15n - 1n], INT: [-(2n ** 31n), 2n ** 31n - 1n], LONG: [-(2n ** 63n), 2n ** 63n - 1n] };
const JAVA_CLASS = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

/**
 * `value` of configuration `name` parsed as Kafka's ConfigDef.parseType and Range.ensureValid do, with their messages:
 * `Invalid value abc for configuration tasks.max: Not a number of type INT`, `... Value must be at least 1`,
 * `... Expected value to be either true or false`, `... Class x could not be found.` (a class name only by its form:
 * nothing is loaded). A LONG beyond 2^53 - 1 is refused too: kafka-eos holds it as a JavaScript number.
 */
export function parseConfigValue(name: string, value: string, def: ConfigType): { value: ParsedValue } | { error: string } {
  const invalid = (why: string) => ({ error: `Invalid value ${value} for configuration ${name}: ${why}` });
  const t = value.trim();
  switch (def.type) {
    case 'BOOLEAN': {
      const b = parseBoolean(t);
      return b === undefined ? invalid('Expected value to be either true or false') : { value: b };
    }
    case 'LIST': return { value: parseList(t) };
    case 'CLASS': return JAVA_CLASS.test(t) ? { value: t } : invalid(`Class ${value} could not be found.`);
    case 'STRING': case 'PASSWORD': return { value: t };
    default: {
      const [lo, hi] = WHOLE_LIMITS[def.type];
      if (!/^[+-]?\d+$/.test(t) || BigInt(t) < lo! || BigInt(t) > hi!) return invalid(`Not a number of type ${def.type}`);
      const n = BigInt(t);
      if (def.min !== undefined && n < BigInt(def.min)) return invalid(`Value must be at least ${def.min}`);
      if (def.max !== undefined && n > BigInt(def.max)) return invalid(`Value must be no more than ${def.max}`);
      if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
        return invalid(`Value must be no more than ${Number.MAX_SAFE_INTEGER} in absolute value here (a JavaScript number)`);
      }
      return { value: Number(n) };
    }
  }
}

/** A Connect boolean (`true` / `false`, any case, as Java's ConfigDef reads it). @returns undefined for anything else */
export function parseBoolean(v: string): boolean | undefined {
  const t = v.trim().toLowerCase();
  return t === 'true' ? true : t === 'false' ? false : undefined;
}

/** A Connect list: comma-separated, entries trimmed, empty entries dropped. */
export function parseList(v: string): string[] {
  return v.split(',').map((s) => s.trim()).filter((s) => s !== '');
}


/** Row builders for the key tables: the note, and the key's ConfigDef type when it is not STRING. */
export const supported = (note: string, def?: ConfigType): KeyDoc => ({ status: 'supported', note, ...(def ? { def } : {}) });
export const differs = (note: string, def?: ConfigType): KeyDoc => ({ status: 'differs', note, ...(def ? { def } : {}) });
export const ignored = (note: string, def?: ConfigType): KeyDoc => ({ status: 'ignored', note, ...(def ? { def } : {}) });
export const refused = (note: string, def?: ConfigType): KeyDoc => ({ status: 'refused', note, ...(def ? { def } : {}) });
