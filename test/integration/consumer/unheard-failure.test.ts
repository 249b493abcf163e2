/**
 * A consumer that fails after start() resolved, with nothing listening to its `error` event, is never silent
 * (issue 25): the failure is logged at ERROR through the client's logger even at the default level (NOTHING), and a
 * process that ends because nothing else keeps it alive ends with exit code 1. With an `error` listener, the listener
 * owns the failure: nothing extra is logged and the exit code is left alone. Real child processes, the compiled dist/.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';

jest.setTimeout(60000);
const ROOT = path.join(__dirname, '..', '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'unheard-failure.js');

function runChild(bootstrap: string[], listen: 'listen' | 'none'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env };
    delete env.KAFKAJS_LOG_LEVEL;
    execFile(process.execPath, [FIXTURE, bootstrap.join(','), 'unheard-t', listen], { env, timeout: 45000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

describe('a consumer failure nobody listens to', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    if (!existsSync(path.join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: run npm run build (npm test does it)');
    cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0 } });
    cluster.createTopic('unheard-t', 1);
    const producer = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({ topic: 'unheard-t', messages: [{ value: 'poison' }] });
    await producer.disconnect();
  });
  afterAll(async () => { await cluster?.stop(); });

  test('no listener: logged at ERROR at the default log level, and the process exits 1; a listener: exit 0, no extra line', async () => {
    const [unheard, heard] = await Promise.all([runChild(cluster.bootstrap, 'none'), runChild(cluster.bootstrap, 'listen')]);
    expect(unheard.stdout).toContain('started');
    expect(unheard.code).toBe(1);
    expect(unheard.stderr).toMatch(/"level":"ERROR"/);
    expect(unheard.stderr).toContain("nothing listens to its 'error' event");
    expect(unheard.stderr).toContain('this record is poison (test)');

    expect(heard.stdout).toContain('started');
    expect(heard.stdout).toContain('heard: ');
    expect(heard.stdout).toContain('this record is poison (test)');
    expect(heard.code).toBe(0);
    expect(heard.stderr).not.toContain("nothing listens to its 'error' event");
  });
});
