/**
 * Issue 25's record handler fast path (a handler's result awaited only when it is a thenable; progress as the next
 * record's offset; the at-least-once commit timer) against the mock cluster: what a consumer whose record handler
 * returns its result (no promise) handles and commits when it stops, retries or goes idle.
 */
import { startCluster } from '../../../src/testing/mock-broker/testing';
import type { GroupConsumer } from '../../../src/consumer/group-consumer';
import type { GroupConsumerOptions } from '../../../src/consumer/options';
import { consumerOn, kafkaOf, produce, range, sleep, until, useConsumerCluster } from '../../consumer/helpers';
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

// Known gap (before issue 25 too): the interval is checked only when a record or batch finishes, so the last work of a
// partition that goes quiet stays uncommitted until the next batch, a revoke or stop(); Java's auto-commit commits it
// on the next poll, records or not. A crash then repeats it. The commit timer of issue 25 (ripe) could commit it.
test.failing('at-least-once: the work of a partition gone idle is committed within a few intervals (Java: on poll)', async () => {
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
  await sleep(1500);
  expect(fx.cluster.inspect.committedOffset(groupId, topic, 0)).toBe(10);
});
