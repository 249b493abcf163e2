/**
 * A record the sink could stage but never commit is refused when it is staged, as the record's fault
 * (issue 19, items 1 and 2): a record timestamp beyond a date's range (Kafka allows any int64 ms), and a
 * field-partitioner value whose directory name is longer than an HDFS path component may be. Before, both
 * failed only at commit (`Invalid time value`, `NaN cannot be converted to a BigInt`, `ENAMETOOLONG`), the
 * whole file set was retried for ever, and the poison policy never applied.
 */
import { HdfsSink } from '../../../src/sinks/hdfs/hdfs-sink';
import type { HdfsSinkConfig } from '../../../src/sinks/hdfs/config';
import { rejectedRecord } from '../../../src/sink-contract';
import { Format } from '../../../src/sinks/hdfs/format';
import type { SinkBatch } from '../../../src/records';
import { committedFiles, rec, useWebHdfsServer } from './helpers';

const fx = useWebHdfsServer();
let n = 0;
const tp = [{ topic: 'p', partition: 0 }];

/** Writes records 0..3 where record 2 is the poison one; expects it refused, then writes the rest and flushes. */
async function refusedThenSkipped(config: Partial<HdfsSinkConfig>, poison: { value?: unknown; timestamp?: bigint; raw?: Buffer }) {
  const sink = new HdfsSink({ url: fx.server.url, topicsDir: `/poison${++n}`, retry: { minTimeoutMs: 5 }, flushSize: 2, ...config });
  try {
    await sink.open('g', tp);
    const records = [0n, 1n, 2n, 3n].map((o) => (o === 2n
      ? { ...rec('p', 0, o, poison.value ?? { k: 'x' }, poison.timestamp), ...(poison.raw ? { value: poison.raw } : {}) }
      : rec('p', 0, o, { k: 'x' })));
    const b: SinkBatch = { topic: 'p', partition: 0, expectedOffset: -1n, nextOffset: 4n, records };
    const error = await sink.write('g', [b]).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({
      code: 'SINK_MAPPING_FAILED', recordAtFault: true, retriable: false, topic: 'p', partition: 0, offset: 2n,
    });
    expect(rejectedRecord(error, records)).toBe(records[2]);
    // Nothing of the refused write was staged or committed (flushSize 2 would have committed 0..1).
    expect(sink.positions().get('p:0')).toEqual({ durable: -1n, staged: null });
    expect(await committedFiles(sink.client, sink.layout.topicsDir, 'p')).toEqual([]);
    // The poison policy's second write (the record left out, the range still covering it) commits.
    await sink.write('g', [{ ...b, records: records.filter((r) => r.offset !== 2n) }]);
    expect((await sink.flush('g', tp)).status).toBe('staged');
    const files = await committedFiles(sink.client, sink.layout.topicsDir, 'p');
    expect(files.map((f) => [f.start, f.end])).toEqual([[0n, 1n], [2n, 3n]]);
    return (error as Error).message;
  } finally {
    await sink.close();
  }
}

const BEYOND = 9_000_000_000_000_000n;
const columns = [{ name: 'k', type: 'string' as const }];

describe('a record timestamp beyond a date\'s range (±8.64e15 ms) is refused at staging wherever the sink makes a date of it', () => {
  test.each([
    ['csv', { format: { type: 'csv' as const, columns } }],
    ['parquet', { format: { type: 'parquet' as const, columns } }],
  ])('%s with includeKafkaCoordinates', async (_name, config) => {
    const message = await refusedThenSkipped({ ...config, includeKafkaCoordinates: true }, { timestamp: BEYOND });
    expect(message).toMatch(/p:0@2: record timestamp 9000000000000000 ms is outside the range/);
  });

  test.each([BEYOND, -BEYOND])('the time partitioner (timestamp %s)', async (timestamp) => {
    await refusedThenSkipped({ partitioner: { type: 'time', pathFormat: 'YYYY/MM', durationMs: 3_600_000 } }, { timestamp });
  });

  test.each([
    ['csv without coordinates (the timestamp is not written)', { format: { type: 'csv' as const, columns } }],
    ['jsonl with coordinates (the int64 is written as is)', { includeKafkaCoordinates: true }],
  ])('%s: such a record is accepted', async (_name, config) => {
    const sink = new HdfsSink({ url: fx.server.url, topicsDir: `/poison${++n}`, ...config });
    await sink.open('g', tp);
    const records = [rec('p', 0, 0n, { k: 'x' }, BEYOND)];
    expect((await sink.write('g', [{ topic: 'p', partition: 0, expectedOffset: -1n, nextOffset: 1n, records }])).status).toBe('staged');
    expect((await sink.flush('g', tp)).status).toBe('staged');
    const [file] = await committedFiles(sink.client, sink.layout.topicsDir, 'p');
    if ('includeKafkaCoordinates' in config) expect((await sink.client.open(file!.path)).toString())
      .toContain('"_timestamp":9000000000000000,');
    await sink.close();
  });
});

describe('a field-partitioner directory longer than an HDFS path component (255 bytes) is refused at staging', () => {
  test('29 three-byte characters (9 bytes each, percent-encoded: k=<value> is 263 bytes)', async () => {
    const message = await refusedThenSkipped({ partitioner: { type: 'field', field: 'k' } }, { value: { k: 'ह'.repeat(29) } });
    expect(message).toMatch(/the directory k=<value> would be \d+ bytes .* 255-byte limit/);
  });

  test('the longest value that fits is written', async () => {
    const sink = new HdfsSink({ url: fx.server.url, topicsDir: `/poison${++n}`, partitioner: { type: 'field', field: 'k' } });
    await sink.open('g', tp);
    const records = [rec('p', 0, 0n, { k: 'a'.repeat(253) })];
    await sink.write('g', [{ topic: 'p', partition: 0, expectedOffset: -1n, nextOffset: 1n, records }]);
    expect((await sink.flush('g', tp)).status).toBe('staged');
    const [file] = await committedFiles(sink.client, sink.layout.topicsDir, 'p');
    expect(file!.path).toContain(`/k=${'a'.repeat(253)}/`);
    await sink.close();
  });
});

test.each(['csv', 'parquet'] as const)('%s with columns from the schemas and coordinates: the same timestamp rule, at staging', (type) => {
  // Schema-shaped files are encoded at commit (format-schema.ts): the date of `_timestamp` is checked when staged.
  const schema = {
    type: 'struct' as const, optional: false, fields: [{ name: 'k', schema: { type: 'string' as const, optional: false } }],
  };
  const r = { ...rec('p', 0, 2n, { k: 'x' }, BEYOND), convertedValue: { schema, value: { k: 'x' } } };
  const format = new Format({ type }, true);
  expect(() => format.toRow(r)).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', offset: 2n, recordAtFault: true }));
  expect(() => format.toRow({ ...r, timestamp: 1n })).not.toThrow();
});

describe('JSON lines (staged into one buffer per file): a value that is not JSON among valid ones stages nothing of its write', () => {
  test.each([
    ['default partitioner', {}],
    ['field partitioner', { partitioner: { type: 'field' as const, field: 'k' } }],
    ['with coordinates', { includeKafkaCoordinates: true }],
  ])('%s', async (_name, config) => {
    // Truncated multi-byte UTF-8 inside an unterminated string, behind a valid prefix of 100 KB.
    const raw = Buffer.concat([Buffer.from(`{"k":"x","big":"${'é'.repeat(50_000)}`), Buffer.from([0xe2, 0x82])]);
    await refusedThenSkipped(config, { raw });
  });
});
