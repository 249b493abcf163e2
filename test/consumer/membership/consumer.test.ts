/**
 * The KIP-848 membership against the mock's consumer-group coordinator, with fake hosts: a joining member takes one
 * partition from each of two (revoked by them, acknowledged, then given: never two owners at once); a fenced member
 * loses everything and rejoins at epoch 0; a static member that stops without leaving keeps its partitions.
 */
import { startCluster } from '../../../src/testing/mock-broker/testing';
import type { MockCluster } from '../../../src/testing/mock-broker';
import { ConsumerMembership } from '../../../src/consumer/membership/consumer';
import type { KafkaTransport } from '../../../src/consumer/kafka/transport';
import { until } from '../helpers';
import { FakeHost, Owners, transportOn } from './helpers';

describe('ConsumerMembership (KIP-848)', () => {
  let cluster: MockCluster;
  const transports: KafkaTransport[] = [];
  const members: ConsumerMembership[] = [];
  beforeAll(async () => {
    cluster = await startCluster({ group: { consumerHeartbeatIntervalMs: 100, consumerSessionTimeoutMs: 6000 } });
  });
  // Every member of a test stops after it: a fault armed by the next test must reach only that test's members.
  afterEach(async () => {
    await Promise.all(members.splice(0).map((m) => m.stop(true)));
    await Promise.all(transports.splice(0).map((t) => t.disconnect()));
  });
  afterAll(() => cluster.stop());

  async function member(host: FakeHost, groupId: string, topic: string, instanceId: string | null = null): Promise<ConsumerMembership> {
    const transport = await transportOn(cluster);
    transports.push(transport);
    const m = new ConsumerMembership(host, {
      transport, groupId, groupInstanceId: instanceId, rebalanceTimeoutMs: 5000, subscription: { names: [topic] }, serverAssignor: null,
    });
    members.push(m);
    return m;
  }

  test('a joining member takes one partition from each of two, after they revoked and acknowledged it', async () => {
    cluster.createTopic('k848', 6);
    const owners = new Owners();
    const a = new FakeHost('a', owners);
    const b = new FakeHost('b', owners);
    await (await member(a, 'k848-g', 'k848')).start();
    await (await member(b, 'k848-g', 'k848')).start();
    await until(() => a.owned().length === 3 && b.owned().length === 3, '3 and 3');
    const aBefore = a.partitions();
    const bBefore = b.partitions();
    const revokedBefore = [a.revoked.length, b.revoked.length];
    const c = new FakeHost('c', owners);
    const mc = await member(c, 'k848-g', 'k848');
    await mc.start();
    await until(() => c.owned().length === 2 && a.owned().length === 2 && b.owned().length === 2, '2, 2 and 2');
    expect(a.revoked.slice(revokedBefore[0]).map((r) => r.length)).toEqual([1]);
    expect(b.revoked.slice(revokedBefore[1]).map((r) => r.length)).toEqual([1]);
    expect(a.partitions().every((p) => aBefore.includes(p)) && b.partitions().every((p) => bBefore.includes(p))).toBe(true);
    expect([...a.lost, ...b.lost, ...c.lost]).toEqual([]);
    expect(owners.violations).toEqual([]);
    expect(mc.generation).toBeGreaterThan(0);
    expect(mc.history.map((t) => t.to)).toEqual(expect.arrayContaining(['joining', 'reconciling', 'acknowledging', 'stable']));
  });

  test('FENCED_MEMBER_EPOCH: every partition is lost (no revoke), the member rejoins at epoch 0 and is assigned again', async () => {
    cluster.createTopic('fence848', 2);
    const host = new FakeHost('f', new Owners());
    const m = await member(host, 'fence848-g', 'fence848');
    await m.start();
    await until(() => host.owned().length === 2, 'both partitions');
    const rule = cluster.faults.failNext({ apiKey: 'ConsumerGroupHeartbeat', errorCode: 'FENCED_MEMBER_EPOCH', count: 1 });
    await until(() => rule.hits === 1 && host.lost.length === 1, 'the fencing');
    expect(host.lost[0].map((tp) => tp.partition).sort()).toEqual([0, 1]);
    await until(() => host.owned().length === 2 && m.state === 'stable', 'the partitions back');
    expect(m.history.map((t) => t.to)).toEqual(expect.arrayContaining(['fenced', 'joining']));
    expect(host.failure).toBeNull();
  });

  test('a static member that stops without leaving (epoch -2) keeps its partitions for its return', async () => {
    cluster.createTopic('static848', 2);
    const host = new FakeHost('s', new Owners());
    const m = await member(host, 'static848-g', 'static848', 'instance-1');
    await m.start();
    await until(() => host.owned().length === 2, 'both partitions');
    await m.stop(false);
    const left = cluster.events.entries({ type: 'member.left', groupId: 'static848-g' });
    expect(left.map((e) => e.data.memberEpoch)).toEqual([-2]);
    const back = new FakeHost('s2', new Owners());
    await (await member(back, 'static848-g', 'static848', 'instance-1')).start();
    await until(() => back.owned().length === 2, 'the partitions back to the returning instance');
    expect(cluster.events.entries({ type: 'member.replaced', groupId: 'static848-g' })).toHaveLength(1);
  });
});
