/**
 * Issue 24's "done when", into PostgreSQL, through real processes (`kafka-eos broker --topic` as a child, so that it
 * can be frozen; `kafka-eos run` with a YAML config reaching the database through a TCP proxy), on a database of its
 * own (created and dropped here, since it is closed to connections for a while). /readyz and /healthz as an operator's
 * probes see them while:
 * - the database is killed (the proxy cut: connections reset, refused): 503 `sink-unavailable`, live, no exit; back: ready;
 * - the database refuses connections (`ALTER DATABASE ... ALLOW_CONNECTIONS false`, its sessions terminated: SQLSTATE
 *   57P01, then 55000 "database ... is not currently accepting connections" on every reconnect): an outage, waited out (the soak's
 *   run exited 1 within a second), 503 `sink-unavailable`; allowed again: ready;
 * - a column is removed: 503 `sink-blocked` naming table and column; back: ready;
 * - the brokers are frozen (SIGSTOP): 503 `kafka-unreachable`; SIGTERM then exits 3 within shutdownTimeoutMs.
 * Throughout, pg never warns that a query was queued on a busy client (a DeprecationWarning in the soak), and every
 * record is stored once. Needs a PostgreSQL server (KAFKA_EOS_PG_URL) whose user may create databases. (Compiled CLI.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { kafkaFor } from '../mock/helpers';
import { until } from '../../consumer/helpers';
import { requireBuiltCli, startCli, type RunningCli } from './helpers';
import { CuttableProxy } from './pg-proxy';

jest.setTimeout(240_000);

const pgUrl = process.env.KAFKA_EOS_PG_URL;

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

(pgUrl ? describe : describe.skip)('probes through kafka-eos run into PostgreSQL', () => {
  const database = `kafka_eos_probes_${process.pid}`;
  let dir: string;
  let admin: Knex;
  let db: Knex | undefined;
  let proxy: CuttableProxy;
  let broker: RunningCli | undefined;
  let run: RunningCli | undefined;
  beforeAll(async () => {
    requireBuiltCli();
    dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-probes-pg-'));
    admin = knexFactory({ client: 'pg', connection: pgUrl });
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.raw(`CREATE DATABASE ${database}`);
    const u = new URL(pgUrl!);
    proxy = new CuttableProxy({ host: u.hostname, port: Number(u.port || 5432) });
    await proxy.open();
  });
  afterAll(async () => {
    for (const p of [run, broker]) {
      if (p && p.child.exitCode === null) { p.child.kill('SIGCONT'); p.child.kill('SIGKILL'); }
    }
    await proxy.cut();
    await db?.destroy();
    await admin.raw(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  test('killed, refusing connections (55000), a column removed, brokers frozen: readyz says each; waited out; SIGTERM exits 3',
    async () => {
    const port = await freePort();
    broker = startCli(['broker', '--port', String(port), '--brokers', '1', '--min-session-timeout', '1000', '--topic', 'pgp-t:2'], 230_000);
    await until(() => broker!.out().includes('kafka-eos mock cluster:') || broker!.child.exitCode !== null, 'the broker', 30_000);
    const viaProxy = new URL(pgUrl!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    viaProxy.pathname = `/${database}`;
    const direct = new URL(pgUrl!);
    direct.pathname = `/${database}`;
    const file = path.join(dir, 'run.yaml');
    writeFileSync(file, [
      `brokers: ["127.0.0.1:${port}"]`, 'groupId: pgp-g', 'topics: [pgp-t]', 'shutdownTimeoutMs: 3000',
      'kafka: { requestTimeoutMs: 1500, connectionTimeoutMs: 500, retry: { retries: 2, maxRetryTimeMs: 500 } }',
      'consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 200, sinkBlockedTimeoutMs: 600000 }',
      'metrics: { port: 0 }',
      'sink: { type: sql, knex: { client: pg, connection: "${RUN_PG}" }, table: rows, mode: insert, autoCreate: true,',
      '        mapping: { columns: { id: { path: id, type: integer }, delay: { path: delay, type: integer } } } }',
    ].join('\n'));
    run = startCli(['run', file, '--status-interval', '500'], 230_000, { RUN_PG: viaProxy.toString() });
    const r = run;
    await until(() => /probes at http:\/\/127\.0\.0\.1:\d+\/healthz/.test(r.out()) || r.child.exitCode !== null, 'the probes line', 60_000);
    const metricsPort = Number(/probes at http:\/\/127\.0\.0\.1:(\d+)\/healthz/.exec(r.out())![1]);
    const probe = async (p: string) => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}${p}`);
      return { status: res.status, body: JSON.parse(await res.text()) as { state: string; reason: string; since: string } };
    };
    const alive = () => {
      if (r.child.exitCode !== null) throw new Error(`kafka-eos run exited ${r.child.exitCode}:\n${r.out().slice(-3000)}`);
    };
    const readyAgain = (what: string) => until(async () => (await probe('/readyz')).status === 200 || r.child.exitCode !== null,
      what, 60_000);
    await readyAgain('ready');
    db = knexFactory({ client: 'pg', connection: direct.toString() });
    const rows = async () => Number((await db!('rows').count({ n: '*' }))[0]!.n);

    const { kafka } = kafkaFor([`127.0.0.1:${port}`], 'pgp-producer');
    const producer = kafka.producer();
    await producer.connect();
    let next = 0;
    const send = async () => {
      await producer.send({ topic: 'pgp-t', acks: -1,
        messages: Array.from({ length: 10 }, (_, i) => ({ partition: i % 2, value: JSON.stringify({ id: next + i, delay: 1 }) })) });
      next += 10;
    };
    await send();
    await until(async () => (await rows()) === 10, 'the first 10 rows', 30_000);

    // 1. The database killed: its host gone (connections reset, new ones refused).
    await proxy.cut();
    await send();
    await until(async () => (await probe('/readyz')).body.state === 'sink-unavailable' || r.child.exitCode !== null,
      'sink-unavailable (database killed)', 30_000);
    expect((await probe('/readyz')).status).toBe(503);
    expect((await probe('/healthz')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    alive();
    await proxy.open();
    await readyAgain('ready after the database came back');
    await until(async () => (await rows()) === 20, '20 rows', 30_000);

    // 2. The database refuses connections: closed to them, its sessions terminated (57P01), every reconnect 55000.
    await admin.raw(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await admin.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()', [database]);
    await db.destroy(); // the test's own pool: its sessions were terminated too
    db = knexFactory({ client: 'pg', connection: direct.toString() });
    await send();
    await until(async () => (await probe('/readyz')).body.state === 'sink-unavailable' || r.child.exitCode !== null,
      'sink-unavailable (connections refused)', 30_000);
    // PostgreSQL's words for 55000 here (object_not_in_prerequisite_state).
    await until(() => /is not currently accepting connections|does not allow connections/.test(r.out()) || r.child.exitCode !== null,
      'the run to name the refusal', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 3000)); // the soak's run exited 1 within a second here
    alive();
    expect((await probe('/readyz')).body.state).toBe('sink-unavailable');
    expect((await probe('/healthz')).status).toBe(200);
    await admin.raw(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    await readyAgain('ready after connections are allowed again');
    await until(async () => (await rows()) === 30, '30 rows', 30_000);

    // 3. A column removed: every write refused, a block naming table and column.
    await db.raw('ALTER TABLE rows DROP COLUMN delay');
    await send();
    await until(async () => (await probe('/readyz')).body.state === 'sink-blocked' || r.child.exitCode !== null, 'sink-blocked', 30_000);
    const blocked = await probe('/readyz');
    expect(blocked.status).toBe(503);
    expect(blocked.body.reason).toMatch(/^table rows, column delay: /);
    await db.raw('ALTER TABLE rows ADD COLUMN delay INTEGER');
    await readyAgain('ready after the column is back');
    await until(async () => (await rows()) === 40, '40 rows', 30_000);
    await producer.disconnect();
    const kafkaAdmin = kafka.admin();
    await kafkaAdmin.connect();
    await until(async () => (await kafkaAdmin.fetchOffsets({ groupId: 'pgp-g', topics: ['pgp-t'] }))[0]!.partitions
      .every((p) => p.offset === '20'), 'Kafka\'s group offsets at 20', 30_000);
    await kafkaAdmin.disconnect();

    // 4. The brokers frozen.
    broker.child.kill('SIGSTOP');
    await until(async () => (await probe('/readyz')).body.state === 'kafka-unreachable' || r.child.exitCode !== null,
      'kafka-unreachable', 30_000);
    expect((await probe('/readyz')).status).toBe(503);
    const signalled = Date.now();
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(3);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(r.out()).toMatch(/did not stop within shutdownTimeoutMs 3000 ms of the signal; exiting 3\. /);
    broker.child.kill('SIGCONT');

    // pg never queued a query on a busy client (its DeprecationWarning in the soak's outage), and nothing was lost or doubled.
    expect(r.out()).not.toMatch(/DeprecationWarning/);
    expect((await db('rows').select('id')).map((x: { id: number }) => Number(x.id)).sort((a, b) => a - b))
      .toEqual(Array.from({ length: 40 }, (_, i) => i));
  });
});
