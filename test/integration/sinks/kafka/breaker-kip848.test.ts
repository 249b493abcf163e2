/**
 * Breaker repro (branch kbreak): KafkaSink under a KIP-848 group (groupProtocol 'consumer'). A member joining
 * mid-stream bumps the first member's epoch; a TxnOffsetCommit in flight with the old epoch is answered
 * STALE_MEMBER_EPOCH (Kafka's ConsumerGroup.validateOffsetCommit does the same). That is a rebalance, not a
 * zombie: the write should abort and be redone, as the SDK's own committer retries STALE_MEMBER_EPOCH.
 */
import { MockCluster } from '../../../../src/testing/mock-broker';
import { KafkaSink } from '../../../../src/sinks/kafka';
import { consumerOn, kafkaOf, produce, range, sleep, until, useConsumerCluster } from '../../../consumer/helpers';
import { expectExactlyOnce, outputOf, transform } from './helpers';

jest.setTimeout(90000);

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-k848-');
const { consumers } = fx;
const sinks: KafkaSink[] = [];
afterEach(async () => {
  await Promise.allSettled(sinks.splice(0).map((s) => s.close()));
});
const sink = () => {
  const s = new KafkaSink({ transactionTimeoutMs: 5000 });
  sinks.push(s);
  return s;
};

test('KIP-848: members joining and leaving mid-stream: exactly once, and no member fails on STALE_MEMBER_EPOCH', async () => {
  const [input, output, group] = ['k848-in', 'k848-out', 'k848'];
  fx.cluster.createTopic(input, 6);
  fx.cluster.createTopic(output, 2);
  const kafka = kafkaOf(fx.cluster);
  const slow = async (r: Parameters<ReturnType<typeof transform>>[0]) => {
    await sleep(5);
    return transform(output)(r);
  };
  const options = {
    groupId: group, topics: [input], delivery: 'exactly-once' as const, recordHandler: slow, groupProtocol: 'consumer' as const,
    partitionsConsumedConcurrently: 3, maxBatchRecords: 20,
  };
  for (let p = 0; p < 6; p++) await produce(kafka, input, p, range(0, 200).map((i) => `v${p}-${i}`));
  const members = [consumerOn(fx.cluster, { ...options, sink: sink() }, consumers)];
  await members[0].start();
  await until(() => members[0].metrics().processed >= 50, 'the first member under way');
  for (let i = 0; i < 2; i++) {
    const m = consumerOn(fx.cluster, { ...options, sink: sink() }, consumers);
    members.push(m);
    await m.start();
    await sleep(1500);
  }
  await until(() => members.every((m) => m.failure !== null)
    || range(0, 6).every((p) => fx.cluster.inspect.committedOffset(group, input, p) === 200),
    'every input committed (or every member failed)', 60000).catch(() => undefined);
  const failures = members.map((m) => (m.failure ? String(m.failure.message ?? m.failure) : null));
  expect(failures).toEqual([null, null, null]);
  const out = await outputOf(fx.cluster, output);
  expectExactlyOnce(out, range(0, 6).flatMap((p) => range(0, 200).map((o) => `${p}:${o}`)));
});
