/**
 * `kafka-eos run` on every exit path (issue 9, items 4-6): a config error found after the
 * database check exits (the pool is closed) naming the field the user set; out-of-range values
 * are refused up front; unreachable brokers and a session timeout the brokers refuse are named
 * errors with codes; a signal at any point of start-up ends the process. Uses the compiled CLI.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli', 'index.js');
jest.setTimeout(90000);

interface Run { code: number | null; signal: NodeJS.Signals | null; out: string; ms: number }

function run(config: unknown, opts: { signalAfterMs?: number; hardMs?: number } = {}): Promise<Run> {
  const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, 'run', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const hard = setTimeout(() => child.kill('SIGKILL'), opts.hardMs ?? 60000);
    if (opts.signalAfterMs !== undefined) setTimeout(() => child.kill('SIGTERM'), opts.signalAfterMs);
    child.on('exit', (code, signal) => { clearTimeout(hard); resolve({ code, signal, out, ms: Date.now() - started }); });
  });
}

let cluster: MockCluster;
let dir: string;
beforeAll(async () => {
  cluster =
    await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000, maxSessionTimeoutMs: 60000 } });
  cluster.createTopic('safety-t', 2);
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-run-safety-'));
});
afterAll(async () => {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

const base = (consumer: Record<string, unknown> = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 }) => ({
  brokers: cluster.bootstrap, groupId: `safety-g-${Math.random().toString(36).slice(2)}`, topics: ['safety-t'],
  sink: { type: 'sql', knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'run.sqlite') } }, table: 'rows', mode: 'insert',
    autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } } },
  consumer,
});

test('sessionTimeoutMs below the default heartbeat: exits 2 at once, naming consumer.sessionTimeoutMs (the field set)', async () => {
  const r = await run(base({ sessionTimeoutMs: 100 }));
  expect(r.code).toBe(2);
  expect(r.out).toMatch(/\[CONFIG_INVALID\] consumer\.sessionTimeoutMs: 100 must be above heartbeatIntervalMs \(3000 by default\)/);
  expect(r.ms).toBeLessThan(15000);
});

test('sessionTimeoutMs 1e12 is refused up front (an INT32 in the protocol), not after start-up', async () => {
  const r = await run(base({ sessionTimeoutMs: 1e12 }));
  expect(r.code).toBe(2);
  expect(r.out).toMatch(/\[CONFIG_INVALID\] consumer\.sessionTimeoutMs: must be at most 2147483647/);
  expect(r.out).not.toMatch(/ERR_OUT_OF_RANGE/);
});

test('knex pool max below min is a named sink config error, not a Tarn message', async () => {
  const config = base();
  (config.sink.knex as Record<string, unknown>).pool = { min: 3, max: 1 };
  const r = await run(config);
  expect(r.code).toBe(2);
  expect(r.out).toMatch(/\[CONFIG_INVALID\] knex\.pool\.max: must be at least knex\.pool\.min \(3\)/);
  expect(r.out).not.toMatch(/Tarn/);
});

test('a session timeout below the brokers\' minimum is INVALID_SESSION_TIMEOUT with their range, exit 1', async () => {
  const r = await run(base({ sessionTimeoutMs: 500, heartbeatIntervalMs: 100 }));
  expect(r.code).not.toBe(0);
  expect(r.code).not.toBeNull();
  expect(r.out)
    .toMatch(/\[INVALID_SESSION_TIMEOUT\]:? the brokers refused consumer\.sessionTimeoutMs 500: it must lie within \[1000, 60000\] ms/);
});

test('unreachable brokers: KAFKA_UNAVAILABLE naming them, exit 2', async () => {
  const config = { ...base(), brokers: ['127.0.0.1:1'] };
  const r = await run(config);
  expect(r.code).toBe(2);
  expect(r.out).toMatch(/\[KAFKA_UNAVAILABLE\] cannot use the Kafka cluster at 127\.0\.0\.1:1/);
  // Its words agree (issue 19 item 8): the outage line says start-up gives up after its retries, not that it waits.
  expect(r.out)
    .toMatch(/cannot reach broker 127\.0\.0\.1:1 since .*start-up retries 5 times with backoff \(kafka\.retry\.retries\), then exits 2/);
  expect(r.out).not.toMatch(/until it answers/);
});

test.each([150, 600, 1200, 1800, 2500])('SIGTERM %i ms into start-up ends the process', async (delay) => {
  const r = await run(base(), { signalAfterMs: delay, hardMs: 45000 });
  // Before the CLI's code runs (Node still loading modules) the default action ends it, with nothing opened yet;
  // from then on runSink handles the signal and stops cleanly (exit 0).
  if (r.signal !== 'SIGTERM') expect(r.code).toBe(0);
  expect(r.code === 0 || r.signal === 'SIGTERM').toBe(true);
  expect(r.ms).toBeLessThan(40000);
});

test('a group whose positions were written for another table: run warns, naming that table (item 10)', async () => {
  const groupId = `safety-shared-${Math.random().toString(36).slice(2)}`;
  const first = { ...base(), groupId };
  (first.sink as { table: string }).table = 'table_a';
  const a = await run(first, { signalAfterMs: 4000 });
  expect(a.code).toBe(0);
  expect(a.out).not.toMatch(/warning: the offsets table/);
  const second = { ...base(), groupId };
  (second.sink as { table: string }).table = 'table_b';
  const b = await run(second, { signalAfterMs: 4000 });
  expect(b.code).toBe(0);
  expect(b.out).toMatch(new RegExp(`warning: the offsets table kafka_eos_offsets holds positions of group ${groupId} ` +
    'written for table "table_a", not "table_b"'));
});

// KafkaJS's disconnect waits for the JoinGroup in flight: the run ends when the join returns, within the stop bound.
test('SIGTERM while the member waits for its first assignment (a 12 s initial rebalance delay) ends it within the stop bound', async () => {
  const slow = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 12000, minSessionTimeoutMs: 1000 } });
  try {
    slow.createTopic('safety-t', 1);
    const r = await run({ ...base(), brokers: slow.bootstrap }, { signalAfterMs: 2000, hardMs: 45000 });
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(2000 + 30000);
  } finally {
    await slow.stop();
  }
});
