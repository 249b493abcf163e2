/**
 * A Kafka instance from another kafkajs copy (two versions installed) is refused by name with
 * both versions (issue 9, item 8), and start() rejects when the consumer fails before its first
 * assignment instead of resolving and crashing later.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { FAST } from '../../consumer/helpers';

jest.setTimeout(60000);
const ROOT = path.join(__dirname, '..', '..', '..');

test('a Kafka from a second kafkajs copy: UnsupportedKafkaJsError naming both versions, at construction', () => {
  if (!existsSync(path.join(ROOT, 'dist', 'consumer', 'group-consumer.js')))
    throw new Error('dist/ is missing: run npm run build (npm test does it)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-foreign-kafkajs-'));
  try {
    const copy = path.join(dir, 'node_modules', 'kafkajs');
    cpSync(path.join(ROOT, 'node_modules', 'kafkajs'), copy, { recursive: true });
    const pkg = JSON.parse(readFileSync(path.join(copy, 'package.json'), 'utf8')) as { version: string };
    const ours = pkg.version;
    writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ ...pkg, version: '2.2.3' }));
    const out = execFileSync(process.execPath, [path.join(ROOT, 'test', 'fixtures', 'foreign-kafkajs.js'), copy], { encoding: 'utf8' });
    const result = JSON.parse(out.trim().split('\n').pop()!) as { ok: boolean; name?: string; code?: string; message?: string };
    expect(result).toMatchObject({ ok: false, name: 'UnsupportedKafkaJsError', code: 'UNSUPPORTED_KAFKAJS' });
    expect(result.message).toContain('kafkajs 2.2.3');
    expect(result.message).toContain(`kafkajs ${ours}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('something that is no Kafka at all is a ConfigError naming `kafka`', () => {
  expect(() =>
    new GroupConsumer({ kafka: {} as never, groupId: 'g', topics: ['t'], delivery: 'at-least-once', handler: async () => undefined }))
    .toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: 'kafka' }));
});

describe('start() and start-up failures', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster =
      await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000, maxSessionTimeoutMs: 20000 } });
    cluster.createTopic('inst-t', 1);
  });
  afterAll(async () => { await cluster.stop(); });
  const kafka = () =>
    new Kafka({ clientId: 'inst', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 1, initialRetryTime: 50 } });

  test('start() rejects when the group refuses the member (session timeout above the broker maximum)', async () => {
    const c =
      new GroupConsumer({ kafka: kafka(), groupId: 'inst-g1', topics: ['inst-t'], delivery: 'at-least-once', handler: async () => undefined,
      ...FAST, sessionTimeoutMs: 25000 });
    c.on('error', () => undefined);
    await expect(c.start()).rejects.toThrow(/session/i);
    expect(c.state).toBe('failed');
    await c.stop();
  });

  test('start() resolves once the member has its first assignment', async () => {
    const c = new GroupConsumer({
      kafka: kafka(), groupId: 'inst-g2', topics: ['inst-t'], delivery: 'at-least-once', handler: async () => undefined, ...FAST });
    await c.start();
    expect(c.state).toBe('running');
    expect(c.assignment()).toEqual([{ topic: 'inst-t', partition: 0 }]);
    await c.stop();
  });
});
