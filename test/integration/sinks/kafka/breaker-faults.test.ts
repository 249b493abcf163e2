/**
 * Breaker repros (branch kbreak), now the guarantees they check (fixed on branch kfix): a transient broker fault on
 * one output partition's leader, past retryTimeoutMs,
 * while the other output partition's Produce succeeded. The aborted transaction's sequences are not advanced, so
 * the next transaction's batch to the healthy partition reuses a sequence the leader already holds: it is
 * answered as a duplicate and its records are silently not written, though the offsets commit. Kafka's Java
 * producer bumps the epoch after an aborted transaction with failed batches (KIP-360), so no sequence is reused;
 * KafkaSink now does too. And an EndTxn commit of unknown outcome is sent again (same epoch) before anything else,
 * not settled by an InitProducerId that Kafka's coordinator would answer PRODUCER_FENCED.
 */
import { MockCluster } from '../../../../src/testing/mock-broker';
import type { GroupMetadata, SinkContext } from '../../../../src/sink-contract';
import type { OutputRecord, SinkBatch } from '../../../../src/records';
import { KafkaSink } from '../../../../src/sinks/kafka';
import { kafkaOf, useConsumerCluster } from '../../../consumer/helpers';
import { outputOf } from './helpers';

jest.setTimeout(60000);

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-kbfault-');
const sinks: KafkaSink[] = [];
afterEach(async () => {
  await Promise.allSettled(sinks.splice(0).map((s) => s.close()));
});
const simple = (groupId: string): SinkContext => ({
  groupInstanceId: null, groupMetadata: (): GroupMetadata => ({ groupId, generationId: -1, memberId: '', groupInstanceId: null }),
  generationLost: () => undefined,
});
const batch = (topic: string, expected: bigint, next: bigint, outputs: OutputRecord[]): SinkBatch => ({
  topic, partition: 0, expectedOffset: expected, nextOffset: next, records: [], outputs,
});

test('NOT_LEADER_OR_FOLLOWER on one output partition past the retries: redone under a bumped epoch, nothing lost', async () => {
  fx.cluster.createTopic('fin', 1);
  fx.cluster.createTopic('fout', 3);
  const leaders = fx.cluster.inspect.partitions('fout').map((p) => p.leader);
  const [a, b] = [0, leaders.findIndex((l) => l !== leaders[0])];
  expect(b).toBeGreaterThan(0);
  const sink = new KafkaSink({ kafka: kafkaOf(fx.cluster, 'sink'), transactionTimeoutMs: 5000, retryTimeoutMs: 500 });
  sinks.push(sink);
  const ctx = simple('fg');
  await sink.open('fg', [{ topic: 'fin', partition: 0 }], ctx);
  // Partition b's leader refuses Produce for a while (a leader election that takes longer than retryTimeoutMs).
  const rule = fx.cluster.faults.failNext({ apiKey: 'Produce', errorCode: 'NOT_LEADER_OR_FOLLOWER', count: 1000, broker: leaders[b] });
  const out = (tag: string): OutputRecord[] => [
    { topic: 'fout', partition: a, key: `${tag}-a`, value: tag }, { topic: 'fout', partition: b, key: `${tag}-b`, value: tag },
  ];
  const epoch = sink.producerIdentity.producerEpoch;
  const first = await sink.write('fg', [batch('fin', -1n, 1n, out('try1'))], ctx).then(() => 'committed', (e) => e.code);
  expect(first).toBe('SINK_RETRIES_EXHAUSTED');
  rule.cancel();
  // The consumer re-reads the positions and writes the same input again (same outputs: a deterministic handler).
  expect(await sink.write('fg', [batch('fin', -1n, 1n, out('try2'))], ctx)).toEqual({ status: 'committed' });
  expect(fx.cluster.inspect.committedOffset('fg', 'fin', 0)).toBe(1);
  // KIP-360: the abort left sequences on partition a; the redo went out under the next epoch (sequences from 0).
  expect(sink.producerIdentity.producerEpoch).toBe(epoch + 1);
  expect(sink.transitions.some((t) => t.from === 'ready' && t.to === 'initializing')).toBe(true);
  const keys = (await outputOf(fx.cluster, 'fout')).map((r) => r.key?.toString()).sort();
  expect(keys).toEqual(['try2-a', 'try2-b']);
});

