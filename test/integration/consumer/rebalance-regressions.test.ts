/**
 * Issue 8, failures 1-6: each scenario (taken from public bug reports of KafkaJS, librdkafka,
 * alpakka-kafka, Kafka Connect) as a regression test against a mock cluster, under each group protocol
 * (eager, cooperative, consumer: issue 21). The KIP-848 session timeout is the cluster's.
 */
import * as path from 'node:path';
import { startCluster, waitForStableGroup } from '../../../src/testing/mock-broker/testing';
import type { GroupConsumer } from '../../../src/consumer/group-consumer';
import { SqlSink } from '../../../src/sinks/sql';
import type { GroupConsumerOptions } from '../../../src/consumer/options';
import { commitsOf, consumerOn, kafkaOf, produce, range, sleep, stopAll, until, useConsumerCluster, valueOf } from '../../consumer/helpers';
import { FAST_CLUSTER, PROTOCOLS, protocolOptions } from '../../consumer/protocols';

jest.setTimeout(90000);

function expectNeverBackwards(offsets: bigint[]): void {
  for (let i = 1; i < offsets.length; i++) {
    if (offsets[i] < offsets[i - 1]) throw new Error(`committed offset went backwards: ${offsets.join(' -> ')}`);
  }
}

describe.each(PROTOCOLS)('consumer regressions (issue 8), %s protocol', (protocol) => {
  const session = protocol === 'consumer' ? 2500 : 1500;
  const fx = useConsumerCluster(
    () => startCluster({ brokers: 1, group: { consumerSessionTimeoutMs: session, consumerHeartbeatIntervalMs: 100 } }),
    `kafka-eos-regressions-${protocol}-`,
  );
  const { consumers } = fx;
  const on = (options: Omit<GroupConsumerOptions, 'brokers'>, sessionTimeoutMs?: number) =>
    consumerOn(fx.cluster, { ...protocolOptions(protocol, sessionTimeoutMs), ...options } as Omit<GroupConsumerOptions, 'brokers'>,
      consumers);

  test('1. a partition that moves and comes back resumes from its last owner\'s committed offset; commits never go backwards', async () => {
    const topic = `returning-${protocol}`;
    const groupId = `${topic}-g`;
    fx.cluster.createTopic(topic, 2);
    const kafka = kafkaOf(fx.cluster);
    for (const p of [0, 1]) await produce(kafka, topic, p, range(0, 100).map(String));

    const seenA: { p: number; o: number }[] = [];
    const seenB: { p: number; o: number }[] = [];
    // A holds record 40 of each partition until the rebalance asks it to let go of that partition (its signal
    // aborts: it throws and the consumer seeks the partition back to 40 just before revoking it), or until B runs.
    const a = on({
      clientId: 'z-a', groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 600000, partitionsConsumedConcurrently: 2,
      recordHandler: async (r, { signal }) => {
        seenA.push({ p: r.partition, o: Number(r.offset) });
        if (r.offset === 40n && seenB.length === 0) {
          await until(() => signal.aborted || seenB.length > 0, 'a rebalance or B running', 60000);
          if (signal.aborted) throw new Error('abandoned: the partition is being revoked');
        }
      },
    });
    await a.start();
    await until(() => seenA.filter((x) => x.o === 40).length === 2, 'A to hold record 40 of both partitions');

    const b = on({
      clientId: 'a-b', groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0,
      recordHandler: async (r) => { seenB.push({ p: r.partition, o: Number(r.offset) }); },
    });
    await b.start();
    await until(() => b.assignment().length === 1 && seenB.some((x) => x.o === 99), 'B to take one partition and handle up to 99');
    const moved = b.assignment()[0].partition;
    await until(() => fx.cluster.inspect.committedOffset(groupId, topic, moved) === 100, 'B to commit 100');
    expect(seenB.find((x) => x.p === moved)?.o).toBe(40);

    // B leaves: the partition returns to A, which must resume at 100, not at its stale seek to 40.
    const returnedAt = seenA.length;
    await b.stop();
    await waitForStableGroup(fx.cluster, groupId, { members: 1, allAssigned: [topic] });
    await produce(kafka, topic, moved, range(100, 110).map(String));
    await until(() => seenA.some((x) => x.p === moved && x.o === 109), 'A to handle the new records');
    await a.stop();
    expect(seenA.slice(returnedAt).filter((x) => x.p === moved).map((x) => x.o)).toEqual(range(100, 110));
    expect(fx.cluster.inspect.committedOffset(groupId, topic, moved)).toBe(110);
    for (const p of [0, 1]) expectNeverBackwards(commitsOf(fx.cluster, groupId, topic, p));
  });

  test('2. a member whose session expired reports its partitions lost, rejoins and carries on: nothing lost', async () => {
    const topic = `expired-${protocol}`;
    const groupId = `${topic}-g`;
    fx.cluster.createTopic(topic, 1);
    const kafka = kafkaOf(fx.cluster);
    await produce(kafka, topic, 0, range(0, 10).map(String));
    const seen: number[] = [];
    const lost: unknown[] = [];
    let stalled = false;
    const c = on({
      groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0,
      recordHandler: async (r) => {
        if (r.offset === 5n && !stalled) {
          stalled = true;
          // The event loop is blocked past the session timeout: no heartbeat can go out.
          const end = Date.now() + session * 2;
          while (Date.now() < end) { /* stall */ }
        }
        seen.push(Number(r.offset));
      },
      onPartitionsLost: (partitions) => { lost.push(partitions); },
    }, session);
    const errors: unknown[] = [];
    c.on('error', (e) => errors.push(e));
    await c.start();
    await until(() => stalled, 'the stall');
    await until(() => fx.cluster.events.entries({ type: 'member.expired', groupId }).length > 0, 'the coordinator to expire the member');
    await produce(kafka, topic, 0, range(10, 15).map(String));
    await until(() => seen.includes(14), 'records after the rejoin', 45000);
    await until(() => fx.cluster.inspect.committedOffset(groupId, topic, 0) === 15, 'the commit of 15');
    expect(c.state).toBe('running');
    expect(c.failure).toBeNull();
    expect(lost).toEqual([[{ topic, partition: 0 }]]);
    // Nothing lost; at most the uncommitted work (record 5, whose commit was refused) repeats.
    expect([...new Set(seen)].sort((x, y) => x - y)).toEqual(range(0, 15));
    expect(seen.length - new Set(seen).size).toBeLessThanOrEqual(1);
    expectNeverBackwards(commitsOf(fx.cluster, groupId, topic));
  });

  test('4. heartbeats go on while onPartitionsAssigned runs longer than the session timeout: no expiry, no rebalance loop', async () => {
    const topic = `slow-listener-${protocol}`;
    const groupId = `${topic}-g`;
    fx.cluster.createTopic(topic, 1);
    await produce(kafkaOf(fx.cluster), topic, 0, ['a', 'b']);
    const seen: string[] = [];
    let listenerRuns = 0;
    const c = on({
      groupId, topics: [topic], delivery: 'at-least-once',
      onPartitionsAssigned: async () => { listenerRuns += 1; await sleep(session * 3); },
      recordHandler: async (r) => { seen.push(valueOf(r)); },
    }, session);
    await c.start();
    await until(() => seen.length === 2, 'records after the slow listener');
    expect(fx.cluster.events.entries({ type: 'member.expired', groupId })).toEqual([]);
    expect(fx.cluster.inspect.group(groupId)!.generationId).toBe(1);
    expect(listenerRuns).toBe(1);
  });

  test('5. stop() aborts the handler signal: the record in hand finishes, finished work is committed, stop resolves', async () => {
    const topic = `stop-aborts-${protocol}`;
    const groupId = `${topic}-g`;
    fx.cluster.createTopic(topic, 1);
    await produce(kafkaOf(fx.cluster), topic, 0, range(0, 200).map(String));
    const seen: number[] = [];
    let aborted = false;
    const c = on({
      groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 600000,
      recordHandler: async (r, { signal }) => {
        seen.push(Number(r.offset));
        await sleep(100);
        if (signal.aborted) aborted = true;
      },
    });
    await c.start();
    await until(() => seen.length >= 3, 'a few records');
    const t0 = Date.now();
    await c.stop();
    const stopMs = Date.now() - t0;
    expect(aborted).toBe(true);
    // The whole batch (200 records x 100 ms) would take 20 s; stop() waited for one record.
    expect(stopMs).toBeLessThan(5000);
    expect(seen.length).toBeLessThan(50);
    expect(fx.cluster.inspect.committedOffset(groupId, topic, 0)).toBe(Math.max(...seen) + 1);
  });

  test('6. a record whose handler returned is done even if the signal aborted meanwhile: not delivered again', async () => {
    const topic = `abort-after-success-${protocol}`;
    const groupId = `${topic}-g`;
    fx.cluster.createTopic(topic, 1);
    await produce(kafkaOf(fx.cluster), topic, 0, range(0, 10).map(String));
    const seen: number[] = [];
    let c: GroupConsumer | null = null;
    c = on({
      groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 600000, retry: { retries: 2, minTimeoutMs: 10 },
      recordHandler: async (r) => {
        seen.push(Number(r.offset));
        if (r.offset === 3n) {
          void c!.stop(); // aborts the signal while this record is in hand
          await sleep(50);
        }
      },
    });
    await c.start();
    await until(() => c!.state === 'stopped', 'the stop');
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(fx.cluster.inspect.committedOffset(groupId, topic, 0)).toBe(4);

    const again: number[] = [];
    const d = on({ groupId, topics: [topic], delivery: 'at-least-once', recordHandler: async (r) => { again.push(Number(r.offset)); } });
    await d.start();
    await until(() => again.includes(9), 'the rest');
    expect(again).toEqual(range(4, 10));
  });
});

