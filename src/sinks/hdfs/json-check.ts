/**
 * A JSON syntax check over UTF-8 bytes that builds nothing: the JSON-lines format copies a record's value
 * bytes into the file and needs only to know that they are one JSON value, not the value itself.
 *
 * Accepts exactly what `JSON.parse(bytes.toString('utf8'))` accepts (ECMA-404 / RFC 8259 text with JSON
 * whitespace around it): bytes ≥ 0x80 are accepted inside strings only (`toString` turns malformed UTF-8
 * into U+FFFD there, which JSON.parse accepts; outside strings any non-ASCII character is an error for
 * both). Nesting is tracked on a reused byte stack, so depth is not limited by the call stack. The hot
 * loops (strings, digits, whitespace) are one table lookup per byte: this runs once per record.
 */

/** What {@link jsonTextShape} found: not JSON, one JSON value without a line break, or one with a CR/LF (as whitespace). */
export const JsonShape = { Invalid: 0, OneLine: 1, MultiLine: 2 } as const;
/** One of the {@link JsonShape} values. */
export type JsonShape = (typeof JsonShape)[keyof typeof JsonShape];

// Byte classes. WS: JSON whitespace (2 for CR and LF). STR: inside a string, 1 = ends the plain run (" \ or a control byte).
const WS = new Uint8Array(256);
WS[0x20] = 1; WS[0x09] = 1; WS[0x0a] = 2; WS[0x0d] = 2;
const STR = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STR[c] = 1;
STR[0x22] = 1; STR[0x5c] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
const ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrtu') ESCAPE[c.charCodeAt(0)] = 1;
const DIGIT = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) DIGIT[c] = 1;

/** Open containers (1 = array, 2 = object), reused across calls; grows with the deepest value seen. */
let stack = new Uint8Array(64);
/** Bit 2 set when the whitespace seen by the current check held a CR or LF. */
let lineBreak = 0;

/** Whether `b` is the UTF-8 text of exactly one JSON value (surrounding JSON whitespace allowed). */
export function isJsonText(b: Uint8Array): boolean {
  return jsonTextShape(b) !== JsonShape.Invalid;
}

/**
 * The shape of `b[start, end)` as JSON text (see {@link JsonShape}): Invalid when JSON.parse would refuse
 * it; MultiLine when it is valid and holds a CR or LF (necessarily whitespace between tokens: a raw
 * control byte inside a string is invalid), so it cannot be copied into a JSON line as it is.
 */
export function jsonTextShape(b: Uint8Array, start = 0, end = b.length): JsonShape {
  lineBreak = 0;
  let depth = 0;
  let i = start;
  for (;;) {
    // A value is expected here.
    while (i < end && WS[b[i]!]) lineBreak |= WS[b[i++]!]!;
    if (i >= end) return JsonShape.Invalid;
    const c = b[i]!;
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      i++;
      while (i < end && WS[b[i]!]) lineBreak |= WS[b[i++]!]!;
      if (c === 0x7b) {
        if (b[i] === 0x7d) { i++; } else {
          push(depth++, 2);
          i = readKey(b, i, end);
          if (i < 0) return JsonShape.Invalid;
          continue;
        }
      } else if (b[i] === 0x5d) { i++; } else {
        push(depth++, 1);
        continue;
      }
    } else if (c === 0x22 /* " */) {
      i = readString(b, i, end);
      if (i < 0) return JsonShape.Invalid;
    } else if (c === 0x2d || DIGIT[c]) {
      i = readNumber(b, i, end);
      if (i < 0) return JsonShape.Invalid;
    } else if (c === 0x74) { if (!lit(b, i, end, 'true')) return JsonShape.Invalid; i += 4; } else if (c === 0x66) {
      if (!lit(b, i, end, 'false')) return JsonShape.Invalid;
      i += 5;
    } else if (c === 0x6e) { if (!lit(b, i, end, 'null')) return JsonShape.Invalid; i += 4; } else return JsonShape.Invalid;
    // A value ended: a separator, a container's end, or the end of the text.
    for (;;) {
      while (i < end && WS[b[i]!]) lineBreak |= WS[b[i++]!]!;
      if (depth === 0) return i === end ? (lineBreak & 2 ? JsonShape.MultiLine : JsonShape.OneLine) : JsonShape.Invalid;
      if (i >= end) return JsonShape.Invalid;
      const top = stack[depth - 1]!;
      const d = b[i]!;
      if (d === 0x2c /* , */) {
        i++;
        if (top === 2) {
          while (i < end && WS[b[i]!]) lineBreak |= WS[b[i++]!]!;
          i = readKey(b, i, end);
          if (i < 0) return JsonShape.Invalid;
        }
        break;
      }
      if ((top === 1 && d === 0x5d) || (top === 2 && d === 0x7d)) { depth--; i++; continue; }
      return JsonShape.Invalid;
    }
  }
}

function push(at: number, kind: number): void {
  if (at === stack.length) { const s = new Uint8Array(stack.length * 2); s.set(stack); stack = s; }
  stack[at] = kind;
}

/** At a key: reads `"key"` and `:`; returns the index after the colon, or -1. */
function readKey(b: Uint8Array, i: number, end: number): number {
  if (i >= end || b[i] !== 0x22) return -1;
  i = readString(b, i, end);
  if (i < 0) return -1;
  while (i < end && WS[b[i]!]) lineBreak |= WS[b[i++]!]!;
  return i < end && b[i] === 0x3a ? i + 1 : -1;
}

/** At an opening quote: returns the index after the closing quote, or -1. */
function readString(b: Uint8Array, i: number, end: number): number {
  for (i++; ; i++) {
    while (i < end && !STR[b[i]!]) i++;
    if (i >= end) return -1;
    const c = b[i]!;
    if (c === 0x22) return i + 1;
    if (c !== 0x5c) return -1; // a control byte
    const e = ++i < end ? b[i]! : 0;
    if (!ESCAPE[e]) return -1;
    if (e === 0x75) {
      if (i + 4 >= end || !HEX[b[i + 1]!] || !HEX[b[i + 2]!] || !HEX[b[i + 3]!] || !HEX[b[i + 4]!]) return -1;
      i += 4;
    }
  }
}

/** At '-' or a digit: returns the index after the number, or -1. */
function readNumber(b: Uint8Array, i: number, end: number): number {
  if (b[i] === 0x2d) i++;
  if (i >= end) return -1;
  if (b[i] === 0x30) i++;
  else if (DIGIT[b[i]!]) { while (i < end && DIGIT[b[i]!]) i++; } else return -1;
  if (i < end && b[i] === 0x2e) {
    i++;
    if (i >= end || !DIGIT[b[i]!]) return -1;
    while (i < end && DIGIT[b[i]!]) i++;
  }
  if (i < end && (b[i] === 0x65 || b[i] === 0x45)) {
    i++;
    if (i < end && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    if (i >= end || !DIGIT[b[i]!]) return -1;
    while (i < end && DIGIT[b[i]!]) i++;
  }
  return i;
}

function lit(b: Uint8Array, i: number, end: number, word: string): boolean {
  if (i + word.length > end) return false;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return false;
  return true;
}
