/**
 * SCRAM credentials as Kafka keeps and checks them: ScramControlManager (AlterUserScramCredentials: validation, one
 * result per user, DUPLICATE_RESOURCE, RESOURCE_NOT_FOUND), ScramImage (DescribeUserScramCredentials), ScramFormatter
 * and ScramSaslServer (the exchange, RFC 5802 / 7677, Kafka's generic failure message). On the wire: a user created
 * with AlterUserScramCredentials (the client salts the password, as Kafka's admin client does) logs in with KafkaJS's
 * SCRAM-SHA-256 and SCRAM-SHA-512 at once, and no longer after its credential is deleted.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { Kafka, logLevel, SASLOptions } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { AlterUserScramCredentials, DescribeUserScramCredentials } from '../../../src/protocol/messages/cluster-admin';
import {
  credentialFromPassword, ScramCredentialStore, ScramMechanismName, ScramServerExchange,
} from '../../../src/testing/mock-broker/scram';
import { RawClient } from './raw-client';

jest.setTimeout(60_000);

const HASH = { 'SCRAM-SHA-256': 'sha256', 'SCRAM-SHA-512': 'sha512' } as const;
const SHA256 = 1;
const SHA512 = 2;

function salted(m: ScramMechanismName, password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(password, salt, iterations, m === 'SCRAM-SHA-256' ? 32 : 64, HASH[m]);
}

/** The client side of RFC 5802, written here from the RFC (the test's oracle for the server). */
function scramClient(m: ScramMechanismName, user: string, password: string, authzid = '') {
  const nonce = randomBytes(18).toString('base64');
  const bare = `n=${user.replace(/=/g, '=3D').replace(/,/g, '=2C')},r=${nonce}`;
  const header = `n,${authzid ? `a=${authzid}` : ''},`;
  return {
    first: Buffer.from(header + bare),
    final(serverFirst: Buffer) {
      const sf = serverFirst.toString();
      const attrs = Object.fromEntries(sf.split(',').map((kv) => [kv[0], kv.slice(2)]));
      const key = salted(m, password, Buffer.from(attrs.s, 'base64'), Number(attrs.i));
      const hmac = (k: Buffer, d: string) => createHmac(HASH[m], k).update(d).digest();
      const clientKey = hmac(key, 'Client Key');
      const withoutProof = `c=${Buffer.from(header).toString('base64')},r=${attrs.r}`;
      const auth = `${bare},${sf},${withoutProof}`;
      const signature = hmac(createHash(HASH[m]).update(clientKey).digest(), auth);
      const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]));
      return {
        startsWithOurNonce: attrs.r.startsWith(nonce),
        message: Buffer.from(`${withoutProof},p=${proof.toString('base64')}`),
        expectedServerFinal: `v=${hmac(hmac(key, 'Server Key'), auth).toString('base64')}`,
      };
    },
  };
}

const GENERIC = (m: string) => `Authentication failed during authentication due to invalid credentials with SASL mechanism ${m}`;

