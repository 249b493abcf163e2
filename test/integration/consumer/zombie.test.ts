/**
 * Zombie test: a member freezes (SIGSTOP) while holding a batch, past its session timeout. The
 * group gives its partition to a new member, which writes everything. When the zombie thaws
 * (SIGCONT) it tries to write its stale batch: the sink's compare-and-set refuses it and
 * nothing is duplicated.
 */
import { ChildProcess, fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory from 'knex';
import { Kafka, logLevel } from 'kafkajs';
import { createGroupConsumer, SqlSink } from '../../../src';
import { MockCluster } from '../../../src/testing/mock-broker';
import { waitFor, ZOMBIE_WORKER } from './zombie-helpers';
import { until } from '../../helpers/until';

test('a frozen member that lost its partition is fenced when it wakes: no duplicate', async () => {
  if (!existsSync(path.join(__dirname, '..', '..', '..', 'dist', 'index.js')))
    throw new Error('dist/ is missing: run npm run build (npm test does it)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-zombie-'));
  const db = path.join(dir, 'zombie.sqlite');
  const cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  let zombie: ChildProcess | null = null;
  const sink = new SqlSink({ knex: { client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true }, table: 'zombie',
    mode: 'insert', autoCreate: true, mapping: { columns: { v: { path: 'v', type: 'string' } } } });
  const successor = createGroupConsumer({ kafka, groupId: 'zg', topics: ['z'], delivery: 'exactly-once', sink, sessionTimeoutMs: 2000,
    heartbeatIntervalMs: 300, maxWaitTimeMs: 100 });
  const fencedInSuccessor: unknown[] = [];
  successor.on('fenced', (f) => fencedInSuccessor.push(f));
  try {
    cluster.createTopic('z', 1);
    await producer.connect();
    await producer.send({ topic: 'z', messages: Array.from({ length: 500 }, (_, i) => ({ value: JSON.stringify({ v: `r${i}` }) })) });

    zombie = fork(ZOMBIE_WORKER, [cluster.bootstrap.join(','), 'zg', 'z', 'sql', db], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const holding = await waitFor<{ records: number; nextOffset: string }>(zombie, 'holding');
    expect(holding.records).toBeGreaterThan(0);
    zombie.kill('SIGSTOP'); // frozen with the batch in hand, before its write
    zombie.send({ type: 'go' }); // delivered when it thaws

    await successor.start();
    await until(async () => successor.assignment().length === 1, 'the partition to move to the successor', 30000);
    await until(async () => (await sink.open('zg', [{ topic: 'z', partition: 0 }])).get('z:0') === 500n,
      'the successor to sink every record', 30000);

    const fenced = waitFor<{ expected: string; stored: string }>(zombie, 'fenced');
    zombie.kill('SIGCONT');
    const f = await fenced;
    expect(f).toEqual({ type: 'fenced', expected: '-1', stored: '500' });

    const knex = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
    try {
      const [{ n }] = await knex('zombie').count({ n: '*' });
      expect(Number(n)).toBe(500);
      const dupes = await knex('zombie').select('kafka_offset').count({ c: '*' }).groupBy('kafka_offset').havingRaw('count(*) > 1');
      expect(dupes).toEqual([]);
    } finally {
      await knex.destroy();
    }
    expect(fencedInSuccessor).toEqual([]);
  } finally {
    zombie?.kill('SIGKILL');
    await successor.stop();
    await sink.close();
    await producer.disconnect();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120000);
