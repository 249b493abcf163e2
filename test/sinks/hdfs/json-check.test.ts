import { isJsonText, JsonShape, jsonTextShape } from '../../../src/sinks/hdfs/json-check';

const parses = (b: Buffer) => { try { JSON.parse(b.toString('utf8')); return true; } catch { return false; } };

/** Seeded PRNG (mulberry32), so a failure is reproducible. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('isJsonText (the JSON-lines syntax check) accepts exactly what JSON.parse accepts', () => {
  test.each([
    '0', '-0', '1.5e+10', '-12.0E-3', 'true', 'false', 'null', '""', '"a\\u00e9\\n\\"\\\\\\/"', ' [ ] ', '{}', '[1,[2,{"a":[]}]]',
    '{"a":1,"b":{"c":null}}', '\t\r\n 7 \n', '"\\ud800"', '"é€😀"', '[[[[[[[[[[]]]]]]]]]]',
  ])('valid %j', (s) => {
    expect(isJsonText(Buffer.from(s))).toBe(true);
    expect(parses(Buffer.from(s))).toBe(true);
  });

  test.each([
    '', ' ', '01', '-', '1.', '.5', '1e', '1e+', '+1', 'tru', 'truex', 'nul', 'NaN', 'Infinity', '[1,]', '{"a":1,}', '{"a"}', '{a:1}',
    '[1 2]', '1 2', '"abc', '"\\x"', '"\\u12"', '"\\u12g4"', '"a\tb"', '\ufeff1', '[', ']', '{"a":1', "'a'", '[1]]', '{"a":1}}',
    '\u00a01', '{,}',
  ])('invalid %j', (s) => {
    expect(isJsonText(Buffer.from(s))).toBe(false);
    expect(parses(Buffer.from(s))).toBe(false);
  });

  test('malformed UTF-8 inside a string is accepted (toString makes it U+FFFD), outside a string refused, as JSON.parse does', () => {
    for (const b of [
      Buffer.from([0x22, 0xff, 0x22]), Buffer.from([0x22, 0xc3, 0x22]), Buffer.from([0xff]), Buffer.from([0x5b, 0xc3, 0xa9, 0x5d]),
    ]) {
      expect(isJsonText(b)).toBe(parses(b));
    }
  });

  test('agrees with JSON.parse on 30,000 seeded random mutations of JSON texts', () => {
    const rand = rng(20261201);
    const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)]!;
    const value = (depth: number): unknown => {
      const k = Math.floor(rand() * (depth > 3 ? 4 : 6));
      if (k === 0) return pick([0, -1, 1.5, 1e21, -2.5e-7, 123456789]);
      if (k === 1) return pick(['', 'a', 'é', '"q"', '\\', '\n\t', '\u0001', '😀', '\ud800']);
      if (k === 2) return pick([true, false]);
      if (k === 3) return null;
      if (k === 4) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(rand() * 4) }, (_, i) => [pick(['a', 'b', `k${i}`, '']), value(depth + 1)]));
    };
    const alphabet = [...'{}[]",:\\ \t\n-+.0123456789eEtrufalsn/bu'].map((c) => c.charCodeAt(0)).concat([0x00, 0x1f, 0x7f, 0xc3, 0xff]);
    let valid = 0;
    for (let n = 0; n < 30000; n++) {
      const bytes = [...Buffer.from(JSON.stringify(value(0), null, rand() < 0.2 ? 1 : undefined))];
      const edits = Math.floor(rand() * 3);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(rand() * (bytes.length + 1));
        const op = rand();
        if (op < 0.34) bytes.splice(at, 0, pick(alphabet));
        else if (op < 0.67) bytes.splice(at, 1);
        else bytes.splice(at, 1, pick(alphabet));
      }
      const b = Buffer.from(bytes);
      const ok = parses(b);
      if (ok) valid++;
      if (isJsonText(b) !== ok) throw new Error(
        `disagreement on ${JSON.stringify(b.toString('latin1'))}: JSON.parse ${ok ? 'accepts' : 'refuses'}`);
      // The shape also says whether the valid text holds a line break (which a JSON line cannot copy as is).
      const shape = jsonTextShape(b);
      const breaks = b.includes(0x0a) || b.includes(0x0d);
      if (ok && shape !== (breaks ? JsonShape.MultiLine : JsonShape.OneLine)) {
        throw new Error(`wrong shape ${shape} for ${JSON.stringify(b.toString('latin1'))}`);
      }
    }
    // Both outcomes must be exercised for the agreement to mean anything.
    expect(valid).toBeGreaterThan(5000);
    expect(valid).toBeLessThan(28000);
  });

  test('jsonTextShape checks a range of a larger buffer, and reports line breaks wherever the whitespace holds them', () => {
    const b = Buffer.from('xx{"a" \n: [1,\r2]}yy');
    expect(jsonTextShape(b, 2, b.length - 2)).toBe(JsonShape.MultiLine);
    expect(jsonTextShape(b, 2, b.length - 1)).toBe(JsonShape.Invalid);
    expect(jsonTextShape(Buffer.from('{"a"\n:1}'))).toBe(JsonShape.MultiLine);
    expect(jsonTextShape(Buffer.from('{"a\\n":1}'))).toBe(JsonShape.OneLine);
    expect(jsonTextShape(Buffer.from(' 1 '))).toBe(JsonShape.OneLine);
  });

  test('nesting deeper than the reused stack starts with (64) is tracked, not refused', () => {
    const deep = Buffer.from(`${'['.repeat(1000)}${']'.repeat(1000)}`);
    expect(isJsonText(deep)).toBe(true);
    expect(isJsonText(Buffer.from(`${'['.repeat(1000)}${']'.repeat(999)}`))).toBe(false);
    expect(isJsonText(Buffer.from('[]'))).toBe(true);
  });
});
