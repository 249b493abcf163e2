/**
 * Topic configs are validated as Kafka's LogConfig validates them (INVALID_CONFIG with Kafka's
 * wording), and the ones the mock honours are enforced: a topic's own max.message.bytes limits
 * produce on that topic only.
 */
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { TopicError } from '../../../src/testing/mock-broker/cluster';
import { topicConfigError } from '../../../src/testing/mock-broker/config-defaults';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { CreateTopics } from '../../../src/protocol/messages/admin';
import { Produce } from '../../../src/protocol/messages/data';
import { Compression, encodeBatch } from '../../../src/protocol/record-batch';
import { RawClient } from './raw-client';

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1 }); });
afterAll(async () => { await cluster.stop(); });

test.each([
  ['retention.ms', 'abc', 'Invalid value abc for configuration retention.ms: Not a number of type LONG'],
  ['retention.ms', '-2', 'Invalid value -2 for configuration retention.ms: Value must be at least -1'],
  ['max.message.bytes', '99999999999', 'Invalid value 99999999999 for configuration max.message.bytes: Not a number of type INT'],
  ['cleanup.policy', 'delete,shred', 'Invalid value delete,shred for configuration cleanup.policy: String must be one of: compact, delete'],
  ['preallocate', 'yes', 'Invalid value yes for configuration preallocate: Expected value to be either true or false'],
  ['min.cleanable.dirty.ratio', '1.5', 'Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1'],
  ['retention.msec', '1000', 'Unknown topic config name: retention.msec'],
])('%s=%s is refused: %s', (name, value, message) => {
  expect(topicConfigError(name, value)).toBe(message);
  expect(() => cluster.createTopic(`bad-${name}-${value}`.replace(/[^a-zA-Z0-9.-]/g, '_'), 1, 1, { [name]: value })).toThrow(TopicError);
});

test.each([
  ['retention.ms', '-1'], ['retention.ms', '604800000'], ['cleanup.policy', 'compact,delete'], ['preallocate', 'TRUE'],
  ['min.cleanable.dirty.ratio', '0.25'], ['message.timestamp.type', 'LogAppendTime'], ['compression.type', 'zstd'],
])('%s=%s is accepted', (name, value) => {
  expect(topicConfigError(name, value)).toBeNull();
});

test('CreateTopics on the wire answers INVALID_CONFIG per topic and creates only the valid one', async () => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const res = await c.request(CreateTopics, 4, {
    topics: [
      { name: 'cfg-bad', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: 'abc' }] },
      { name: 'cfg-good', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '1000' }] },
    ],
    timeoutMs: 1000, validateOnly: false,
  });
  expect(res.topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode]))
    .toEqual([['cfg-bad', ErrorCode.INVALID_CONFIG], ['cfg-good', 0]]);
  expect(res.topics[0].errorMessage).toMatch(/Not a number of type LONG/);
  expect(cluster.inspect.topic('cfg-bad')).toBeUndefined();
  expect(cluster.inspect.topic('cfg-good')?.configs['retention.ms']).toBe('1000');
  c.close();
});

test('KafkaJS admin.createTopics with retention.ms=abc fails with INVALID_CONFIG', async () => {
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const err = await admin.createTopics({ topics: [{ topic: 'kjs-bad', configEntries: [{ name: 'retention.ms', value: 'abc' }] }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(JSON.stringify(err.errors ?? err)).toMatch(/INVALID_CONFIG/);
    expect(await admin.listTopics()).not.toContain('kjs-bad');
  } finally {
    await admin.disconnect();
  }
});

test("a topic's own max.message.bytes is enforced on produce; other topics keep message.max.bytes", async () => {
  cluster.createTopic('small-messages', 1, 1, { 'max.message.bytes': '1000' });
  cluster.createTopic('default-messages', 1);
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const batch = encodeBatch({ records: [{ value: 'x'.repeat(2000) }] });
  const send = (topic: string) => c.request(Produce, 8,
    { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }] });
  const refused = (await send('small-messages')).responses[0].partitionResponses[0];
  expect(refused.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
  expect(refused.errorMessage).toMatch(/max.message.bytes 1000/);
  expect((await send('default-messages')).responses[0].partitionResponses[0].errorCode).toBe(0);
  expect(cluster.partitions('small-messages')[0].highWatermark).toBe(0);
  c.close();
});

test('cleanup.policy=compact refuses records without a key (INVALID_RECORD with record errors), compressed or not', async () => {
  cluster.createTopic('compacted', 1, 1, { 'cleanup.policy': 'compact' });
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const send = (records: Buffer) => c.request(Produce, 8,
    { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: 'compacted', partitionData: [{ index: 0, records }] }] })
    .then((r) => r.responses[0].partitionResponses[0]);
  const keyless = await send(encodeBatch({ records: [{ key: 'k', value: 'a' }, { key: null, value: 'b' }] }));
  expect(keyless.errorCode).toBe(ErrorCode.INVALID_RECORD);
  expect(keyless.recordErrors).toEqual([{
    batchIndex: 1, batchIndexErrorMessage: 'Compacted topic cannot accept message without key in topic partition compacted-0.' }]);
  expect(keyless.errorMessage).toMatch(/^One or more records have been rejected due to 1 record errors/);
  const gzipKeyless = await send(encodeBatch({ records: [{ key: null, value: 'c' }], compression: Compression.Gzip }));
  expect(gzipKeyless.errorCode).toBe(ErrorCode.INVALID_RECORD);
  expect(cluster.partitions('compacted')[0].highWatermark).toBe(0);
  expect((await send(encodeBatch({ records: [{ key: 'k', value: 'd' }], compression: Compression.Gzip }))).errorCode).toBe(0);
  c.close();
  // KafkaJS sees INVALID_RECORD too.
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const producer = kafka.producer();
  await producer.connect();
  try {
    await expect(producer.send({ topic: 'compacted', messages: [{ value: 'no key' }] })).rejects.toMatchObject({ type: 'INVALID_RECORD' });
  } finally {
    await producer.disconnect();
  }
});
