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
import { startCliCluster, stopCliCluster } from './helpers';

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
  sink: { type: 'sql', knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'run.sqlite') } }, table: 'rows', mode: 'insert', autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } } },
  consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },
});

test('sinks records until SIGINT, then exits 0', async () => {
  cluster.createTopic('run-t', 1);
  await produce(kafkaOf(cluster), 'run-t', 0, ['{"id":1}', '{"id":2}']);
  const { code, out } = await run(base(), dir, 4000);
  expect(out).toContain('consuming run-t into rows');
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
