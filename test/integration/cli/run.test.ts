/**
 * `kafka-eos run <config>`: the database is checked before anything is consumed, and the
 * process exits non-zero, naming the error, when the consumer fails. (The compiled CLI is used:
 * `npm test` builds first.)
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { kafkaOf, produce } from '../../consumer/helpers';
import { until } from '../../consumer/helpers';
import { startCli, startCliCluster, stopCliCluster } from './helpers';

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli', 'index.js');
jest.setTimeout(60000);

function run(config: unknown, dir: string, stopAfterMs?: number): Promise<{ code: number | null; out: string }> {
  const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'run', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const hard = setTimeout(() => child.kill('SIGKILL'), 45000);
    if (stopAfterMs) setTimeout(() => child.kill('SIGINT'), stopAfterMs);
    child.on('exit', (code) => { clearTimeout(hard); resolve({ code, out }); });
  });
}

let cluster: MockCluster;
let dir: string;
beforeAll(async () => { ({ cluster, dir } = await startCliCluster('kafka-eos-run-')); });
afterAll(() => stopCliCluster(cluster, dir));

const base = () => ({
  brokers: cluster.bootstrap, groupId: 'run-g', topics: ['run-t'],
  sink: { type: 'sql', knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'run.sqlite') } }, table: 'rows', mode: 'insert',
    autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } } },
  consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },
});

test('sinks records until SIGINT, then exits 0', async () => {
  cluster.createTopic('run-t', 1);
  await produce(kafkaOf(cluster), 'run-t', 0, ['{"id":1}', '{"id":2}']);
  const { code, out } = await run(base(), dir, 4000);
  expect(out).toContain('consuming run-t into rows');
  // What the member waits for is said before the wait (the first assignment).
  expect(out.indexOf('joining group run-g (waiting for its first assignment)')).toBeGreaterThanOrEqual(0);
  expect(out.indexOf('joining group run-g')).toBeLessThan(out.indexOf('consuming run-t'));
  expect(code).toBe(0);
});

test('an unreachable database fails before consuming, with a named error and exit 2', async () => {
  const config = base();
  config.sink.knex = { client: 'pg', connection: 'postgresql://nobody:wrong@127.0.0.1:1/none' } as never;
  const { code, out } = await run(config, dir);
  expect(code).toBe(2);
  expect(out).toMatch(/\[SINK_UNAVAILABLE\] cannot use the database/);
  expect(out).not.toContain('consuming');
  expect(out).not.toMatch(/^\s+at /m); // no stack trace
});

test('a missing table without autoCreate is a config error naming the field', async () => {
  const config = base();
  (config.sink as { autoCreate: boolean; table: string }).autoCreate = false;
  (config.sink as { table: string }).table = 'no_such_table';
  const { code, out } = await run(config, dir);
  expect(code).toBe(2);
  expect(out).toMatch(/\[CONFIG_INVALID\] sink\.table: table "no_such_table" does not exist/);
});

test('when the consumer fails (a poison record, policy fail), the process exits 1 and says why', async () => {
  cluster.createTopic('run-poison', 1);
  await produce(kafkaOf(cluster), 'run-poison', 0, ['{"id":1}', 'not json']);
  const config = { ...base(), groupId: 'run-poison-g', topics: ['run-poison'] };
  const { code, out } = await run(config, dir);
  expect(code).toBe(1);
  expect(out).toMatch(/the consumer failed \[POISON_MESSAGE\]/);
});

test('a topic that does not exist is named', async () => {
  const config = { ...base(), groupId: 'run-missing-g', topics: ['no-such-topic'] };
  const { code, out } = await run(config, dir);
  expect(code).toBe(2);
  expect(out).toMatch(/\[UNKNOWN_TOPIC\] topic "no-such-topic" does not exist/);
});

test('the stop line speaks of the partitions owned at the end; one a rebalance moved away earlier is named apart', async () => {
  cluster.createTopic('run-moved', 2);
  await produce(kafkaOf(cluster), 'run-moved', 0, ['{"id":1}', '{"id":2}']);
  await produce(kafkaOf(cluster), 'run-moved', 1, ['{"id":3}']);
  const config = { ...base(), groupId: 'run-moved-g', topics: ['run-moved'] };
  config.sink = { ...config.sink, table: 'moved_rows' } as never;
  const file = path.join(dir, 'moved.json');
  writeFileSync(file, JSON.stringify(config));
  const a = startCli(['run', file, '--status-interval', '300'], 60000);
  let b: ReturnType<typeof startCli> | undefined;
  try {
    await until(() => /status .* 3 total/.test(a.out()), 'the first process to sink the 3 records', 30000);
    b = startCli(['run', file, '--status-interval', '300'], 60000);
    const second = b;
    // The second member joins: the first gives one partition up (range), then owns the other to the end.
    await until(() => /kafka-eos run: assigned: run-moved-\d\n/.test(a.out().split('revoked:').slice(1).join('revoked:')),
      'the first process to keep one partition', 30000);
    await until(() => /kafka-eos run: assigned: run-moved-\d\n/.test(second.out()), 'the second process to get the other', 30000);
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
  } finally {
    a.child.kill('SIGTERM');
    b?.child.kill('SIGTERM');
  }
  expect(await b!.exited).toBe(0);
  const kept = /kafka-eos run: assigned: run-moved-(\d)\n/.exec(a.out().split('revoked:').slice(1).join('revoked:'))![1]!;
  const moved = kept === '0' ? '1' : '0';
  const next = { 0: 2, 1: 1 } as Record<string, number>;
  const stopped = a.out().split('\n').find((l) => l.startsWith('kafka-eos run: stopped: '))!;
  expect(stopped).toContain('stopped: moved_rows holds every record handled with its offset '
    + `(next offsets run-moved-${kept} ${next[kept]}); `);
  expect(stopped).toMatch(new RegExp(`; given up earlier to another member \\(a rebalance\\), so not this run's to report at the end: `
    + `partitions run-moved-${moved} \\(handled up to next offset ${next[moved]}\\)$`));
});
