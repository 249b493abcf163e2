/**
 * KIP-345 static membership under each group protocol, checked on the mock cluster's event log: classic (eager and
 * cooperative: JoinGroup v5+, no LeaveGroup on a restart-style stop, FENCED_INSTANCE_ID for the member replaced) and
 * KIP-848 (the instance id on every heartbeat, member epoch -2 on a restart-style stop, UNRELEASED_INSTANCE_ID for a
 * second process while the first is alive).
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { startCluster, waitForStableGroup } from '../../../src/testing/mock-broker/testing';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { FencedInstanceIdError } from '../../../src/consumer/errors';
import type { GroupConsumerOptions } from '../../../src/consumer/options';
import { consumerOn, kafkaOf, produce, stopAll, until } from '../../consumer/helpers';
import { FAST_CLUSTER, protocolOptions } from '../../consumer/protocols';

jest.setTimeout(90000);

describe.each(['eager', 'cooperative'] as const)('static membership (KIP-345), classic %s protocol', (protocol) => {
  let cluster: MockCluster;
  const consumers: GroupConsumer[] = [];
  beforeAll(async () => { cluster = await startCluster(); });
  afterEach(() => stopAll(consumers));
  afterAll(() => cluster.stop());
  const withProtocol = <T extends object>(o: T): T =>
    ({ ...(protocol === 'cooperative' ? { assignors: ['cooperative-sticky'] } : {}), ...o });

  test('groupInstanceId is sent on JoinGroup v5; a restart within the session timeout causes no rebalance and no LeaveGroup', async () => {
    const topic = `static-restart-${protocol}`;
    const groupId = `${topic}-g`;
    cluster.createTopic(topic, 4);
    const seen: string[] = [];
    const opts = (id: string) => withProtocol({
      groupId, topics: [topic], delivery: 'at-least-once' as const, groupInstanceId: id, sessionTimeoutMs: 20000,
      recordHandler: async (r: { value: Buffer | null }) => { seen.push(String(r.value)); },
    });
    const a = consumerOn(cluster, opts('instance-a'), consumers);
    const b = consumerOn(cluster, opts('instance-b'), consumers);
    await a.start();
    await b.start();
    const stable = await waitForStableGroup(cluster, groupId, { members: 2, allAssigned: [topic] });
    expect(stable.members.map((m) => m.groupInstanceId).sort()).toEqual(['instance-a', 'instance-b']);
    await until(() => a.assignment().length === 2 && b.assignment().length === 2, 'both members assigned');
    const before = a.assignment().map((tp) => tp.partition).sort();
    const generation = cluster.groups.group(groupId)!.generationId;

    const lastSeq = Math.max(...cluster.events.entries({ groupId }).map((e) => e.seq));
    await a.stop();
    // Restart-style stop of a static member: no LeaveGroup, the member stays in the group.
    expect(cluster.events.entries({ type: 'member.left', groupId })).toEqual([]);
    expect(cluster.groups.group(groupId)!.members).toHaveLength(2);

    const a2 = consumerOn(cluster, opts('instance-a'), consumers);
    await a2.start();
    await until(() => a2.assignment().length === 2, 'the restarted member to get its partitions back');
    expect(a2.assignment().map((tp) => tp.partition).sort()).toEqual(before);
    const replaced = cluster.events.entries({ type: 'member.replaced', groupId });
    expect(replaced).toHaveLength(1);
    expect(replaced[0].data).toMatchObject({ groupInstanceId: 'instance-a', rebalance: false });
    expect(cluster.groups.group(groupId)!.generationId).toBe(generation);
    expect(cluster.events.entries({ type: 'group.state', groupId }).filter((e) => e.seq > lastSeq)).toEqual([]);

    const kafka = kafkaOf(cluster);
    for (let p = 0; p < 4; p++) await produce(kafka, topic, p, [`after-${p}`]);
    await until(() => ['after-0', 'after-1', 'after-2', 'after-3'].every((v) => seen.includes(v)), 'records after the restart');
    // An explicit leaveGroup still leaves.
    await a2.stop({ leaveGroup: true });
    expect(cluster.events.entries({ type: 'member.left', groupId })).toHaveLength(1);
  });

  test('a second process with the same instance id fences the first, which stops with FencedInstanceIdError and sends no more commits',
    async () => {
    const topic = `static-fence-${protocol}`;
    const groupId = `${topic}-g`;
    cluster.createTopic(topic, 1);
    const errors: unknown[] = [];
    const lost: unknown[] = [];
    const first = consumerOn(cluster, withProtocol({
      groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0, groupInstanceId: 'same', sessionTimeoutMs: 20000,
      recordHandler: async () => undefined,
    }), consumers);
    first.on('error', (e) => errors.push(e));
    first.on('lost', (e) => lost.push(e));
    await first.start();
    await until(() => first.assignment().length === 1, 'first assigned');
    const firstMember = cluster.groups.group(groupId)!.members[0].memberId;

    const second = consumerOn(cluster, withProtocol({
      groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0, groupInstanceId: 'same', sessionTimeoutMs: 20000,
      recordHandler: async () => undefined,
    }), consumers);
    await second.start();
    await until(() => first.state === 'failed', 'the first consumer to fail');
    expect(errors.some((e) => e instanceof FencedInstanceIdError)).toBe(true);
    expect(first.failure).toBeInstanceOf(FencedInstanceIdError);
    expect(lost).toHaveLength(1);
    await first.stop();

    const kafka = kafkaOf(cluster);
    await produce(kafka, topic, 0, ['x', 'y']);
    await until(() => cluster.events.entries({ type: 'offsets.committed', groupId })
      .some((e) => (e.data.partitions as { offset: bigint }[])[0].offset === 2n), 'the second member to commit');
    // The fenced member never committed and never left or rejoined after being replaced.
    const fencedAt = cluster.events.entries({ type: 'member.replaced', groupId })[0].seq;
    const afterFence = cluster.events.entries({ groupId }).filter((e) => e.seq > fencedAt && e.data.memberId === firstMember);
    expect(afterFence).toEqual([]);
    expect(cluster.groups.group(groupId)!.members.map((m) => m.groupInstanceId)).toEqual(['same']);
    expect(second.state).toBe('running');
  });
});

describe('static membership, KIP-848 consumer protocol', () => {
  let cluster: MockCluster;
  const consumers: GroupConsumer[] = [];
  // A session long enough that a restart within it keeps the partitions.
  beforeAll(async () => { cluster = await startCluster({ group: { ...FAST_CLUSTER.group, consumerSessionTimeoutMs: 20000 } }); });
  afterEach(() => stopAll(consumers));
  afterAll(() => cluster.stop());
  const member = (groupId: string, topic: string, seen: string[] = []) => consumerOn(cluster, {
    ...protocolOptions('consumer'), groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0, groupInstanceId: 'instance-a',
    recordHandler: async (r) => { seen.push(String(r.value)); },
  } as Omit<GroupConsumerOptions, 'brokers'>, consumers);

  test('a restart-style stop leaves with epoch -2; the restarted process gets its partitions back with no new group epoch', async () => {
    const topic = 'static848-restart';
    const groupId = `${topic}-g`;
    cluster.createTopic(topic, 2);
    const seen: string[] = [];
    const a = member(groupId, topic, seen);
    await a.start();
    await until(() => a.assignment().length === 2, 'both partitions');
    const epoch = cluster.inspect.group(groupId)!.generationId;
    await a.stop();
    expect(cluster.events.entries({ type: 'member.left', groupId }).map((e) => e.data.memberEpoch)).toEqual([-2]);
    const a2 = member(groupId, topic, seen);
    await a2.start();
    await until(() => a2.assignment().length === 2, 'the partitions back');
    expect(cluster.events.entries({ type: 'member.replaced', groupId })).toHaveLength(1);
    expect(cluster.inspect.group(groupId)!.generationId).toBe(epoch);
    await produce(kafkaOf(cluster), topic, 1, ['after']);
    await until(() => seen.includes('after'), 'a record after the restart');
    await a2.stop({ leaveGroup: true });
    expect(cluster.events.entries({ type: 'member.left', groupId }).map((e) => e.data.memberEpoch)).toEqual([-2, -1]);
  });

  test('a second process with the instance id of a live member fails with UNRELEASED_INSTANCE_ID; the first goes on', async () => {
    const topic = 'static848-twice';
    const groupId = `${topic}-g`;
    cluster.createTopic(topic, 1);
    const first = member(groupId, topic);
    await first.start();
    await until(() => first.assignment().length === 1, 'the first member assigned');
    const second = member(groupId, topic);
    second.on('error', () => undefined);
    await expect(second.start()).rejects.toMatchObject({ type: 'UNRELEASED_INSTANCE_ID' });
    expect(second.state).toBe('failed');
    expect(first.state).toBe('running');
    expect(first.assignment()).toHaveLength(1);
  });
});