describe('ScramServerExchange (ScramSaslServer)', () => {
  const store = new ScramCredentialStore();
  store.set('alice', 'SCRAM-SHA-256', credentialFromPassword('SCRAM-SHA-256', 'pw-256'));
  store.set('alice', 'SCRAM-SHA-512', credentialFromPassword('SCRAM-SHA-512', 'pw-512', 8192));
  const exchange = (m: ScramMechanismName) => new ScramServerExchange(m, (u) => store.credential(u, m));

  test.each([['SCRAM-SHA-256', 'pw-256'], ['SCRAM-SHA-512', 'pw-512']] as const)(
    '%s: the right password completes, with the server\'s proof', (m, pw) => {
    const server = exchange(m);
    const client = scramClient(m, 'alice', pw);
    const first = server.step(client.first);
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.response.toString()).toMatch(new RegExp(`,i=${m === 'SCRAM-SHA-256' ? 4096 : 8192}$`));
    const final = client.final(first.response);
    expect(final.startsWithOurNonce).toBe(true);
    const last = server.step(final.message);
    expect(last).toEqual({ ok: true, response: Buffer.from(final.expectedServerFinal), user: 'alice' });
    expect(server.complete).toBe(true);
  });

  test('a wrong password, an unknown user, a nonce not ours: Kafka\'s generic message, nothing told about the user', () => {
    for (const [user, pw] of [['alice', 'nope'], ['bob', 'pw-256']]) {
      const server = exchange('SCRAM-SHA-256');
      const client = scramClient('SCRAM-SHA-256', user, pw);
      const first = server.step(client.first);
      if (user === 'bob') {
        expect(first).toEqual({ ok: false, message: GENERIC('SCRAM-SHA-256') });
        continue;
      }
      expect(server.step(client.final((first as { response: Buffer }).response).message))
        .toEqual({ ok: false, message: GENERIC('SCRAM-SHA-256') });
    }
    const server = exchange('SCRAM-SHA-256');
    const first = server.step(scramClient('SCRAM-SHA-256', 'alice', 'pw-256').first);
    const forged = Buffer.from(`c=biws,r=${(first as { response: Buffer }).response.toString().slice(2, 10)},p=AAAA`);
    expect(server.step(forged)).toEqual({ ok: false, message: GENERIC('SCRAM-SHA-256') });
  });

  test('an authorization id other than the user is refused with its own message; malformed input generically', () => {
    expect(exchange('SCRAM-SHA-256').step(scramClient('SCRAM-SHA-256', 'alice', 'pw-256', 'root').first))
      .toEqual({ ok: false, message: 'Authentication failed: Client requested an authorization id that is different from username' });
    expect(exchange('SCRAM-SHA-256').step(Buffer.from('p=tls-unique,,n=alice,r=x')))
      .toEqual({ ok: false, message: GENERIC('SCRAM-SHA-256') });
  });
});

