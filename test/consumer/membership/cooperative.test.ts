/**
 * The cooperative membership (KIP-429) against the mock's classic coordinator, with fake hosts: a joining member
 * takes exactly one partition from each of two members; the old members revoke only that one, lose nothing, keep the
 * others throughout, and the new member gets them only in the follow-up rebalance (never two owners at once).
 */
import { startCluster } from '../../../src/testing/mock-broker/testing';
import type { MockCluster } from '../../../src/testing/mock-broker';
import { cooperativeStickyAssignor } from '../../../src/consumer/membership/assignors';
import { CooperativeMembership } from '../../../src/consumer/membership/cooperative';
import type { KafkaTransport } from '../../../src/consumer/kafka/transport';
import { until } from '../helpers';
import { FakeHost, Owners, transportOn } from './helpers';

describe('CooperativeMembership', () => {
  let cluster: MockCluster;
  const transports: KafkaTransport[] = [];
  const members: CooperativeMembership[] = [];
  beforeAll(async () => { cluster = await startCluster({ group: { initialRebalanceDelayMs: 0 } }); });
  // Every member of a test stops after it: a fault armed by the next test must reach only that test's members.
  afterEach(async () => {
    await Promise.all(members.splice(0).map((m) => m.stop(true)));
    await Promise.all(transports.splice(0).map((t) => t.disconnect()));
  });
  afterAll(() => cluster.stop());

  async function member(host: FakeHost, groupId: string, topic: string, heartbeatIntervalMs = 100): Promise<CooperativeMembership> {
    const transport = await transportOn(cluster);
    transports.push(transport);
    const m = new CooperativeMembership(host, {
      transport, groupId, groupInstanceId: null, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 5000, heartbeatIntervalMs,
      topics: async () => [topic], assignors: [cooperativeStickyAssignor()],
    });
    members.push(m);
    return m;
  }

  test('a joining member takes one partition from each of two; they revoke only that one, the follow-up gives them out', async () => {
    cluster.createTopic('coop', 6);
    const owners = new Owners();
    const a = new FakeHost('a', owners);
    const b = new FakeHost('b', owners);
    await (await member(a, 'coop-g', 'coop')).start();
    await (await member(b, 'coop-g', 'coop')).start();
    await until(() => a.owned().length === 3 && b.owned().length === 3, '3 and 3');
    const aBefore = a.partitions();
    const bBefore = b.partitions();
    const c = new FakeHost('c', owners);
    const mc = await member(c, 'coop-g', 'coop');
    await mc.start();
    await until(() => c.owned().length === 2 && a.owned().length === 2 && b.owned().length === 2, '2, 2 and 2');
    expect(a.revoked.slice(-1)[0]).toHaveLength(1);
    expect(b.revoked.slice(-1)[0]).toHaveLength(1);
    expect(a.revoked.length + b.revoked.length).toBe(3); // b's 3 partitions came from a's first 6; then one each
    expect([...a.lost, ...b.lost, ...c.lost]).toEqual([]);
    expect(a.partitions().every((p) => aBefore.includes(p))).toBe(true);
    expect(b.partitions().every((p) => bBefore.includes(p))).toBe(true);
    expect(owners.violations).toEqual([]);
    const states = mc.history.map((t) => t.to);
    expect(states).toEqual(expect.arrayContaining(['joining', 'syncing', 'reconciling', 'stable']));
  });

  test('the follow-up rebalance is seen at once: withheld partitions reach the newcomer well within one heartbeat interval', async () => {
    cluster.createTopic('coop-quick', 4);
    const owners = new Owners();
    const a = new FakeHost('a', owners);
    const b = new FakeHost('b', owners);
    await (await member(a, 'coop-quick-g', 'coop-quick', 3000)).start();
    await (await member(b, 'coop-quick-g', 'coop-quick', 3000)).start();
    await until(() => a.owned().length === 2 && b.owned().length === 2, '2 and 2', 20000);
    const c = new FakeHost('c', owners);
    const revokedBefore = a.revoked.length + b.revoked.length;
    await (await member(c, 'coop-quick-g', 'coop-quick', 3000)).start();
    await until(() => a.revoked.length + b.revoked.length > revokedBefore, 'a revocation', 20000);
    const revokedAt = Date.now();
    await until(() => c.owned().length > 0, 'the newcomer to get the revoked partitions', 20000);
    // Without the quick heartbeats after a round, the newcomer would see the follow-up at its next heartbeat (3 s).
    expect(Date.now() - revokedAt).toBeLessThan(1500);
    expect(owners.violations).toEqual([]);
  }, 60000);
});
