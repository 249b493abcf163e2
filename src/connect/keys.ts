/**
 * How each Kafka Connect key is understood: supported (same behaviour), differs (runs, with a difference the
 * operator is warned about), ignored (source-only or Connect-internal; one info line) or refused (named in an error
 * at start: the run does not begin). Every key a translator knows is a row of one of the tables it passes to
 * {@link Explanation.take}; docs/connect.md lists the same rows (test/connect/keys-documented.test.ts).
 */
import { suggestName } from '../util/did-you-mean';

/** How a key is understood (see the module comment). */
export type KeyStatus = 'supported' | 'differs' | 'ignored' | 'refused';

/** A row of a key table: the key's general status and what we do with it. */
export interface KeyDoc { status: KeyStatus; note: string }

/** One key of one file as this run understood it (`value` hidden for secrets). */
export interface KeyLine { file: string; key: string; value: string; status: KeyStatus; note: string }

const SECRET = /(password|secret|jaas\.config|user\.info|\.key$|keystore\.key)/i;

/** Collects the {@link KeyLine}s of one file, and refuses keys no table knows (with a did-you-mean). */
export class Explanation {
  readonly lines: KeyLine[] = [];
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
    if (doc) { this.note(shown, value, doc.status, doc.note); return doc; }
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

  /** {@link verdict} 'refused'. */
  refuse(key: string, value: string, why: string): void {
    this.verdict(key, value, 'refused', why);
  }

  /** The refused lines. */
  refused(): KeyLine[] {
    return this.lines.filter((l) => l.status === 'refused');
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

/** A non-negative integer (Connect's INT / LONG). @returns undefined for anything else */
export function parseCount(v: string): number | undefined {
  return /^\s*\d+\s*$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : undefined;
}

/** Row builders for the key tables. */
export const supported = (note: string): KeyDoc => ({ status: 'supported', note });
export const differs = (note: string): KeyDoc => ({ status: 'differs', note });
export const ignored = (note: string): KeyDoc => ({ status: 'ignored', note });
export const refused = (note: string): KeyDoc => ({ status: 'refused', note });
