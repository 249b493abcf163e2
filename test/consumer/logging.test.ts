import { logLevel, type LogEntry } from 'kafkajs';
import { MockCluster } from '../../src/testing/mock-broker';
import { startCluster } from '../../src/testing/mock-broker/testing';
import { GroupConsumer } from '../../src/consumer/group-consumer';
import { FAST, kafkaOf, produce, stopAll, until } from './helpers';

describe('logLevel and logCreator pass through to the KafkaJS client made from brokers', () => {
  let cluster: MockCluster;
  const consumers: GroupConsumer[] = [];
  beforeAll(async () => { cluster = await startCluster({ brokers: 1 }); });
  afterEach(() => stopAll(consumers));
  afterAll(() => cluster.stop());

  async function run(level: logLevel, groupId: string): Promise<{ level: logLevel; namespace: string; message: string }[]> {
    const entries: { level: logLevel; namespace: string; message: string }[] = [];
    const logCreator = () => (e: LogEntry) => { entries.push({ level: e.level, namespace: e.namespace, message: e.log.message }); };
    let seen = 0;
    const c = new GroupConsumer({
      brokers: cluster.bootstrap, ...FAST, groupId, topics: ['logged'], delivery: 'at-least-once',
      logLevel: level, logCreator, handler: async (b) => { seen += b.records.length; },
    });
    consumers.push(c);
    await c.start();
    await until(() => seen === 2, 'both records');
    await c.stop();
    return entries;
  }

  test('at INFO, KafkaJS lines and the consumer\'s own lines (namespace kafka-eos) reach the logCreator', async () => {
    cluster.createTopic('logged', 1);
    await produce(kafkaOf(cluster), 'logged', 0, ['a', 'b']);
    const entries = await run(logLevel.INFO, 'logged-info');
    const own = entries.filter((e) => e.namespace === 'kafka-eos');
    expect(own.map((e) => e.message))
      .toEqual(expect.arrayContaining(['consumer idle -> starting', 'assigned logged:0', 'consumer stopping -> stopped']));
    expect(own.every((e) => e.level <= logLevel.INFO)).toBe(true);
  });

  test('at DEBUG, KafkaJS\'s own lines (its connections carry the consumer\'s requests) reach the same logCreator', async () => {
    const entries = await run(logLevel.DEBUG, 'logged-debug');
    expect(entries.some((e) => e.namespace === 'Connection' && /Request JoinGroup/.test(e.message))).toBe(true);
    expect(entries.some((e) => e.namespace === 'kafka-eos' && /membership .* -> stable/.test(e.message))).toBe(true);
  });

  test('at ERROR, no INFO line of either is written', async () => {
    const entries = await run(logLevel.ERROR, 'logged-error');
    expect(entries.filter((e) => e.level > logLevel.ERROR)).toEqual([]);
  });
});
