/**
 * Issue 21's "only what moves is touched", as a user sees it, under the three protocols: two exactly-once members own
 * 3 of 6 partitions each while records keep arriving; a third member joins.
 * - cooperative (KIP-429) and consumer (KIP-848): each old member's `revoked` names exactly one partition; nothing is
 *   lost; the partitions they keep are never re-opened in the sink (no position read again) and keep being handled
 *   while the group rebalances (batches of them are handled between the join and the end of the rebalance);
 * - eager, the baseline: each old member revokes all three.
 * Every record is in the sink exactly once at the end.
 */
import { startCluster } from '../../../src/testing/mock-broker/testing';
import type { MockCluster } from '../../../src/testing/mock-broker';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import type { GroupConsumerOptions } from '../../../src/consumer/options';
import type { ExactlyOnceSink, WriteResult } from '../../../src/sink-contract';
import { partitionKey, SinkBatch, TopicPartition } from '../../../src/records';
import { sleep, until } from '../../consumer/helpers';
import { FAST_CLUSTER, PROTOCOLS, protocolOptions } from '../../consumer/protocols';

jest.setTimeout(90000);

/** An exactly-once sink in memory (compare-and-set on the stored position) that counts open() per partition. */
class CountingSink implements ExactlyOnceSink {
  readonly positions = new Map<string, bigint>();
  readonly rows: string[] = [];
  readonly opens = new Map<string, number>();
  async open(_g: string, partitions: TopicPartition[]): Promise<Map<string, bigint>> {
    for (const tp of partitions) this.opens.set(partitionKey(tp), (this.opens.get(partitionKey(tp)) ?? 0) + 1);
    return new Map(partitions.map((tp) => [partitionKey(tp), this.positions.get(partitionKey(tp)) ?? -1n]));
  }
  async write(_g: string, batches: SinkBatch[]): Promise<WriteResult> {
    await sleep(2);
    const fenced = batches.filter((b) => (this.positions.get(partitionKey(b)) ?? -1n) !== b.expectedOffset)
      .map((b) => ({ topic: b.topic, partition: b.partition, storedOffset: this.positions.get(partitionKey(b)) ?? -1n }));
    if (fenced.length > 0) return { status: 'fenced', fenced };
    for (const b of batches) {
      for (const r of b.records) this.rows.push(`${r.partition}:${r.offset}`);
      this.positions.set(partitionKey(b), b.nextOffset);
    }
    return { status: 'committed' };
  }
  async close(): Promise<void> {}
}

describe.each(PROTOCOLS)('a third member joins a group of two, %s protocol', (protocol) => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster = await startCluster({ ...FAST_CLUSTER, group: { ...FAST_CLUSTER.group, initialRebalanceDelayMs: 0 } });
  });
  afterAll(() => cluster.stop());

  test(protocol === 'eager' ? 'baseline: each old member revokes all three partitions'
    : 'each old member revokes exactly one partition; the ones it keeps are not re-opened and keep being handled meanwhile', async () => {
    const topic = `join-${protocol}`;
    const groupId = `${topic}-g`;
    cluster.createTopic(topic, 6);
    const sink = new CountingSink();
    const revoked = new Map<string, TopicPartition[][]>();
    const lost: TopicPartition[][] = [];
    const handled: { member: string; tp: string; at: number }[] = [];
    const members: GroupConsumer[] = [];
    const member = (name: string) => {
      const c = new GroupConsumer({
        brokers: cluster.bootstrap, ...protocolOptions(protocol), clientId: name, groupId, topics: [topic], delivery: 'exactly-once', sink,
        commitToKafkaForMonitoring: false,
      } as GroupConsumerOptions);
      c.on('revoked', (e) => revoked.set(name, [...(revoked.get(name) ?? []), e.partitions]));
      c.on('lost', (e) => lost.push(e.partitions));
      c.on('batch', (b) => { if (b.records > 0) handled.push({ member: name, tp: `${b.topic}:${b.partition}`, at: Date.now() }); });
      members.push(c);
      return c;
    };
    let producing = true;
    let produced = 0;
    const producer = (async () => {
      while (producing) {
        for (let p = 0; p < 6; p++) cluster.append(topic, p, [{ value: `${p}-${produced}` }]);
        produced += 1;
        await sleep(10);
      }
    })();
    try {
      const a = member('a');
      const b = member('b');
      await a.start();
      await b.start();
      await until(() => a.assignment().length === 3 && b.assignment().length === 3, 'three partitions each');
      await until(() => handled.some((h) => h.member === 'b'), 'b handling');
      revoked.clear();
      const keptA = a.assignment().map(partitionKey);
      const keptB = b.assignment().map(partitionKey);
      const opensBefore = new Map(sink.opens);
      const joinedAt = Date.now();
      await member('c').start();
      await until(() => members.every((m) => m.assignment().length === 2), 'two partitions each', 30000);
      const settledAt = Date.now();
      producing = false;
      await producer;
      const oldRevoked = ['a', 'b'].map((m) => (revoked.get(m) ?? []).flat().map(partitionKey));
      if (protocol === 'eager') {
        expect(oldRevoked.map((r) => r.length)).toEqual([3, 3]);
        return;
      }
      expect(oldRevoked.map((r) => r.length)).toEqual([1, 1]);
      expect(lost).toEqual([]);
      const retained = [...keptA, ...keptB].filter((k) => !oldRevoked.flat().includes(k));
      expect(retained).toHaveLength(4);
      for (const k of retained) expect(sink.opens.get(k)).toBe(opensBefore.get(k));
      const during = handled.filter((h) => h.at > joinedAt && h.at < settledAt && retained.includes(h.tp) && h.member !== 'c');
      expect(new Set(during.map((h) => h.member))).toEqual(new Set(['a', 'b']));
      // Every record exactly once in the sink, once the members caught up.
      await until(() => sink.rows.length >= produced * 6, 'every record sunk', 30000);
      expect(new Set(sink.rows).size).toBe(sink.rows.length);
      expect(sink.rows.length).toBe(produced * 6);
    } finally {
      producing = false;
      await producer;
      await Promise.all(members.map((m) => m.stop()));
    }
  });
});
