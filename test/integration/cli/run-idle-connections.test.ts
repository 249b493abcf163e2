/**
 * Issue 24's soak: every runner logged `cannot reach broker … (and restarts the consumer)` 10 minutes after it started,
 * when the broker merely closed an idle connection (connections.max.idle.ms). Here the mock cluster closes connections
 * idle for 1 s while a `kafka-eos run` (heartbeats and status queries every 2.5 s) sits on an idle topic: connections
 * are closed under it, and it says nothing of an outage or a restart, stays ready, and loads what comes next.
 * (Compiled CLI.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory from 'knex';
import { MockCluster } from '../../../src/testing/mock-broker';
import { kafkaOf, produce, until } from '../../consumer/helpers';
import { requireBuiltCli, startCli } from './helpers';

jest.setTimeout(90000);

let cluster: MockCluster;
let dir: string;
beforeAll(async () => {
  requireBuiltCli();
  cluster =
    await MockCluster.start({ brokers: 1, connectionsMaxIdleMs: 1000, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-idle-conn-'));
});
afterAll(async () => {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('connections the broker closes for idleness are no outage: no "cannot reach broker", no restart, still loading', async () => {
  cluster.createTopic('idle-c', 1);
  const db = path.join(dir, 'idle.sqlite');
  const file = path.join(dir, 'idle.yaml');
  writeFileSync(file, [
    `brokers: [${cluster.bootstrap.join(', ')}]`, 'groupId: idle-c-g', 'topics: [idle-c]',
    'consumer: { sessionTimeoutMs: 10000, heartbeatIntervalMs: 2500, maxWaitTimeMs: 500 }',
    'metrics: { port: 0 }',
    `sink: { type: sql, knex: { client: sqlite3, connection: { filename: ${JSON.stringify(db)} } }, table: rows, mode: insert,`,
    '        autoCreate: true, mapping: { columns: { id: { path: id, type: integer } } } }',
  ].join('\n'));
  const run = startCli(['run', file, '--status-interval', '2500'], 80000);
  const knex = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
  try {
    await until(() => /probes at http:\/\/127\.0\.0\.1:\d+\/healthz/.test(run.out()) || run.child.exitCode !== null, 'the probes line',
      45000);
    const metricsPort = Number(/probes at http:\/\/127\.0\.0\.1:(\d+)\/healthz/.exec(run.out())![1]);
    const ready = async () => (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status === 200;
    await until(() => ready(), 'ready', 30000);
    const closedBefore = cluster.events.entries({ type: 'connection-idle-closed' }).length;
    await new Promise((r) => setTimeout(r, 8000)); // idle: the broker closes what waits longer than 1 s
    expect(cluster.events.entries({ type: 'connection-idle-closed' }).length).toBeGreaterThan(closedBefore);
    expect(run.child.exitCode).toBeNull();
    expect(await ready()).toBe(true);
    await produce(kafkaOf(cluster), 'idle-c', 0, [1, 2, 3].map((id) => JSON.stringify({ id })));
    await until(async () => Number((await knex('rows').count({ n: '*' }))[0]!.n) === 3, 'the 3 rows after the idle time', 30000);
    expect(run.out()).not.toMatch(/cannot reach|restarts the consumer|unreachable/);
  } finally {
    await knex.destroy();
    run.child.kill('SIGTERM');
  }
  expect(await run.exited).toBe(0);
});
