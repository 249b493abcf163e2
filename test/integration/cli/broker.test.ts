/**
 * The standalone broker: `node dist/cli/index.js broker --port <p> --brokers 3` serves until
 * SIGINT; a KafkaJS client seeded with only the first address finds all three brokers. Then the broker set up as
 * KafkaJS's own test cluster (docker-compose.2_4.yml: brokers 0-2, PLAINTEXT/SSL/SASL_SSL on interleaved ports,
 * PLAIN and SCRAM users) and platformatic's SASL broker (SASL_PLAINTEXT with PLAIN and SCRAM users) expect,
 * reached through each listener by KafkaJS and, when the interop clients are installed, @platformatic/kafka.
 * Needs `npm run build` first (npm test does it in pretest).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { KafkaConfig, SASLOptions } from 'kafkajs';
import { kafkaFor } from '../mock/helpers';
import { interopClientsDir } from '../interop/clients';
import { RpcWorker } from '../interop/rpc';
import { canMakeCertificates, selfSignedCertificate } from '../../helpers/tls';
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

/** A port p such that p .. p+n-1 are free now. */
async function freePorts(n: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = 20000 + Math.floor(Math.random() * 30000);
    let free = true;
    for (let i = 0; i < n && free; i++) free = await portFree(p + i);
    if (free) return p;
  }
  throw new Error(`no ${n} consecutive free ports`);
}
const threeFreePorts = () => freePorts(3);

