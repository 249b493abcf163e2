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
import { requireBuiltCli, runUntilThreeRecordsThenSigterm, startCliCluster, stopCliCluster } from './helpers';

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
