/**
 * kafka-python 2.0.2 and confluent-kafka (librdkafka 2.0.2) consumer groups against the mock,
 * run as /usr/bin/python3 child processes.
 * - kafka-python, 3 members, `range` and then `roundrobin`: the assignments the group leader
 *   computed (read from the mock) and the ones each process reports are those of Java's
 *   algorithms (our assignRange / assignRoundRobin, ported from Java, are the reference).
 * - confluent-kafka, 3 members, `cooperative-sticky`: every partition owned exactly once, the
 *   load balanced, and the group on the cooperative-sticky protocol.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { assignRange } from '../../../src/consumer/assignors/range';
import { assignRoundRobin } from '../../../src/consumer/assignors/round-robin';
import { decodeAssignment } from '../../../src/protocol/consumer-protocol';
import { Child } from './helpers';

jest.setTimeout(240000);

const PY = '/usr/bin/python3';

const KAFKA_PYTHON = `
import json, select, sys
from kafka import KafkaConsumer
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
bootstrap, group, strategy, topics = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(',')
assignor = {'range': RangePartitionAssignor, 'roundrobin': RoundRobinPartitionAssignor}[strategy]
c = KafkaConsumer(bootstrap_servers=bootstrap.split(','), group_id=group, client_id='kp-' + strategy,
                  partition_assignment_strategy=[assignor], session_timeout_ms=10000, heartbeat_interval_ms=500,
                  request_timeout_ms=30000, api_version_auto_timeout_ms=30000, auto_offset_reset='earliest')
c.subscribe(topics)
last = None
while True:
    c.poll(timeout_ms=100)
    gen = c._coordinator._generation
    now = (gen.generation_id, gen.member_id, sorted([tp.topic, tp.partition] for tp in c.assignment()))
    if now != last and gen.generation_id > 0:
        last = now
        print(json.dumps({'generation': now[0], 'member': now[1], 'assigned': now[2]}), flush=True)
    if select.select([sys.stdin], [], [], 0)[0] and sys.stdin.read(1) == '':
        break
c.close()
`;

const CONFLUENT = `
import json, select, sys
from confluent_kafka import Consumer
bootstrap, group, topics = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
owned = set()
def report(kind, parts):
    print(json.dumps({'event': kind, 'owned': sorted([t, p] for t, p in owned), ` +
  `'parts': sorted([p.topic, p.partition] for p in parts)}), flush=True)
def on_assign(c, parts):
    owned.update((p.topic, p.partition) for p in parts)
    report('assign', parts)
def on_revoke(c, parts):
    owned.difference_update((p.topic, p.partition) for p in parts)
    report('revoke', parts)
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group, 'partition.assignment.strategy': 'cooperative-sticky',
              'session.timeout.ms': 10000, 'heartbeat.interval.ms': 500, 'broker.address.family': 'v4',
              'auto.offset.reset': 'earliest'})
c.subscribe(topics, on_assign=on_assign, on_revoke=on_revoke)
while True:
    c.poll(0.1)
    if select.select([sys.stdin], [], [], 0)[0] and sys.stdin.read(1) == '':
        break
c.close()
`;
import { until } from '../../helpers/until';

let cluster: MockCluster;
const children: Child[] = [];
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  cluster.createTopic('py-a', 5);
  cluster.createTopic('py-b', 4);
});
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.proc.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const exited = await Promise.race([c.exited, new Promise((r) => { timer = setTimeout(() => r('timeout'), 20000); })]);
    clearTimeout(timer);
    if (exited === 'timeout') c.kill();
  }
});
afterAll(async () => { await cluster.stop(); });

const partitionsPerTopic = new Map([['py-a', 5], ['py-b', 4]]);
type Report = { generation: number; member: string; assigned: [string, number][] };

describe.each([
  ['range', assignRange], ['roundrobin', assignRoundRobin],
] as const)('kafka-python group of 3 with %s', (strategy, reference) => {
  test('assignments equal those of the Java algorithm', async () => {
    const groupId = `kp-${strategy}`;
    const latest: Report[] = [];
    for (let i = 0; i < 3; i++) {
      const child = new Child(PY, ['-c', KAFKA_PYTHON, cluster.bootstrap.join(','), groupId, strategy, 'py-a,py-b']);
      children.push(child);
      latest.push({ generation: -1, member: '', assigned: [] });
      void (async () => {
        for (;;) {
          const line = await child.line(() => true, 200000).catch(() => null);
          if (line === null) return;
          latest[i] = JSON.parse(line) as Report;
        }
      })();
    }
    const stable = () => {
      const g = cluster.groups.group(groupId);
      return g !== undefined && g.state === 'Stable' && g.members.length === 3 && latest.every((r) => r.generation === g.generationId);
    };
    await until(stable, `${groupId} stable with 3 reporting members`, 180000);
    const group = cluster.groups.group(groupId)!;
    expect(group.protocolName).toBe(strategy);
    const subscriptions = new Map(group.members.map((m) => [m.memberId, { topics: ['py-a', 'py-b'] }]));
    const expected = reference(subscriptions, partitionsPerTopic);
    const asPairs = (tps: { topic: string; partition: number }[]) => tps.map((tp) => [tp.topic, tp.partition]).sort();
    for (const m of group.members) {
      expect(asPairs(decodeAssignment(m.assignment).assignedPartitions)).toEqual(asPairs(expected.get(m.memberId)!));
    }
    for (const r of latest) expect(r.assigned.sort()).toEqual(asPairs(expected.get(r.member)!));
    // Sanity: the reference spreads all 9 partitions.
    expect([...expected.values()].flat()).toHaveLength(9);
  });
});

test('confluent-kafka group of 3 with cooperative-sticky ends owning every partition once, balanced', async () => {
  const groupId = 'ck-coop';
  const owned: [string, number][][] = [[], [], []];
  for (let i = 0; i < 3; i++) {
    const child = new Child(PY, ['-c', CONFLUENT, cluster.bootstrap.join(','), groupId, 'py-a,py-b']);
    children.push(child);
    void (async () => {
      for (;;) {
        const line = await child.line(() => true, 200000).catch(() => null);
        if (line === null) return;
        owned[i] = (JSON.parse(line) as { owned: [string, number][] }).owned;
      }
    })();
  }
  const ownedSets = () => owned.map((o) => o.map(([t, p]) => `${t}-${p}`).sort().join(',')).sort();
  const mockSets = (g: NonNullable<ReturnType<typeof cluster.groups.group>>) => g.members
    .map((m) => decodeAssignment(m.assignment).assignedPartitions.map((tp) => `${tp.topic}-${tp.partition}`).sort().join(',')).sort();
  // Cooperative rebalancing takes two generations after the last join: in the first, the owner keeps its share and
  // revokes the rest (the others get nothing yet); in the second, the revoked partitions are handed out. A Stable group
  // whose first process still reports all 9 is the first of those, so "settled" also needs every process to own
  // exactly what the mock assigned it in the current generation, and that assignment to cover all 9 partitions.
  const settled = () => {
    const g = cluster.groups.group(groupId);
    if (!g || g.state !== 'Stable' || g.members.length !== 3) return false;
    const all = owned.flat().map(([t, p]) => `${t}-${p}`);
    const assigned = g.members.flatMap((m) => decodeAssignment(m.assignment).assignedPartitions);
    return all.length === 9 && new Set(all).size === 9 && assigned.length === 9
      && JSON.stringify(ownedSets()) === JSON.stringify(mockSets(g));
  };
  await until(settled, `${groupId} to own all 9 partitions as the mock assigned them`, 180000);
  const group = cluster.groups.group(groupId)!;
  expect(group.protocolName).toBe('cooperative-sticky');
  const sizes = owned.map((o) => o.length).sort();
  expect(sizes).toEqual([3, 3, 3]);
  // What each process owns is what the mock handed it in the last generation.
  expect(ownedSets()).toEqual(mockSets(group));
});
