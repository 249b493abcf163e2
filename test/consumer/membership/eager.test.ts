/**
 * The eager membership against the mock's classic coordinator, with fake hosts: every member revokes everything
 * before it rejoins, so a partition never has two owners; a heartbeat that finds the generation gone loses the
 * partitions (no revoke) and rejoins; FENCED_INSTANCE_ID (KIP-345) fails the membership.
 */
import { startCluster } from '../../../src/testing/mock-broker/testing';
import type { MockCluster } from '../../../src/testing/mock-broker';
import { rangeAssignor } from '../../../src/consumer/membership/assignors';
import { EagerMembership } from '../../../src/consumer/membership/eager';
import type { KafkaTransport } from '../../../src/consumer/kafka/transport';
import { FencedInstanceIdError } from '../../../src/consumer/errors';
import { until } from '../helpers';
import { FakeHost, Owners, transportOn } from './helpers';

describe('EagerMembership', () => {
  let cluster: MockCluster;
  const transports: KafkaTransport[] = [];
  const members: EagerMembership[] = [];
  beforeAll(async () => { cluster = await startCluster({ group: { initialRebalanceDelayMs: 0 } }); });
  afterEach(async () => {
    await Promise.all(members.splice(0).map((m) => m.stop(true)));
    await Promise.all(transports.splice(0).map((t) => t.disconnect()));
  });
  afterAll(() => cluster.stop());

  async function member(host: FakeHost, groupId: string, topic: string, instanceId: string | null = null): Promise<EagerMembership> {
    const transport = await transportOn(cluster);
    transports.push(transport);
    const m = new EagerMembership(host, {
      transport, groupId, groupInstanceId: instanceId, sessionTimeoutMs: 6000, rebalanceTimeoutMs: 5000, heartbeatIntervalMs: 100,
      topics: async () => [topic], assignors: [rangeAssignor()],
    });
    members.push(m);
    return m;
  }

  test('a joining member: every member revokes everything before the JoinGroup, then takes its share', async () => {
    cluster.createTopic('eager', 4);
    const owners = new Owners();
    const a = new FakeHost('a', owners);
    const b = new FakeHost('b', owners);
    const ma = await member(a, 'eager-g', 'eager');
    await ma.start();
    await (await member(b, 'eager-g', 'eager')).start();
    await until(() => a.owned().length === 2 && b.owned().length === 2 && ma.state === 'stable', '2 and 2');
    expect(a.revoked.map((r) => r.length)).toEqual([4]);
    expect(owners.violations).toEqual([]);
    expect(ma.history.map((t) => t.to)).toEqual(['joining', 'syncing', 'assigning', 'stable', 'revoking', 'joining',
      'syncing', 'assigning', 'stable']);
  });

  test('UNKNOWN_MEMBER_ID on a heartbeat: the partitions are lost, not revoked; the member joins again as a new member', async () => {
    cluster.createTopic('eager-lost', 2);
    const host = new FakeHost('l', new Owners());
    const m = await member(host, 'eager-lost-g', 'eager-lost');
    await m.start();
    await until(() => host.owned().length === 2, 'both');
    const firstId = m.memberId;
    cluster.faults.failNext({ apiKey: 'Heartbeat', errorCode: 'UNKNOWN_MEMBER_ID', count: 1 });
    await until(() => host.lost.length === 1, 'the loss');
    await until(() => host.owned().length === 2 && m.state === 'stable', 'the partitions back', 20000);
    expect(host.revoked).toEqual([]);
    expect(m.memberId).not.toBe(firstId);
  });

  test('a second static member with the same instance id fences the first: FencedInstanceIdError, nothing more sent', async () => {
    cluster.createTopic('eager-static', 1);
    const first = new FakeHost('s1', new Owners());
    const m1 = await member(first, 'eager-static-g', 'eager-static', 'same');
    await m1.start();
    await (await member(new FakeHost('s2', new Owners()), 'eager-static-g', 'eager-static', 'same')).start();
    await until(() => first.failure !== null, 'the fencing');
    expect(first.failure).toBeInstanceOf(FencedInstanceIdError);
    expect(m1.state).toBe('failed');
    expect(m1.commitIdentity()).toBeNull();
  });
});
