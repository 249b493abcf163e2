/**
 * Several connectors in one `kafka-eos run` process (Kafka Connect files): the worker's
 * `task.shutdown.graceful.timeout.ms` is the bound of the whole process's stop (Connect: the total, not per task). With
 * the brokers no longer answering, SIGTERM exits 3 once, at the bound, with one line naming what each connector left
 * (not after one bound per connector). (Compiled CLI.)
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import knexFactory from 'knex';
import { MockCluster } from '../../../src/testing/mock-broker';
import { kafkaOf, produce, until } from '../../consumer/helpers';
import { requireBuiltCli, startCli, startCliCluster, stopCliCluster } from './helpers';

jest.setTimeout(90000);

let cluster: MockCluster;
let dir: string;
beforeAll(async () => { requireBuiltCli(); ({ cluster, dir } = await startCliCluster('kafka-eos-connect-shutdown-')); });
afterAll(async () => { cluster.faults.clear(); await stopCliCluster(cluster, dir); });

const envelope = (id: number) => JSON.stringify({
  schema: { type: 'struct', name: 'row', optional: false, fields: [{ field: 'id', type: 'int32', optional: false }] }, payload: { id },
});

test('two connectors, task.shutdown.graceful.timeout.ms=2500: SIGTERM with unanswering brokers exits 3 at the one bound, '
  + 'naming each connector', async () => {
  const boundMs = 2500;
  const worker = path.join(dir, 'worker.properties');
  writeFileSync(worker, [
    `bootstrap.servers=${cluster.bootstrap.join(',')}`,
    'key.converter=org.apache.kafka.connect.storage.StringConverter',
    'value.converter=org.apache.kafka.connect.json.JsonConverter',
    'value.converter.schemas.enable=true',
    `task.shutdown.graceful.timeout.ms=${boundMs}`,
    'consumer.session.timeout.ms=6000', 'consumer.heartbeat.interval.ms=500', 'consumer.fetch.max.wait.ms=100',
  ].join('\n'));
  const connectors = ['alpha', 'beta'].map((name) => {
    cluster.createTopic(`cs-${name}`, 1);
    const db = path.join(dir, `${name}.sqlite`);
    const file = path.join(dir, `${name}.properties`);
    writeFileSync(file, [`name=${name}`, 'connector.class=io.confluent.connect.jdbc.JdbcSinkConnector', `topics=cs-${name}`,
      `connection.url=jdbc:sqlite:${db}`, 'table.name.format=rows', 'insert.mode=insert', 'pk.mode=kafka', 'auto.create=true'].join('\n'));
    return { name, db, file };
  });
  for (const c of connectors) await produce(kafkaOf(cluster), `cs-${c.name}`, 0, [1, 2, 3].map(envelope));
  const run = startCli(['run', worker, ...connectors.map((c) => c.file)], 80000);
  try {
    for (const c of connectors) {
      const knex = knexFactory({ client: 'sqlite3', connection: { filename: c.db }, useNullAsDefault: true });
      try {
        await until(async () => Number((await knex('rows').count({ n: '*' }).catch(() => [{ n: 0 }]))[0]!.n) === 3
          || run.child.exitCode !== null, `connector ${c.name}'s 3 rows`, 45000);
      } finally {
        await knex.destroy();
      }
    }
    expect(run.child.exitCode).toBeNull();
    cluster.faults.delay({ ms: 60_000 }); // every request from now: the leave (and any commit to Kafka) goes unanswered
    const signalled = Date.now();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(3);
    const took = Date.now() - signalled;
    // One bound for the process (not one per connector, which would be 2 × 2.5 s).
    expect(took).toBeGreaterThanOrEqual(boundMs - 200);
    expect(took).toBeLessThan(2 * boundMs);
    const last = run.out().split('\n').filter((l) => l.includes('did not stop within'));
    expect(last).toHaveLength(1);
    expect(last[0]).toMatch(new RegExp(`did not stop within shutdownTimeoutMs ${boundMs} ms of the signal; exiting 3\\. `
      + '\\[alpha\\] .*cs-alpha-0.*; \\[beta\\] .*cs-beta-0'));
  } finally {
    cluster.faults.clear();
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  }
});
