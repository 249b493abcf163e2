/**
 * `kafka-eos offsets describe|reset --hdfs`: the HDFS sink's positions (its committed files and
 * claims, read by the sink's own recovery code) against the mock cluster and the in-process WebHDFS
 * server. Describe shows them as the source of truth; a reset is a dry run by default, refuses
 * while the group has members, rewinds whole files (a target inside a file lands on its first
 * offset) by moving the newest claims aside, skips forward with an empty claim; and a replay leaves
 * the committed files covering each offset exactly once. (The compiled CLI is used.)
 */
import type { GroupConsumer } from '../../../src/consumer/group-consumer';
import { MockCluster } from '../../../src/testing/mock-broker';
import { HdfsSink } from '../../../src/sinks/hdfs/hdfs-sink';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { consumerOn, kafkaOf, produce, stopAll, until, useConsumerCluster } from '../../consumer/helpers';
import { committedFiles, committedOffsets, range } from '../../sinks/hdfs/helpers';
import { runCli } from './helpers';

jest.setTimeout(90000);

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-offsets-hdfs-');
let hdfs: WebHdfsServer;
let client: WebHdfsClient;
beforeAll(async () => {
  hdfs = await WebHdfsServer.start();
  client = new WebHdfsClient({ url: hdfs.url });
});
afterAll(async () => { await hdfs.stop(); });

const topic = 'oh-t';
const group = 'oh-g';
const topicsDir = '/oh';
const records = (n: number, from = 0) => Array.from({ length: n }, (_, i) => JSON.stringify({ id: from + i }));
const brokers = () => fx.cluster.bootstrap.join(',');
const args = () => ['--brokers', brokers(), '--group', group, '--hdfs', hdfs.url, '--topics-dir', topicsDir];
const cli = async (a: string[]) => {
  const { code, stdout, stderr } = await runCli(['offsets', ...a], 45000);
  return { code, out: stdout, err: stderr };
};

/** An exactly-once consumer into HDFS (files of 10 records), run until the sink has taken in up to `want`, then stopped (flushes). */
async function sinkUntil(want: [number, number]): Promise<void> {
  const sink = new HdfsSink({ url: hdfs.url, topicsDir, flushSize: 10, includeKafkaCoordinates: true });
  const c: GroupConsumer = consumerOn(fx.cluster, { groupId: group, topics: [topic], delivery: 'exactly-once', sink }, fx.consumers);
  try {
    await c.start();
    // Staged or durable: stop() flushes what is staged.
    const at = (p: number) => { const x = sink.positions().get(`${topic}:${p}`); return x ? x.staged ?? x.durable : undefined; };
    await until(() => at(0) === BigInt(want[0]) && at(1) === BigInt(want[1]), `HDFS positions ${want.join(', ')}`);
  } finally {
    await stopAll(fx.consumers);
    await sink.close();
  }
}

const ranges = async () => (await committedFiles(client, topicsDir, topic)).map((f) => `${f.partition}:${f.start}-${f.end}`);