describe.each(PROTOCOLS)('consumer regressions (issue 8), 3 brokers, %s protocol', (protocol) => {
  const fx = useConsumerCluster(() => startCluster({ brokers: 3, ...FAST_CLUSTER }), `kafka-eos-regressions3-${protocol}-`);
  const { consumers } = fx;
  const on = (options: Omit<GroupConsumerOptions, 'brokers'>) =>
    consumerOn(fx.cluster, { ...protocolOptions(protocol), ...options } as Omit<GroupConsumerOptions, 'brokers'>, consumers);

  test('3. leader moves: ListOffsets answered NOT_LEADER_OR_FOLLOWER is retried with fresh metadata; exactly-once goes on', async () => {
    const topic = `leader-moves-${protocol}`;
    const groupId = `${topic}-g`;
    fx.cluster.createTopic(topic, 2);
    const sink = new SqlSink({
      knex: { client: 'sqlite3', connection: { filename: path.join(fx.dir, 'leader.sqlite') }, useNullAsDefault: true },
      table: 'rows', mode: 'insert', autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } },
    });
    // Empty partitions: nothing is stored in the sink, so every assignment looks the start offset up.
    // Right after the sink is opened, the next ListOffsets requests (the consumer's own lookups)
    // are answered as a broker that just lost leadership answers them.
    const open = sink.open.bind(sink);
    let faulted = 0;
    sink.open = async (...args) => {
      const stored = await open(...args);
      faulted += fx.cluster.faults.failNext({ apiKey: 'ListOffsets', errorCode: 'NOT_LEADER_OR_FOLLOWER', count: 2 }).remaining;
      return stored;
    };
    const c1 = on({ clientId: 'c1', groupId, topics: [topic], delivery: 'exactly-once', sink });
    await c1.start();
    await waitForStableGroup(fx.cluster, groupId, { members: 1, allAssigned: [topic] });
    // The leaders move; c1's clients still have the old metadata.
    for (const p of [0, 1]) {
      const leader = fx.cluster.inspect.partitions(topic).find((x) => x.partition === p)!.leader;
      fx.cluster.moveLeader(topic, p, (leader % 3) + 1);
    }
    const c2 = on({ clientId: 'c2', groupId, topics: [topic], delivery: 'exactly-once', sink });
    await c2.start();
    await waitForStableGroup(fx.cluster, groupId, { members: 2, allAssigned: [topic], afterGeneration: 1 });
    await until(() => c1.assignment().length === 1 && c2.assignment().length === 1, 'one partition each');
    const kafka = kafkaOf(fx.cluster);
    await produce(kafka, topic, 0, range(0, 5).map((id) => JSON.stringify({ id })));
    await produce(kafka, topic, 1, range(5, 10).map((id) => JSON.stringify({ id })));
    const committed = (p: number) => fx.cluster.inspect.committedOffset(groupId, topic, p);
    await until(() => committed(0) === 5 && committed(1) === 5, 'both partitions written');
    expect(faulted).toBeGreaterThanOrEqual(4);
    expect(fx.cluster.events.entries({ type: 'fault.error' }).length).toBeGreaterThanOrEqual(4);
    expect([c1.state, c2.state]).toEqual(['running', 'running']);
    expect([c1.failure, c2.failure]).toEqual([null, null]);
    await stopAll(consumers);
    await sink.close();
  });
});