describe('ScramCredentialStore (ScramControlManager, ScramImage)', () => {
  const up = (name: string, mechanism: number, iterations = 4096) =>
    ({ name, mechanism, iterations, salt: Buffer.from('salt'), saltedPassword: salted('SCRAM-SHA-256', 'x', Buffer.from('salt'), 4096) });

  test('upserts and deletions apply together; describe lists mechanisms and iterations, never keys', () => {
    const store = new ScramCredentialStore();
    expect(store.alter([], [up('a', SHA256), up('b', SHA512, 16384)]).results)
      .toEqual([{ user: 'a', errorCode: 0, errorMessage: null }, { user: 'b', errorCode: 0, errorMessage: null }]);
    expect(store.describe(null)).toEqual([
      { user: 'a', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: SHA256, iterations: 4096 }] },
      { user: 'b', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: SHA512, iterations: 16384 }] },
    ]);
    expect(store.alter([{ name: 'a', mechanism: SHA256 }], []).results).toEqual([{ user: 'a', errorCode: 0, errorMessage: null }]);
    expect(store.describe(['a', 'b', 'b'])).toEqual([
      { user: 'a', errorCode: ErrorCode.RESOURCE_NOT_FOUND,
        errorMessage: 'Attempt to describe a user credential that does not exist: a', credentialInfos: [] },
      {
        user: 'b', errorCode: ErrorCode.DUPLICATE_RESOURCE, credentialInfos: [],
        errorMessage: 'Cannot describe SCRAM credentials for the same user twice in a single request: b',
      },
    ]);
  });

  test('refusals: iterations out of 4096..16384, empty name, unknown mechanism, missing credential, a user twice', () => {
    const store = new ScramCredentialStore();
    const { results } = store.alter([{ name: 'ghost', mechanism: SHA256 }, { name: 'twice', mechanism: SHA256 }],
      [up('few', SHA256, 4095), up('many', SHA512, 16385), up('', SHA256), up('odd', 3), up('twice', SHA256), up('ok', SHA256)]);
    // Errors come in the order of ScramControlManager's HashMap (checked on OpenJDK 17: '', twice, ghost, few, many, odd).
    expect(results).toEqual([
      { user: 'ok', errorCode: 0, errorMessage: null },
      { user: '', errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Username must not be empty' },
      { user: 'twice', errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to delete a user credential that does not exist' },
      { user: 'ghost', errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to delete a user credential that does not exist' },
      { user: 'few', errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too few iterations' },
      { user: 'many', errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too many iterations' },
      { user: 'odd', errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, errorMessage: 'Unknown SCRAM mechanism' },
    ]);
    store.alter([], [up('dup', SHA256)]);
    expect(store.alter([{ name: 'dup', mechanism: SHA256 }], [up('dup', SHA512)]).results)
      .toEqual([{ user: 'dup', errorCode: ErrorCode.DUPLICATE_RESOURCE,
        errorMessage: 'A user credential cannot be altered twice in the same request' }]);
    expect(store.describe(null).map((d) => d.user)).toEqual(['ok', 'dup']);
  });
});

describe('on the wire: create a SCRAM user, log in with it (KafkaJS), delete it', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster = await MockCluster.start({
      brokers: 1, listeners: [{ securityProtocol: 'PLAINTEXT' }, { securityProtocol: 'SASL_PLAINTEXT' }],
      sasl: { mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], users: [{ name: 'admin', password: 'admin', mechanism: 'PLAIN' }] },
    });
  });
  afterAll(async () => { await cluster?.stop(); });

  const login = async (mechanism: 'scram-sha-256' | 'scram-sha-512', password: string) => {
    const admin = new Kafka({
      clientId: 'scram', brokers: cluster.bootstrapOf('SASL_PLAINTEXT'), logLevel: logLevel.NOTHING, retry: { retries: 0 },
      sasl: { mechanism, username: 'carol', password } as SASLOptions,
    }).admin();
    try {
      await admin.connect();
      return (await admin.describeCluster()).brokers.length;
    } finally {
      await admin.disconnect();
    }
  };

  test('AlterUserScramCredentials then DescribeUserScramCredentials; the user logs in at once', async () => {
    const c = await RawClient.connect(cluster.bootstrapOf('PLAINTEXT')[0]);
    const salt256 = randomBytes(16);
    const salt512 = randomBytes(16);
    const res = await c.request(AlterUserScramCredentials, 0, {
      deletions: [],
      upsertions: [
        { name: 'carol', mechanism: SHA256, iterations: 4096, salt: salt256,
          saltedPassword: salted('SCRAM-SHA-256', 'c-256', salt256, 4096) },
      ],
    });
    expect(res.results).toEqual([{ user: 'carol', errorCode: 0, errorMessage: null }]);
    await c.request(AlterUserScramCredentials, 0, {
      deletions: [],
      upsertions: [{ name: 'carol', mechanism: SHA512, iterations: 8192, salt: salt512,
        saltedPassword: salted('SCRAM-SHA-512', 'c-512', salt512, 8192) }],
    });
    expect((await c.request(DescribeUserScramCredentials, 0, { users: [{ name: 'carol' }] })).results).toEqual([{
      user: 'carol', errorCode: 0, errorMessage: null,
      credentialInfos: [{ mechanism: SHA256, iterations: 4096 }, { mechanism: SHA512, iterations: 8192 }],
    }]);
    expect(await login('scram-sha-256', 'c-256')).toBe(1);
    expect(await login('scram-sha-512', 'c-512')).toBe(1);
    await expect(login('scram-sha-256', 'c-512')).rejects.toThrow(/SASL SCRAM SHA256 authentication failed/);
    expect(cluster.events.entries({ type: 'scram-credentials-altered' }).map((e) => e.data.users)).toEqual([['carol'], ['carol']]);

    await c.request(AlterUserScramCredentials, 0, { deletions: [{ name: 'carol', mechanism: SHA256 }], upsertions: [] });
    await expect(login('scram-sha-256', 'c-256')).rejects.toThrow(/SASL SCRAM SHA256 authentication failed/);
    expect(await login('scram-sha-512', 'c-512')).toBe(1);
    c.close();
  });
});
