/**
 * The HDFS sink with real consumers on the mock cluster:
 * - zombie: a member freezes (SIGSTOP) holding a batch past its session timeout; the new owner commits
 *   everything; the zombie thaws and tries to commit its batch: its claim is refused, no range twice;
 * - the position comes from HDFS, not Kafka: with the group's Kafka offset moved back, a new member
 *   resumes where the committed files end; Kafka's monitoring offset never passes the durable position.
 */
import { ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { createGroupConsumer, HdfsSink } from '../../../src';
import { MockCluster } from '../../../src/testing/mock-broker';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { committedFiles, committedOffsets, range } from '../../sinks/hdfs/helpers';
import { waitFor, ZOMBIE_WORKER } from './zombie-helpers';
import { until } from '../../helpers/until';

let cluster: MockCluster;
let hdfs: WebHdfsServer;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  hdfs = await WebHdfsServer.start();
});
afterAll(async () => { await cluster.stop(); await hdfs.stop(); });

test('a frozen member that lost its partition cannot claim its range when it wakes: no range twice', async () => {
  if (!existsSync(path.join(__dirname, '..', '..', '..', 'dist', 'index.js')))
    throw new Error('dist/ is missing: run npm run build (npm test does it)');
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  const sink = new HdfsSink({ url: hdfs.url, topicsDir: '/zombie', flushSize: 100, includeKafkaCoordinates: true });
  const successor = createGroupConsumer({ kafka, groupId: 'zh', topics: ['zh'], delivery: 'exactly-once', sink, sessionTimeoutMs: 2000,
    heartbeatIntervalMs: 300, maxWaitTimeMs: 100 });
  let zombie: ChildProcess | null = null;
  try {
    cluster.createTopic('zh', 1);
    await producer.connect();
    await producer.send({ topic: 'zh', messages: Array.from({ length: 500 }, (_, i) => ({ value: JSON.stringify({ v: `r${i}` }) })) });
    zombie = fork(ZOMBIE_WORKER, [cluster.bootstrap.join(','), 'zh', 'zh', 'hdfs', hdfs.url, '/zombie'],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const holding = await waitFor<{ records: number }>(zombie, 'holding');
    expect(holding.records).toBeGreaterThan(100); // its write will rotate: a claim attempt
    zombie.kill('SIGSTOP');
    zombie.send({ type: 'go' });

    await successor.start();
    await until(async () => successor.assignment().length === 1, 'the partition to move to the successor', 30000);
    await until(async () => sink.positions().get('zh:0')?.durable === 500n, 'the successor to commit every record', 30000);

    const fenced = waitFor<{ expected: string; stored: string }>(zombie, 'fenced');
    zombie.kill('SIGCONT');
    expect(await fenced).toEqual({ type: 'fenced', expected: '-1', stored: '500' });
    expect(await committedOffsets(sink.client, '/zombie', 'zh', 0)).toEqual(range(0n, 500n));
  } finally {
    zombie?.kill('SIGKILL');
    await successor.stop();
    await sink.close();
    await producer.disconnect();
  }
}, 120000);

test('a new member resumes from the committed files, not from the group\'s Kafka offset; Kafka never sees more than is durable',
  async () => {
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  const admin = kafka.admin();
  await producer.connect();
  await admin.connect();
  cluster.createTopic('rh', 1);
  const send = (from: number, n: number) =>
    producer.send({ topic: 'rh', messages: Array.from({ length: n }, (_, i) => ({ value: JSON.stringify({ v: from + i }) })) });
  const member = (flushSize: number) => {
    const sink = new HdfsSink({ url: hdfs.url, topicsDir: '/resume', flushSize, includeKafkaCoordinates: true });
    return { sink, consumer: createGroupConsumer({ kafka, groupId: 'rh', topics: ['rh'], delivery: 'exactly-once', sink,
      sessionTimeoutMs: 3000, heartbeatIntervalMs: 300, maxWaitTimeMs: 100 }) };
  };
  const kafkaOffset = async () => Number((await admin.fetchOffsets({ groupId: 'rh', topics: ['rh'] }))[0]!.partitions[0]!.offset);
  try {
    await send(0, 250);
    const a = member(100);
    await a.consumer.start();
    await until(async () => a.sink.positions().get('rh:0')?.staged === 250n, 'the first member to stage everything', 30000);
    // 200 durable (two files of 100), 50 staged: Kafka's monitoring offset is the durable one.
    expect(a.sink.positions().get('rh:0')).toEqual({ durable: 200n, staged: 250n });
    expect(await kafkaOffset()).toBe(200);
    await a.consumer.stop(); // revoke: the open file is committed
    await a.sink.close();
    expect((await committedFiles(a.sink.client, '/resume', 'rh')).map((f) => [f.start, f.end]))
      .toEqual([[0n, 99n], [100n, 199n], [200n, 249n]]);
    expect(await kafkaOffset()).toBe(250);

    await admin.setOffsets({ groupId: 'rh', topic: 'rh', partitions: [{ partition: 0, offset: '30' }] }); // Kafka says 30
    await send(250, 50);
    const b = member(1000);
    await b.consumer.start();
    await until(async () => b.sink.positions().get('rh:0')?.staged === 300n, 'the second member to stage the rest', 30000);
    await b.consumer.stop();
    await b.sink.close();
    expect(await committedOffsets(b.sink.client, '/resume', 'rh', 0)).toEqual(range(0n, 300n));
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
}, 120000);
