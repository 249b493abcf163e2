/**
 * Breaker repros for KafkaSink (branch kbreak): each test states what Kafka's Java producer would do. Kept as the
 * guarantees they check: no sequence reused after an abort (KIP-360 epoch bump), STALE_MEMBER_EPOCH aborts and is
 * redone, a fenced zombie with an explicit transactional id stays fenced (branch kfix). The output validation and
 * batch size ones are branch kout's.
 */
import { MockCluster } from '../../../../src/testing/mock-broker';
import type { GroupMetadata, SinkContext } from '../../../../src/sink-contract';
import type { OutputRecord, SinkBatch } from '../../../../src/records';
import { KafkaSink } from '../../../../src/sinks/kafka';
import { consumerOn, kafkaOf, produce, range, sleep, until, useConsumerCluster } from '../../../consumer/helpers';
import { expectExactlyOnce, outputOf } from './helpers';

jest.setTimeout(60000);

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-kbreak-');
const sinks: KafkaSink[] = [];
afterEach(async () => {
  await Promise.allSettled(sinks.splice(0).map((s) => s.close()));
});
const sinkOf = (options: ConstructorParameters<typeof KafkaSink>[0] = {}) => {
  const s = new KafkaSink({ kafka: kafkaOf(fx.cluster, 'sink'), ...options });
  sinks.push(s);
  return s;
};
const simple = (groupId: string): SinkContext => ({
  groupInstanceId: null, groupMetadata: (): GroupMetadata => ({ groupId, generationId: -1, memberId: '', groupInstanceId: null }),
  generationLost: () => undefined,
});
const batch = (topic: string, expected: bigint, next: bigint, outputs: OutputRecord[]): SinkBatch => ({
  topic, partition: 0, expectedOffset: expected, nextOffset: next, records: [], outputs,
});

test('a Produce that failed on one partition but succeeded on another must not make the next transaction a "duplicate"', async () => {
  fx.cluster.createTopic('bin', 1);
  fx.cluster.createTopic('bout', 2);
  const sink = sinkOf({ transactionTimeoutMs: 5000 });
  const ctx = simple('bg');
  await sink.open('bg', [{ topic: 'bin', partition: 0 }], ctx);
  // Write 1: partition 0 gets a small record (appended), partition 1 a record above max.message.bytes (refused).
  const huge = 'x'.repeat(1_200_000);
  await expect(sink.write('bg', [batch('bin', -1n, 1n, [
    { topic: 'bout', partition: 0, key: 'k', value: 'first-attempt' },
    { topic: 'bout', partition: 1, key: 'k', value: huge },
  ])], ctx)).rejects.toThrow();
  // Write 2 of the same input (as after dead-lettering / a fixed handler): one record to partition 0.
  const r = await sink.write('bg', [batch('bin', -1n, 1n, [{ topic: 'bout', partition: 0, key: 'k', value: 'second-attempt' }])], ctx);
  expect(r.status).toBe('committed');
  const out = await outputOf(fx.cluster, 'bout');
  // The offsets of input 0 are committed, so its output must be visible read_committed.
  expect(fx.cluster.inspect.committedOffset('bg', 'bin', 0)).toBe(1);
  expect(out.map((o) => o.value?.toString())).toEqual(['second-attempt']);
});

test('odd header / key / value types are refused with KAFKA_OUTPUT_INVALID (a typed error), not a TypeError', async () => {
  fx.cluster.createTopic('hin', 1);
  fx.cluster.createTopic('hout', 1);
  const sink = sinkOf({ transactionTimeoutMs: 5000 });
  const ctx = simple('hg');
  await sink.open('hg', [{ topic: 'hin', partition: 0 }], ctx);
  const bad: OutputRecord[][] = [
    [{ topic: 'hout', value: 'v', headers: { n: 42 as never } }],
    [{ topic: 'hout', value: 'v', headers: { arr: ['a', 'b'] as never } }],
    [{ topic: 'hout', key: 7 as never, value: 'v' }],
    [{ topic: 'hout', value: { a: 1 } as never }],
  ];
  const codes: unknown[] = [];
  for (const outputs of bad) {
    codes.push(await sink.write('hg', [batch('hin', -1n, 1n, outputs)], ctx).then(() => 'committed', (e) => `${e.code}: ${e.message}`));
  }
  expect(codes.map((c) => String(c).split(':')[0])).toEqual(Array(bad.length).fill('KAFKA_OUTPUT_INVALID'));
});

test('consumer level: an output above max.message.bytes for one input record, poisonPolicy dead-letter: every other output exactly once',
  async () => {
  fx.cluster.createTopic('pin', 1);
  fx.cluster.createTopic('pout', 2);
  fx.cluster.createTopic('pin.dlq', 1);
  await produce(kafkaOf(fx.cluster), 'pin', 0, range(0, 10).map(String));
  const errors: string[] = [];
  const c = consumerOn(fx.cluster, {
    groupId: 'pg', topics: ['pin'], delivery: 'exactly-once', sink: sinkOf({ transactionTimeoutMs: 5000 }), poisonPolicy: 'dead-letter',
    recordHandler: (r) => [
      { topic: 'pout', partition: 0, key: `0:${r.offset}`, value: 'small' },
      { topic: 'pout', partition: 1, key: `1:${r.offset}`, value: r.value?.toString() === '3' ? 'x'.repeat(1_200_000) : 'small' },
    ],
  }, fx.consumers);
  c.on?.('error', (e: Error) => errors.push(String(e)));
  await c.start().catch((e: Error) => errors.push(String(e)));
  await until(() => fx.cluster.inspect.committedOffset('pg', 'pin', 0) === 10, 'every record committed', 20000)
    .catch((e: Error) => errors.push(String(e)));
  const out = await outputOf(fx.cluster, 'pout');
  console.log('errors', errors, 'committed', fx.cluster.inspect.committedOffset('pg', 'pin', 0), 'metrics', c.metrics());
  const expected = range(0, 10).flatMap((o) => (o === 3 ? [] : [`0:${o}`, `1:${o}`]));
  expectExactlyOnce(out, expected);
});

