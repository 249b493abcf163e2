/**
 * The four scenarios of the consumer-group issue, on the mock cluster: auto-commit timing with a
 * SIGKILLed child, commit before rejoin, a join during a slow batch, pub-sub versus queue.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { startCluster, waitForStableGroup } from '../../../src/testing/mock-broker/testing';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { SqlSink } from '../../../src/sinks/sql';
import { consumerOn, kafkaOf, produce, range, sleep, stopAll, until, valueOf } from '../../consumer/helpers';

jest.setTimeout(120000);

const TS_HOOK = `
const ts = require('typescript'); const fs = require('fs');
require.extensions['.ts'] = (m, f) => m._compile(ts.transpileModule(fs.readFileSync(f, 'utf8'), { fileName: f, ` +
  `compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, f);
require(process.argv[1]);
`;

function startKillWorker(cfg: object, onMessage: (m: { type: string; offset?: number; message?: string }) => void): ChildProcess {
  const child = spawn(process.execPath, ['-e', TS_HOOK, path.join(__dirname, 'kill-worker.ts'), JSON.stringify(cfg)], {
    cwd: path.join(__dirname, '../../..'),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  child.on('message', onMessage);
  return child;
}

describe('consumer scenarios (issue 4)', () => {
  let cluster: MockCluster;
  const consumers: GroupConsumer[] = [];
  beforeAll(async () => { cluster = await startCluster(); });
  afterEach(() => stopAll(consumers));
  afterAll(() => cluster.stop());

  describe.each(['at-least-once', 'at-most-once'] as const)('auto-commit timing: %s, handler SIGKILLed holding record 4', (delivery) => {
    test('restart delivers what the strategy promises', async () => {
      const topic = `kill-${delivery}`;
      const groupId = `kill-${delivery}-g`;
      cluster.createTopic(topic, 1);
      const kafka = kafkaOf(cluster);
      await produce(kafka, topic, 0, range(0, 10).map((i) => `r${i}`));

      const held: number[] = [];
      const errors: string[] = [];
      const child = startKillWorker({ bootstrap: cluster.bootstrap, groupId, topic, delivery, holdAt: 4 }, (m) => {
        if (m.type === 'holding') held.push(m.offset!);
        if (m.type === 'error') errors.push(m.message!);
      });
      const exited = new Promise((r) => child.once('exit', r));
      await until(() => held.includes(4), 'the child to hold record 4', 60000);
      child.kill('SIGKILL');
      await exited;
      expect(held).toEqual([0, 1, 2, 3, 4]);
      expect(errors).toEqual([]);

      const seen: number[] = [];
      const c = consumerOn(cluster, { groupId, topics: [topic], delivery, sessionTimeoutMs: 6000,
        recordHandler: async (r) => { seen.push(Number(r.offset)); } }, consumers);
      await c.start();
      if (delivery === 'at-least-once') {
        await until(() => seen.includes(9), 'records up to 9 after the restart', 60000);
        // Record 4 (unfinished) is delivered again; 0..3 (finished and committed) are not.
        expect(seen).toEqual([4, 5, 6, 7, 8, 9]);
      } else {
        await produce(kafka, topic, 0, ['r10']);
        await until(() => seen.includes(10), 'record 10 after the restart', 60000);
        // The whole batch (0..9) was committed before processing: 4..9 are lost, nothing repeats.
        expect(seen).toEqual([10]);
      }
    });
  });

  test('opt-in SIGTERM handling: the child stops gracefully (commits, leaves the group) and then exits on the signal', async () => {
    const topic = 'sigterm';
    const groupId = 'sigterm-g';
    cluster.createTopic(topic, 1);
    await produce(kafkaOf(cluster), topic, 0, range(0, 5).map(String));
    const held: number[] = [];
    const child = startKillWorker({ bootstrap: cluster.bootstrap, groupId, topic, delivery: 'at-least-once', holdAt: -1,
      handleSignals: true, commitIntervalMs: 600000 }, (m) => {
      if (m.type === 'holding') held.push(m.offset!);
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
    await until(() => held.includes(4), 'the child to handle record 4', 60000);
    child.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    const commits = cluster.events.entries({ type: 'offsets.committed', groupId });
    expect(commits.map((e) => (e.data.partitions as { offset: bigint }[])[0].offset)).toEqual([5n]);
    expect(cluster.events.entries({ type: 'member.left', groupId })).toHaveLength(1);
  });

  test('commit before rejoin: C1 has processed 0..39, C2 joins, offset 40 is committed before C1 rejoins and C2 starts at 40', async () => {
    const topic = 'rejoin';
    const groupId = 'rejoin-g';
    cluster.createTopic(topic, 1);
    const kafka = kafkaOf(cluster);
    await produce(kafka, topic, 0, range(0, 100).map(String));

    const seen1: number[] = [];
    const seen2: number[] = [];
    // Range gives the only partition to the first member id in sort order: make it C2's.
    const c1 = consumerOn(cluster, {
      clientId: 'z-c1', groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 600000,
      recordHandler: async (r, { signal }) => {
        seen1.push(Number(r.offset));
        if (r.offset === 40n) {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          throw new Error('abandoned: partition is being revoked');
        }
      },
    }, consumers);
    await c1.start();
    await until(() => seen1.includes(40), 'C1 to hold record 40');
    const c1Member = cluster.groups.group(groupId)!.members[0].memberId;

    const c2 = consumerOn(cluster, { clientId: 'a-c2', groupId, topics: [topic], delivery: 'at-least-once',
      recordHandler: async (r) => { seen2.push(Number(r.offset)); } }, consumers);
    await c2.start();
    await until(() => seen2.includes(99), 'C2 to reach record 99');

    const commits = cluster.events.entries({ type: 'offsets.committed', groupId }).filter((e) => e.data.memberId === c1Member);
    expect(commits.map((e) => (e.data.partitions as { offset: bigint }[])[0].offset)).toEqual([40n]);
    const rejoin = cluster.events.entries({ groupId })
      .find((e) => (e.type === 'member.rejoined' || e.type === 'member.joined') && e.data.memberId === c1Member && e.seq > commits[0].seq);
    const firstJoinAfterRebalance =
      cluster.events.entries({ type: 'group.state', groupId }).find((e) => e.data.to === 'PreparingRebalance');
    expect(rejoin).toBeDefined();
    expect(firstJoinAfterRebalance!.seq).toBeLessThan(commits[0].seq);
    expect(seen2[0]).toBe(40);
    expect(seen2).toEqual(range(40, 100));
    expect(Math.max(...seen1)).toBe(40);
  });

  describe.each(['at-least-once', 'exactly-once'] as const)('join during a slow batch (%s)', (delivery) => {
    test('C1 hands nothing of the partition it lost to its handler; duplicates are at most the records in flight', async () => {
      const topic = `slow-${delivery}`;
      const groupId = `slow-${delivery}-g`;
      cluster.createTopic(topic, 2);
      const kafka = kafkaOf(cluster);
      await produce(kafka, topic, 0, range(0, 100).map((i) => `p0-${i}`));
      await produce(kafka, topic, 1, range(0, 100).map((i) => `p1-${i}`));

      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-slow-'));
      const knexConfig =
        { client: 'sqlite3', connection: { filename: path.join(dir, 'out.sqlite') }, useNullAsDefault: true, pool: { min: 1, max: 1 } };
      const sink = () => new SqlSink({
        knex: knexConfig, table: 'out', mode: 'insert', includeKafkaCoordinates: false, mapping: (r) => ({ v: valueOf(r) }) });
      if (delivery === 'exactly-once') {
        const setup = sink();
        await setup.knex.schema.createTable('out', (t) => t.string('v'));
        await setup.close();
      }
      const sinks: SqlSink[] = [];
      const handled: { member: 'c1' | 'c2'; partition: number; value: string; at: number }[] = [];
      const errors: string[] = [];
      let c1AssignedAfterRebalance = Number.POSITIVE_INFINITY;
      let c1Assignments = 0;
      const make = (member: 'c1' | 'c2', clientId: string, perRecordMs: number) => {
        const s = delivery === 'exactly-once' ? sink() : undefined;
        if (s) sinks.push(s);
        const c = consumerOn(cluster, {
          clientId, groupId, topics: [topic], delivery, sink: s, commitIntervalMs: 600000,
          recordHandler: async (r) => {
            handled.push({ member, partition: r.partition, value: valueOf(r), at: Date.now() });
            await sleep(perRecordMs);
          },
        }, consumers);
        c.on('error', (e: Error) => errors.push(`${member}: ${e.message}`));
        return c;
      };
      const c1 = make('c1', 'z-c1', 50);
      c1.on('assigned', () => {
        c1Assignments += 1;
        if (c1Assignments === 2) c1AssignedAfterRebalance = Date.now();
      });
      await c1.start();
      await until(() => handled.length >= 20, 'C1 to handle 20 records');
      const c2 = make('c2', 'a-c2', 0);
      await c2.start();
      await until(() => new Set(handled.map((h) => h.value)).size === 200, `all 200 records handled (errors: ${errors.join('; ')})`, 90000);

      const c1Final = new Set(c1.assignment().map((tp) => tp.partition));
      const c2Final = new Set(c2.assignment().map((tp) => tp.partition));
      expect(c1Final.size).toBe(1);
      expect(c2Final.size).toBe(1);
      const lost = [...c2Final][0];
      // After its new assignment, C1's handler saw nothing of the partition it lost.
      expect(handled.filter((h) => h.member === 'c1' && h.partition === lost && h.at > c1AssignedAfterRebalance)).toEqual([]);
      const counts = new Map<string, number>();
      for (const h of handled) counts.set(h.value, (counts.get(h.value) ?? 0) + 1);
      const duplicates = [...counts.values()].filter((n) => n > 1).length;
      // At most the one record each C1 partition had in flight.
      expect(duplicates).toBeLessThanOrEqual(2);
      if (delivery === 'exactly-once') {
        await stopAll(consumers);
        const rows = await sinks[0].knex('out').select('v');
        expect(rows).toHaveLength(200);
        expect(new Set(rows.map((r: { v: string }) => r.v)).size).toBe(200);
      }
      await stopAll(consumers);
      await Promise.all(sinks.map((s) => s.close()));
      fs.rmSync(dir, { recursive: true, force: true });
    });
  });

  test('pub-sub versus queue: two groups each get every message; within a group each message goes to one member', async () => {
    const topic = 'pubsub';
    cluster.createTopic(topic, 4);
    const kafka = kafkaOf(cluster);
    const got = new Map<string, string[]>();
    for (const group of ['g-a', 'g-b']) {
      for (const member of ['m1', 'm2']) {
        const key = `${group}/${member}`;
        got.set(key, []);
        await consumerOn(cluster, { groupId: `pubsub-${group}`, clientId: member, topics: [topic], delivery: 'at-least-once',
          recordHandler: async (r) => { got.get(key)!.push(valueOf(r)); } }, consumers).start();
      }
    }
    for (const group of ['g-a', 'g-b']) await waitForStableGroup(cluster, `pubsub-${group}`, { members: 2, allAssigned: [topic] });
    await until(() => consumers.every((c) => c.assignment().length === 2), 'every member to hold 2 partitions');
    for (let p = 0; p < 4; p++) await produce(kafka, topic, p, range(0, 25).map((i) => `p${p}-${i}`));
    const total = (group: string) => got.get(`${group}/m1`)!.length + got.get(`${group}/m2`)!.length;
    await until(() => total('g-a') >= 100 && total('g-b') >= 100, 'both groups to get 100 records');
    await sleep(500);
    for (const group of ['g-a', 'g-b']) {
      const all = [...got.get(`${group}/m1`)!, ...got.get(`${group}/m2`)!];
      expect(new Set(all).size).toBe(100);
      expect(all).toHaveLength(100);
      expect(got.get(`${group}/m1`)!.length).toBeGreaterThan(0);
      expect(got.get(`${group}/m2`)!.length).toBeGreaterThan(0);
    }
  });
});
