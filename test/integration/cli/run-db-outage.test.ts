/**
 * `kafka-eos run` into PostgreSQL while the database becomes unreachable: the run reaches the
 * database through a TCP proxy on loopback that the test cuts (listener closed, every connection
 * reset) and restores on the same port, which is what a client sees of a database host going away
 * and coming back. Within seconds the run says what cannot be reached, since when and what it
 * retries; it waits (no exit, no record lost or doubled) and loads again once the proxy is back.
 * Needs a PostgreSQL server (KAFKA_EOS_PG_URL); reported as skipped without one. (Compiled CLI.)
 */
import knexFactory, { type Knex } from 'knex';
import { stringify } from 'yaml';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { kafkaOf, produce, until } from '../../consumer/helpers';
import { startCli } from './helpers';
import { CuttableProxy } from './pg-proxy';

jest.setTimeout(120000);

const pgUrl = process.env.KAFKA_EOS_PG_URL;

(pgUrl ? describe : describe.skip)('PostgreSQL outage during run', () => {
  let cluster: MockCluster;
  let dir: string;
  let proxy: CuttableProxy;
  let k: Knex;
  const table = `outage_${process.pid}`;
  const offsetsTable = `outage_offsets_${process.pid}`;
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
    dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-db-outage-'));
    const u = new URL(pgUrl!);
    proxy = new CuttableProxy({ host: u.hostname, port: Number(u.port || 5432) });
    await proxy.open();
    k = knexFactory({ client: 'pg', connection: pgUrl });
  });
  afterAll(async () => {
    await proxy.cut();
    for (const t of [table, offsetsTable]) await k.schema.dropTableIfExists(t);
    await k.destroy();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the database going away is reported within seconds (what, since when, what is retried), waited out, and loading resumes',
    async () => {
    cluster.createTopic('outage-t', 1);
    await produce(kafkaOf(cluster), 'outage-t', 0, [1, 2, 3].map((id) => JSON.stringify({ id })));
    const viaProxy = new URL(pgUrl!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const file = path.join(dir, 'outage.yaml');
    writeFileSync(file, stringify({
      brokers: cluster.bootstrap, groupId: 'outage-g', topics: ['outage-t'],
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 },
      sink: { type: 'sql', knex: { client: 'pg', connection: viaProxy.toString() }, table, offsetsTable, mode: 'upsert',
        upsertKey: ['id'], autoCreate: true, mapping: { columns: { id: { type: 'integer' } } } },
    }));
    const run = startCli(['run', '--config', file, '--status-interval', '300'], 110000);
    try {
      await until(() => /status .* 3 total/.test(run.out()), 'the first 3 records', 45000);
      await proxy.cut();
      const cutAt = Date.now();
      await produce(kafkaOf(cluster), 'outage-t', 0, [4, 5].map((id) => JSON.stringify({ id })));
      const outage = new RegExp('kafka-eos run: cannot reach the database since (\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z): (.*); the consumer '
        + 'keeps its partitions, waits 1 s, re-reads the stored positions and writes again');
      await until(() => outage.test(run.out()), 'the outage message', 30000);
      expect(Date.now() - cutAt).toBeLessThan(15000); // "within seconds" (the pool's own connect retries included)
      const [, since, reason] = outage.exec(run.out())!;
      expect(Date.parse(since!)).toBeGreaterThanOrEqual(cutAt - 1000);
      expect(reason).toMatch(/outage-t:0|ECONNREFUSED|ECONNRESET|Connection terminated|connect/i);
      // Waited out: it does not exit, and nothing more is loaded while the database is away.
      await new Promise((r) => setTimeout(r, 3000));
      expect(run.child.exitCode).toBeNull();
      expect(run.out()).not.toMatch(/status .* 5 total/);
      expect(run.out()).not.toMatch(/cannot reach broker/); // the brokers are fine: only the database is named

      await proxy.open(); // same port
      await until(() => /kafka-eos run: the database reachable again after \d+ s/.test(run.out()), 'the recovery message', 45000);
      await until(() => /status .* 5 total/.test(run.out()), 'the records produced during the outage', 45000);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
    expect((await k(table).select('id').orderBy('id')).map((r: { id: number }) => Number(r.id))).toEqual([1, 2, 3, 4, 5]);
  });
});
