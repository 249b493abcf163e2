/**
 * SASL/PLAIN: KafkaJS authenticating against a cluster with users, refused with a wrong password,
 * refused without SASL; and any user accepted when no users are configured.
 */
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { SaslAuthenticate, SaslHandshake } from '../../../src/protocol/messages/admin';
import { Metadata } from '../../../src/protocol/messages/data';
import { RawClient } from './raw-client';

jest.setTimeout(60000);

describe('with users configured', () => {
  let cluster: MockCluster;
  beforeAll(async () => { cluster = await MockCluster.start({ brokers: 2, sasl: { users: { alice: 'secret' } } }); });
  afterAll(async () => { await cluster.stop(); });

  const client = (sasl?: { mechanism: 'plain'; username: string; password: string }) =>
    new Kafka({ clientId: 'sasl', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, sasl, retry: { retries: 0 }, connectionTimeout: 5000, requestTimeout: 10000 });

  test('KafkaJS with the right password creates a topic and produces', async () => {
    const kafka = client({ mechanism: 'plain', username: 'alice', password: 'secret' });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'sasl-t', numPartitions: 1 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'sasl-t', messages: [{ value: 'hi' }] });
    await producer.disconnect();
    expect(cluster.partitions('sasl-t')[0].highWatermark).toBe(1);
  });

  test('KafkaJS with a wrong password is refused with SASL_AUTHENTICATION_FAILED', async () => {
    const admin = client({ mechanism: 'plain', username: 'alice', password: 'nope' }).admin();
    await expect(admin.connect()).rejects.toThrow(/SASL PLAIN authentication failed|Authentication failed/i);
    expect(cluster.events.entries({ type: 'sasl-failed' }).length).toBeGreaterThan(0);
  });

  test('a request before authentication closes the connection; another mechanism is refused, then the connection closed', async () => {
    const c = await RawClient.connect(cluster.bootstrap[0]);
    c.write(c.frame(Metadata, 1, { topics: null }));
    await c.waitClosed();
    const d = await RawClient.connect(cluster.bootstrap[0]);
    const hs = await d.request(SaslHandshake, 1, { mechanism: 'SCRAM-SHA-256' });
    expect(hs).toEqual({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['PLAIN'] });
    await d.waitClosed(); // SaslServerAuthenticator answers an unsupported mechanism, then closes
    const e = await RawClient.connect(cluster.bootstrap[0]);
    e.write(e.frame(SaslAuthenticate, 2, { authBytes: Buffer.from('\0alice\0secret') }));
    await e.waitClosed(); // a SaslAuthenticate before the handshake: "Unexpected Kafka request ... during SASL handshake"
  });

  test('handshake v1 then SaslAuthenticate v0/v1/v2 unlock the connection', async () => {
    for (const v of [0, 1, 2]) {
      const c = await RawClient.connect(cluster.bootstrap[1]);
      expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0);
      const auth = await c.request(SaslAuthenticate, v, { authBytes: Buffer.from('\0alice\0secret') });
      expect(auth).toMatchObject({ errorCode: 0, errorMessage: null });
      expect(auth.authBytes).toEqual(Buffer.alloc(0));
      const md = await c.request(Metadata, 1, { topics: null });
      expect(md.brokers).toHaveLength(2);
      expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
      c.close();
    }
  });
});

test('without users, SASL is optional and any PLAIN user is accepted', async () => {
  const cluster = await MockCluster.start({ brokers: 1 });
  try {
    const kafka = new Kafka({ clientId: 'any', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, sasl: { mechanism: 'plain', username: 'who', password: 'ever' } });
    const admin = kafka.admin();
    await admin.connect();
    expect(await admin.listTopics()).toEqual([]);
    await admin.disconnect();
    const plain = new Kafka({ clientId: 'plain', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }).admin();
    await plain.connect();
    await plain.createTopics({ topics: [{ topic: 'open' }] });
    await plain.disconnect();
    expect(cluster.partitions('open')).toHaveLength(1);
  } finally {
    await cluster.stop();
  }
});
