/**
 * Java `.properties` files as `connect-standalone` reads them (java.util.Properties.load): `key=value`, `key: value`
 * or `key value`; `#` and `!` comment lines; a line ending in an odd number of backslashes continues on the next
 * (its leading whitespace dropped); escapes `\t \n \r \f \uXXXX`, and `\` before any other character keeps that
 * character (`\=`, `\:`, `\ `, `\\`). A key given twice keeps its last value, as Properties does; `duplicates`
 * lists such keys so the caller can warn.
 */
import { KafkaEosError } from '../errors';

/** A parsed file: key → value in file order, and the keys given more than once. */
export interface Properties { values: Map<string, string>; duplicates: string[] }

const ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f' };

function unescape(s: string, where: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\' || i === s.length - 1) { out += c; continue; }
    const n = s[++i]!;
    if (n === 'u') {
      const hex = s.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new KafkaEosError('CONFIG_INVALID', `${where}: malformed \\uxxxx escape`);
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else out += ESCAPES[n] ?? n;
  }
  return out;
}

/** Logical lines: comments and blank lines dropped, continuations joined. */
function logicalLines(text: string): { line: string; at: number }[] {
  const physical = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const out: { line: string; at: number }[] = [];
  for (let i = 0; i < physical.length; i++) {
    let line = physical[i]!.replace(/^[ \t\f]+/, '');
    const at = i + 1;
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < physical.length) {
      line = line.slice(0, -1) + physical[++i]!.replace(/^[ \t\f]+/, '');
    }
    out.push({ line, at });
  }
  return out;
}

/** Parses `.properties` text (see the module comment). `file` names it in errors. @throws KafkaEosError CONFIG_INVALID */
export function parseProperties(text: string, file: string): Properties {
  const values = new Map<string, string>();
  const duplicates: string[] = [];
  for (const { line, at } of logicalLines(text)) {
    // The key ends at the first unescaped '=', ':' or whitespace; then whitespace, one '=' or ':', whitespace.
    let i = 0;
    while (i < line.length && !/[=: \t\f]/.test(line[i]!)) i += line[i] === '\\' ? 2 : 1;
    const rawKey = line.slice(0, Math.min(i, line.length));
    let j = i;
    while (j < line.length && /[ \t\f]/.test(line[j]!)) j++;
    if (j < line.length && (line[j] === '=' || line[j] === ':')) j++;
    while (j < line.length && /[ \t\f]/.test(line[j]!)) j++;
    const where = `${file}:${at}`;
    const key = unescape(rawKey, where);
    if (values.has(key)) duplicates.push(key);
    values.set(key, unescape(line.slice(j), where));
  }
  return { values, duplicates };
}