test('a fenced zombie whose own transaction is older than its timeout must not fence the live instance that fenced it', async () => {

  fx.cluster.createTopic('zin', 1);
  fx.cluster.createTopic('zout', 1);
  const ctx = simple('zg');
  const zombie = sinkOf({ transactionalId: 'tx-pp', transactionTimeoutMs: 1000 });
  const live = sinkOf({ transactionalId: 'tx-pp', transactionTimeoutMs: 1000 });
  await zombie.open('zg', [{ topic: 'zin', partition: 0 }], ctx);
  // The zombie's TxnOffsetCommit is held up (a GC pause, SIGSTOP) for longer than its transaction timeout...
  fx.cluster.faults.delay({ apiKey: 'TxnOffsetCommit', ms: 1300, count: 1 });
  const zombieWrite = zombie.write('zg', [batch('zin', -1n, 1n, [{ topic: 'zout', key: 'zombie', value: 'z' }])], ctx)
    .then(() => 'committed', (e) => e.code);
  await sleep(200);
  // ...while a new instance with the same transactional id starts (a restarted member): its InitProducerId fences it.
  await live.open('zg', [{ topic: 'zin', partition: 0 }], ctx);
  const zombieResult = await zombieWrite;
  // Java: the zombie gets ProducerFencedException (fatal); the live producer carries on.
  const liveResult = await live.write('zg', [batch('zin', -1n, 1n, [{ topic: 'zout', key: 'live', value: 'l' }])], ctx)
    .then((r) => r.status, (e) => `${e.code}: ${e.message}`);
  console.log('zombie', zombieResult, zombie.producerState, zombie.producerIdentity, 'live', liveResult, live.producerIdentity);
  expect(liveResult).toBe('committed');
  expect(zombie.producerState).toBe('fenced');
});

test('KIP-848: STALE_MEMBER_EPOCH on TxnOffsetCommit (the member epoch moved during the write) aborts and is retried, not fatal',
  async () => {
  fx.cluster.createTopic('sin', 1);
  fx.cluster.createTopic('sout', 1);
  let epoch = 5;
  const ctx: SinkContext = {
    groupInstanceId: null, generationLost: () => undefined,
    groupMetadata: (): GroupMetadata => ({ groupId: 'sg', generationId: epoch, memberId: 'm-1', groupInstanceId: null }),
  };
  const sink = sinkOf({ transactionTimeoutMs: 5000 });
  await sink.open('sg', [{ topic: 'sin', partition: 0 }], ctx);
  // The coordinator bumped the member's epoch (a partition moved to another member) while the offsets were on their way.
  fx.cluster.faults.failNext({ apiKey: 'TxnOffsetCommit', errorCode: 'STALE_MEMBER_EPOCH' });
  const sending = sink.write('sg', [batch('sin', -1n, 1n, [{ topic: 'sout', key: 'k', value: 'v' }])], ctx).catch((e) => e);
  epoch = 6;
  const err = await sending;
  expect({ code: err.code, retriable: err.retriable }).toEqual({ code: 'KAFKA_TXN_ABORTED', retriable: true });
});

test('many tiny outputs (record overhead not counted by maxBatchBytes): all written, no MESSAGE_TOO_LARGE', async () => {
  fx.cluster.createTopic('tin', 1);
  fx.cluster.createTopic('tout', 2);
  const sink = sinkOf({ transactionTimeoutMs: 20000 });
  const ctx = simple('tg');
  await sink.open('tg', [{ topic: 'tin', partition: 0 }], ctx);
  const outputs: OutputRecord[] = range(0, 400_000).map((i) => ({ topic: 'tout', partition: i % 2, key: null, value: 'x' }));
  const r = await sink.write('tg', [batch('tin', -1n, 1n, outputs)], ctx).then((w) => w.status, (e) => `${e.code}: ${e.message}`);
  expect(r).toBe('committed');
  expect((await outputOf(fx.cluster, 'tout')).length).toBe(400_000);
});

test('null key and null value (tombstone), 0 outputs, and thousands of outputs per input', async () => {
  fx.cluster.createTopic('nin', 1);
  fx.cluster.createTopic('nout', 3);
  const sink = sinkOf({ transactionTimeoutMs: 20000 });
  const ctx = simple('ng');
  await sink.open('ng', [{ topic: 'nin', partition: 0 }], ctx);
  expect(await sink.write('ng', [batch('nin', -1n, 1n, [])], ctx)).toEqual({ status: 'committed' });
  expect(fx.cluster.inspect.committedOffset('ng', 'nin', 0)).toBe(1);
  const many: OutputRecord[] = range(0, 5000).map((i) => ({ topic: 'nout', key: `k${i}`, value: 'y'.repeat(300) }));
  many.push({ topic: 'nout', key: null, value: null }, { topic: 'nout', key: 'tomb', value: null, headers: { h: null as never } });
  expect(await sink.write('ng', [batch('nin', 1n, 2n, many)], ctx)).toEqual({ status: 'committed' });
  const out = await outputOf(fx.cluster, 'nout');
  expect(out.length).toBe(5002);
  expect(out.filter((o) => o.value === null).length).toBe(2);
});
