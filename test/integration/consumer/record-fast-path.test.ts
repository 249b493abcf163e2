/**
 * Issue 25's record handler fast path (a handler's result awaited only when it is a thenable; progress as the next
 * record's offset; the at-least-once commit timer) against the mock cluster: what a consumer whose record handler
 * returns its result (no promise) handles and commits when it stops, retries or goes idle.
 */
import * as path from 'node:path';
import { startCluster } from '../../../src/testing/mock-broker/testing';
import { SqlSink } from '../../../src/sinks/sql';
import type { GroupConsumer } from '../../../src/consumer/group-consumer';
import type { GroupConsumerOptions } from '../../../src/consumer/options';
import { commitsOf, consumerOn, kafkaOf, produce, range, sleep, until, useConsumerCluster } from '../../consumer/helpers';
import { protocolOptions } from '../../consumer/protocols';

jest.setTimeout(60000);

const fx = useConsumerCluster(() => startCluster({ brokers: 1 }), 'kafka-eos-record-fast-path-');
const on = (options: Omit<GroupConsumerOptions, 'brokers'>) =>
  consumerOn(fx.cluster, { ...protocolOptions('eager'), ...options } as Omit<GroupConsumerOptions, 'brokers'>, fx.consumers);

describe.each(['at-least-once', 'at-most-once'] as const)('a sync record handler under %s', (delivery) => {
  test('stop() called by a sync handler: the record in hand finishes, nothing after it is handled', async () => {
    const topic = `sync-stop-${delivery}`;
    const groupId = `${topic}-g`;
    fx.cluster.createTopic(topic, 1);
    await produce(kafkaOf(fx.cluster), topic, 0, range(0, 10).map(String));
    const seen: number[] = [];
    let c: GroupConsumer | null = null;
    c = on({
      groupId, topics: [topic], delivery, commitIntervalMs: 600000,
      recordHandler: (r) => {
        seen.push(Number(r.offset));
        if (r.offset === 3n) void c!.stop();
      },
    });
    await c.start();
    await until(() => c!.state === 'stopped', 'the stop');
    // As with an async handler (rebalance-regressions 6): stop() lets the record in hand finish, the rest waits.
    expect(seen).toEqual([0, 1, 2, 3]);
    if (delivery === 'at-least-once') {
      expect(fx.cluster.inspect.committedOffset(groupId, topic, 0)).toBe(4);
      const again: number[] = [];
      const d = on({ groupId, topics: [topic], delivery, recordHandler: (r) => { again.push(Number(r.offset)); } });
      await d.start();
      await until(() => again.includes(9), 'the rest');
      expect(again).toEqual(range(4, 10));
    }
  });
});

test('at-least-once, sync handler failing twice on record 5: nothing after 5 runs before its retry succeeds; all committed', async () => {
  const topic = 'sync-retry';
  const groupId = `${topic}-g`;
  fx.cluster.createTopic(topic, 1);
  await produce(kafkaOf(fx.cluster), topic, 0, range(0, 10).map(String));
  const seen: number[] = [];
  let failures = 0;
  const c = on({
    groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0, retry: { retries: 3, minTimeoutMs: 20 },
    recordHandler: (r) => {
      seen.push(Number(r.offset));
      if (r.offset === 5n && failures < 2) {
        failures += 1;
        throw new Error('transient');
      }
    },
  });
  await c.start();
  await until(() => fx.cluster.inspect.committedOffset(groupId, topic, 0) === 10, 'the commit of 10');
  expect(seen).toEqual([0, 1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 9]);
});

// Found by the breaker of issue 25 (a gap older than it): the interval was checked only when a record or batch
// finished, so the last work of a partition that went quiet stayed uncommitted until the next batch, a revoke or
// stop(); Java's auto-commit commits it on the next poll, records or not. The commit timer now commits it (commitIdle).
test('at-least-once: the work of a partition gone idle is committed within a few intervals (Java: on poll)', async () => {
  const topic = 'idle-commit';
  const groupId = `${topic}-g`;
  fx.cluster.createTopic(topic, 1);
  await produce(kafkaOf(fx.cluster), topic, 0, range(0, 10).map(String));
  const seen: number[] = [];
  const c = on({
    groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 300,
    recordHandler: async (r) => { seen.push(Number(r.offset)); await sleep(2); },
  });
  await c.start();
  await until(() => seen.length === 10, 'the batch');
  // No batch, revoke or stop follows: only the interval's timer can commit it (a deadline, not a fixed sleep: a loaded
  // machine delays timers; without the timer's commit it never comes).
  await until(() => fx.cluster.inspect.committedOffset(groupId, topic, 0) === 10, 'the idle commit', 10_000);
  expect(seen).toHaveLength(10);
});

