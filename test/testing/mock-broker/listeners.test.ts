/**
 * Listeners as Kafka's `listeners` / `listener.security.protocol.map` make them (KafkaConfig, SocketServer): every
 * broker on each listener, clients answered with the endpoints of the listener they came in on
 * (MetadataCache.getAliveBrokerNodes(listenerName)), SASL on SASL_* listeners only (SaslServerAuthenticator; a
 * PLAINTEXT listener answers SaslHandshake with ILLEGAL_SASL_STATE as KafkaApis does), and a failed or refused
 * SASL exchange answered, then closed.
 */
import { Kafka, KafkaConfig, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { planListenerPorts } from '../../../src/testing/mock-broker/listeners';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { SaslAuthenticate, SaslHandshake } from '../../../src/protocol/messages/admin';
import { Metadata } from '../../../src/protocol/messages/data';
import { canMakeCertificates, selfSignedCertificate } from '../../helpers/tls';
import { RawClient } from './raw-client';

jest.setTimeout(60_000);

describe('planListenerPorts', () => {
  test('listeners with consecutive first ports interleave per broker (KafkaJS\'s test cluster layout)', () => {
    const ports = planListenerPorts([
      { securityProtocol: 'PLAINTEXT', port: 9092 }, { securityProtocol: 'SSL', port: 9093 }, { securityProtocol: 'SASL_SSL', port: 9094 },
    ], 3);
    expect(ports).toEqual([[9092, 9093, 9094], [9095, 9096, 9097], [9098, 9099, 9100]]);
  });

  test('one listener takes consecutive ports; port 0 stays 0 (any free port)', () => {
    expect(planListenerPorts([{ securityProtocol: 'PLAINTEXT', port: 9001 }], 3)).toEqual([[9001], [9002], [9003]]);
    expect(planListenerPorts([{ securityProtocol: 'PLAINTEXT' }, { securityProtocol: 'SSL' }], 2)).toEqual([[0, 0], [0, 0]]);
  });

  test('refuses ports that collide, names given twice, unknown protocols, ports past 65535', () => {
    expect(() => planListenerPorts([{ securityProtocol: 'PLAINTEXT', port: 9092 }, { securityProtocol: 'SSL', port: 9093 }], 3, 1))
      .toThrow(/broker 2's PLAINTEXT listener and broker 1's SSL listener would both listen on port 9093/);
    expect(() => planListenerPorts([{ securityProtocol: 'SSL' }, { securityProtocol: 'SSL' }], 1)).toThrow(/listener SSL is given twice/);
    expect(() => planListenerPorts([{ securityProtocol: 'TLS' as 'SSL' }], 1)).toThrow(/unknown security protocol TLS/);
    expect(() => planListenerPorts([{ securityProtocol: 'PLAINTEXT', port: 65535 }], 2)).toThrow(/port 65536, not a TCP port/);
  });
});

const maybe = canMakeCertificates() ? describe : describe.skip;

maybe('a cluster with PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL listeners', () => {
  let cluster: MockCluster;
  let cert: ReturnType<typeof selfSignedCertificate>;
  beforeAll(async () => {
    cert = selfSignedCertificate();
    cluster = await MockCluster.start({
      brokers: 2, firstNodeId: 0,
      listeners: [
        { securityProtocol: 'PLAINTEXT' }, { securityProtocol: 'SSL' }, { securityProtocol: 'SASL_PLAINTEXT' },
        { securityProtocol: 'SASL_SSL' },
      ],
      ssl: { key: cert.key, cert: cert.cert },
      sasl: { mechanisms: ['PLAIN', 'SCRAM-SHA-256'], users: { alice: 'alice-secret' } },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
    cert?.remove();
  });

  const client = (listener: string, extra: Partial<KafkaConfig>) => new Kafka({
    clientId: `listeners-${listener}`, brokers: [cluster.bootstrapOf(listener)[0]], logLevel: logLevel.NOTHING,
    retry: { retries: 0 }, connectionTimeout: 5000, ...extra,
  });
  const sasl = { mechanism: 'plain' as const, username: 'alice', password: 'alice-secret' };
  const ssl = { rejectUnauthorized: false };

  test.each([
    ['PLAINTEXT', {}], ['SSL', { ssl }], ['SASL_PLAINTEXT', { sasl }], ['SASL_SSL', { ssl, sasl }],
  ] as const)('a KafkaJS client on %s is answered with every broker at that listener\'s port', async (listener, extra) => {
    const admin = client(listener, extra).admin();
    await admin.connect();
    try {
      const { brokers } = await admin.describeCluster();
      const ports = cluster.bootstrapOf(listener).map((hp) => Number(hp.split(':')[1]));
      expect(brokers.map((b) => [b.nodeId, b.port]).sort()).toEqual([[0, ports[0]], [1, ports[1]]]);
      await admin.createTopics({ topics: [{ topic: `on-${listener}`, numPartitions: 2 }] });
      const md = await admin.fetchTopicMetadata({ topics: [`on-${listener}`] });
      expect(md.topics[0].partitions.map((p) => p.leader).sort()).toEqual([0, 1]);
    } finally {
      await admin.disconnect();
    }
  });

  test('the listeners, each with every broker\'s address, and the brokers\' listeners config', () => {
    expect(cluster.listeners.map((l) => [l.name, l.securityProtocol, l.bootstrap.length]))
      .toEqual([['PLAINTEXT', 'PLAINTEXT', 2], ['SSL', 'SSL', 2], ['SASL_PLAINTEXT', 'SASL_PLAINTEXT', 2], ['SASL_SSL', 'SASL_SSL', 2]]);
    expect(() => cluster.bootstrapOf('INTERNAL')).toThrow(/no listener INTERNAL/);
  });

  test('PLAINTEXT answers SaslHandshake with ILLEGAL_SASL_STATE and no mechanisms, and keeps serving (KafkaApis)', async () => {
    const c = await RawClient.connect(cluster.bootstrapOf('PLAINTEXT')[0]);
    expect(await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).toEqual({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] });
    expect((await c.request(SaslAuthenticate, 1, { authBytes: Buffer.from('\0alice\0alice-secret') })).errorCode)
      .toBe(ErrorCode.ILLEGAL_SASL_STATE);
    expect((await c.request(Metadata, 1, { topics: null })).brokers).toHaveLength(2);
    c.close();
  });

  test('SASL_PLAINTEXT: a request before authentication closes the connection', async () => {
    const c = await RawClient.connect(cluster.bootstrapOf('SASL_PLAINTEXT')[0]);
    c.write(c.frame(Metadata, 1, { topics: null }));
    await c.waitClosed();
  });

  test('SASL_PLAINTEXT: a mechanism not enabled is answered with the enabled ones, then the connection closes', async () => {
    const c = await RawClient.connect(cluster.bootstrapOf('SASL_PLAINTEXT')[0]);
    expect(await c.request(SaslHandshake, 1, { mechanism: 'SCRAM-SHA-512' }))
      .toEqual({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['PLAIN', 'SCRAM-SHA-256'] });
    await c.waitClosed();
  });

  test('SASL_SSL: a wrong password answers SASL_AUTHENTICATION_FAILED with Kafka\'s message, then closes', async () => {
    const c = await RawClient.connectTls(cluster.bootstrapOf('SASL_SSL')[0]);
    expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0);
    const res = await c.request(SaslAuthenticate, 2, { authBytes: Buffer.from('\0alice\0wrong') });
    expect(res).toMatchObject({
      errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: 'Authentication failed: Invalid username or password' });
    await c.waitClosed();
  });

  test('SASL_SSL with KafkaJS and a wrong password fails to connect', async () => {
    const admin =
      client('SASL_SSL', { ssl: { rejectUnauthorized: false }, sasl: { mechanism: 'plain', username: 'alice', password: 'nope' } }).admin();
    await expect(admin.connect()).rejects.toThrow(/SASL PLAIN authentication failed/);
  });
});