test('EndTxn commit of unknown outcome (coordinator unavailable past the retries) is sent again first on re-open', async () => {
  fx.cluster.createTopic('ein', 1);
  fx.cluster.createTopic('eout', 1);
  const sink = new KafkaSink({ kafka: kafkaOf(fx.cluster, 'sink'), transactionTimeoutMs: 5000, retryTimeoutMs: 400 });
  sinks.push(sink);
  const ctx = simple('eg');
  await sink.open('eg', [{ topic: 'ein', partition: 0 }], ctx);
  fx.cluster.faults.dropNext({ apiKey: 'EndTxn' });
  expect(await sink.write('eg', [batch('ein', -1n, 1n, [{ topic: 'eout', key: 'one', value: '1' }])], ctx))
    .toEqual({ status: 'committed' });
  const rule = fx.cluster.faults.failNext({ apiKey: 'EndTxn', errorCode: 'COORDINATOR_NOT_AVAILABLE', count: 1000 });
  const err = await sink.write('eg', [batch('ein', 1n, 2n, [{ topic: 'eout', key: 'two', value: '2' }])], ctx)
    .then(() => null, (e) => e.code);
  expect(err).toBe('SINK_RETRIES_EXHAUSTED');
  rule.cancel();
  const epoch = sink.producerIdentity.producerEpoch;
  const positions = await sink.open('eg', [{ topic: 'ein', partition: 0 }], ctx);
  // The commit was sent again with the same epoch and completed: nothing to redo, no InitProducerId, no fence.
  expect(sink.transitions.some((t) => t.from === 'uninitialized' && t.to === 'committing')).toBe(true);
  expect({ state: sink.producerState, epoch: sink.producerIdentity.producerEpoch }).toEqual({ state: 'ready', epoch });
  const at = positions.get('ein:0')!;
  expect(at).toBe(2n);
  const keys = (await outputOf(fx.cluster, 'eout')).map((r) => r.key?.toString());
  expect(keys).toEqual(['one', 'two']);
  expect(fx.cluster.inspect.committedOffset('eg', 'ein', 0)).toBe(2);
});

test('DUPLICATE_SEQUENCE_NUMBER on a first send is not "written": aborted (retriable), redone under a bumped epoch', async () => {
  fx.cluster.createTopic('din', 1);
  fx.cluster.createTopic('dout', 1);
  const sink = new KafkaSink({ kafka: kafkaOf(fx.cluster, 'sink'), transactionTimeoutMs: 5000, retryTimeoutMs: 500 });
  sinks.push(sink);
  const ctx = simple('dg');
  await sink.open('dg', [{ topic: 'din', partition: 0 }], ctx);
  const epoch = sink.producerIdentity.producerEpoch;
  // The leader answers the batch's first send as a duplicate of one it holds (a reused sequence): nothing was appended.
  fx.cluster.faults.failNext({ apiKey: 'Produce', errorCode: 'DUPLICATE_SEQUENCE_NUMBER' });
  const err = await sink.write('dg', [batch('din', -1n, 1n, [{ topic: 'dout', key: 'k', value: 'v' }])], ctx).catch((e) => e);
  expect({ code: err.code, retriable: err.retriable }).toEqual({ code: 'KAFKA_TXN_ABORTED', retriable: true });
  expect(fx.cluster.inspect.committedOffset('dg', 'din', 0)).not.toBe(1);
  expect(await sink.write('dg', [batch('din', -1n, 1n, [{ topic: 'dout', key: 'k', value: 'v' }])], ctx)).toEqual({ status: 'committed' });
  expect(sink.producerIdentity.producerEpoch).toBe(epoch + 1);
  expect((await outputOf(fx.cluster, 'dout')).map((r) => r.key?.toString())).toEqual(['k']);
});
