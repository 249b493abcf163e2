/**
 * Static membership across OS processes: a second process started with the same
 * group.instance.id fences the first (KIP-345), which stops with FencedInstanceIdError and
 * sends nothing more; the group keeps one member under that instance id.
 */
import { ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { FencedInstanceIdError } from '../../../src/consumer/errors';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { consumerOn, kafkaOf, produce, stopAll, until } from '../../consumer/helpers';

jest.setTimeout(60000);
const MEMBER = path.join(__dirname, '..', '..', 'fixtures', 'static-member.js');

test('a second OS process with the same instance id fences the first, which sends nothing more', async () => {
  if (!existsSync(path.join(__dirname, '..', '..', '..', 'dist', 'index.js')))
    throw new Error('dist/ is missing: run npm run build (npm test does it)');
  const cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  const consumers: GroupConsumer[] = [];
  let child: ChildProcess | null = null;
  try {
    const topic = 'static-proc';
    const groupId = 'static-proc-g';
    cluster.createTopic(topic, 1);
    const first = consumerOn(cluster, { groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0,
      groupInstanceId: 'same', sessionTimeoutMs: 20000, recordHandler: async () => undefined }, consumers);
    const errors: unknown[] = [];
    first.on('error', (e) => errors.push(e));
    await first.start();
    await until(() => first.assignment().length === 1, 'the first member\'s assignment');
    const firstMember = cluster.groups.group(groupId)!.members[0].memberId;

    child = fork(MEMBER, [cluster.bootstrap.join(','), groupId, topic, 'same'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let childAssigned = 0;
    child.on('message', (m: { type: string; partitions?: number }) => { if (m.type === 'assigned') childAssigned = m.partitions ?? 0; });
    await until(() => childAssigned === 1, 'the second process\'s assignment');
    await until(() => first.state === 'failed', 'the first member to be fenced');
    expect(first.failure).toBeInstanceOf(FencedInstanceIdError);
    expect(errors.some((e) => e instanceof FencedInstanceIdError)).toBe(true);

    await produce(kafkaOf(cluster), topic, 0, ['a', 'b', 'c']);
    await until(() => cluster.events.entries({ type: 'offsets.committed', groupId })
      .some((e) => (e.data.partitions as { offset: bigint }[])[0].offset === 3n), 'the second process to commit');
    const fencedAt = cluster.events.entries({ type: 'member.replaced', groupId })[0].seq;
    expect(cluster.events.entries({ groupId }).filter((e) => e.seq > fencedAt && e.data.memberId === firstMember)).toEqual([]);
    expect(cluster.groups.group(groupId)!.members.map((m) => m.groupInstanceId)).toEqual(['same']);
  } finally {
    child?.kill('SIGKILL');
    await stopAll(consumers);
    await cluster.stop();
  }
});
