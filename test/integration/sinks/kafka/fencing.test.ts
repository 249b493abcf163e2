/**
 * KafkaSink's fencing against the mock, one error at a time, at the sink's own level (the consumer's reaction is
 * in consumer.test.ts): the group coordinator refuses a zombie member's TxnOffsetCommit (ILLEGAL_GENERATION,
 * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) and its transaction aborts; a producer fenced by epoch (PRODUCER_FENCED,
 * INVALID_PRODUCER_EPOCH) never commits; a producer fenced by its own transaction timeout re-initialises; a
 * partition lost mid-transaction aborts it; open() waits for a pending transactional offset (require_stable).
 */
import { MockCluster } from '../../../../src/testing/mock-broker';
import { GroupConsumer } from '../../../../src/consumer/group-consumer';
import { KafkaTransport } from '../../../../src/consumer/kafka/transport';
import { kafkaErrorOf } from '../../../../src/protocol/kafka-errors';
import type { GroupMetadata, SinkContext } from '../../../../src/sink-contract';
import type { SinkBatch } from '../../../../src/records';
import { KafkaSink } from '../../../../src/sinks/kafka';
import { TransactionalProducer } from '../../../../src/sinks/kafka/transactional-producer';
import { kafkaOf, produce, range, sleep, until, useConsumerCluster } from '../../../consumer/helpers';
import { outputOf } from './helpers';

jest.setTimeout(60000);

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-kfence-');
const sinks: KafkaSink[] = [];
afterEach(async () => {
  await Promise.allSettled(sinks.splice(0).map((s) => s.close()));
});
const sinkOf = (options: ConstructorParameters<typeof KafkaSink>[0] = {}) => {
  const s = new KafkaSink({ kafka: kafkaOf(fx.cluster, 'sink'), ...options });
  sinks.push(s);
  return s;
};

/** A context whose group metadata the test sets; `lost` collects generationLost calls. */
function contextOf(meta: GroupMetadata): SinkContext & { lost: Error[] } {
  const lost: Error[] = [];
  return { groupInstanceId: meta.groupInstanceId, groupMetadata: () => meta, generationLost: (e) => lost.push(e), lost };
}

const batch = (topic: string, expected: bigint, next: bigint, out: string, tag: string): SinkBatch => ({
  topic, partition: 0, expectedOffset: expected, nextOffset: next, records: [],
  outputs: [{ topic: out, key: tag, value: `${tag}-value` }],
});

/** A live static member of `groupId` (it consumes an empty topic), and the group's generation and member id. */
async function member(groupId: string, instanceId: string): Promise<{ consumer: GroupConsumer; meta: GroupMetadata }> {
  fx.cluster.createTopic(`${groupId}-idle`, 1);
  const consumer = new GroupConsumer({
    brokers: fx.cluster.bootstrap, groupId, groupInstanceId: instanceId, topics: [`${groupId}-idle`], delivery: 'at-least-once',
    handler: async () => undefined, sessionTimeoutMs: 6000, heartbeatIntervalMs: 100, maxWaitTimeMs: 100,
  });
  fx.consumers.push(consumer);
  await consumer.start();
  const g = fx.cluster.inspect.group(groupId)!;
  return { consumer, meta: { groupId, generationId: g.generationId, memberId: g.members[0].memberId, groupInstanceId: instanceId } };
}

const markers = (transactionalId: string) => fx.cluster.events.entries({ type: 'txn.markers-written' })
  .filter((e) => e.data.transactionalId === transactionalId).map((e) => e.data.result);

test('the current generation commits; a zombie generation (ILLEGAL_GENERATION) aborts, loses the generation, commits nothing', async () => {
  fx.cluster.createTopic('zg-in', 1);
  fx.cluster.createTopic('zg-out', 1);
  const { meta } = await member('zg', 'zg-1');
  const sink = sinkOf({ transactionalId: 'tx-zg' });
  const ok = contextOf(meta);
  expect(await sink.open('zg', [{ topic: 'zg-in', partition: 0 }], ok)).toEqual(new Map([['zg-in:0', -1n]]));
  expect(await sink.write('zg', [batch('zg-in', -1n, 5n, 'zg-out', 'first')], ok)).toEqual({ status: 'committed' });

  const zombie = contextOf({ ...meta, generationId: meta.generationId - 1 });
  const err = await sink.write('zg', [batch('zg-in', 5n, 9n, 'zg-out', 'zombie')], zombie).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'KAFKA_TXN_FAILED' });
  expect(kafkaErrorOf(err)?.name).toBe('ILLEGAL_GENERATION');
  expect(zombie.lost).toHaveLength(1);
  expect(markers('tx-zg')).toEqual(['COMMIT', 'ABORT']);
  expect(fx.cluster.inspect.committedOffset('zg', 'zg-in', 0)).toBe(5);
  expect((await outputOf(fx.cluster, 'zg-out')).map((r) => r.key?.toString())).toEqual(['first']);
  expect(sink.producerState).toBe('ready');
});

