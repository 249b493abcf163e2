/**
 * The consumer's fetch decoder (readRecordsWith, the one- and two-byte varint paths) against kcat (librdkafka) on
 * the same stored batches: kcat produces records whose key and value lengths sit on varint width boundaries
 * (63/64, 8191/8192 bytes), null and empty keys and values, with headers (an empty header value among them), in
 * every codec; decodeFetchedRecords and `kcat -C -J` must read the same keys, values, headers and timestamps. A
 * response cut anywhere inside its last batch yields the batches before it, with no error.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { Compression } from '../../../src/protocol/record-batch';
import '../../../src/protocol/compression';
import { decodeFetchedRecords } from '../../../src/consumer/fetch/decode';
import { run } from './helpers';

jest.setTimeout(180000);

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1 }); });
afterAll(async () => { await cluster.stop(); });

const common = () => ['-b', cluster.bootstrap.join(','), '-X', 'broker.address.family=v4', '-X', 'socket.timeout.ms=30000'];
const SIZES = [0, 1, 63, 64, 65, 127, 128, 8191, 8192, 8193, 20000];

interface KcatMessage { offset: number; ts: number; key: string | null; payload: string | null; headers?: (string | null)[] }

describe.each([
  ['none', Compression.None], ['gzip', Compression.Gzip], ['snappy', Compression.Snappy], ['lz4', Compression.Lz4],
  ['zstd', Compression.Zstd],
] as const)('kcat -z %s', (codec, id) => {
  test('decodeFetchedRecords reads what kcat -C -J reads: keys, values, headers, timestamps', async () => {
    const topic = `decode-${codec}`;
    cluster.createTopic(topic, 1);
    const lines: string[] = [];
    for (const k of SIZES) for (const v of SIZES) lines.push(`${'k'.repeat(k)}\t${String.fromCharCode(97 + (v % 26)).repeat(v)}`);
    // -Z: an empty key or value is sent as null.
    const produce = await run('kcat', [...common(), '-P', '-t', topic, '-p', '0', '-K', '\t', '-Z', '-z', codec,
      '-H', 'h1=v1', '-H', 'empty=', '-H', 'h1=again', '-X', 'linger.ms=1000'], { input: `${lines.join('\n')}\n`, timeoutMs: 90000 });
    expect(produce.code).toBe(0);
    const batches = cluster.inspect.batches(topic, 0);
    expect(batches.length).toBeGreaterThan(0);
    if (codec !== 'none') expect(batches.some((b) => (b.bytes.readInt16BE(21) & 7) === id)).toBe(true);
    const blob = Buffer.concat(batches.map((b) => b.bytes));
    const ours = decodeFetchedRecords({ topic, partition: 0 }, 0n, blob, null);
    expect(ours.nextOffset).toBe(BigInt(lines.length));
    // A fetch response cut inside its last batch (the size limit): that batch is left for the next fetch, no error.
    const lastBatch = batches.at(-1)!;
    const whole = blob.length - lastBatch.bytes.length;
    const before = decodeFetchedRecords({ topic, partition: 0 }, 0n, blob.subarray(0, whole), null);
    for (const keep of [1, 11, 12, 16, 17, 61, lastBatch.bytes.length - 1]) {
      const cut = decodeFetchedRecords({ topic, partition: 0 }, 0n, blob.subarray(0, whole + keep), null);
      expect(cut.nextOffset).toBe(before.nextOffset);
      expect(cut.records).toHaveLength(before.records.length);
    }
    const consume = await run('kcat', [...common(), '-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q', '-J'],
      { timeoutMs: 90000 });
    expect(consume.code).toBe(0);
    const theirs = consume.stdout.trim().split('\n').map((l) => JSON.parse(l) as KcatMessage);
    expect(theirs).toHaveLength(lines.length);
    expect(ours.records.map((r) => ({
      offset: Number(r.offset), ts: Number(r.timestamp), key: r.key === null ? null : r.key.toString(),
      payload: r.value === null ? null : r.value.toString(), headers: r.headers,
    }))).toEqual(theirs.map((m) => {
      const h: Record<string, unknown> = {};
      const list = m.headers ?? [];
      for (let i = 0; i < list.length; i += 2) {
        const value = list[i + 1] === null ? null : Buffer.from(list[i + 1]!);
        const had = h[list[i]!];
        h[list[i]!] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
      }
      return { offset: m.offset, ts: m.ts, key: m.key, payload: m.payload, headers: h };
    }));
  });
});
