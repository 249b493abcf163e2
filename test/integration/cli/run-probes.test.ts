/**
 * Issue 24 as an operator meets it, through real processes: `kafka-eos broker --topic` (a child, so that it can be
 * frozen with SIGSTOP) and `kafka-eos run` with a YAML config whose database path comes from the environment
 * (`${RUN_DB}`). /readyz says joining → ready; a column dropped under the run makes it 503 `sink-blocked` naming
 * table and column (status line too), the column back makes it ready; the brokers frozen make it 503
 * `kafka-unreachable` (the status line's DescribeGroups goes unanswered); SIGTERM then exits 3 at shutdownTimeoutMs (3 s)
 * listing the partitions still owned and where they were committed; a second run SIGTERMed while its start() waits on
 * the frozen brokers exits 3 too. Needs `npm run build`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { kafkaFor } from '../mock/helpers';
import { until } from '../../consumer/helpers';
import { requireBuiltCli, startCli, type RunningCli } from './helpers';

jest.setTimeout(120_000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let dir: string;
let broker: RunningCli | undefined;
let run: RunningCli | undefined;
let db: Knex | undefined;
beforeAll(() => { requireBuiltCli(); dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-probes-')); });
afterAll(async () => {
  for (const p of [run, broker]) {
    if (p && p.child.exitCode === null) { p.child.kill('SIGCONT'); p.child.kill('SIGKILL'); }
  }
  await db?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

test('readyz follows joining, ready, sink-blocked, ready, kafka-unreachable; SIGTERM with frozen brokers exits 3 at shutdownTimeoutMs '
  + 'saying what was committed, also during start-up', async () => {
  const port = await freePort();
  broker = startCli(['broker', '--port', String(port), '--brokers', '1', '--min-session-timeout', '1000', '--topic', 'probe-t:2'], 110_000);
  await until(() => broker!.out().includes('kafka-eos mock cluster:') || broker!.child.exitCode !== null, 'the broker', 30_000);
  const file = path.join(dir, 'run.yaml');
  writeFileSync(file, [
    `brokers: ["127.0.0.1:${port}"]`, 'groupId: probe-g', 'topics: [probe-t]', 'shutdownTimeoutMs: 3000',
    'kafka: { requestTimeoutMs: 1500, connectionTimeoutMs: 500, retry: { retries: 2, maxRetryTimeMs: 500 } }',
    'consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, sinkBlockedTimeoutMs: 600000 }',
    'metrics: { port: 0 }',
    'sink: { type: sql, knex: { client: sqlite3, connection: { filename: "${RUN_DB}" } }, table: rows, mode: insert, autoCreate: true,',
    '        mapping: { columns: { id: { path: id, type: integer }, delay: { path: delay, type: integer } } } }',
  ].join('\n'));
  const dbFile = path.join(dir, 'run.sqlite');
  run = startCli(['run', file, '--status-interval', '300'], 110_000, { RUN_DB: dbFile });
  const r = run;
  await until(() => /probes at http:\/\/127\.0\.0\.1:\d+\/healthz/.test(r.out()) || r.child.exitCode !== null, 'the probes line', 60_000);
  const metricsPort = Number(/probes at http:\/\/127\.0\.0\.1:(\d+)\/healthz/.exec(r.out())![1]);
  const probe = async (p: string) => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}${p}`);
    return { status: res.status, body: JSON.parse(await res.text()) as { state: string; reason: string; since: string } };
  };
  await until(async () => (await probe('/readyz')).status === 200 || r.child.exitCode !== null, 'ready', 30_000);
  expect(await probe('/healthz')).toMatchObject({ status: 200, body: { state: 'ready' } });

  const { kafka } = kafkaFor([`127.0.0.1:${port}`], 'probe-producer');
  const producer = kafka.producer();
  await producer.connect();
  const send = (from: number) => producer.send({ topic: 'probe-t', acks: -1,
    messages: Array.from({ length: 10 }, (_, i) => ({ partition: i % 2, value: JSON.stringify({ id: from + i, delay: 1 }) })) });
  await send(0);
  await until(() => /status .* 10 total/.test(r.out()), 'the first 10 rows', 30_000);

  db = knexFactory({ client: 'sqlite3', connection: { filename: dbFile }, useNullAsDefault: true });
  await db.raw('ALTER TABLE "rows" DROP COLUMN "delay"');
  await send(10);
  await until(async () => (await probe('/readyz')).body.state === 'sink-blocked' || r.child.exitCode !== null, 'sink-blocked', 30_000);
  const blocked = await probe('/readyz');
  expect(blocked.status).toBe(503);
  expect(blocked.body.reason).toMatch(/^table rows, column delay: /);
  expect((await probe('/healthz')).status).toBe(200); // blocked, not dead: nothing to restart for
  await until(() => /NOT READY: sink-blocked since/.test(r.out()), 'the status line to say it', 10_000);
  expect(r.out()).toMatch(new RegExp(String.raw`sink blocked \(table rows, column delay\): the database refuses every write; ` +
    String.raw`nothing is skipped; the run fails with SINK_BLOCKED at `));
  // The status line counts what the errors metric counts (issue 24: it read `errors 0` while the metric counted 14).
  expect(r.out()).toMatch(/NOT READY: sink-blocked since .* errors SINK_WRITE_REFUSED×\d/);
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  expect(metrics).toMatch(/kafka_eos_health_state\{group="probe-g",state="sink-blocked"\} 1/);
  expect(metrics).toMatch(/kafka_eos_sink_blocked_refusals_total\{group="probe-g"\} [1-9]/);

  await db.raw('ALTER TABLE "rows" ADD COLUMN "delay" INTEGER');
  await until(async () => (await probe('/readyz')).status === 200 || r.child.exitCode !== null, 'ready again', 30_000);
  await until(async () => Number((await db!('rows').count({ n: '*' }))[0]!.n) === 20, 'all 20 rows', 30_000);
  await producer.disconnect();
  // Kafka's group offsets follow the sink's positions by a monitoring commit after the write: wait for them, so the
  // stop's report below (taken with the brokers frozen) can say both partitions are committed up to 10.
  const admin = kafka.admin();
  await admin.connect();
  await until(async () => (await admin.fetchOffsets({ groupId: 'probe-g', topics: ['probe-t'] }))[0]!.partitions
    .every((p) => p.offset === '10'), 'Kafka\'s group offsets at 10', 30_000);
  await admin.disconnect();

  broker.child.kill('SIGSTOP');
  await until(async () => (await probe('/readyz')).body.state === 'kafka-unreachable' || r.child.exitCode !== null,
    'kafka-unreachable', 30_000);
  expect((await probe('/readyz')).status).toBe(503);
  let signalled = Date.now();
  r.child.kill('SIGTERM');
  // With the brokers frozen, the stop cannot leave the group: it is cut at shutdownTimeoutMs (exit 3), and its last
  // line says every partition's records were committed (nothing to redo), not that it left the group.
  expect(await r.exited).toBe(3);
  expect(Date.now() - signalled).toBeLessThan(10_000);
  expect(r.out()).toMatch(new RegExp('did not stop within shutdownTimeoutMs 3000 ms of the signal; exiting 3\\. (Partitions still owned: '
    + 'probe-t-0 \\(committed up to 10\\); probe-t-1 \\(committed up to 10\\); records past|Every partition was given up with its work '
    + 'committed \\(next offsets probe-t-0 10, probe-t-1 10\\); what did not finish is leaving the group)'));
  expect(r.out()).not.toMatch(/left the group|stopped: /);

  // A run started against the frozen brokers waits in start(): SIGTERM there is bounded by shutdownTimeoutMs (exit 3).
  const slow = path.join(dir, 'slow.yaml');
  writeFileSync(slow, [`brokers: ["127.0.0.1:${port}"]`, 'groupId: probe-g2', 'topics: [probe-t]', 'shutdownTimeoutMs: 3000',
    'metrics: { port: 0 }',
    `sink: { type: sql, knex: { client: sqlite3, connection: { filename: "${dbFile}" } }, table: rows2, mode: insert, autoCreate: true,`,
    '        mapping: { columns: { id: { path: id, type: integer } } } }'].join('\n'));
  run = startCli(['run', slow], 60_000);
  const r2 = run;
  await until(() => r2.out().includes('probes at') || r2.child.exitCode !== null, 'the second run to start up', 30_000);
  signalled = Date.now();
  r2.child.kill('SIGTERM');
  expect(await r2.exited).toBe(3);
  expect(Date.now() - signalled).toBeLessThan(10_000);
  expect(r2.out())
    .toContain('did not stop within shutdownTimeoutMs 3000 ms of the signal; exiting 3. No partition was assigned: nothing to commit');
  broker.child.kill('SIGCONT');
  // Nothing lost or doubled.
  expect((await db('rows').select('id')).map((x: { id: number }) => Number(x.id)).sort((a, b) => a - b))
    .toEqual(Array.from({ length: 20 }, (_, i) => i));
});