test('UNKNOWN_MEMBER_ID (a member the group no longer knows) aborts the transaction and loses the generation', async () => {
  fx.cluster.createTopic('um-in', 1);
  fx.cluster.createTopic('um-out', 1);
  const { meta } = await member('um', 'um-1');
  const sink = sinkOf({ transactionalId: 'tx-um' });
  const ghost = contextOf({ ...meta, memberId: 'ghost-member', groupInstanceId: null });
  await sink.open('um', [{ topic: 'um-in', partition: 0 }], ghost);
  const err = await sink.write('um', [batch('um-in', -1n, 3n, 'um-out', 'ghost')], ghost).catch((e: unknown) => e);
  expect(kafkaErrorOf(err)?.name).toBe('UNKNOWN_MEMBER_ID');
  expect(ghost.lost).toHaveLength(1);
  expect(markers('tx-um')).toEqual(['ABORT']);
  expect(fx.cluster.inspect.committedOffset('um', 'um-in', 0)).toBeUndefined();
  expect(await outputOf(fx.cluster, 'um-out')).toEqual([]);
});

test('FENCED_INSTANCE_ID (another member holds the static identity) aborts and fails: no generationLost, nothing visible', async () => {
  fx.cluster.createTopic('fi-in', 1);
  fx.cluster.createTopic('fi-out', 1);
  const { meta } = await member('fi', 'fi-1');
  const sink = sinkOf({ transactionalId: 'tx-fi' });
  const impostor = contextOf({ ...meta, memberId: 'an-older-incarnation' });
  await sink.open('fi', [{ topic: 'fi-in', partition: 0 }], impostor);
  const err = await sink.write('fi', [batch('fi-in', -1n, 3n, 'fi-out', 'impostor')], impostor).catch((e: unknown) => e);
  expect(kafkaErrorOf(err)?.name).toBe('FENCED_INSTANCE_ID');
  expect(err).toMatchObject({ code: 'KAFKA_TXN_FAILED', retriable: false });
  expect(impostor.lost).toEqual([]);
  expect(markers('tx-fi')).toEqual(['ABORT']);
  expect(await outputOf(fx.cluster, 'fi-out')).toEqual([]);
});

test('PRODUCER_FENCED: a second instance with the same transactional id fences the first, which never commits again', async () => {
  fx.cluster.createTopic('pf-in', 1);
  fx.cluster.createTopic('pf-out', 1);
  const simple = contextOf({ groupId: 'pf', generationId: -1, memberId: '', groupInstanceId: null });
  const first = sinkOf({ transactionalId: 'tx-dup' });
  const second = sinkOf({ transactionalId: 'tx-dup' });
  await first.open('pf', [{ topic: 'pf-in', partition: 0 }], simple);
  const epochOfFirst = first.producerIdentity.producerEpoch;
  await second.open('pf', [{ topic: 'pf-in', partition: 0 }], simple);
  expect(second.producerIdentity.producerEpoch).toBeGreaterThan(epochOfFirst);
  const err = await first.write('pf', [batch('pf-in', -1n, 4n, 'pf-out', 'old')], simple).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'KAFKA_PRODUCER_FENCED', retriable: false });
  expect(first.producerState).toBe('fenced');
  expect(await second.write('pf', [batch('pf-in', -1n, 4n, 'pf-out', 'new')], simple)).toEqual({ status: 'committed' });
  expect((await outputOf(fx.cluster, 'pf-out')).map((r) => r.key?.toString())).toEqual(['new']);
  expect(fx.cluster.inspect.committedOffset('pf', 'pf-in', 0)).toBe(4);
});

