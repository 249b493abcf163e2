/**
 * `kafka-eos run` with `sink: { type: kafka }`: the records of the input topic are copied to the output topic in
 * transactions that commit the input offsets (KafkaSink), keyed by their source coordinates (`key: source`); after
 * SIGTERM, read read_committed, each input record is in the output exactly once and the group's offsets are the
 * end of the input. A second run of the group copies only what came after. (The compiled CLI is used.)
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { MockCluster } from '../../../src/testing/mock-broker';
import { kafkaOf, produce, range } from '../../consumer/helpers';
import { expectExactlyOnce, outputOf } from '../sinks/kafka/helpers';
import { requireBuiltCli, runCli, runUntilThreeRecordsThenSigterm, startCli, startCliCluster, stopCliCluster } from './helpers';
import { until } from '../../consumer/helpers';

jest.setTimeout(90000);

let cluster: MockCluster;
let dir: string;
beforeAll(async () => {
  requireBuiltCli();
  ({ cluster, dir } = await startCliCluster('kafka-eos-run-kafka-'));
});
afterAll(() => stopCliCluster(cluster, dir));

test('copies the input to the output topic exactly once, offsets committed in the transactions; a second run resumes', async () => {
  cluster.createTopic('rk-in', 1);
  cluster.createTopic('rk-out', 2);
  const file = path.join(dir, 'run-kafka.yaml');
  writeFileSync(file, [
    `brokers: [${cluster.bootstrap.join(', ')}]`,
    'groupId: rk',
    'topics: [rk-in]',
    'consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 300 }',
    'sink: { type: kafka, topic: rk-out, key: source, transactionTimeoutMs: 5000 }',
  ].join('\n'));
  await produce(kafkaOf(cluster), 'rk-in', 0, ['a', 'b', 'c']);
  await runUntilThreeRecordsThenSigterm(file);
  expect(cluster.inspect.committedOffset('rk', 'rk-in', 0)).toBe(3);
  expectExactlyOnce(await outputOf(cluster, 'rk-out'), ['0:0', '0:1', '0:2']);

  await produce(kafkaOf(cluster), 'rk-in', 0, ['d', 'e', 'f']);
  await runUntilThreeRecordsThenSigterm(file);
  expect(cluster.inspect.committedOffset('rk', 'rk-in', 0)).toBe(6);
  const out = await outputOf(cluster, 'rk-out');
  expectExactlyOnce(out, range(0, 6).map((o) => `0:${o}`));
  expect(out.map((r) => r.value?.toString()).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  const commits = cluster.events.entries({ type: 'offsets.committed', groupId: 'rk' });
  expect(commits.every((e) => e.data.transactional === true)).toBe(true);
});

test('sink.topic that does not exist: refused before anything is consumed (UNKNOWN_TOPIC, exit 2), offsets untouched', async () => {
  cluster.createTopic('rm-in', 1);
  const file = path.join(dir, 'run-kafka-missing.yaml');
  writeFileSync(file, [
    `brokers: [${cluster.bootstrap.join(', ')}]`,
    'groupId: rm',
    'topics: [rm-in]',
    'sink: { type: kafka, topic: no-such-topic, transactionTimeoutMs: 5000 }',
  ].join('\n'));
  await produce(kafkaOf(cluster), 'rm-in', 0, ['a']);
  const r = await runCli(['run', '--config', file], 30000);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/UNKNOWN_TOPIC.*no-such-topic.*does not exist/);
  expect(r.out).not.toMatch(/still retrying/);
  expect(cluster.inspect.committedOffset('rm', 'rm-in', 0)).toBeUndefined();
});

test('the status line shows the last transactional commit and the last line says the offsets were committed in them', async () => {
  cluster.createTopic('rs-in', 1);
  cluster.createTopic('rs-out', 1);
  const file = path.join(dir, 'run-kafka-status.yaml');
  writeFileSync(file, [
    `brokers: [${cluster.bootstrap.join(', ')}]`,
    'groupId: rs',
    'topics: [rs-in]',
    'consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 300 }',
    'sink: { type: kafka, topic: rs-out, transactionTimeoutMs: 5000 }',
  ].join('\n'));
  await produce(kafkaOf(cluster), 'rs-in', 0, ['a', 'b', 'c']);
  const run = startCli(['run', '--config', file, '--status-interval', '300']);
  try {
    await until(() => /status .* 3 total.*last commit \d/.test(run.out()), 'a status line with 3 records and a last commit', 45000);
  } finally {
    run.child.kill('SIGTERM');
  }
  expect(await run.exited).toBe(0);
  const out = run.out();
  expect(out).not.toMatch(/3 total.*last commit never/);
  expect(out).toMatch(new RegExp('stopped: topic rs-out holds every record handled with its offset \\(next offsets rs-in-0 3\\); '
    + "Kafka's group offsets committed there, in the same transactions"));
});
