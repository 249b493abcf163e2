/**
 * `kafka-eos demo --brokers <list>`: the demo against an external cluster, here a `kafka-eos broker` process this test
 * starts (compiled CLI), for each sink (SQL into SQLite, HDFS into the embedded WebHDFS server), with a consumer
 * SIGKILLed midway. Besides the demo's own verification, this test checks that the work went through that process
 * (its event log shows the demo's group and the rebalance after the kill; its topic holds the records) and reads the
 * output back itself. A second run on the same cluster is refused (DEMO_TOPIC_REFUSED): the demo never reuses a topic.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory from 'knex';
import { Kafka, logLevel } from 'kafkajs';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { committedOffsets, range } from '../../sinks/hdfs/helpers';
import { expectDemoPassed, requireBuiltCli, runCli, startBrokerProcess, type BrokerProcess } from './helpers';

/** Sum of the high watermarks of `topic` on the broker process, read with KafkaJS's admin client. */
async function recordsIn(bootstrap: string[], topic: string): Promise<number> {
  const admin = new Kafka({ brokers: bootstrap, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

/** The demo group's generations in the broker's --verbose event log (JSON lines). */
function generations(out: string): number {
  return out.split('\n').filter((l) => l.startsWith('{') && l.includes('"group.generation"') && l.includes('kafka-eos-demo-')).length;
}

describe('kafka-eos demo --brokers (a kafka-eos broker process)', () => {
  let dir: string;
  let broker: BrokerProcess | undefined;
  beforeAll(() => {
    requireBuiltCli();
    dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-demo-brokers-'));
  });
  afterEach(async () => { await broker?.stop(); broker = undefined; });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('--sink sql: 10k flights, one consumer SIGKILLed: verified, through the broker process; a second run is refused', async () => {
    broker = await startBrokerProcess(3, ['--verbose']);
    const db = path.join(dir, 'brokers.sqlite');
    const { code, out } = await runCli(['demo', '--brokers', broker.bootstrap.join(','), '--rows', '10000', '--db', db,
      '--kills', '1', '--seed', '7', '--session-timeout', '3000'], 170000);
    expectDemoPassed(out);
    expect(out).toMatch(new RegExp(`6 partitions on ${broker.bootstrap.join(',')}`));
    expect(out).toMatch(/1 killed with SIGKILL/);
    expect(code).toBe(0);
    expect(await recordsIn(broker.bootstrap, 'flights')).toBe(10000);
    expect(generations(broker.out())).toBeGreaterThanOrEqual(2); // the first assignment, then the rebalance after the kill
    const knex = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
    try {
      const [{ n, d }] = await knex('flights').count({ n: '*' }).countDistinct({ d: 'seq' });
      expect([Number(n), Number(d)]).toEqual([10000, 10000]);
    } finally {
      await knex.destroy();
    }

    const again = await runCli(['demo', '--brokers', broker.bootstrap.join(','), '--rows', '1000', '--db', db], 60000);
    expect(again.code).not.toBe(0);
    expect(again.out).toMatch(/DEMO_TOPIC_REFUSED.*topic flights exists/);
    expect(await recordsIn(broker.bootstrap, 'flights')).toBe(10000); // nothing produced by the refused run
  }, 200000);

  test('--sink hdfs: 10k flights, one consumer SIGKILLed: every offset exactly once in the files', async () => {
    broker = await startBrokerProcess(3);
    const hdfs = await WebHdfsServer.start();
    try {
      const { code, out } = await runCli(['demo', '--brokers', broker.bootstrap.join(','), '--sink', 'hdfs', '--hdfs', hdfs.url,
        '--rows', '10000', '--kills', '1', '--seed', '3', '--session-timeout', '3000'], 170000);
      expectDemoPassed(out);
      expect(out).toMatch(/1 killed with SIGKILL/);
      expect(code).toBe(0);
      expect(await recordsIn(broker.bootstrap, 'flights')).toBe(10000);
      const client = new WebHdfsClient({ url: hdfs.url });
      const runDir = `/kafka-eos-demo/${(await client.list('/kafka-eos-demo'))![0]!.pathSuffix}`;
      let total = 0;
      for (const p of [0, 1, 2, 3, 4, 5]) {
        const offsets = await committedOffsets(client, runDir, 'flights', p);
        expect(offsets).toEqual(range(0n, BigInt(offsets.length)));
        total += offsets.length;
      }
      expect(total).toBe(10000);
    } finally {
      await hdfs.stop();
    }
  }, 200000);

  test('bad --brokers values and --timeline with --brokers are refused before anything starts', async () => {
    const bad = await runCli(['demo', '--brokers', 'localhost'], 30000);
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/--brokers must be host:port\[,host:port\.\.\.\] \(not localhost\)/);
    const timeline = await runCli(['demo', '--brokers', '127.0.0.1:1', '--timeline', path.join(dir, 't.html')], 30000);
    expect(timeline.code).not.toBe(0);
    expect(timeline.out).toMatch(/CONFIG_INVALID.*--timeline needs the embedded cluster/);
  }, 60000);
});
