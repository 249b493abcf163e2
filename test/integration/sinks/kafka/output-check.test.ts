/**
 * KafkaSink's output checks through the consumer (src/sinks/kafka/output-check.ts, the sink's `checkOutputs`): an
 * output one input record got wrong (an odd type, above the topic's own max.message.bytes read with DescribeConfigs)
 * is that record's failure and goes to the poison policy; an output topic that does not exist is not a record's
 * fault: after retryTimeoutMs the consumer fails with UNKNOWN_TOPIC, nothing skipped.
 */
import { MockCluster } from '../../../../src/testing/mock-broker';
import type { OutputRecord, SinkRecord } from '../../../../src/records';
import { KafkaSink } from '../../../../src/sinks/kafka';
import { consumerOn, kafkaOf, produce, range, until, useConsumerCluster } from '../../../consumer/helpers';
import { expectExactlyOnce, outputOf } from './helpers';

jest.setTimeout(60000);

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-kout-');
const sinks: KafkaSink[] = [];
afterEach(async () => {
  await Promise.allSettled(sinks.splice(0).map((s) => s.close()));
});
const sinkOf = (options: ConstructorParameters<typeof KafkaSink>[0] = {}) => {
  const s = new KafkaSink({ kafka: kafkaOf(fx.cluster, 'sink'), transactionTimeoutMs: 5000, ...options });
  sinks.push(s);
  return s;
};

test('skip: an odd header of one record and an output above the topic\'s own max.message.bytes skip those records only', async () => {
  fx.cluster.createTopic('cin', 1);
  fx.cluster.createTopic('cout', 1, -1, { 'max.message.bytes': '2000' });
  await produce(kafkaOf(fx.cluster), 'cin', 0, range(0, 8).map(String));
  const skipped: { offset: bigint; error: unknown }[] = [];
  const c = consumerOn(fx.cluster, {
    groupId: 'cg', topics: ['cin'], delivery: 'exactly-once', sink: sinkOf(), poisonPolicy: 'skip',
    recordHandler: (r: SinkRecord): OutputRecord[] => {
      const v = r.value?.toString();
      if (v === '2') return [{ topic: 'cout', key: `${r.offset}`, value: 'v', headers: { n: 42 as never } }];
      // 1990 bytes of value: under Kafka's default limit, above this topic's 2000 once framed in a batch
      if (v === '5') return [{ topic: 'cout', key: `${r.offset}`, value: 'x'.repeat(1990) }];
      return [{ topic: 'cout', key: `${r.offset}`, value: 'x'.repeat(1000) }];
    },
  }, fx.consumers);
  c.on('skipped', (d: { offset: bigint; error: unknown }) => skipped.push(d));
  await c.start();
  await until(() => fx.cluster.inspect.committedOffset('cg', 'cin', 0) === 8, 'every record committed', 20000);
  expect(skipped.map((s) => s.offset)).toEqual([2n, 5n]);
  expect(skipped.map((s) => (s.error as { code?: string }).code)).toEqual(['KAFKA_OUTPUT_INVALID', 'KAFKA_OUTPUT_INVALID']);
  expect(String((skipped[0].error as Error).message)).toMatch(/input record cin:0@2.*header 'n'.*number/);
  expect(String((skipped[1].error as Error).message)).toMatch(/input record cin:0@5.*max\.message\.bytes of topic 'cout' 2000/);
  // Several 1000-byte outputs of one write do not fit one 2000-byte batch: split by the topic's limit, all written.
  expectExactlyOnce(await outputOf(fx.cluster, 'cout'), ['0', '1', '3', '4', '6', '7']);
});

test('an output topic that does not exist fails the consumer with UNKNOWN_TOPIC after retryTimeoutMs, skipping nothing', async () => {
  fx.cluster.createTopic('uin', 1);
  await produce(kafkaOf(fx.cluster), 'uin', 0, ['a', 'b']);
  const skipped: unknown[] = [];
  const c = consumerOn(fx.cluster, {
    groupId: 'ug', topics: ['uin'], delivery: 'exactly-once', sink: sinkOf({ retryTimeoutMs: 1500 }), poisonPolicy: 'skip',
    recordHandler: (r: SinkRecord): OutputRecord[] => [{ topic: 'missing-out', key: `${r.offset}`, value: 'v' }],
  }, fx.consumers);
  c.on('skipped', (d: unknown) => skipped.push(d));
  c.on('error', () => undefined); // the failure is asserted below
  const started = Date.now();
  await c.start().catch(() => undefined);
  await until(() => c.state === 'failed', 'the consumer failed', 20000);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  expect((c.failure as { code?: string }).code).toBe('UNKNOWN_TOPIC');
  expect(String((c.failure as Error).message)).toMatch(/'missing-out' does not exist/);
  expect(skipped).toEqual([]);
  expect(fx.cluster.inspect.committedOffset('ug', 'uin', 0)).toBeUndefined();
});
