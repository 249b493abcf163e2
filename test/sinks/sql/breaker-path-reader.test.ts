/**
 * Breaker tests (issue 25): column reads compiled per mapping path with `new Function` must read exactly what the
 * closure fallback reads (the one used where code generation from strings is disallowed), for hostile keys.
 */
import { pathReader } from '../../../src/sinks/sql/mapping';

const KEYS = ['__proto__', 'constructor', 'a"b', 'a\nb', '\u2028', '\u2029', '}); process.exit(1); ({', "'); throw 1; ('",
  '0', '1e3', '-1', '', '\ud800', 'toString', 'hasOwnProperty', '\\', '${x}', 'x'.repeat(10000)];

function withoutCodeGeneration<T>(fn: () => T): T {
  const saved = globalThis.Function;
  const blocked = function blocked(): never { throw new EvalError('Code generation from strings disallowed'); };
  (globalThis as { Function: unknown }).Function = blocked;
  try { return fn(); } finally { (globalThis as { Function: unknown }).Function = saved; }
}

describe('pathReader: compiled and fallback reads agree', () => {
  test('the fallback is used when code generation is refused', () => {
    const r = withoutCodeGeneration(() => pathReader(['a', 'b']));
    expect(r(undefined as never, { a: { b: 5 } })).toBe(5);
    expect(r.toString()).not.toContain('c = c[');
  });

  test.each(KEYS.map((k, i) => [i, k]))('key #%i, alone and nested, on objects that have it, lack it, and on non-objects', (_i, key) => {
    const paths = [[key], [key, 'd'], ['p', key], [key, key]];
    const values: unknown[] = [
      JSON.parse(`{${JSON.stringify(key)}: {"d": 7, ${JSON.stringify(key === 'd' ? 'e' : key)}: 8}, "p": {${JSON.stringify(key)}: [1]}}`),
      {}, [], null, 3, 'str', { p: null }, { p: 'abc' }, [[1, 2]],
    ];
    for (const path of paths) {
      const compiled = pathReader(path);
      const fallback = withoutCodeGeneration(() => pathReader(path));
      for (const v of values) expect(compiled(undefined as never, v)).toBe(fallback(undefined as never, v));
    }
  });
});
