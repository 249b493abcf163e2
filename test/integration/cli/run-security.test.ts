/**
 * `kafka-eos run` passes the config's `kafka.ssl` and `kafka.sasl` through to KafkaJS, against the
 * mock cluster's secured listeners: SSL (a self-signed certificate made here with openssl, trusted
 * through `ssl.ca: { file }`), SASL_PLAINTEXT and SASL_SSL with PLAIN users. Bad credentials and an
 * untrusted certificate fail with a named error. (The compiled CLI is used: `npm test` builds first.)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { stringify } from 'yaml';
import { MockCluster, type MockClusterOptions } from '../../../src/testing/mock-broker';
import { runCli, runUntilThreeRecordsThenSigterm } from './helpers';

jest.setTimeout(90000);

const OPENSSL = ['/usr/bin/openssl', '/bin/openssl'].find((p) => existsSync(p));
const maybe = OPENSSL ? describe : describe.skip;
let dir: string;
let certFile: string;
let keyFile: string;
const clusters: MockCluster[] = [];
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-run-security-'));
  certFile = path.join(dir, 'broker.crt');
  keyFile = path.join(dir, 'broker.key');
  if (OPENSSL) {
    execFileSync(OPENSSL, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  }
});
afterAll(async () => {
  await Promise.allSettled(clusters.map((c) => c.stop()));
  rmSync(dir, { recursive: true, force: true });
});

const USERS = { loader: 'loader-secret' };
const tlsOf = () => ({ key: readFileSync(keyFile), cert: readFileSync(certFile) });

async function clusterWith(options: MockClusterOptions, client: Pick<KafkaConfig, 'ssl' | 'sasl'>, topic: string): Promise<MockCluster> {
  const cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 }, ...options });
  clusters.push(cluster);
  cluster.createTopic(topic, 1);
  // A copy: KafkaJS adds functions to the sasl object it is given.
  const producer = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, ...structuredClone(client) }).producer();
  await producer.connect();
  await producer.send({ topic, messages: [1, 2, 3].map((id) => ({ value: JSON.stringify({ id }) })) });
  await producer.disconnect();
  return cluster;
}

function configFile(cluster: MockCluster, name: string, kafka: Record<string, unknown>): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, stringify({
    brokers: cluster.bootstrap, groupId: `${name}-g`, topics: [`${name}-t`],
    kafka: { connectionTimeoutMs: 1000, retry: { retries: 2, initialRetryTimeMs: 100, maxRetryTimeMs: 500 }, ...kafka },
    consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 },
    sink: { type: 'sql', knex: { client: 'sqlite3', connection: { filename: path.join(dir, `${name}.sqlite`) } }, table: 'rows',
      mode: 'upsert', upsertKey: ['id'], autoCreate: true, mapping: { columns: { id: { type: 'integer' } } } },
  }));
  return file;
}

maybe('secured listeners', () => {
  test('SSL: run consumes over TLS, trusting the broker certificate from ssl.ca.file; without it the certificate is refused',
    async () => {
    const cluster = await clusterWith({ ssl: tlsOf() }, { ssl: { ca: [readFileSync(certFile, 'utf8')] } }, 'ssl-t');
    await runUntilThreeRecordsThenSigterm(configFile(cluster, 'ssl', { ssl: { ca: { file: certFile } } }));
    const untrusted = await runCli(['run', '--config', configFile(cluster, 'ssl-untrusted', { ssl: true })], 60000);
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toMatch(/\[KAFKA_UNAVAILABLE\] cannot use the Kafka cluster at [\d.:]+: [^\n]*self[- ]signed certificate/i);
  });

  test('SASL_PLAINTEXT: run consumes with the PLAIN credentials of the config; a wrong password fails naming the authentication',
    async () => {
    const sasl = { mechanism: 'plain' as const, username: 'loader', password: 'loader-secret' };
    const cluster = await clusterWith({ sasl: { users: USERS } }, { sasl }, 'sasl-t');
    await runUntilThreeRecordsThenSigterm(configFile(cluster, 'sasl', { sasl }));
    const bad = await runCli(['run', '--config', configFile(cluster, 'sasl-bad', { sasl: { ...sasl, password: 'wrong' } })], 60000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(new RegExp(`\\[KAFKA_AUTHENTICATION_FAILED\\] the Kafka cluster at ${cluster.bootstrap[0]} refused the `
      + 'credentials of kafka.sasl \\(user loader\\): SASL PLAIN authentication failed'));
    expect(bad.out).not.toContain('loader-secret');
  });

  test('SASL_SSL: run consumes with PLAIN credentials inside TLS', async () => {
    const sasl = { mechanism: 'plain' as const, username: 'loader', password: 'loader-secret' };
    const ssl = { ca: [readFileSync(certFile, 'utf8')] };
    const cluster = await clusterWith({ ssl: tlsOf(), sasl: { users: USERS } }, { ssl, sasl }, 'sasl-ssl-t');
    await runUntilThreeRecordsThenSigterm(configFile(cluster, 'sasl-ssl', { ssl: { ca: { file: certFile } }, sasl }));
  });

  test('SASL mechanism mismatch: SCRAM-SHA-256 asked of a PLAIN-only broker fails at start-up as an authentication error (exit 2)',
    async () => {
    const cluster = await clusterWith({ sasl: { users: USERS } }, { sasl: { mechanism: 'plain', username: 'loader',
      password: 'loader-secret' } }, 'sasl-mech-t');
    const scram = { mechanism: 'scram-sha-256', username: 'loader', password: 'loader-secret' };
    const r = await runCli(['run', '--config', configFile(cluster, 'sasl-mech', { sasl: scram })], 60000);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`\\[KAFKA_AUTHENTICATION_FAILED\\] the Kafka cluster at ${cluster.bootstrap[0]} does not enable `
      + 'the SASL mechanism of kafka.sasl.mechanism \\(SCRAM-SHA-256;'));
    expect(r.out).not.toContain('loader-secret');
  });
});