test('INVALID_PRODUCER_EPOCH on EndTxn: the transaction never commits (InitProducerId aborts it) and the sink fails fenced', async () => {
  fx.cluster.createTopic('ie-in', 1);
  fx.cluster.createTopic('ie-out', 1);
  const simple = contextOf({ groupId: 'ie', generationId: -1, memberId: '', groupInstanceId: null });
  const sink = sinkOf({ transactionalId: 'tx-ie' });
  await sink.open('ie', [{ topic: 'ie-in', partition: 0 }], simple);
  fx.cluster.faults.failNext({ apiKey: 'EndTxn', errorCode: 'INVALID_PRODUCER_EPOCH' });
  const err = await sink.write('ie', [batch('ie-in', -1n, 2n, 'ie-out', 'never')], simple).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'KAFKA_PRODUCER_FENCED' });
  expect(markers('tx-ie')).toEqual(['ABORT']);
  expect(await outputOf(fx.cluster, 'ie-out')).toEqual([]);
  expect(fx.cluster.inspect.committedOffset('ie', 'ie-in', 0)).toBeUndefined();
});

test('fenced by its own transaction timeout, generated transactional id: aborted by the coordinator, re-initialised, written again',
  async () => {
    fx.cluster.createTopic('to-in', 1);
    fx.cluster.createTopic('to-out', 1);
    const simple = contextOf({ groupId: 'to', generationId: -1, memberId: '', groupInstanceId: null });
    // No transactionalId, no group.instance.id: the per-process id, which no live replacement can hold.
    const sink = sinkOf({ transactionTimeoutMs: 400 });
    await sink.open('to', [{ topic: 'to-in', partition: 0 }], simple);
    const id = sink.transactionalId!;
    expect(id).toContain(`-${process.pid}-`);
    const before = sink.producerIdentity;
    fx.cluster.faults.delay({ apiKey: 'TxnOffsetCommit', ms: 900, count: 1 });
    const err = await sink.write('to', [batch('to-in', -1n, 6n, 'to-out', 'slow')], simple).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KAFKA_TXN_ABORTED', retriable: true });
    expect(sink.producerState).toBe('ready');
    expect(sink.producerIdentity.producerEpoch).toBeGreaterThan(before.producerEpoch + 1);
    expect(fx.cluster.events.entries({ type: 'txn.transition' })
      .some((e) => e.data.transactionalId === id && String(e.data.reason).includes('timeout'))).toBe(true);
    expect(await sink.write('to', [batch('to-in', -1n, 6n, 'to-out', 'again')], simple)).toEqual({ status: 'committed' });
    expect((await outputOf(fx.cluster, 'to-out')).map((r) => r.key?.toString())).toEqual(['again']);
  });

test('fenced by its own transaction timeout, explicit transactional id: fatal (KAFKA_PRODUCER_FENCED), as Java', async () => {
  fx.cluster.createTopic('tx-in', 1);
  fx.cluster.createTopic('tx-out', 1);
  const simple = contextOf({ groupId: 'tx', generationId: -1, memberId: '', groupInstanceId: null });
  const sink = sinkOf({ transactionalId: 'tx-to', transactionTimeoutMs: 400 });
  await sink.open('tx', [{ topic: 'tx-in', partition: 0 }], simple);
  const before = sink.producerIdentity;
  fx.cluster.faults.delay({ apiKey: 'TxnOffsetCommit', ms: 900, count: 1 });
  const err = await sink.write('tx', [batch('tx-in', -1n, 6n, 'tx-out', 'slow')], simple).catch((e: unknown) => e);
  // A live replacement may hold 'tx-to': initialising as a new instance could fence it.
  expect(err).toMatchObject({ code: 'KAFKA_PRODUCER_FENCED' });
  expect(sink.producerState).toBe('fenced');
  // Only the coordinator's own bump (the timeout): this producer bumped nothing.
  expect(fx.cluster.events.entries({ type: 'producer.id-allocated' })
    .filter((e) => e.data.transactionalId === 'tx-to').map((e) => e.data.producerEpoch)).toEqual([before.producerEpoch]);
  expect(markers('tx-to')).toEqual(['ABORT']);
});

