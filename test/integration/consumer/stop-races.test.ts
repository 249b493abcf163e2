/**
 * stop() racing start() and a rebalance (found by the crash test under load: a demo worker stopped while it
 * was joining reported "Topic metadata not loaded" and the demo failed a run whose data was exact).
 * - stop() right after start(): both settle, and no KafkaJS client created after stop() joins the group.
 * - stop() of every member while a newcomer's join rebalances the group: no `error` event (KafkaJS's join
 *   meeting our own disconnect is not a failure), no restart, and every member leaves (KafkaJS alone skips
 *   LeaveGroup when stopped during its first join, leaving the member to expire a session timeout later).
 */
import { startCluster } from '../../../src/testing/mock-broker/testing';
import type { GroupConsumer } from '../../../src/consumer/group-consumer';
import { consumerOn, sleep, stopAll, useConsumerCluster } from '../../consumer/helpers';

jest.setTimeout(120000);

/** Resolves with 'settled' or 'pending' after `ms`. */
const settledWithin = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => 'settled', () => 'settled'), sleep(ms).then(() => 'pending')]);

describe('stop() racing start() and a rebalance', () => {
  const fx = useConsumerCluster(() => startCluster({ brokers: 3, group: { initialRebalanceDelayMs: 0 } }), 'kafka-eos-stop-races-');
  const { consumers } = fx;
  const errors: string[] = [];
  const member = (groupId: string, clientId: string): GroupConsumer => {
    const c = consumerOn(fx.cluster, {
      clientId, groupId, topics: ['races'], delivery: 'at-least-once', handler: async () => undefined,
      sessionTimeoutMs: 3000, heartbeatIntervalMs: 250, maxWaitTimeMs: 100,
    }, consumers);
    c.on('error', (e) => errors.push(`${clientId} (${c.state}): ${e.message}`));
    return c;
  };

  beforeAll(() => { fx.cluster.createTopic('races', 6, 3); });
  beforeEach(() => { errors.length = 0; });
  afterEach(() => stopAll(consumers));

  test.each([0, 1, 20, 80])('stop() %i ms after start(): both settle and no member is left in the group', async (delayMs) => {
    const groupId = `stop-during-start-${delayMs}`;
    const c = member(groupId, `early-${delayMs}`);
    const started = c.start();
    await sleep(delayMs);
    const stopped = c.stop();
    expect(await settledWithin(started, 20000)).toBe('settled');
    expect(await settledWithin(stopped, 20000)).toBe('settled');
    expect(c.state).toBe('stopped');
    // KafkaJS restarts a crashed consumer after its retry time (300 ms by default): wait well past it.
    await sleep(2500);
    expect(fx.cluster.inspect.group(groupId)?.members ?? []).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('stopping every member while a newcomer joins emits no error and leaves the group empty', async () => {
    // Six rounds at spread delays: in the failing version about one round in two reported an error.
    for (const [round, delayMs] of [0, 30, 60, 120, 200, 300].entries()) {
      const groupId = `stop-during-rebalance-${round}`;
      const first = [member(groupId, `r${round}-a`), member(groupId, `r${round}-b`)];
      await Promise.all(first.map((c) => c.start()));
      const late = member(groupId, `r${round}-late`);
      const lateStarted = late.start();
      await sleep(delayMs);
      await Promise.all([...first, late].map((c) => c.stop()));
      expect(await settledWithin(lateStarted, 20000)).toBe('settled');
      // stop() has sent LeaveGroup (the session timeout, 3 s, has not passed); nothing rejoins after it.
      await sleep(1000);
      expect({ round, members: fx.cluster.inspect.group(groupId)?.members ?? [] }).toEqual({ round, members: [] });
    }
    expect(errors).toEqual([]);
  });
});
