/**
 * PostgreSQL COPY text format (PostgreSQL docs, "COPY", File Formats / Text Format), pure: one value as a field.
 * NULL is `\N`; backslash, newline, carriage return and tab are written as `\\`, `\n`, `\r`, `\t`; every other
 * character, unicode included, passes as is (the connection's client_encoding is UTF8). Values other than strings,
 * numbers and booleans are encoded as node-postgres would bind them as parameters (its `prepareValue`).
 */
type PrepareValue = (v: unknown) => unknown;
let pgPrepareValue: PrepareValue | undefined;
/** node-postgres's parameter conversion, loaded on first use (pg is an optional peer dependency). */
function prepareValue(v: unknown): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  pgPrepareValue ??= (require('pg/lib/utils') as { prepareValue: PrepareValue }).prepareValue;
  return pgPrepareValue(v);
}

/** The COPY text-format NULL marker. */
export const COPY_NULL = '\\N';

const NEEDS_ESCAPE = /[\\\n\r\t]/;
const ESCAPES = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Escapes one text value for COPY's text format (backslash, newline, CR, tab). Other characters, unicode included, pass as is. */
export function escapeCopyText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(ESCAPES, (c) => ESCAPED[c]!) : s;
}

/**
 * One value as a COPY text-format field: null/undefined → `\N`; number, bigint → decimal text (`NaN`, `Infinity`
 * and exponents are accepted by PostgreSQL's float input); boolean → `t`/`f`; string → escaped; Buffer and
 * typed arrays → bytea hex (`\\x..`); Date, arrays, objects (JSON) → node-postgres's own parameter text, escaped.
 */
export function encodeCopyValue(v: unknown): string {
  switch (typeof v) {
    case 'string': return escapeCopyText(v);
    case 'number': return String(v);
    case 'bigint': return v.toString();
    case 'boolean': return v ? 't' : 'f';
    case 'undefined': return COPY_NULL;
    default: break;
  }
  if (v === null) return COPY_NULL;
  if (Buffer.isBuffer(v)) return `\\\\x${v.toString('hex')}`;
  if (ArrayBuffer.isView(v)) return `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  const p = prepareValue(v);
  if (p === null || p === undefined) return COPY_NULL;
  if (Buffer.isBuffer(p)) return `\\\\x${p.toString('hex')}`;
  return escapeCopyText(String(p));
}

