/**
 * The JSON-lines encoder builds each line straight into a Buffer from the value's bytes: its output must be,
 * byte for byte, the line built from strings (the value's text on one line, the coordinates by JSON.stringify).
 */
import { Format } from '../../../src/sinks/hdfs/format';
import type { SinkRecord } from '../../../src/records';

const rec = (topic: string, partition: number, offset: bigint, value: string | null, timestamp: bigint): SinkRecord =>
  ({ topic, partition, offset, key: null, value: value === null ? null : Buffer.from(value), timestamp, headers: {} });

/**
 * The line as the format documents it, built from strings: the value's text trimmed, its line breaks (JSON
 * whitespace between tokens) turned into spaces; never re-serialised.
 */
function expected(r: SinkRecord, coordinates: boolean): string {
  const text = r.value === null ? 'null' : r.value.toString('utf8');
  JSON.parse(text); // the records here are JSON
  const value = text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '').replace(/[\r\n]/g, ' ');
  return coordinates
    ? `{"_topic":${JSON.stringify(r.topic)},"_partition":${r.partition},"_offset":"${r.offset}",`
      + `"_timestamp":${r.timestamp},"value":${value}}\n`
    : `${value}\n`;
}

describe('JSON lines built as Buffers', () => {
  const records = [
    rec('orders', 3, 0n, '{"a":1,"b":[true,null,"x"]}', 1_700_000_000_000n),
    rec('orders', 3, 9_223_372_036_854_775_806n, ' \t{"big":12345678901234567890}\t ', -1n),
    rec('orders', 3, 12n, null, 0n),
    rec('orders', 3, 13n, '{\n  "multi": "line",\r\n  "n": 1\n}', 5n),
    rec('orders', 3, 14n, '"é€😀 \\u00e9"', 7n),
    rec('orders', 3, 15n, '42', 8n),
  ];
  test.each([true, false])('includeKafkaCoordinates %s: byte for byte the line built from strings, across chunks', (coordinates) => {
    const f = new Format({ type: 'jsonl' }, coordinates);
    const rows = records.map((r) => f.toRow(r, () => JSON.parse(r.value!.toString('utf8'))));
    const chunk = f.encodeChunk(rows.slice(0, 2))!;
    const file = f.encode(rows.slice(2), [chunk]);
    expect(file.toString('utf8')).toBe(records.map((r) => expected(r, coordinates)).join(''));
    // Values without surrounding whitespace or line breaks are copied as they are (their own bytes).
    expect(file.includes(Buffer.from('{"a":1,"b":[true,null,"x"]}'))).toBe(true);
    expect(file.includes(Buffer.from('{"big":12345678901234567890}'))).toBe(true); // not rounded through a JS number
  });

  test('offsets and timestamps are written digit for digit as String(bigint) at every length and sign', () => {
    // Each boundary of the integer writer (2^31, 10^8 multiples, 2^53, the int64 range) and its neighbours.
    const edges = [0n, 9n, 10n, 2n ** 31n, 10n ** 8n, 10n ** 16n, 2n ** 53n, 2n ** 63n - 1n];
    const values = edges.flatMap((e) => [e - 1n, e, e + 1n]).filter((v) => v >= -(2n ** 63n) && v < 2n ** 63n);
    const f = new Format({ type: 'jsonl' }, true);
    const records = values.flatMap((v, i) => [rec('t', 0, v < 0n ? -v : v, '1', -v), rec('t', 0, BigInt(i), '2', v)]);
    records.push(rec('t', 0, 1n, '3', -(2n ** 63n)), rec('t', 0, 2n, '4', 1_000_000_000_000_000_000n));
    const file = f.encode(records.map((r) => f.toRow(r)));
    expect(file.toString('utf8')).toBe(records.map((r) => expected(r, true)).join(''));
  });

  test('a topic name with non-ASCII characters and quotes is encoded in the prefix as JSON', () => {
    const f = new Format({ type: 'jsonl' }, true);
    const r = rec('tö"pic', 0, 1n, '{}', 2n);
    expect(f.encode([f.toRow(r, () => ({}))]).toString('utf8')).toBe(expected(r, true));
  });

  test('a value that is not JSON is refused by name (SINK_MAPPING_FAILED with its coordinates)', () => {
    const f = new Format({ type: 'jsonl' }, true);
    const r = rec('orders', 1, 7n, '{"a":1,}', 2n);
    expect(() => f.toRow(r, () => JSON.parse(r.value!.toString())))
      .toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', topic: 'orders', partition: 1, offset: 7n }));
  });
});
