/**
 * SASL/PLAIN: KafkaJS authenticating against a cluster with users, refused with a wrong password,
 * refused without SASL; and any user accepted when no users are configured.
 */
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../../src/testing/mock-broker';
import { ErrorCode } from '../../../../src/protocol/error-codes';
import { SaslAuthenticate, SaslHandshake } from '../../../../src/protocol/messages/admin';
import { Metadata } from '../../../../src/protocol/messages/data';
import { RawClient } from '../raw-client';

jest.setTimeout(60000);

describe('with users configured', () => {
  let cluster: MockCluster;
  beforeAll(async () => { cluster = await MockCluster.start({ brokers: 2, sasl: { users: { alice: 'secret' } } }); });
  afterAll(async () => { await cluster.stop(); });

  const client = (sasl?: { mechanism: 'plain'; username: string; password: string }) =>
    new Kafka({ clientId: 'sasl', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, sasl, retry: { retries: 0 },
      connectionTimeout: 5000, requestTimeout: 10000 });

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

  test('a request before authentication closes the connection; handshake for another mechanism is refused', async () => {
    const c = await RawClient.connect(cluster.bootstrap[0]);
    c.write(c.frame(Metadata, 1, { topics: null }));
    await c.waitClosed();
    const d = await RawClient.connect(cluster.bootstrap[0]);
    const hs = await d.request(SaslHandshake, 1, { mechanism: 'SCRAM-SHA-256' });
    expect(hs).toEqual({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['PLAIN'] });
    await d.waitClosed(); // as Kafka's authenticator: the answer, then the channel closes
    // A SaslAuthenticate before any handshake: "Unexpected Kafka request of type SASL_AUTHENTICATE during SASL
    // handshake", and the channel closes without an answer (SaslServerAuthenticator.handleKafkaRequest).
    const e = await RawClient.connect(cluster.bootstrap[0]);
    e.write(e.frame(SaslAuthenticate, 2, { authBytes: Buffer.from('\0alice\0secret') }));
    await e.waitClosed();
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

describe('PLAIN as Kafka\'s PlainSaslServer checks it (issue 19, item 6)', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 1, sasl: { users: { alice: 'secret', bob: 'hunter2' }, connectionsMaxReauthMs: 60_000 } });
  });
  afterAll(async () => { await cluster.stop(); });

  async function authenticate(authBytes: string, version = 2): Promise<{ c: RawClient; res: Record<string, unknown> }> {
    const c = await RawClient.connect(cluster.bootstrap[0]);
    expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0);
    return { c, res: await c.request(SaslAuthenticate, version, { authBytes: Buffer.from(authBytes) }) };
  }

  test.each([
    ['an authorization id other than the user', 'bob\0alice\0secret',
      'Authentication failed: Client requested an authorization id that is different from username'],
    ['a wrong password', '\0alice\0nope', 'Authentication failed: Invalid username or password'],
    // PlainSaslServer throws SaslAuthenticationException with these messages, which SaslServerAuthenticator sends as they are.
    ['an empty password', '\0alice\0', 'Authentication failed: password not specified'],
    ['an empty user', '\0\0secret', 'Authentication failed: username not specified'],
    ['two tokens', 'alice\0secret', 'Invalid SASL/PLAIN response: expected 3 tokens, got 2'],
    ['five tokens (read as four)', 'a\0b\0c\0d\0e', 'Invalid SASL/PLAIN response: expected 3 tokens, got 4'],
  ])('%s: SASL_AUTHENTICATION_FAILED with Kafka\'s message, then the connection closes', async (_what, bytes, message) => {
    const { c, res } = await authenticate(bytes);
    expect(res).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: message });
    await c.waitClosed();
  });

  test('the authorization id may be the user itself; v1+ is told the session lifetime (connections.max.reauth.ms)', async () => {
    const { c, res } = await authenticate('alice\0alice\0secret', 1);
    expect(res).toMatchObject({ errorCode: 0, sessionLifetimeMs: 60_000n });
    expect((await c.request(Metadata, 1, { topics: null })).brokers).toHaveLength(1);
    c.close();
  });

  test('a failed re-authentication leaves the connection unauthenticated and closes it; one as another user fails too', async () => {
    for (const second of ['\0alice\0wrong', '\0bob\0hunter2']) {
      const { c, res } = await authenticate('\0alice\0secret');
      expect(res.errorCode).toBe(0);
      expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0); // re-authentication begins
      const reauth = await c.request(SaslAuthenticate, 2, { authBytes: Buffer.from(second) });
      expect(reauth.errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
      await c.waitClosed();
    }
    const { c } = await authenticate('\0alice\0secret');
    await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' });
    c.write(c.frame(Metadata, 1, { topics: null })); // during a re-authentication the connection is not authenticated
    await c.waitClosed();
  });

  test('a successful re-authentication as the same user keeps the connection', async () => {
    const { c } = await authenticate('\0alice\0secret');
    expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0);
    expect((await c.request(SaslAuthenticate, 2, { authBytes: Buffer.from('\0alice\0secret') })).errorCode).toBe(0);
    expect((await c.request(Metadata, 1, { topics: null })).brokers).toHaveLength(1);
    // Kafka allows one re-authentication a second per connection: a second one at once is refused, the session stays.
    expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
    expect((await c.request(Metadata, 1, { topics: null })).brokers).toHaveLength(1);
    c.close();
  });
});

test('without re-authentication (Kafka\'s default) a second handshake is ILLEGAL_SASL_STATE and the connection stays authenticated',
  async () => {
  const cluster = await MockCluster.start({ brokers: 1, sasl: { users: { alice: 'secret' } } });
  try {
    const c = await RawClient.connect(cluster.bootstrap[0]);
    await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' });
    expect(await c.request(SaslAuthenticate, 1, { authBytes: Buffer.from('\0alice\0secret') }))
      .toMatchObject({ errorCode: 0, sessionLifetimeMs: 0n });
    expect((await c.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(ErrorCode.ILLEGAL_SASL_STATE);
    expect((await c.request(Metadata, 1, { topics: null })).brokers).toHaveLength(1);
    c.close();
  } finally {
    await cluster.stop();
  }
});

test('without users, SASL is optional and any PLAIN user is accepted', async () => {
  const cluster = await MockCluster.start({ brokers: 1 });
  try {
    const kafka = new Kafka({ clientId: 'any', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING,
      sasl: { mechanism: 'plain', username: 'who', password: 'ever' } });
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
