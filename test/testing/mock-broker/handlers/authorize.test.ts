/**
 * ACLs enforced on the wire when the cluster runs with an authorizer (`authorizer.class.name`), as KafkaApis checks
 * them: Metadata (DESCRIBE; CREATE to auto-create), Produce (WRITE), Fetch (READ) and ListOffsets (DESCRIBE) answer
 * TOPIC_AUTHORIZATION_FAILED; an all-topics Metadata leaves out what the principal may not describe. Principals as
 * Kafka's DefaultKafkaPrincipalBuilder names them: `User:<sasl user>`, `User:ANONYMOUS` on PLAINTEXT. The scenario of
 * KafkaJS's own createAcls spec (bob denied WRITE on one topic, allowed on another) is the first test.
 */
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } from 'kafkajs';
import { MockCluster } from '../../../../src/testing/mock-broker';
import { ErrorCode } from '../../../../src/protocol/error-codes';
import { Fetch, ListOffsets, Metadata } from '../../../../src/protocol/messages/data';
import { RawClient } from '../raw-client';

jest.setTimeout(60_000);

const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';

describe('ACLs enforced with an authorizer', () => {
  let cluster: MockCluster;
  const as = (username: string) => new Kafka({
    clientId: `authz-${username}`, brokers: cluster.bootstrapOf('SASL_PLAINTEXT'), logLevel: logLevel.NOTHING, retry: { retries: 0 },
    sasl: { mechanism: 'plain', username, password: `${username}-pw` },
  });
  const acl = (resourceName: string, principal: string, operation: AclOperationTypes, permissionType: AclPermissionTypes) => ({
    resourceType: AclResourceTypes.TOPIC, resourceName, resourcePatternType: ResourcePatternTypes.LITERAL, principal, host: '*',
    operation, permissionType,
  });

  beforeAll(async () => {
    cluster = await MockCluster.start({
      brokers: 1, listeners: [{ securityProtocol: 'PLAINTEXT' }, { securityProtocol: 'SASL_PLAINTEXT' }],
      sasl: { mechanisms: ['PLAIN'], users: { admin: 'admin-pw', bob: 'bob-pw', alice: 'alice-pw' } },
      brokerConfigs: { 'authorizer.class.name': STANDARD, 'allow.everyone.if.no.acl.found': 'true', 'super.users': 'User:admin' },
    });
    const admin = as('admin').admin();
    await admin.connect();
    await admin.createTopics({ topics: ['open', 'secret', 'allowed'].map((topic) => ({ topic })), waitForLeaders: true });
    await admin.createAcls({
      acl: [
        acl('secret', 'User:bob', AclOperationTypes.WRITE, AclPermissionTypes.DENY),
        acl('allowed', 'User:bob', AclOperationTypes.WRITE, AclPermissionTypes.ALLOW),
        acl('secret', 'User:alice', AclOperationTypes.READ, AclPermissionTypes.ALLOW),
      ],
    });
    await admin.disconnect();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  test('bob may not describe or write the topic he is denied, and still writes the others (KafkaJS createAcls spec)', async () => {
    const admin = as('bob').admin();
    await admin.connect();
    await expect(admin.fetchTopicMetadata({ topics: ['secret'] })).rejects.toThrow(/Not authorized to access topics/);
    await expect(admin.fetchTopicMetadata({ topics: ['allowed', 'open'] })).resolves.toBeTruthy();
    await admin.disconnect();
    const producer = as('bob').producer();
    await producer.connect();
    await producer.send({ topic: 'allowed', messages: [{ value: 'hello' }] });
    await expect(producer.send({ topic: 'secret', messages: [{ value: 'whoops' }] })).rejects.toThrow(/Not authorized/);
    await producer.send({ topic: 'open', messages: [{ value: 'world' }] });
    await producer.disconnect();
    expect(cluster.inspect.partitions('allowed')[0].highWatermark).toBe(1);
    expect(cluster.inspect.partitions('secret')[0].highWatermark).toBe(0);
  });

  test('READ implies DESCRIBE for alice; a super user is allowed everything', async () => {
    const alice = as('alice').admin();
    await alice.connect();
    expect((await alice.fetchTopicMetadata({ topics: ['secret'] })).topics.map((t) => t.name)).toEqual(['secret']);
    await alice.disconnect();
    const producer = as('admin').producer();
    await producer.connect();
    await producer.send({ topic: 'secret', messages: [{ value: 'by the super user' }] });
    await producer.disconnect();
    expect(cluster.inspect.partitions('secret')[0].highWatermark).toBe(1);
  });

  test('User:ANONYMOUS on PLAINTEXT: Metadata, ListOffsets, Fetch and Produce answer TOPIC_AUTHORIZATION_FAILED', async () => {
    const c = await RawClient.connect(cluster.bootstrapOf('PLAINTEXT')[0]);
    try {
      const all = await c.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      expect(all.topics.map((t: { name: string }) => t.name)).toEqual(['open']);
      const named = await c.request(Metadata, 12, {
        topics: ['secret', 'open', 'not-yet'].map((name) => ({ name, topicId: '0'.repeat(32) })),
        allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false,
      });
      // not-yet: no ACL covers it, so allow.everyone.if.no.acl.found lets ANONYMOUS describe and create it.
      expect(named.topics.map((t: { errorCode: number }) => t.errorCode))
        .toEqual([ErrorCode.TOPIC_AUTHORIZATION_FAILED, 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
      const offsets = await c.request(ListOffsets, 7, {
        replicaId: -1, isolationLevel: 0,
        topics: ['secret', 'open'].map((name) => ({ name, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] })),
      });
      expect(offsets.topics.map((t: { partitions: { errorCode: number }[] }) => t.partitions[0].errorCode))
        .toEqual([ErrorCode.TOPIC_AUTHORIZATION_FAILED, 0]);
      const fetched = await c.request(Fetch, 11, {
        maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: ['secret', 'open'].map((topic) => ({ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] })),
        forgottenTopicsData: [], rackId: '',
      });
      const parts = fetched.responses.map((r: { partitions: { errorCode: number; records: Buffer | null }[] }) => r.partitions[0]);
      expect(parts[0]).toMatchObject({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, records: null });
      expect(parts[1].errorCode).toBe(0);
      expect(parts[1].records.length).toBeGreaterThan(0);
    } finally {
      c.close();
    }
    const anonymous = new Kafka({ clientId: 'authz-anon', brokers: cluster.bootstrapOf('PLAINTEXT'), logLevel: logLevel.NOTHING,
      retry: { retries: 0 } }).producer();
    await anonymous.connect();
    await anonymous.send({ topic: 'open', messages: [{ value: 'anyone' }] });
    await expect(anonymous.send({ topic: 'allowed', messages: [{ value: 'nope' }] })).rejects.toThrow(/Not authorized/);
    await anonymous.disconnect();
  });

  test('without an authorizer the same ACLs are stored and described, not enforced (Kafka answers SECURITY_DISABLED)', async () => {
    const plain = await MockCluster.start({ brokers: 1 });
    try {
      const admin = new Kafka({ clientId: 'no-authz', brokers: plain.bootstrap, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'secret' }], waitForLeaders: true });
      await admin.createAcls({ acl: [acl('secret', 'User:ANONYMOUS', AclOperationTypes.ALL, AclPermissionTypes.DENY)] });
      await expect(admin.fetchTopicMetadata({ topics: ['secret'] })).resolves.toBeTruthy();
      await admin.disconnect();
    } finally {
      await plain.stop();
    }
  });
});
