/**
 * The transport: the SDK's own requests (src/protocol schemas) on KafkaJS's connections, at the highest
 * version both sides serve, flexible versions included (request header v2, response header v1).
 */
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { commonVersion, KafkaTransport, SUPPORTED_KAFKAJS_VERSION } from '../../../src/consumer/kafka/transport';
import { ConsumerGroupHeartbeat } from '../../../src/protocol/messages/consumer-group';
import { Heartbeat } from '../../../src/protocol/messages/group';
import { Metadata } from '../../../src/protocol/messages/data';
import { kafkaErrorOf } from '../../../src/protocol/kafka-errors';

describe('KafkaTransport', () => {
  let cluster: MockCluster;
  let transport: KafkaTransport;
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 2 });
    cluster.createTopic('t', 3);
    transport = new KafkaTransport(new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }));
    await transport.connect();
  });
  afterAll(async () => {
    await transport.disconnect();
    await cluster.stop();
  });

  test('picks the highest common version', () => {
    expect(commonVersion({ min: 0, max: 12 }, { minVersion: 0, maxVersion: 9 })).toBe(9);
    expect(commonVersion({ min: 10, max: 12 }, { minVersion: 0, maxVersion: 9 })).toBeNull();
    expect(commonVersion({ min: 0, max: 12 }, undefined)).toBeNull();
  });

  test('a flexible Metadata (v12) answers topic ids and leaders', async () => {
    const broker = await transport.anyBroker();
    const { version, response } = await transport.request(broker, Metadata, { topics: [{ name: 't' }] }, { minVersion: 10 });
    expect(version).toBe(12);
    expect(response.topics.map((t) => [t.name, t.partitions.length, t.topicId.length])).toEqual([['t', 3, 32]]);
  });

  test('a non-flexible request at a version the caller caps', async () => {
    const coordinator = await transport.coordinator('g');
    const { version, response } = await transport.request(coordinator, Heartbeat, { groupId: 'g', generationId: 1, memberId: 'm' },
      { maxVersion: 3 });
    expect(version).toBe(3);
    expect(response.errorCode).not.toBe(0);
  });

  test('ConsumerGroupHeartbeat (flexible from v0) reaches the KIP-848 coordinator', async () => {
    await transport.watchTopics(['t']);
    const coordinator = await transport.coordinator('g848');
    const { response } = await transport.request(coordinator, ConsumerGroupHeartbeat, {
      groupId: 'g848', memberId: 'member-1', memberEpoch: 0, rebalanceTimeoutMs: 5000, subscribedTopicNames: ['t'], topicPartitions: [],
    });
    expect(response.errorCode).toBe(0);
    expect(response.memberEpoch).toBeGreaterThan(0);
    expect(response.assignment?.topicPartitions[0].partitions.sort()).toEqual([0, 1, 2]);
  });

  test('a logCreator that JSON-serializes KafkaJS\'s DEBUG lines (responses included) meets no bigint', async () => {
    const lines: string[] = [];
    const logged = new KafkaTransport(new Kafka({
      brokers: cluster.bootstrap, logLevel: logLevel.DEBUG, logCreator: () => ({ log }) => { lines.push(JSON.stringify(log)); },
    }));
    await logged.connect();
    try {
      const { response } = await logged.request(await logged.anyBroker(), Metadata, { topics: [{ name: 't' }] }, { minVersion: 10 });
      expect(response.topics[0].partitions).toHaveLength(3);
      expect(lines.some((l) => l.includes('[Metadata v12 response]'))).toBe(true);
    } finally {
      await logged.disconnect();
    }
  });

  test('no common version is UNSUPPORTED_VERSION naming both ranges', async () => {
    const broker = await transport.anyBroker();
    let err: unknown;
    try {
      transport.versionFor(broker, Metadata, { minVersion: 13 });
    } catch (e) {
      err = e;
    }
    expect(kafkaErrorOf(err)?.name).toBe('UNSUPPORTED_VERSION');
    expect((err as Error).message).toMatch(/serves v0-v12, kafka-eos needs v13-v12/);
  });
});

describe('the KafkaJS version pin', () => {
  test('the installed kafkajs is the one the transport is written for', () => {
    expect(require('kafkajs/package.json').version).toBe(SUPPORTED_KAFKAJS_VERSION);
  });

  test('any other kafkajs version is refused with UnsupportedKafkaJsError', () => {
    jest.isolateModules(() => {
      jest.doMock('kafkajs/package.json', () => ({ version: '2.2.5' }));
      const { KafkaTransport: Transport } = require('../../../src/consumer/kafka/transport');
      const { UnsupportedKafkaJsError } = require('../../../src/consumer/errors');
      expect(() => new Transport(new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }))).toThrow(UnsupportedKafkaJsError);
      jest.dontMock('kafkajs/package.json');
    });
  });
});