test('offset gaps (aborted transaction, markers): a sync handler stopping before them commits the next record it needs', async () => {
  const topic = 'sync-gaps';
  const groupId = `${topic}-g`;
  fx.cluster.createTopic(topic, 1);
  const kafka = kafkaOf(fx.cluster);
  await produce(kafka, topic, 0, ['a0', 'a1', 'a2']); // offsets 0..2
  const tp = kafka.producer({ transactionalId: 'sync-gaps-tx', idempotent: true, maxInFlightRequests: 1 });
  await tp.connect();
  const aborted = await tp.transaction();
  await aborted.send({ topic, messages: ['x3', 'x4', 'x5'].map((value) => ({ partition: 0, value })) }); // 3..5, marker 6
  await aborted.abort();
  await produce(kafka, topic, 0, ['b7', 'b8']); // 7..8
  const committed = await tp.transaction();
  await committed.send({ topic, messages: ['c9', 'c10'].map((value) => ({ partition: 0, value })) }); // 9..10, marker 11
  await committed.commit();
  await tp.disconnect();

  const seen: string[] = [];
  let c: GroupConsumer | null = null;
  c = on({
    groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0,
    recordHandler: (r) => {
      seen.push(r.value!.toString());
      if (r.value!.toString() === 'a2') void c!.stop();
    },
  });
  await c.start();
  await until(() => c!.state === 'stopped', 'the stop');
  expect(seen).toEqual(['a0', 'a1', 'a2']);
  const first = fx.cluster.inspect.committedOffset(groupId, topic, 0)!;
  // 3..6 hold no record this group will read: 3 (Java's position after a2) and 7 both resume at b7.
  expect(first === 3 || first === 7).toBe(true);

  const rest: string[] = [];
  const d = on({
    groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 600000, poisonPolicy: 'skip',
    recordHandler: (r) => {
      rest.push(r.value!.toString());
      if (r.value!.toString() === 'c10') throw new Error('poison last record');
    },
  });
  await d.start();
  await until(() => rest.includes('c10'), 'the rest');
  await d.stop();
  expect(rest).toEqual(['b7', 'b8', 'c9', 'c10']);
  // The last record skipped, a commit marker after it: the position is past the marker, nothing left to re-read.
  expect(fx.cluster.inspect.committedOffset(groupId, topic, 0)).toBe(12);
});

describe('the at-least-once commit timer with a handler awaiting I/O', () => {
  test.each([
    [200, 'commits as the batch goes, every commit at a record boundary, never backwards'],
    [3_000_000_000, 'longer than setTimeout allows: no commit before stop()'],
  ])('commitIntervalMs %d: %s', async (commitIntervalMs) => {
    const topic = `timer-${commitIntervalMs}`;
    const groupId = `${topic}-g`;
    fx.cluster.createTopic(topic, 1);
    await produce(kafkaOf(fx.cluster), topic, 0, range(0, 150).map(String));
    const seen: number[] = [];
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const c = on({
      groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs,
      recordHandler: async (r) => { await sleep(5); seen.push(Number(r.offset)); },
    });
    try {
      await c.start();
      await until(() => seen.length === 150, 'the records', 30000);
      const during = commitsOf(fx.cluster, groupId, topic);
      await c.stop();
      const all = commitsOf(fx.cluster, groupId, topic);
      for (let i = 1; i < all.length; i++) expect(all[i]).toBeGreaterThanOrEqual(all[i - 1]);
      expect(all[all.length - 1]).toBe(150n);
      if (commitIntervalMs === 200) {
        // ~0.75 s of handling: at least two commits went out before the batch ended, each within what was handled.
        expect(during.filter((o) => o < 150n).length).toBeGreaterThanOrEqual(2);
      } else {
        expect(during).toEqual([]);
        expect(all).toEqual([150n]);
      }
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});

test('at-least-once: a slow partition\'s finished records are committed at the interval beside a busy fast one', async () => {
  const topic = 'timer-two-partitions';
  const groupId = `${topic}-g`;
  fx.cluster.createTopic(topic, 2);
  const kafka = kafkaOf(fx.cluster);
  await produce(kafka, topic, 0, range(0, 3000).map(String));
  await produce(kafka, topic, 1, range(0, 10).map(String));
  const slow: number[] = [];
  const c = on({
    // One long batch of partition 0 (Java: max.poll.records of 3000, or a long poll loop between commits).
    groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 200, maxBatchRecords: 5000,
    recordHandler: async (r) => {
      if (r.partition === 1) {
        await sleep(250);
        slow.push(Number(r.offset));
      } else {
        await sleep(1);
      }
    },
  });
  await c.start();
  await until(() => slow.length >= 6, 'six slow records', 30000);
  // Six records of partition 1 finished over ~1.5 s with a 200 ms interval: Java's auto-commit (every poll, all
  // partitions) would have committed most of them; a crash now should not repeat all six.
  expect(fx.cluster.inspect.committedOffset(groupId, topic, 1) ?? 0).toBeGreaterThanOrEqual(3);
});

test('exactly-once (SqlSink): stop() from a sync handler writes the handled prefix and its position, the rest on restart', async () => {
  const topic = 'sync-stop-eos';
  const groupId = `${topic}-g`;
  fx.cluster.createTopic(topic, 1);
  await produce(kafkaOf(fx.cluster), topic, 0, range(0, 10).map((id) => JSON.stringify({ id })));
  const sinkOf = () => new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(fx.dir, 'sync-stop-eos.sqlite') }, useNullAsDefault: true },
    table: 'rows', mode: 'insert', autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } },
  });
  const seen: number[] = [];
  const sink = sinkOf();
  let c: GroupConsumer | null = null;
  c = on({
    groupId, topics: [topic], delivery: 'exactly-once', sink,
    recordHandler: (r) => {
      seen.push(Number(r.offset));
      if (r.offset === 3n) void c!.stop();
    },
  });
  await c.start();
  await until(() => c!.state === 'stopped', 'the stop');
  expect(seen).toEqual([0, 1, 2, 3]);
  expect((await sink.offsets.read(groupId, [{ topic, partition: 0 }])).get(`${topic}:0`)).toBe(4n);
  await sink.close();

  const sink2 = sinkOf();
  const again: number[] = [];
  const d = on({
    groupId, topics: [topic], delivery: 'exactly-once', sink: sink2, recordHandler: (r) => { again.push(Number(r.offset)); },
  });
  await d.start();
  await until(() => again.includes(9), 'the rest');
  await d.stop();
  expect(again).toEqual(range(4, 10));
  const ids = (await sink2.knex('rows').select('id')).map((r: { id: number }) => Number(r.id)).sort((a, b) => a - b);
  await sink2.close();
  expect(ids).toEqual(range(0, 10));
});
