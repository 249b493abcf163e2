/**
 * KafkaSink under the exactly-once strategy of a GroupConsumer, against the mock: exactly once across rebalances
 * (a member joining, a member leaving), a producer fenced by its own transaction timeout carrying on (the batch
 * is redone, the member does not fail), and dead letters inside the same transaction as the outputs.
 */
import { MockCluster } from '../../../../src/testing/mock-broker';
import { DEAD_LETTER_HEADERS } from '../../../../src/consumer/retry';
import { KafkaSink, readKafkaSinkOutput } from '../../../../src/sinks/kafka';
import { consumerOn, kafkaOf, produce, range, sleep, until, useConsumerCluster } from '../../../consumer/helpers';
import { expectExactlyOnce, outputOf, transform } from './helpers';

jest.setTimeout(90000);

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-kcons-');
const { consumers } = fx;
const sinks: KafkaSink[] = [];
afterEach(async () => {
  await Promise.allSettled(sinks.splice(0).map((s) => s.close()));
});
const sink = (options: ConstructorParameters<typeof KafkaSink>[0] = {}) => {
  const s = new KafkaSink({ transactionTimeoutMs: 5000, ...options });
  sinks.push(s);
  return s;
};

for (const assignors of [['range'], ['cooperative-sticky']] as const) {
  test(`exactly once across rebalances (${assignors[0]}): a member joins mid-stream, then the first one leaves`, async () => {
    const [input, output, group] = [`rb-in-${assignors[0]}`, `rb-out-${assignors[0]}`, `rb-${assignors[0]}`];
    fx.cluster.createTopic(input, 4);
    fx.cluster.createTopic(output, 2);
    const kafka = kafkaOf(fx.cluster);
    const slow = async (r: Parameters<ReturnType<typeof transform>>[0]) => {
      await sleep(2);
      return transform(output)(r);
    };
    const options = {
      groupId: group, topics: [input], delivery: 'exactly-once' as const, recordHandler: slow, assignors: [...assignors],
      partitionsConsumedConcurrently: 2, maxBatchRecords: 20,
    };
    const first = consumerOn(fx.cluster, { ...options, sink: sink() }, consumers);
    for (let p = 0; p < 4; p++) await produce(kafka, input, p, range(0, 100).map((i) => `v${p}-${i}`));
    await first.start();
    await until(() => first.metrics().processed >= 50, 'the first member to be under way');
    const second = consumerOn(fx.cluster, { ...options, sink: sink() }, consumers);
    await second.start();
    await until(() => second.assignment().length > 0 && first.assignment().length < 4, 'the rebalance');
    for (let p = 0; p < 4; p++) await produce(kafka, input, p, range(100, 150).map((i) => `v${p}-${i}`));
    await until(() => first.metrics().processed + second.metrics().processed >= 300, 'some of the second round');
    await first.stop();
    await until(() => second.assignment().length === 4, 'the second member to own every partition');
    await until(() => [0, 1, 2, 3].every((p) => fx.cluster.inspect.committedOffset(group, input, p) === 150), 'every input committed', 60000);
    const out = await outputOf(fx.cluster, output);
    expectExactlyOnce(out, [0, 1, 2, 3].flatMap((p) => range(0, 150).map((o) => `${p}:${o}`)));
    expect(first.failure).toBeNull();
    expect(second.failure).toBeNull();
  });
}

test('a producer fenced by its own transaction timeout is re-initialised and the batch redone: the member carries on', async () => {
  fx.cluster.createTopic('tt-in', 1);
  fx.cluster.createTopic('tt-out', 1);
  await produce(kafkaOf(fx.cluster), 'tt-in', 0, range(0, 40).map(String));
  const s = sink({ transactionTimeoutMs: 400 });
  const c = consumerOn(fx.cluster, {
    groupId: 'tt', topics: ['tt-in'], delivery: 'exactly-once', sink: s, recordHandler: transform('tt-out'), maxBatchRecords: 10,
  }, consumers);
  const unavailable: { error: Error }[] = [];
  c.on('sink-unavailable', (e) => unavailable.push(e));
  let seen = 0;
  await c.start();
  await until(() => fx.cluster.inspect.committedOffset('tt', 'tt-in', 0) !== undefined, 'the first commit');
  seen = fx.cluster.inspect.committedOffset('tt', 'tt-in', 0)!;
  // The next transaction's TxnOffsetCommit arrives after its transaction timed out.
  fx.cluster.faults.delay({ apiKey: 'TxnOffsetCommit', ms: 900, count: 1 });
  await produce(kafkaOf(fx.cluster), 'tt-in', 0, range(40, 60).map(String));
  await until(() => fx.cluster.inspect.committedOffset('tt', 'tt-in', 0) === 60, 'every record committed', 30000);
  expect(seen).toBeGreaterThan(0);
  expect(c.failure).toBeNull();
  expect(c.state).toBe('running');
  expect(s.transitions.some((t) => t.to === 'fenced')).toBe(true);
  // The aborted write came back as retriable: the strategy re-read the position (require_stable) and wrote again.
  expect(unavailable.map((e) => (e.error as { code?: string }).code)).toContain('KAFKA_TXN_ABORTED');
  expect(fx.cluster.events.entries({ type: 'txn.markers-written' }).some((e) => e.data.result === 'ABORT')).toBe(true);
  expectExactlyOnce(await outputOf(fx.cluster, 'tt-out'), range(0, 60).map((o) => `0:${o}`));
});

test('dead letters go into the same transaction as the outputs (poisonPolicy dead-letter)', async () => {
  fx.cluster.createTopic('dl-in', 1);
  fx.cluster.createTopic('dl-out', 1);
  fx.cluster.createTopic('dl-in.dlq', 1);
  await produce(kafkaOf(fx.cluster), 'dl-in', 0, range(0, 20).map(String));
  const c = consumerOn(fx.cluster, {
    groupId: 'dl', topics: ['dl-in'], delivery: 'exactly-once', sink: sink(), poisonPolicy: 'dead-letter',
    recordHandler: (r) => {
      if (r.value?.toString() === '7') throw new Error('seven is poison');
      return transform('dl-out')(r);
    },
  }, consumers);
  await c.start();
  await until(() => fx.cluster.inspect.committedOffset('dl', 'dl-in', 0) === 20, 'every record committed');
  expectExactlyOnce(await outputOf(fx.cluster, 'dl-out'), range(0, 20).filter((o) => o !== 7).map((o) => `0:${o}`));
  const letters = await readKafkaSinkOutput({ kafka: kafkaOf(fx.cluster), topic: 'dl-in.dlq', stableTimeoutMs: 5000 });
  expect(letters.map((r) => r.value?.toString())).toEqual(['7']);
  expect(String(letters[0].headers[DEAD_LETTER_HEADERS.offset])).toBe('7');
  // Transactional: written by the sink's producer (a producer id, the transactional attribute), not a producer of its own.
  expect(fx.cluster.inspect.batches('dl-in.dlq', 0).filter((b) => !b.isControl).every((b) => b.isTransactional)).toBe(true);
});
