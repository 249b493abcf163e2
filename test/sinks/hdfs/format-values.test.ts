/**
 * Unusual values against the HDFS sink's formats: valid JSON that a re-serialisation would change, bytes a
 * byte-level check could let through, and integers a JS number cannot hold. Each line written must parse
 * (as UTF-8) to what JSON.parse of the record's value gives, and a value that cannot be written is refused
 * at staging with SINK_MAPPING_FAILED, never as an untyped error when the file is encoded.
 */
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { Format, type HdfsFormatConfig } from '../../../src/sinks/hdfs/format';
import { JsonShape, jsonTextShape } from '../../../src/sinks/hdfs/json-check';
import type { SinkRecord } from '../../../src/records';

const rec = (value: Buffer | string | null, offset = 1n): SinkRecord =>
  ({ topic: 't', partition: 0, offset, key: null, value: typeof value === 'string' ? Buffer.from(value) : value, timestamp: 5n,
    headers: {} });
const line = (f: Format, r: SinkRecord) => f.encode([f.toRow(r)]);
const parses = (b: Uint8Array) => { try { JSON.parse(Buffer.from(b).toString('utf8')); return true; } catch { return false; } };

describe('JSON lines keep the value, not a re-serialisation of it', () => {
  test.each([
    ['{\n  "inf": 1e400,\n  "n": -1e400\n}', '{   "inf": 1e400,   "n": -1e400 }'],
    ['[\r\n12345678901234567890,\r\n-0, 1.000000000000000000001]', '[  12345678901234567890,  -0, 1.000000000000000000001]'],
    ['{"a": 1,\n"a": 2}', '{"a": 1, "a": 2}'],
    ['\n\t "multi\\nline \\u2028 \\ud800"\r\n', '"multi\\nline \\u2028 \\ud800"'],
  ])('multi-line value %j is written as %j (line breaks become spaces)', (value, written) => {
    const out = line(new Format({ type: 'jsonl' }, false), rec(value));
    expect(out.toString('utf8')).toBe(`${written}\n`);
  });

  test('the record\'s own bytes are not modified when a multi-line value is put on one line', () => {
    const r = rec('[1,\n2]');
    line(new Format({ type: 'jsonl' }, true), r);
    expect(r.value!.toString()).toBe('[1,\n2]');
  });
});

describe('JSON lines files stay UTF-8 (RFC 8259 §8.1)', () => {
  test.each([
    [[0x22, 0xff, 0x22]], [[0x22, 0xc3, 0x22]], [[0x22, 0xed, 0xa0, 0x80, 0x22]], [[0x22, 0xc0, 0xaf, 0x22]],
    [[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x0a, 0x22, 0xf4, 0x90, 0x80, 0x80, 0x22, 0x7d]],
  ])('malformed UTF-8 inside a string (%j) is written as JSON.parse of its text sees it (U+FFFD)', (bytes) => {
    const v = Buffer.from(bytes);
    const out = line(new Format({ type: 'jsonl' }, true), rec(v));
    expect(isUtf8(out)).toBe(true);
    expect(JSON.parse(out.toString('utf8')).value).toEqual(JSON.parse(v.toString('utf8')));
  });
});

describe('values that are not JSON are refused, whatever slips past a byte scan', () => {
  const notJson = ['[1', '"abc', '[1,]', '{"a":1,}', '1 2', '{"a":1}{"b":2}', 'tru', '01', '-',
    '\ufeff{}', '\u00001', '1\u0000', '"a\u0000"', ''];
  test.each(notJson)(
    '%j: SINK_MAPPING_FAILED with its coordinates', (value) => {
      expect(() => new Format({ type: 'jsonl' }, false).toRow(rec(value, 9n)))
        .toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', topic: 't', partition: 0, offset: 9n }));
    });

  test('a tombstone (null value) is the JSON line null', () => {
    expect(line(new Format({ type: 'jsonl' }, false), rec(null)).toString()).toBe('null\n');
  });
});

