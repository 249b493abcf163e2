/**
 * kcat (librdkafka 2.0.2) against the mock: produce with every codec, consume a partition, and
 * consume in a group with -G (balanced consumer: JoinGroup/SyncGroup/OffsetCommit v7/
 * OffsetFetch v7 as librdkafka negotiates them).
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { Compression, decodeBatch, encodeBatch } from '../../../src/protocol/record-batch';
import '../../../src/protocol/compression';
import { createRegistry } from '../../../src/testing/mock-broker/handlers';
import { run } from './helpers';
import { until } from '../../helpers/until';

/**
 * librdkafka 2.0.2 compresses gzip, snappy and lz4 only when the broker's Produce range includes
 * v0 (its compr_req table; zstd needs v7). Apache Kafka 3.x advertises Produce v0+, Kafka 4.0
 * (KIP-896) v3+, where librdkafka 2.0.2 silently sends these uncompressed.
 */
test('Produce is advertised from v0, so librdkafka enables every codec', () => {
  expect(createRegistry().get(0)!.minVersion).toBe(0);
});

jest.setTimeout(180000);

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0 } }); });
afterAll(async () => { await cluster.stop(); });

const common = () => ['-b', cluster.bootstrap.join(','), '-X', 'broker.address.family=v4', '-X', 'socket.timeout.ms=30000'];

describe.each([
  ['none', Compression.None], ['gzip', Compression.Gzip], ['snappy', Compression.Snappy], ['lz4', Compression.Lz4],
  ['zstd', Compression.Zstd],
] as const)('kcat -z %s', (codec, id) => {
  test('produces batches stored with that codec, and consumes them back', async () => {
    const topic = `kcat-${codec}`;
    cluster.createTopic(topic, 1);
    const lines = Array.from({ length: 50 }, (_, i) => `k${i}:${codec}-value-${i}-${'x'.repeat(i)}`);
    const produce = await run('kcat', [...common(), '-P', '-t', topic, '-p', '0', '-K', ':', '-z', codec, '-X', 'linger.ms=2000'],
      { input: `${lines.join('\n')}\n`, timeoutMs: 90000 });
    expect(produce.code).toBe(0);
    // librdkafka sends a batch uncompressed when compressing does not shrink it (a one-record batch under load, with a
    // short linger): a linger that holds all 50 lines keeps them in batches that compress.
    const batches = cluster.inspect.batches(topic, 0);
    expect(cluster.partitions(topic)[0].highWatermark).toBe(50);
    for (const b of batches) expect(b.bytes.readInt16BE(21) & 7).toBe(id);
    const stored = batches.flatMap((b) => decodeBatch(b.bytes).records.map((r) => `${r.key}:${r.value}`));
    expect(stored).toEqual(lines);

    const consume = await run('kcat', [...common(), '-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q', '-f', '%k:%s:%o\\n'],
      { timeoutMs: 90000 });
    expect(consume.code).toBe(0);
    expect(consume.stdout.trim().split('\n')).toEqual(lines.map((l, i) => `${l}:${i}`));
  });
});

test.each([
  ['gzip', Compression.Gzip], ['snappy', Compression.Snappy], ['lz4', Compression.Lz4], ['zstd', Compression.Zstd],
] as const)('kcat reads %s batches compressed by our codecs (what the KafkaJS adapters write)', async (codec, id) => {
  const topic = `kcat-read-${codec}`;
  cluster.createTopic(topic, 1);
  const values = Array.from({ length: 30 }, (_, i) => `${codec}-${i}-${'y'.repeat(i * 3)}`);
  const bytes = encodeBatch({ compression: id, records: values.map((value, i) => ({ key: `k${i}`, value })) });
  cluster.appendBatches(topic, 0, bytes);
  expect(cluster.inspect.batches(topic, 0)[0].bytes.readInt16BE(21) & 7).toBe(id);
  const consume =
    await run('kcat', [...common(), '-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q', '-f', '%k=%s\\n'], { timeoutMs: 90000 });
  expect(consume.code).toBe(0);
  expect(consume.stdout.trim().split('\n')).toEqual(values.map((v, i) => `k${i}=${v}`));
});

test('kcat -G consumes every partition in a group and commits offsets', async () => {
  const topic = 'kcat-group';
  cluster.createTopic(topic, 3);
  for (let p = 0; p < 3; p++) cluster.append(topic, p, Array.from({ length: 4 }, (_, i) => ({ value: `p${p}-m${i}` })));
  const res = await run('kcat', [
    ...common(), '-G', 'kcat-grp', topic, '-o', 'beginning', '-e', '-q', '-f', '%s\\n',
    '-X', 'enable.partition.eof=true', '-X', 'session.timeout.ms=10000', '-X', 'auto.commit.interval.ms=100',
  ], { timeoutMs: 120000 });
  expect(res.code).toBe(0);
  const got = res.stdout.trim().split('\n').sort();
  expect(got).toEqual([0, 1, 2].flatMap((p) => [0, 1, 2, 3].map((i) => `p${p}-m${i}`)).sort());
  // The group ran the classic protocol with librdkafka's range/roundrobin assignors and is now empty.
  const events = cluster.events.entries({ type: 'group.generation', groupId: 'kcat-grp' });
  expect(events.length).toBeGreaterThan(0);
  expect(['range', 'roundrobin']).toContain(events[0].data.protocolName);
  await until(() => cluster.groups.group('kcat-grp')?.state === 'Empty', 'the group to be empty', 60000);
  const committed = cluster.groups.group('kcat-grp')!.offsets.map((o) => [o.partition, o.committedOffset]).sort();
  expect(committed).toEqual([[0, 4n], [1, 4n], [2, 4n]]);
});
