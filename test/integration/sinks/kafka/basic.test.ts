/**
 * KafkaSink end to end against the mock: consume, transform, produce in one transaction per write (KIP-447), the
 * offsets committed in it, read back read_committed; positions on assignment from the group's committed offsets.
 */
import { MockCluster } from '../../../../src/testing/mock-broker';
import { KafkaSink } from '../../../../src/sinks/kafka';
import { consumerOn, kafkaOf, produce, range, until, useConsumerCluster } from '../../../consumer/helpers';
import { expectExactlyOnce, outputOf, transform } from './helpers';

jest.setTimeout(60000);

const fx = useConsumerCluster(() => MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0 } }), 'kafka-eos-ksink-');
const { consumers } = fx;

test('each input record becomes its output exactly once, and the group offsets are committed in the same transactions', async () => {
  fx.cluster.createTopic('in1', 2);
  fx.cluster.createTopic('out1', 3);
  await produce(kafkaOf(fx.cluster), 'in1', 0, range(0, 30).map((i) => `a${i}`));
  await produce(kafkaOf(fx.cluster), 'in1', 1, range(0, 20).map((i) => `b${i}`));
  const sink = new KafkaSink({ transactionTimeoutMs: 5000 });
  const c = consumerOn(fx.cluster, {
    groupId: 'g1', topics: ['in1'], delivery: 'exactly-once', sink, recordHandler: transform('out1'),
  }, consumers);
  await c.start();
  await until(() => c.metrics().processed >= 50, 'the 50 records');
  await c.stop();
  await sink.close();
  const out = await outputOf(fx.cluster, 'out1');
  expectExactlyOnce(out, [...range(0, 30).map((o) => `0:${o}`), ...range(0, 20).map((o) => `1:${o}`)]);
  expect(out.find((r) => r.key?.toString() === '0:3')?.value?.toString()).toBe('A3');
  // The offsets were committed transactionally (TxnOffsetCommit), never by a plain OffsetCommit of the strategy.
  const commits = fx.cluster.events.entries({ type: 'offsets.committed', groupId: 'g1' });
  expect(commits.length).toBeGreaterThan(0);
  expect(commits.every((e) => e.data.transactional === true)).toBe(true);
  expect([fx.cluster.inspect.committedOffset('g1', 'in1', 0), fx.cluster.inspect.committedOffset('g1', 'in1', 1)]).toEqual([30, 20]);
  // Every output record is transactional, and every transaction of the sink committed.
  expect(fx.cluster.events.entries({ type: 'txn.markers-written' }).every((e) => e.data.result === 'COMMIT')).toBe(true);
});

test('an output record the sink cannot produce fails the write by name (KAFKA_OUTPUT_INVALID) before any transaction begins', async () => {
  fx.cluster.createTopic('inv-in', 1);
  fx.cluster.createTopic('inv-out', 2);
  const sink = new KafkaSink({ kafka: kafkaOf(fx.cluster), transactionalId: 'tx-inv', retryTimeoutMs: 1500 });
  try {
    await sink.open('inv', [{ topic: 'inv-in', partition: 0 }]);
    const write = (outputs: unknown[]) => sink.write('inv', [{
      topic: 'inv-in', partition: 0, expectedOffset: -1n, nextOffset: 1n, records: [], outputs: outputs as never,
    }]).catch((e: unknown) => e);
    expect(await write([{ topic: 'inv-out', value: 42 }]))
      .toMatchObject({ code: 'KAFKA_OUTPUT_INVALID', message: expect.stringContaining('value') });
    expect(await write([{ topic: 'no-such-topic', value: 'x' }]))
      .toMatchObject({ code: 'UNKNOWN_TOPIC', message: expect.stringContaining('no-such-topic') }); // not the record's fault
    expect(await write([{ topic: 'inv-out', value: 'x', partition: 7 }])).toMatchObject({ code: 'KAFKA_OUTPUT_INVALID' });
    expect(await write([{ value: 'x' }])).toMatchObject({ code: 'KAFKA_OUTPUT_INVALID' });
    expect(fx.cluster.inspect.transaction('tx-inv')?.state).toBe('Empty');
    expect(sink.producerState).toBe('ready');
    // The same sink writes a valid record afterwards.
    expect(await write([{ topic: 'inv-out', value: 'ok', key: 'k' }])).toEqual({ status: 'committed' });
  } finally {
    await sink.close();
  }
});
