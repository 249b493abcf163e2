/** KIP-345 static membership through the KafkaJS 2.2.4 adapter, checked on the mock cluster's event log. */
import { MockCluster } from '../../../src/testing/mock-broker';
import { startCluster, waitForStableGroup } from '../../../src/testing/mock-broker/testing';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { FencedInstanceIdError } from '../../../src/consumer/errors';
import { consumerOn, kafkaOf, produce, stopAll, until } from '../../consumer/helpers';

jest.setTimeout(90000);

describe('static membership (KIP-345)', () => {
  let cluster: MockCluster;
  const consumers: GroupConsumer[] = [];
  beforeAll(async () => { cluster = await startCluster(); });
  afterEach(() => stopAll(consumers));
  afterAll(() => cluster.stop());

  test('groupInstanceId is sent on JoinGroup v5; a restart within the session timeout causes no rebalance and no LeaveGroup', async () => {
    const topic = 'static-restart';
    const groupId = 'static-restart-g';
    cluster.createTopic(topic, 4);
    const seen: string[] = [];
    const opts = (id: string) => ({ groupId, topics: [topic], delivery: 'at-least-once' as const, groupInstanceId: id, sessionTimeoutMs: 20000, recordHandler: async (r: { value: Buffer | null }) => { seen.push(String(r.value)); } });
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

  test('a second process with the same instance id fences the first, which stops with FencedInstanceIdError and sends no more commits', async () => {
    const topic = 'static-fence';
    const groupId = 'static-fence-g';
    cluster.createTopic(topic, 1);
    const errors: unknown[] = [];
    const lost: unknown[] = [];
    const first = consumerOn(cluster, { groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0, groupInstanceId: 'same', sessionTimeoutMs: 20000, recordHandler: async () => undefined }, consumers);
    first.on('error', (e) => errors.push(e));
    first.on('lost', (e) => lost.push(e));
    await first.start();
    await until(() => first.assignment().length === 1, 'first assigned');
    const firstMember = cluster.groups.group(groupId)!.members[0].memberId;

    const second = consumerOn(cluster, { groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0, groupInstanceId: 'same', sessionTimeoutMs: 20000, recordHandler: async () => undefined }, consumers);
    await second.start();
    await until(() => first.state === 'failed', 'the first consumer to fail');
    expect(errors.some((e) => e instanceof FencedInstanceIdError)).toBe(true);
    expect(first.failure).toBeInstanceOf(FencedInstanceIdError);
    expect(lost).toHaveLength(1);
    await first.stop();

    const kafka = kafkaOf(cluster);
    await produce(kafka, topic, 0, ['x', 'y']);
    await until(() => cluster.events.entries({ type: 'offsets.committed', groupId }).some((e) => (e.data.partitions as { offset: bigint }[])[0].offset === 2n), 'the second member to commit');
    // The fenced member never committed and never left or rejoined after being replaced.
    const fencedAt = cluster.events.entries({ type: 'member.replaced', groupId })[0].seq;
    const afterFence = cluster.events.entries({ groupId }).filter((e) => e.seq > fencedAt && e.data.memberId === firstMember);
    expect(afterFence).toEqual([]);
    expect(cluster.groups.group(groupId)!.members.map((m) => m.groupInstanceId)).toEqual(['same']);
    expect(second.state).toBe('running');
  });
});
