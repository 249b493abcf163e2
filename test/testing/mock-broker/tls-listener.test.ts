/**
 * The mock's SSL listener attacked at the socket level: a client that opens TCP and never finishes
 * the TLS handshake (slowloris) is closed after connections.max.idle.ms, as Kafka's Selector expires
 * idle channels whether or not their handshake is done, and does not hold up the broker's stop; a
 * plaintext Kafka client on the SSL listener and a TLS client on a PLAINTEXT listener lose only
 * their own connection. Certificates are made here with openssl (skipped when it is absent).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';

const OPENSSL = ['/usr/bin/openssl', '/bin/openssl'].find((p) => existsSync(p));
const maybe = OPENSSL ? describe : describe.skip;
let dir: string;
let key: Buffer;
let cert: Buffer;
beforeAll(() => {
  if (!OPENSSL) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-tls-listener-'));
  execFileSync(OPENSSL, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-out',
    path.join(dir, 'c.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  key = readFileSync(path.join(dir, 'k.pem'));
  cert = readFileSync(path.join(dir, 'c.pem'));
});
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

const hostPort = (c: MockCluster) => {
  const [host, port] = c.bootstrap[0].split(':');
  return { host: host!, port: Number(port) };
};

/** Resolves with the ms until the socket closed (the test's own timeout fails a socket that never closes). */
const closed = (s: net.Socket, since: number) => new Promise<number>((resolve) => s.once('close', () => resolve(Date.now() - since)));

/** Metadata through a KafkaJS admin over TLS: the listener still serves. */
async function tlsClientWorks(c: MockCluster): Promise<void> {
  const admin = new Kafka({ brokers: c.bootstrap, logLevel: logLevel.NOTHING, ssl: { ca: [cert] } }).admin();
  await admin.connect();
  try {
    expect(await admin.listTopics()).toContain('t');
  } finally {
    await admin.disconnect();
  }
}

maybe('SSL listener', () => {
  test('a half-open TLS handshake (slowloris) is closed after connections.max.idle.ms and does not hold up stop()', async () => {
    const cluster = await MockCluster.start({ brokers: 1, ssl: { key, cert }, connectionsMaxIdleMs: 500 });
    let stopped = false;
    try {
      cluster.createTopic('t', 1);
      const start = Date.now();
      const silent = net.connect(hostPort(cluster));
      silent.on('error', () => undefined);
      const half = net.connect(hostPort(cluster));
      half.on('error', () => undefined);
      // The first bytes of a TLS record header (handshake, TLS 1.0 record version), then nothing.
      half.write(Buffer.from([0x16, 0x03, 0x01]));
      const [a, b] = await Promise.all([closed(silent, start), closed(half, start)]);
      expect(Math.max(a, b)).toBeLessThan(20000);
      await tlsClientWorks(cluster);
      // A handshake left half-open at stop: stop() closes it instead of waiting for it.
      const pending = net.connect(hostPort(cluster));
      pending.on('error', () => undefined);
      await new Promise((r) => pending.once('connect', r));
      const t0 = Date.now();
      await cluster.stop();
      stopped = true;
      expect(Date.now() - t0).toBeLessThan(5000);
      await closed(pending, t0);
    } finally {
      if (!stopped) await cluster.stop();
    }
  });

  test('a plaintext Kafka client on the SSL listener loses its connection only; TLS clients go on', async () => {
    const cluster = await MockCluster.start({ brokers: 1, ssl: { key, cert }, connectionsMaxIdleMs: 0 });
    try {
      cluster.createTopic('t', 1);
      const plain = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, connectionTimeout: 1000,
        retry: { retries: 0 } }).admin();
      await expect(plain.connect()).rejects.toThrow();
      await plain.disconnect().catch(() => undefined);
      // The same at the socket level: a plaintext frame's bytes are no TLS record; the broker closes the socket.
      const raw = net.connect(hostPort(cluster));
      raw.on('error', () => undefined);
      raw.write(Buffer.from([0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, 0, 0]));
      await closed(raw, Date.now());
      await tlsClientWorks(cluster);
      expect(cluster.events.entries({ type: 'connection.tls-failed' }).length).toBeGreaterThan(0);
    } finally {
      await cluster.stop();
    }
  });

  test('a TLS client on a PLAINTEXT listener is closed; the broker goes on serving plaintext clients', async () => {
    const cluster = await MockCluster.start({ brokers: 1, connectionsMaxIdleMs: 0 });
    try {
      cluster.createTopic('t', 1);
      const s = tls.connect({ ...hostPort(cluster), rejectUnauthorized: false });
      s.on('error', () => undefined);
      await closed(s, Date.now());
      const admin = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      expect(await admin.listTopics()).toContain('t');
      await admin.disconnect();
    } finally {
      await cluster.stop();
    }
  });
});