test('a partition lost while its transaction is open: the transaction aborts instead of committing', async () => {
  fx.cluster.createTopic('lo-in', 1);
  fx.cluster.createTopic('lo-out', 1);
  const simple = contextOf({ groupId: 'lo', generationId: -1, memberId: '', groupInstanceId: null });
  const sink = sinkOf({ transactionalId: 'tx-lo' });
  await sink.open('lo', [{ topic: 'lo-in', partition: 0 }], simple);
  fx.cluster.faults.delay({ apiKey: 'TxnOffsetCommit', ms: 300, count: 1 });
  const writing = sink.write('lo', [batch('lo-in', -1n, 3n, 'lo-out', 'lost')], simple).catch((e: unknown) => e);
  await sleep(100);
  await sink.discard([{ topic: 'lo-in', partition: 0 }]);
  expect(await writing).toMatchObject({ code: 'KAFKA_TXN_ABORTED' });
  expect(markers('tx-lo')).toEqual(['ABORT']);
  expect(await outputOf(fx.cluster, 'lo-out')).toEqual([]);
  expect(fx.cluster.inspect.committedOffset('lo', 'lo-in', 0)).toBeUndefined();
});

test('open() reads with require_stable: it waits for a pending transactional offset commit instead of skipping it', async () => {
  fx.cluster.createTopic('rs-in', 1);
  await produce(kafkaOf(fx.cluster), 'rs-in', 0, range(0, 10).map(String));
  const transport = new KafkaTransport(kafkaOf(fx.cluster, 'other'));
  await transport.connect();
  const other = new TransactionalProducer(transport, {
    transactionalId: 'tx-rs-other', transactionTimeoutMs: 30000, retryTimeoutMs: 5000, requestTimeoutMs: 5000, maxBatchBytes: 100000,
  });
  try {
    await other.init();
    other.begin();
    const simple: GroupMetadata = { groupId: 'rs', generationId: -1, memberId: '', groupInstanceId: null };
    await other.sendOffsets(simple, [{ topic: 'rs-in', partition: 0, offset: 7n }]);
    const sink = sinkOf({ transactionalId: 'tx-rs' });
    let positions: Map<string, bigint> | undefined;
    const opening = sink.open('rs', [{ topic: 'rs-in', partition: 0 }], contextOf(simple))
      .then((p) => { positions = p; });
    await sleep(500);
    expect(positions).toBeUndefined(); // UNSTABLE_OFFSET_COMMIT, retried
    expect(fx.cluster.events.entries({ type: 'offsets.committed', groupId: 'rs' })).toEqual([]);
    await other.end(true);
    await opening;
    expect(positions).toEqual(new Map([['rs-in:0', 7n]]));
  } finally {
    other.close();
    await transport.disconnect();
  }
  await until(() => true, 'nothing');
});

test('static membership: a restarted member takes over its transactional id, and its InitProducerId aborts the open transaction',
  async () => {
  fx.cluster.createTopic('sm-in', 1);
  fx.cluster.createTopic('sm-out', 1);
  const meta: GroupMetadata = { groupId: 'sm', generationId: -1, memberId: '', groupInstanceId: 'sm-host-1' };
  const before = sinkOf({ transactionTimeoutMs: 60000 });
  await before.open('sm', [{ topic: 'sm-in', partition: 0 }], contextOf(meta));
  expect(before.transactionalId).toBe('kafka-eos-sm-sm-host-1');
  // The predecessor is stuck in its transaction (its TxnOffsetCommit held), as a process killed mid-write would be.
  fx.cluster.faults.delay({ apiKey: 'TxnOffsetCommit', ms: 3000, count: 1 });
  const stuck = before.write('sm', [batch('sm-in', -1n, 5n, 'sm-out', 'predecessor')], contextOf(meta)).catch((e: unknown) => e);
  await until(() => fx.cluster.inspect.transaction('kafka-eos-sm-sm-host-1')?.state === 'Ongoing', 'the open transaction');
  const started = Date.now();
  const after = sinkOf({ transactionTimeoutMs: 60000 });
  expect(await after.open('sm', [{ topic: 'sm-in', partition: 0 }], contextOf(meta))).toEqual(new Map([['sm-in:0', -1n]]));
  expect(Date.now() - started).toBeLessThan(2500); // not the predecessor's 60 s transaction timeout
  expect(after.transactionalId).toBe('kafka-eos-sm-sm-host-1');
  expect(markers('kafka-eos-sm-sm-host-1')).toEqual(['ABORT']);
  expect(await after.write('sm', [batch('sm-in', -1n, 5n, 'sm-out', 'successor')], contextOf(meta))).toEqual({ status: 'committed' });
  expect(await stuck).toMatchObject({ code: 'KAFKA_PRODUCER_FENCED' });
  expect((await outputOf(fx.cluster, 'sm-out')).map((r) => r.key?.toString())).toEqual(['successor']);
});
