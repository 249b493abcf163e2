/**
 * Text from the cluster (client ids, member ids, hosts: any string a client chose, Kafka checks none
 * of them) made safe for a terminal or a log line: C0 and C1 control characters, DEL and the Unicode
 * line and paragraph separators are written as escapes (`\x1b`, `\n`, `\u2028`), so a hostile client
 * id can neither move the cursor, retitle or clear the operator's terminal, nor forge a log line.
 */

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `s` with every control character escaped (see the module comment); other characters unchanged. */
export function printable(s: string): string {
  return s.replace(UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * `s` for a terminal line `width` columns wide: itself when it fits, else its first `width − 1` code
 * points (never half a surrogate pair; one column left free, as a line filling the last column wraps
 * on some terminals). Counts one column per code point (wide CJK characters and emoji take two).
 */
export function cutToWidth(s: string, width: number): string {
  const points = Array.from(s);
  return points.length > width ? points.slice(0, Math.max(0, width - 1)).join('') : s;
}
