/**
 * `kafka-eos run` with an HDFS sink: the config's sink is a discriminated union (sql | hdfs); the
 * NameNode is checked before anything is consumed; on SIGINT the open file is committed (flush on
 * stop), so every record produced is in a committed file. (The compiled CLI is used.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { kafkaOf, produce } from '../../consumer/helpers';
import { committedFiles } from '../../sinks/hdfs/helpers';

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli', 'index.js');
jest.setTimeout(60000);

function run(config: unknown, dir: string, stopWhen?: (out: string) => boolean): Promise<{ code: number | null; out: string }> {
  const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'run', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stopped = false;
    const onData = (d: Buffer) => {
      out += d;
      if (!stopped && stopWhen?.(out)) { stopped = true; setTimeout(() => child.kill('SIGINT'), 1500); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const hard = setTimeout(() => child.kill('SIGKILL'), 45000);
    child.on('exit', (code) => { clearTimeout(hard); resolve({ code, out }); });
  });
}

let cluster: MockCluster;
let hdfs: WebHdfsServer;
let dir: string;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  hdfs = await WebHdfsServer.start();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-run-hdfs-'));
});
afterAll(async () => {
  await cluster.stop();
  await hdfs.stop();
  rmSync(dir, { recursive: true, force: true });
});

const config = (sink: Record<string, unknown>) => ({
  brokers: cluster.bootstrap, groupId: 'run-hdfs-g', topics: ['run-hdfs-t'],
  sink: { type: 'hdfs', url: hdfs.url, topicsDir: '/run', flushSize: 1000, includeKafkaCoordinates: true, ...sink },
  consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },
});

test('sinks into HDFS until SIGINT; the open file is committed on stop', async () => {
  cluster.createTopic('run-hdfs-t', 1);
  await produce(kafkaOf(cluster), 'run-hdfs-t', 0, ['{"id":1}', '{"id":2}', '{"id":3}']);
  const { code, out } = await run(config({}), dir, (o) => o.includes('assigned: run-hdfs-t-0'));
  expect(out).toContain(`into HDFS ${hdfs.url}/run`);
  expect(code).toBe(0);
  const files = await committedFiles(new WebHdfsClient({ url: hdfs.url }), '/run', 'run-hdfs-t');
  expect(files.map((f) => [f.start, f.end])).toEqual([[0n, 2n]]);
});

test('an unknown sink type and a bad HDFS field are named', async () => {
  const bad = await run({ ...config({}), sink: { type: 'nfs' } }, dir);
  expect(bad.code).not.toBe(0);
  expect(bad.out).toMatch(/sink\.type/);
  const field = await run(config({ flushSize: 0 }), dir);
  expect(field.code).not.toBe(0);
  expect(field.out).toMatch(/sink\.flushSize/);
});

test('an unreachable NameNode fails before consuming, with SINK_UNAVAILABLE', async () => {
  const { code, out } = await run(config({ url: 'http://127.0.0.1:1', retry: { retries: 0 } }), dir);
  expect(code).not.toBe(0);
  expect(out).toMatch(/\[SINK_UNAVAILABLE\] cannot use HDFS/);
});
