/**
 * A JSON syntax check over UTF-8 bytes that builds nothing: the JSON-lines format copies a record's value
 * text into the file and needs only to know that it is one JSON value, not the value itself.
 *
 * Accepts exactly what `JSON.parse(bytes.toString('utf8'))` accepts (ECMA-404 / RFC 8259 text with JSON
 * whitespace around it): bytes ≥ 0x80 are accepted inside strings only (`toString` turns malformed UTF-8
 * into U+FFFD there, which JSON.parse accepts; outside strings any non-ASCII character is an error for
 * both). Nesting is tracked with a counter stack, so depth is not limited by the call stack.
 */

const WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
const ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrtu') ESCAPE[c.charCodeAt(0)] = 1;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** Whether `b` is the UTF-8 text of exactly one JSON value (surrounding JSON whitespace allowed). */
export function isJsonText(b: Uint8Array): boolean {
  const n = b.length;
  // Open containers: 1 = array, 2 = object. `expectKey`: inside an object, a key (or '}') comes next.
  const stack: number[] = [];
  let i = 0;
  for (;;) {
    // A value is expected here.
    while (i < n && WS[b[i]!]) i++;
    if (i >= n) return false;
    const c = b[i]!;
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      i++;
      while (i < n && WS[b[i]!]) i++;
      if (c === 0x7b) {
        if (b[i] === 0x7d) { i++; } else {
          stack.push(2);
          const k = readKey(b, i);
          if (k < 0) return false;
          i = k;
          continue;
        }
      } else if (b[i] === 0x5d) { i++; } else {
        stack.push(1);
        continue;
      }
    } else if (c === 0x22 /* " */) {
      i = readString(b, i);
      if (i < 0) return false;
    } else if (c === 0x2d || isDigit(c)) {
      i = readNumber(b, i);
      if (i < 0) return false;
    } else if (c === 0x74) { if (!lit(b, i, 'true')) return false; i += 4; } else if (c === 0x66) { if (!lit(b, i, 'false')) return false; i += 5; } else if (c === 0x6e) { if (!lit(b, i, 'null')) return false; i += 4; } else return false;
    // A value ended: a separator, a container's end, or the end of the text.
    for (;;) {
      while (i < n && WS[b[i]!]) i++;
      const top = stack.length === 0 ? 0 : stack[stack.length - 1]!;
      if (top === 0) return i === n;
      if (i >= n) return false;
      const d = b[i]!;
      if (d === 0x2c /* , */) {
        i++;
        if (top === 2) {
          while (i < n && WS[b[i]!]) i++;
          const k = readKey(b, i);
          if (k < 0) return false;
          i = k;
        }
        break;
      }
      if ((top === 1 && d === 0x5d) || (top === 2 && d === 0x7d)) { stack.pop(); i++; continue; }
      return false;
    }
  }
}

/** At a key: reads `"key"` and `:`; returns the index after the colon, or -1. */
function readKey(b: Uint8Array, i: number): number {
  if (b[i] !== 0x22) return -1;
  i = readString(b, i);
  if (i < 0) return -1;
  while (i < b.length && WS[b[i]!]) i++;
  return b[i] === 0x3a ? i + 1 : -1;
}

/** At an opening quote: returns the index after the closing quote, or -1. */
function readString(b: Uint8Array, i: number): number {
  const n = b.length;
  for (i++; i < n; i++) {
    const c = b[i]!;
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -1;
    if (c === 0x5c) {
      const e = b[++i];
      if (e === undefined || !ESCAPE[e]) return -1;
      if (e === 0x75) {
        if (i + 4 >= n || !HEX[b[i + 1]!] || !HEX[b[i + 2]!] || !HEX[b[i + 3]!] || !HEX[b[i + 4]!]) return -1;
        i += 4;
      }
    }
  }
  return -1;
}

/** At '-' or a digit: returns the index after the number, or -1. */
function readNumber(b: Uint8Array, i: number): number {
  const n = b.length;
  if (b[i] === 0x2d) i++;
  if (i >= n) return -1;
  if (b[i] === 0x30) i++;
  else if (isDigit(b[i]!)) { while (i < n && isDigit(b[i]!)) i++; } else return -1;
  if (b[i] === 0x2e) {
    i++;
    if (!isDigit(b[i] ?? 0)) return -1;
    while (i < n && isDigit(b[i]!)) i++;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === 0x2b || b[i] === 0x2d) i++;
    if (!isDigit(b[i] ?? 0)) return -1;
    while (i < n && isDigit(b[i]!)) i++;
  }
  return i;
}

function lit(b: Uint8Array, i: number, word: string): boolean {
  if (i + word.length > b.length) return false;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return false;
  return true;
}
