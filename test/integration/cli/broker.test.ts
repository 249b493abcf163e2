/**
 * The standalone broker: `node dist/cli/index.js broker --port <p> --brokers 3` serves until
 * SIGINT; a KafkaJS client seeded with only the first address finds all three brokers.
 * Needs `npm run build` first (npm test does it in pretest).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { kafkaFor } from '../mock/helpers';
import { until } from '../../consumer/helpers';
import { runCli, startCli } from './helpers';
import { RawClient } from '../../testing/mock-broker/raw-client';
import { ConsumerGroupHeartbeat } from '../../../src/protocol/messages/consumer-group';
import { Metadata } from '../../../src/protocol/messages/data';

jest.setTimeout(60_000);

const CLI = path.join(__dirname, '../../../dist/cli/index.js');

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ host: '127.0.0.1', port, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** A port p such that p, p+1 and p+2 are free now. */
async function threeFreePorts(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = 20000 + Math.floor(Math.random() * 30000);
    if ((await portFree(p)) && (await portFree(p + 1)) && (await portFree(p + 2))) return p;
  }
  throw new Error('no three consecutive free ports');
}

describe('kafka-eos broker (standalone)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  test('serves 3 brokers discoverable from the first address, logs events with --verbose, stops on SIGINT', async () => {
    expect(existsSync(CLI)).toBe(true); // run `npm run build` first
    const port = await threeFreePorts();
    const proc = spawn(process.execPath, [CLI, 'broker', '--port', String(port), '--brokers', '3', '--verbose'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
    proc.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    await until(() => out.includes('kafka-eos mock cluster:') || proc.exitCode !== null, 'the broker to start', 30_000);
    expect(proc.exitCode).toBeNull();

    const { kafka } = kafkaFor([`127.0.0.1:${port}`], 'cli-test');
    const admin = kafka.admin();
    await admin.connect();
    const { brokers } = await admin.describeCluster();
    expect(brokers.map((b) => [b.nodeId, b.host, b.port]).sort()).toEqual([
      [1, '127.0.0.1', port], [2, '127.0.0.1', port + 1], [3, '127.0.0.1', port + 2],
    ]);
    await admin.createTopics({ topics: [{ topic: 'cli-topic', numPartitions: 3 }] });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'cli-topic', messages: [{ partition: 0, value: 'a' }, { partition: 1, value: 'b' }, { partition: 2, value: 'c' }] });
    const offsets = await admin.fetchTopicOffsets('cli-topic');
    expect(offsets.map((o) => o.high)).toEqual(['1', '1', '1']);
    await producer.disconnect();
    await admin.disconnect();
    const events = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    expect(events).toContainEqual(expect.objectContaining({ type: 'topic-created', topic: 'cli-topic', partitions: 3 }));

    proc.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  test('a KIP-848 member subscribing with (a+)+b does not freeze the broker process (issue 19, item 3)', async () => {
    const port = await threeFreePorts();
    const proc = spawn(process.execPath, [CLI, 'broker', '--port', String(port), '--brokers', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
    await until(() => out.includes('kafka-eos mock cluster:') || proc.exitCode !== null, 'the broker to start', 30_000);
    const { kafka } = kafkaFor([`127.0.0.1:${port}`], 'cli-regex');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'a'.repeat(30), numPartitions: 1 }] });
    const member = await RawClient.connect(`127.0.0.1:${port}`);
    const other = await RawClient.connect(`127.0.0.1:${port}`);
    try {
      const started = Date.now();
      const joined = await member.request(ConsumerGroupHeartbeat, 1, {
        groupId: 'regex-g', memberId: 'evil', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: null, subscribedTopicRegex: '(a+)+b', serverAssignor: null, topicPartitions: [],
      });
      expect(joined.errorCode).toBe(0);
      const meta = await other.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      expect(meta.topics.map((t: { name: string }) => t.name)).toContain('a'.repeat(30));
      // Before the fix this took about 47 s (a backtracking RegExp run on the broker's only thread).
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      member.close();
      other.close();
      await admin.disconnect();
    }
    proc.kill('SIGINT');
    await until(() => proc.exitCode !== null, 'the broker to stop', 10_000);
    expect(proc.exitCode).toBe(0);
  });
});

describe('kafka-eos broker --topic and kafka-eos webhdfs (scripting the test servers)', () => {
  test('--topic creates topics with their partitions and replicas before the address line; a bad one exits 2 naming it', async () => {
    const port = await threeFreePorts();
    const run = startCli(['broker', '--port', String(port), '--brokers', '3', '--topic', 'flights:6:3', '--topic', 'audit:2'], 30_000);
    try {
      await until(() => run.out().includes('kafka-eos mock cluster:') || run.child.exitCode !== null, 'the broker to start', 30_000);
      const { kafka } = kafkaFor([`127.0.0.1:${port}`], 'cli-topics');
      const admin = kafka.admin();
      await admin.connect();
      const { topics } = await admin.fetchTopicMetadata({ topics: ['flights', 'audit'] });
      await admin.disconnect();
      expect(topics.map((t) => [t.name, t.partitions.length, t.partitions[0]!.replicas.length]).sort())
        .toEqual([['audit', 2, 1], ['flights', 6, 3]]);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
    const bad = await runCli(['broker', '--port', String(port), '--brokers', '1', '--topic', 'x:2:3'], 30_000);
    expect(bad).toMatchObject({ code: 2 });
    expect(bad.stderr).toMatch(/\[CONFIG_INVALID\] --topic x:2:3: .*replication/i);
    expect((await runCli(['broker', '--topic', 'x'], 30_000)).stderr).toContain('expected name:partitions[:replication]');
  });

  test('webhdfs serves a NameNode that redirects to its DataNode, on the given ports and directory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-webhdfs-cli-'));
    const [nn, dn] = [await threeFreePorts(), await threeFreePorts()];
    const run = startCli(['webhdfs', '--port', String(nn), '--datanode-port', String(dn), '--dir', dir], 30_000);
    try {
      await until(() => run.out().includes('kafka-eos webhdfs:') || run.child.exitCode !== null, 'the server to start', 30_000);
      expect(run.out()).toContain(`NameNode http://127.0.0.1:${nn}, DataNode http://127.0.0.1:${dn}, root ${dir}`);
      const create = await fetch(`http://127.0.0.1:${nn}/webhdfs/v1/a/b.txt?op=CREATE&user.name=u`, { method: 'PUT', redirect: 'manual' });
      expect(create.status).toBe(307);
      expect(create.headers.get('location')).toMatch(new RegExp(`^http://127.0.0.1:${dn}/`));
      expect((await fetch(create.headers.get('location')!, { method: 'PUT', body: 'hello' })).status).toBe(201);
      expect(readFileSync(path.join(dir, 'a', 'b.txt'), 'utf8')).toBe('hello');
      const taken = await runCli(['webhdfs', '--port', String(nn)], 30_000);
      expect(taken).toMatchObject({ code: 2 });
      expect(taken.stderr).toMatch(/\[MOCK_LISTEN_FAILED\] .*EADDRINUSE/);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
    expect(existsSync(path.join(dir, 'a', 'b.txt'))).toBe(true); // a --dir of the user's is kept
    rmSync(dir, { recursive: true, force: true });
  });
});
