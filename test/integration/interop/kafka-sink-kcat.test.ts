/**
 * An independent oracle for KafkaSink's output: kcat (librdkafka) reads the output topic with
 * isolation.level=read_committed and counts each source record exactly once, nothing of an aborted transaction;
 * read_uncommitted shows the aborted records are there (so the oracle can tell them apart).
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { KafkaSink } from '../../../src/sinks/kafka';
import { kafkaOf, produce, range, sleep, until } from '../../consumer/helpers';
import { run } from './helpers';
import { transform } from '../sinks/kafka/helpers';

jest.setTimeout(120000);

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0 } }); });
afterAll(async () => { await cluster.stop(); });

const kcatKeys = async (topic: string, isolation: 'read_committed' | 'read_uncommitted'): Promise<string[]> => {
  const res = await run('kcat', [
    '-b', cluster.bootstrap.join(','), '-X', 'broker.address.family=v4', '-X', `isolation.level=${isolation}`,
    '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%k\\n',
  ], { timeoutMs: 60000 });
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
  return res.stdout.split('\n').filter((l) => l !== '');
};

test('kcat read_committed: each source record exactly once in the output, nothing of an aborted transaction', async () => {
  cluster.createTopic('kk-in', 2);
  cluster.createTopic('kk-out', 2);
  for (let p = 0; p < 2; p++) await produce(kafkaOf(cluster), 'kk-in', p, range(0, 40).map(String));
  // An aborted transaction in the output first: its partition was lost while it was open.
  const loser = new KafkaSink({ kafka: kafkaOf(cluster), transactionalId: 'tx-kk-loser' });
  await loser.open('kk-other', [{ topic: 'kk-in', partition: 0 }]);
  cluster.faults.delay({ apiKey: 'TxnOffsetCommit', ms: 300, count: 1 });
  const aborted = loser.write('kk-other', [{
    topic: 'kk-in', partition: 0, expectedOffset: -1n, nextOffset: 2n, records: [],
    outputs: [
      { topic: 'kk-out', key: 'aborted-0', value: 'x', partition: 0 }, { topic: 'kk-out', key: 'aborted-1', value: 'y', partition: 1 },
    ],
  }]).catch((e: unknown) => e);
  await sleep(100);
  await loser.discard([{ topic: 'kk-in', partition: 0 }]);
  expect(await aborted).toMatchObject({ code: 'KAFKA_TXN_ABORTED' });
  await loser.close();

  const sink = new KafkaSink({ transactionTimeoutMs: 5000 });
  const c = new GroupConsumer({
    brokers: cluster.bootstrap, groupId: 'kk', topics: ['kk-in'], delivery: 'exactly-once', sink, recordHandler: transform('kk-out'),
    maxBatchRecords: 7, sessionTimeoutMs: 6000, heartbeatIntervalMs: 100, maxWaitTimeMs: 100,
  });
  try {
    await c.start();
    await until(() => [0, 1].every((p) => cluster.inspect.committedOffset('kk', 'kk-in', p) === 40), 'every input committed');
  } finally {
    await c.stop();
    await sink.close();
  }
  const committed = await kcatKeys('kk-out', 'read_committed');
  const expected = [0, 1].flatMap((p) => range(0, 40).map((o) => `${p}:${o}`));
  expect(committed.length).toBe(expected.length);
  expect([...new Set(committed)].sort()).toEqual([...expected].sort());
  const all = await kcatKeys('kk-out', 'read_uncommitted');
  expect(all.filter((k) => k.startsWith('aborted-')).sort()).toEqual(['aborted-0', 'aborted-1']);
});