test('describe shows the HDFS positions as the source of truth; reset rewinds whole files, dry run first; a replay covers each offset '
  + 'once', async () => {
  fx.cluster.createTopic(topic, 2);
  await produce(kafkaOf(fx.cluster), topic, 0, records(30));
  await produce(kafkaOf(fx.cluster), topic, 1, records(20, 30));
  await sinkUntil([30, 20]);
  const before = await ranges();
  expect(before).toEqual(['0:0-9', '0:10-19', '0:20-29', '1:0-9', '1:10-19']);

  const described = await cli(['describe', ...args(), '--json']);
  expect(described).toMatchObject({ code: 0 });
  const d = JSON.parse(described.out);
  expect(d.sourceOfTruth).toBe('sink');
  expect(d.sinkStore).toBe(`the HDFS sink's committed files under ${topicsDir} (${hdfs.url})`);
  expect(d.partitions.map((p: Record<string, string>) => [p.partition, p.highWatermark, p.sinkPosition, p.lag])).toEqual([
    [0, '30', '30', '0'], [1, '20', '20', '0']]);
  const table = await cli(['describe', ...args()]);
  expect(table.out).toMatch(/source of truth: the HDFS sink's committed files under \/oh/);
  expect(table.out).toMatch(/oh-t\s+0\s+0\s+30\s+30\s+30\s+0/);

  // A dry run: 15 is inside the file 10..19, so the partition rewinds to 10; 5 is inside the first file: to 0.
  const targets = ['--to-offset', `${topic}:0:15`, '--to-offset', `${topic}:1:5`];
  const dry = await cli(['reset', ...args(), ...targets]);
  expect(dry.code).toBe(0);
  expect(dry.out).toMatch(/dry run \(add --execute to apply\) for Kafka's committed offsets and the HDFS sink's committed files/);
  expect(dry.out).toMatch(/oh-t\s+0\s+30\s+10\s+HDFS files are replaced whole: 15 is inside the file of 10\.\.19, rewound to 10/);
  expect(dry.out).toMatch(/oh-t\s+1\s+20\s+0\s+HDFS files are replaced whole: 5 is inside the file of 0\.\.9, rewound to 0/);
  expect(await ranges()).toEqual(before);

  // Refused while a member holds the group: nothing moves.
  const sink = new HdfsSink({ url: hdfs.url, topicsDir, flushSize: 10, includeKafkaCoordinates: true });
  const member = consumerOn(fx.cluster, { groupId: group, topics: [topic], delivery: 'exactly-once', sink }, fx.consumers);
  await member.start();
  const refused = await cli(['reset', ...args(), ...targets, '--execute']);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/\[GROUP_ACTIVE\] group "oh-g" is \w+ with 1 active member\(s\)/);
  await stopAll(fx.consumers);
  await sink.close();
  expect(await ranges()).toEqual(before);

  const reset = await cli(['reset', ...args(), ...targets, '--execute', '--json']);
  expect(reset).toMatchObject({ code: 0 });
  const moves = JSON.parse(reset.out).hdfsMoves as { partition: number; from: string; to: string; movedAside: string[] }[];
  expect(moves.map((m) => [m.partition, m.from, m.to, m.movedAside.length])).toEqual([[0, '30', '10', 2], [1, '20', '-1', 2]]);
  expect(await ranges()).toEqual(['0:0-9']);
  // What was moved aside is kept, each claim with its manifest, its file and its marker.
  for (const aside of moves.flatMap((m) => m.movedAside)) {
    expect(aside).toMatch(/^\/oh\/\+rewound\/oh-t\/[01]\/\d{8}T\d{9}Z-(first|\d{20})$/);
    // The data file, the manifest, and the claim's marker (a directory named like the claim: docs/hdfs-sink.md).
    const claimName = aside.split('-').at(-1)!;
    expect(((await client.list(aside)) ?? []).map((e) => e.pathSuffix).sort()).toEqual([expect.stringMatching(/^0\.jsonl$/),
      claimName, expect.stringMatching(/\.commit$/)]);
  }
  const after = JSON.parse((await cli(['describe', ...args(), '--json'])).out);
  expect(after.partitions.map((p: Record<string, string | null>) => [p.committed, p.sinkPosition])).toEqual([['10', '10'], ['0', null]]);

  // The replay: every offset is in exactly one committed file, the files as before.
  await sinkUntil([30, 20]);
  expect(await ranges()).toEqual(before);
  expect(await committedOffsets(client, topicsDir, topic, 0)).toEqual(range(0n, 30n));
  expect(await committedOffsets(client, topicsDir, topic, 1)).toEqual(range(0n, 20n));
});

test('reset --to-latest skips forward with an empty claim the sink resumes from; a missing topics dir is refused', async () => {
  await produce(kafkaOf(fx.cluster), topic, 0, records(7, 100));
  const files = await ranges();
  const reset = await cli(['reset', ...args(), '--topic', topic, '--to-latest', '--execute', '--json']);
  expect(reset).toMatchObject({ code: 0 });
  const moves = JSON.parse(reset.out).hdfsMoves as { partition: number; from: string; to: string; emptyClaim: boolean }[];
  expect(moves.map((m) => [m.partition, m.from, m.to, m.emptyClaim])).toEqual([[0, '30', '37', true], [1, '20', '20', false]]);
  expect(await ranges()).toEqual(files); // no data file for the skipped records
  await produce(kafkaOf(fx.cluster), topic, 0, records(3, 107));
  await sinkUntil([40, 20]);
  expect(await committedOffsets(client, topicsDir, topic, 0)).toEqual([...range(0n, 30n), ...range(37n, 40n)]);

  const missing = await cli(['describe', '--brokers', brokers(), '--group', group, '--hdfs', hdfs.url, '--topics-dir', '/typo']);
  expect(missing.code).toBe(1);
  expect(missing.err).toMatch(/\[OFFSETS_STORE_MISSING\] --topics-dir: \/typo\/\+log does not exist/);
  expect(await client.status('/typo')).toBeNull();
  const both = await cli(['describe', '--brokers', brokers(), '--group', group, '--hdfs', hdfs.url, '--db', 'x.sqlite']);
  expect(both.code).toBe(2);
  expect(both.err).toMatch(/--hdfs: name one sink/);
});