describe('int64 columns hold only exact signed 64-bit integers (CSV and Parquet)', () => {
  const formats: HdfsFormatConfig[] = [
    { type: 'csv', columns: [{ name: 'n', type: 'int64' }] }, { type: 'parquet', columns: [{ name: 'n', type: 'int64' }] },
  ];
  test.each(formats.flatMap((c) => [
    [c.type, '{"n":12345678901234567890}'], [c.type, '{"n":9007199254740993}'], [c.type, '{"n":"9223372036854775808"}'],
    [c.type, '{"n":"-9223372036854775809"}'], [c.type, '{"n":1e400}'], [c.type, '{"n":1.5}'],
  ].map(([t, v]) => [t, v, c] as const)))('%s refuses %s at staging (SINK_MAPPING_FAILED naming the column)', (_t, value, config) => {
    expect(() => new Format(config, false).toRow(rec(value)))
      .toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column: 'n' }));
  });

  test.each(formats)('$type writes the int64 extremes given as strings, and -0 as 0', (config) => {
    const f = new Format(config, false);
    const values = ['{"n":"9223372036854775807"}', '{"n":"-9223372036854775808"}', '{"n":-0}', '{"n":9007199254740991}'];
    const rows = values.map((v) => f.toRow(rec(v)));
    expect(rows.map((r) => (r as Record<string, unknown>).n)).toEqual([2n ** 63n - 1n, -(2n ** 63n), 0n, 9007199254740991n]);
    expect(f.encode(rows).length).toBeGreaterThan(0);
    if (config.type === 'csv') {
      expect(f.encode(rows).toString()).toBe('n\r\n9223372036854775807\r\n-9223372036854775808\r\n0\r\n9007199254740991\r\n');
    }
  });
});

describe('property: the byte check and the JSON-lines row agree with JSON.parse', () => {
  // JSON texts with arbitrary whitespace (CR/LF included) between tokens, then mutated bytes.
  const ws = fc.stringMatching(/^[ \t\r\n]{0,2}$/);
  const json = fc.letrec<{ v: string }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom('0', '-0', '1e400', '-1E-400', '12345678901234567890', '0.5', 'true', 'false', 'null'),
      fc.double().filter(Number.isFinite).map(String),
      fc.string({ unit: 'binary' }).map((s) => JSON.stringify(s)),
      fc.constantFrom('"\\ud800"', '"\\u2028"', '"\u2028"', '"\\u0000"', '"é😀"'),
      fc.array(fc.tuple(ws, tie('v'), ws), { maxLength: 4 }).map((a) => `[${a.map(([x, v, y]) => x + v + y).join(',')}]`),
      fc.array(fc.tuple(fc.string().map((k) => JSON.stringify(k)), ws, tie('v')), { maxLength: 4 })
        .map((a) => `{${a.map(([k, x, v]) => `${k}${x}:${v}`).join(',')}}`),
    ),
  })).v;
  const text = fc.tuple(ws, json, ws).map(([a, v, b]) => Buffer.from(a + v + b));
  const mutated = fc.tuple(text, fc.array(fc.tuple(fc.nat(), fc.integer({ min: -1, max: 255 })), { maxLength: 3 })).map(([b, edits]) => {
    const out = [...b];
    for (const [at, byte] of edits) {
      if (out.length === 0) out.push(Math.max(byte, 0));
      else if (byte < 0) out.splice(at % out.length, 1);
      else out[at % out.length] = byte;
    }
    return Buffer.from(out);
  });

  test('jsonTextShape is Invalid exactly when JSON.parse throws, MultiLine exactly when valid text holds CR or LF', () => {
    fc.assert(fc.property(fc.oneof(text, mutated, fc.uint8Array({ maxLength: 12 }).map((u) => Buffer.from(u))), (b) => {
      const shape = jsonTextShape(b);
      expect(shape !== JsonShape.Invalid).toBe(parses(b));
      if (shape !== JsonShape.Invalid) expect(shape === JsonShape.MultiLine).toBe(b.includes(0x0a) || b.includes(0x0d));
    }), { numRuns: 8_000, seed: 20261201 });
  });

  test('jsonTextShape of a byte range judges only that range', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 6 }), mutated, fc.uint8Array({ maxLength: 6 }), (pre, b, post) => {
      const all = Buffer.concat([pre, b, post]);
      expect(jsonTextShape(all, pre.length, pre.length + b.length)).toBe(jsonTextShape(b));
    }), { numRuns: 2_000, seed: 7 });
  });

  test('every JSON-lines row is one UTF-8 line that JSON.parse reads as the record\'s value', () => {
    const f = new Format({ type: 'jsonl' }, true);
    fc.assert(fc.property(fc.oneof(text, mutated), (b) => {
      if (!parses(b)) return;
      const out = line(f, rec(b));
      expect(isUtf8(out)).toBe(true);
      expect(out.indexOf(0x0a)).toBe(out.length - 1);
      expect(out.includes(0x0d)).toBe(false);
      expect(JSON.parse(out.toString('utf8')).value).toEqual(JSON.parse(b.toString('utf8')));
    }), { numRuns: 4_000, seed: 42 });
  });
});
