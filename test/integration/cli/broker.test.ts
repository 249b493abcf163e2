/**
 * The standalone broker: `node dist/cli/index.js broker --port <p> --brokers 3` serves until
 * SIGINT; a KafkaJS client seeded with only the first address finds all three brokers.
 * Needs `npm run build` first (npm test does it in pretest).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { kafkaFor } from '../mock/helpers';

jest.setTimeout(60_000);

const CLI = path.join(__dirname, '../../../dist/cli/index.js');

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ host: '127.0.0.1', port, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** A port p such that p, p+1 and p+2 are free now. */
async function threeFreePorts(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = 20000 + Math.floor(Math.random() * 30000);
    if ((await portFree(p)) && (await portFree(p + 1)) && (await portFree(p + 2))) return p;
  }
  throw new Error('no three consecutive free ports');
}

describe('kafka-eos broker (standalone)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  test('serves 3 brokers discoverable from the first address, logs events with --verbose, stops on SIGINT', async () => {
    expect(existsSync(CLI)).toBe(true); // run `npm run build` first
    const port = await threeFreePorts();
    const proc = spawn(process.execPath, [CLI, 'broker', '--port', String(port), '--brokers', '3', '--verbose'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
    proc.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while (!out.includes('kafka-eos mock cluster:')) {
      if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`broker did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const { kafka } = kafkaFor([`127.0.0.1:${port}`], 'cli-test');
    const admin = kafka.admin();
    await admin.connect();
    const { brokers } = await admin.describeCluster();
    expect(brokers.map((b) => [b.nodeId, b.host, b.port]).sort()).toEqual([
      [1, '127.0.0.1', port], [2, '127.0.0.1', port + 1], [3, '127.0.0.1', port + 2],
    ]);
    await admin.createTopics({ topics: [{ topic: 'cli-topic', numPartitions: 3 }] });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'cli-topic', messages: [{ partition: 0, value: 'a' }, { partition: 1, value: 'b' }, { partition: 2, value: 'c' }] });
    const offsets = await admin.fetchTopicOffsets('cli-topic');
    expect(offsets.map((o) => o.high)).toEqual(['1', '1', '1']);
    await producer.disconnect();
    await admin.disconnect();
    const events = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    expect(events).toContainEqual(expect.objectContaining({ type: 'topic-created', topic: 'cli-topic', partitions: 3 }));

    proc.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});