/** Starts `kafka-eos broker <args>`; resolves once its summary is printed, with the process and its output so far. */
async function startBroker(args: string[]): Promise<{ proc: ChildProcess; out: () => string; exited: Promise<number | null> }> {
  const proc = spawn(process.execPath, [CLI, 'broker', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  proc.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!out.includes('kafka-eos mock cluster:') || !out.includes('\n')) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`broker did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { proc, out: () => out, exited };
}

describe('kafka-eos broker (standalone)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  test('serves 3 brokers discoverable from the first address, logs events with --verbose, stops on SIGINT', async () => {
    expect(existsSync(CLI)).toBe(true); // run `npm run build` first
    const port = await threeFreePorts();
    const proc = spawn(process.execPath, [CLI, 'broker', '--port', String(port), '--brokers', '3', '--verbose'],
      { stdio: ['ignore', 'pipe', 'pipe'] });
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
    await producer.send({ topic: 'cli-topic',
      messages: [{ partition: 0, value: 'a' }, { partition: 1, value: 'b' }, { partition: 2, value: 'c' }] });
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
      const meta =
        await other.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
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

const withCerts = canMakeCertificates() ? describe : describe.skip;

withCerts('kafka-eos broker set up as KafkaJS\'s and platformatic\'s test clusters', () => {
  let child: ChildProcess | undefined;
  let cert: ReturnType<typeof selfSignedCertificate>;
  beforeAll(() => { cert = selfSignedCertificate(); });
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    cert?.remove();
  });

  test('plaintext, SSL, SASL_SSL (PLAIN, SCRAM) and SASL_PLAINTEXT listeners on interleaved ports, users, topics and configs', async () => {
    expect(existsSync(CLI)).toBe(true);
    const base = await freePorts(12);
    const broker = await startBroker([
      '--brokers', '3', '--first-node-id', '0', '--port', String(base), '--ssl-port', String(base + 1), '--sasl-ssl-port', String(base + 2),
      '--sasl-port', String(base + 3), '--ssl-cert', cert.certFile, '--ssl-key', cert.keyFile,
      '--user', 'test:testtest:PLAIN', '--user', 'testscram:testtestscram=256:SCRAM-SHA-256', '--user',
      'testscram:testtestscram=512:SCRAM-SHA-512',
      '--user', 'admin:admin', '--topic', 'orders:3:2', '--config', 'log.retention.ms=60000', '--consumer-heartbeat-interval', '200',
    ]);
    child = broker.proc;
    const at = (k: number, listener: number) => `127.0.0.1:${base + 4 * k + listener}`;
    const lines = broker.out().split('\n');
    expect(lines).toEqual(expect.arrayContaining([
      `  PLAINTEXT       ${at(0, 0)},${at(1, 0)},${at(2, 0)}`,
      `  SSL             ${at(0, 1)},${at(1, 1)},${at(2, 1)}`,
      `  SASL_SSL        ${at(0, 2)},${at(1, 2)},${at(2, 2)} (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)`,
      `  SASL_PLAINTEXT  ${at(0, 3)},${at(1, 3)},${at(2, 3)} (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)`,
      '  users           test (PLAIN), testscram (SCRAM-SHA-256), testscram (SCRAM-SHA-512), admin (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)',
      '  topic           orders: 3 partition(s), replication 2',
      '  config          log.retention.ms=60000',
    ]));

    // KafkaJS as its own test helpers connect (testHelpers/index.js: ssl with rejectUnauthorized false, SASL on SASL_SSL).
    const ssl = () => ({ rejectUnauthorized: false });
    const through = async (listener: number, extra: Partial<KafkaConfig>) => {
      const admin = kafkaFor([at(0, listener)], `cli-${listener}`, { retry: { retries: 0 }, ...extra }).kafka.admin();
      await admin.connect();
      try {
        const { brokers } = await admin.describeCluster();
        const md = await admin.fetchTopicMetadata({ topics: ['orders'] });
        return { brokers: brokers.map((b) => [b.nodeId, b.port]).sort(), replicas: md.topics[0].partitions.map((p) => p.replicas.length) };
      } finally {
        await admin.disconnect();
      }
    };
    const expected = (listener: number) => ({
      brokers: [[0, base + listener], [1, base + 4 + listener], [2, base + 8 + listener]], replicas: [2, 2, 2],
    });
    expect(await through(0, {})).toEqual(expected(0));
    expect(await through(1, { ssl: ssl() })).toEqual(expected(1));
    const sasl = (mechanism: string, username: string, password: string) => ({ mechanism, username, password } as SASLOptions);
    expect(await through(2, { ssl: ssl(), sasl: sasl('plain', 'test', 'testtest') })).toEqual(expected(2));
    expect(await through(2, { ssl: ssl(), sasl: sasl('scram-sha-256', 'testscram', 'testtestscram=256') })).toEqual(expected(2));
    expect(await through(2, { ssl: ssl(), sasl: sasl('scram-sha-512', 'testscram', 'testtestscram=512') })).toEqual(expected(2));
    expect(await through(3, { sasl: sasl('scram-sha-512', 'admin', 'admin') })).toEqual(expected(3));
    await expect(through(2, { ssl: ssl(), sasl: sasl('scram-sha-256', 'testscram', 'testtestscram=512') }))
      .rejects.toThrow(/SASL SCRAM SHA256 authentication failed/);

    // @platformatic/kafka as its docker-compose SASL broker is used: SASL_PLAINTEXT, user admin/admin, PLAIN and SCRAM.
    const clients = interopClientsDir();
    if (clients) {
      for (const mechanism of ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512']) {
        const worker = new RpcWorker('platformatic-rpc-worker.js', clients);
        try {
          await worker.call('connect', { bootstrap: [at(1, 3)], sasl: { mechanism, username: 'admin', password: 'admin' } });
          expect(await worker.call('admin', { method: 'listTopics' })).toContain('orders');
        } finally {
          await worker.close();
        }
      }
    }

    broker.proc.kill('SIGINT');
    expect(await broker.exited).toBe(0);
  });

  test.each([
    [['--ssl-port', '1'], /--ssl-cert is needed by --ssl-port and --sasl-ssl-port/],
    [['--user', 'a:b'], /--user and --sasl-mechanisms need --sasl-port or --sasl-ssl-port/],
    [['--config', 'num.io.threads=4'], /num.io.threads is a Kafka broker config the mock cluster does not act on/],
    [['--config', 'log.retention.ms=abc'], /Invalid value abc for configuration log.retention.ms: Not a number of type LONG/],
    [['--topic', 'x:0'], /--topic x:0: partitions must be a positive integer/],
    [['--config', 'authorizer.class.name=com.example.Custom'], /authorizer.class.name: String must be one of: , org.apache.kafka/],
  ])('%j exits 2 with a clear error', async (args, message) => {
    const proc =
      spawn(process.execPath, [CLI, 'broker', '--port', String(await freePorts(3)), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    expect(code).toBe(2);
    expect(out).toMatch(message);
    expect(out).toMatch(/^kafka-eos: \[CONFIG_INVALID\]/);
  });
});
