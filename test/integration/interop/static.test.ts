/**
 * Static membership (KIP-345) with confluent-kafka (librdkafka 2.0.2): a consumer with
 * `group.instance.id` restarted within its session timeout gets its assignment back with no
 * rebalance. The mock's event log shows the member replaced and no new generation.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { run } from './helpers';

jest.setTimeout(180000);

const SCRIPT = `
import sys, json
from confluent_kafka import Consumer
bootstrap, topic, instance = sys.argv[1], sys.argv[2], sys.argv[3]
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'static-g', 'group.instance.id': instance,
              'session.timeout.ms': 20000, 'auto.offset.reset': 'earliest', 'enable.auto.commit': False,
              'broker.address.family': 'v4'})
c.subscribe([topic])
seen = 0
import time
deadline = time.time() + 60
while time.time() < deadline:
    m = c.poll(0.2)
    if m is not None and m.error() is None:
        seen += 1
    a = c.assignment()
    if a and (seen > 0 or sys.argv[4] == 'assignment-only'):
        break
print(json.dumps({'assignment': sorted([p.partition for p in c.assignment()]), 'seen': seen}), flush=True)
c.close()
`;

test('a static member restarted within the session timeout keeps its assignment with no rebalance', async () => {
  const cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0 } });
  try {
    cluster.createTopic('static-t', 3);
    for (let p = 0; p < 3; p++) cluster.append('static-t', p, [{ value: `v${p}` }]);
    const args = ['-c', SCRIPT, cluster.bootstrap.join(','), 'static-t', 'instance-1'];

    const first = await run('/usr/bin/python3', [...args, 'consume'], { timeoutMs: 90000 });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout.trim().split('\n').pop() as string).assignment).toEqual([0, 1, 2]);
    const group = cluster.groups.group('static-g');
    expect(group?.state).toBe('Stable'); // closed without LeaveGroup: a static member stays
    const generation = group?.generationId;
    const generationsBefore = cluster.events.entries({ type: 'group.generation', groupId: 'static-g' }).length;

    const second = await run('/usr/bin/python3', [...args, 'assignment-only'], { timeoutMs: 90000 });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout.trim().split('\n').pop() as string).assignment).toEqual([0, 1, 2]);

    expect(cluster.events.entries({ type: 'group.generation', groupId: 'static-g' })).toHaveLength(generationsBefore);
    expect(cluster.groups.group('static-g')?.generationId).toBe(generation);
    const replaced = cluster.events.entries({ type: 'member.replaced', groupId: 'static-g' });
    expect(replaced).toHaveLength(1);
    expect(replaced[0].data).toMatchObject({ groupInstanceId: 'instance-1', rebalance: false });
  } finally {
    await cluster.stop();
  }
});
