/**
 * The group coordinator's broker stops (Apache Kafka moves the coordinator to another broker): the
 * offset commit due next must land on the new coordinator, retried with backoff, without waiting for
 * another batch and without failing the consumer. Java's consumer treats this as a coordinator change
 * (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, a dropped connection: find the coordinator, retry).
 * Before the fix, KafkaJS's OffsetManager kept asking for the stopped broker's node id ("Broker N not
 * found in the cached metadata", in KafkaJSNumberOfRetriesExceeded), which was not retriable: the
 * consumer failed with the processed records uncommitted.
 *
 * One case per delivery mode: at-least-once (the commit after processing), at-most-once (the commit
 * before processing), exactly-once (the monitoring commit of the sink's position). Waits are on
 * conditions with generous limits (a loaded CI machine), never on fixed delays.
 */
import * as net from 'node:net';
import { startCluster } from '../../../src/testing/mock-broker/testing';
import type { Delivery } from '../../../src/consumer/options';
import { ExactlyOnceSink, WriteResult } from '../../../src/sink-contract';
import { partitionKey, SinkBatch, TopicPartition } from '../../../src/records';
import { commitsOf, consumerOn, kafkaOf, produce, range, until, useConsumerCluster } from '../../consumer/helpers';

jest.setTimeout(180000);

/** An exactly-once sink in memory with the contract's compare-and-set on the stored position. */
class MemorySink implements ExactlyOnceSink {
  readonly positions = new Map<string, bigint>();
  readonly offsets: number[] = [];
  async open(_groupId: string, partitions: TopicPartition[]): Promise<Map<string, bigint>> {
    return new Map(partitions.map((tp) => [partitionKey(tp), this.positions.get(partitionKey(tp)) ?? -1n]));
  }
  async write(_groupId: string, batches: SinkBatch[]): Promise<WriteResult> {
    const fenced = batches.filter((b) => (this.positions.get(partitionKey(b)) ?? -1n) !== b.expectedOffset)
      .map((b) => ({ topic: b.topic, partition: b.partition, storedOffset: this.positions.get(partitionKey(b)) ?? -1n }));
    if (fenced.length > 0) return { status: 'fenced', fenced };
    for (const b of batches) {
      for (const r of b.records) this.offsets.push(Number(r.offset));
      this.positions.set(partitionKey(b), b.nextOffset);
    }
    return { status: 'committed' };
  }
  async close(): Promise<void> {}
}

describe('offset commits across a coordinator move (the coordinator\'s broker stopped)', () => {
  // Each case stops one broker of its own 3-broker cluster.
  const clusters = new Map<Delivery, ReturnType<typeof useConsumerCluster>>();
  for (const mode of ['at-least-once', 'at-most-once', 'exactly-once'] as Delivery[]) {
    clusters.set(mode, useConsumerCluster(() => startCluster({ brokers: 3 }), `kafka-eos-coordinator-${mode}-`));
  }

  test.each([
    ['an at-least-once commit survives the coordinator\'s broker stopping', 'at-least-once'],
    ['an at-most-once commit survives the coordinator\'s broker stopping', 'at-most-once'],
    ['an exactly-once monitoring commit survives the coordinator\'s broker stopping', 'exactly-once'],
  ] as [string, Delivery][])('%s', async (_name, mode) => {
    const fx = clusters.get(mode)!;
    const topic = `cf-${mode}`;
    const groupId = `${topic}-g`;
    // Three replicas: the partition's leader may be the stopped broker too; it fails over.
    fx.cluster.createTopic(topic, 1, 3);
    const kafka = kafkaOf(fx.cluster);
    const seen: number[] = [];
    const errors: Error[] = [];
    const sink = mode === 'exactly-once' ? new MemorySink() : undefined;
    const c = consumerOn(fx.cluster, {
      groupId, topics: [topic], delivery: mode, commitIntervalMs: 0, sink,
      recordHandler: async (r) => { seen.push(Number(r.offset)); },
    }, fx.consumers);
    c.on('error', (e) => errors.push(e));
    await c.start();
    await produce(kafka, topic, 0, range(0, 10).map(String));
    await until(() => fx.cluster.inspect.committedOffset(groupId, topic, 0) === 10, 'the first batch committed', 60000);

    const before = fx.cluster.inspect.coordinator(groupId);
    const generation = fx.cluster.inspect.group(groupId)!.generationId;
    await fx.cluster.stopBroker(before);
    const after = fx.cluster.inspect.coordinator(groupId);
    expect(after).not.toBe(before);
    // One more batch, and then none: its commit must land although no batch follows.
    await produce(kafka, topic, 0, range(10, 20).map(String));
    await until(() => fx.cluster.inspect.committedOffset(groupId, topic, 0) === 20, 'the second batch committed', 90000);
    // At-most-once commits before it processes: wait for the processing too.
    await until(() => seen.includes(19), 'the second batch processed', 30000);
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(c.state).toBe('running');
    expect(c.failure).toBeNull();
    expect([...new Set(seen)].sort((a, b) => a - b)).toEqual(range(0, 20));
    if (sink) expect(sink.offsets).toEqual(range(0, 20));
    // Committed offsets never went backwards, and 20 was accepted by the new coordinator (its broker is up).
    const commits = commitsOf(fx.cluster, groupId, topic);
    for (let i = 1; i < commits.length; i++) expect(commits[i] >= commits[i - 1]).toBe(true);
    expect(commits[commits.length - 1]).toBe(20n);
    expect(fx.cluster.faults.brokerStatus(after)).toBe('up');
    // As in Kafka, the group moved with its generation (no rejoin was needed for the commit) ...
    expect(fx.cluster.inspect.group(groupId)!.generationId).toBe(generation);
    // ... FindCoordinator, asked of a live broker, names the new coordinator ...
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { groups } = await admin.describeGroups([groupId]);
      expect(groups[0]).toMatchObject({ groupId, state: 'Stable' });
    } finally {
      await admin.disconnect();
    }
    // ... and the stopped broker refuses connections.
    const [host, port] = fx.cluster.bootstrap[before - 1].split(':');
    await expect(new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), host, () => { socket.destroy(); resolve('connected'); });
      socket.on('error', reject);
    })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
