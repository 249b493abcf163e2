/**
 * Interop: a group mixing this SDK's consumers with a kafka-python consumer (/usr/bin/python3,
 * module `kafka`) on the mock cluster agrees on `range` and `roundrobin`: every partition is
 * assigned to exactly one member and every record is consumed once.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { MockCluster } from '../../../src/testing/mock-broker';
import { startCluster, waitForStableGroup } from '../../../src/testing/mock-broker/testing';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { consumerOn, kafkaOf, produce, sleep, stopAll, until, valueOf } from '../../consumer/helpers';

jest.setTimeout(120000);

describe.each(['range', 'roundrobin'] as const)('interop with kafka-python: %s', (strategy) => {
  let cluster: MockCluster;
  let py: ChildProcess | null = null;
  const consumers: GroupConsumer[] = [];
  beforeAll(async () => { cluster = await startCluster(); });
  afterAll(async () => {
    await stopAll(consumers);
    py?.kill('SIGKILL');
    await cluster.stop();
  });

  test('every partition is assigned once and every record consumed once', async () => {
    const topic = `interop-${strategy}`;
    const groupId = `interop-${strategy}-g`;
    cluster.createTopic(topic, 7);
    const seen: { member: string; value: string }[] = [];
    let pyAssigned: number[] | null = null;
    py = spawn('/usr/bin/python3', [path.join(__dirname, 'consumer-python.py'), cluster.bootstrap.join(','), groupId, topic, strategy],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    readline.createInterface({ input: py.stdout! }).on('line', (line) => {
      const m = JSON.parse(line) as { assigned?: number[]; value?: string };
      if (m.assigned) pyAssigned = m.assigned;
      else seen.push({ member: 'py', value: m.value! });
    });
    await waitForStableGroup(cluster, groupId, { members: 1 });
    const sdk = ['sdk-a', 'sdk-b'].map((clientId) => consumerOn(cluster, {
      clientId, groupId, topics: [topic], delivery: 'at-least-once', assignors: [strategy],
      recordHandler: async (r) => { seen.push({ member: clientId, value: valueOf(r) }); },
    }, consumers));
    for (const c of sdk) await c.start();
    const stable = await waitForStableGroup(cluster, groupId, { members: 3, allAssigned: [topic] });
    expect(stable.protocolName).toBe(strategy);
    await until(() => sdk.every((c) => c.assignment().length > 0) && pyAssigned !== null && pyAssigned.length > 0 &&
      sdk.reduce((n, c) => n + c.assignment().length, 0) + pyAssigned.length === 7, 'all three members to hold their partitions');
    const all = [...sdk.flatMap((c) => c.assignment().map((tp) => tp.partition)), ...pyAssigned!].sort();
    expect(all).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // Both assignors balance 7 partitions over 3 members as 3, 2, 2, whichever member leads.
    expect([...sdk.map((c) => c.assignment().length), pyAssigned!.length].sort()).toEqual([2, 2, 3]);

    const kafka = kafkaOf(cluster);
    for (let p = 0; p < 7; p++) await produce(kafka, topic, p, Array.from({ length: 10 }, (_, i) => `${p}-${i}`));
    await until(() => new Set(seen.map((s) => s.value)).size === 70, '70 records');
    await sleep(500);
    expect(seen).toHaveLength(70);
    const members = new Set(seen.map((s) => s.member));
    expect(members).toEqual(new Set(['py', 'sdk-a', 'sdk-b']));
  });
});
