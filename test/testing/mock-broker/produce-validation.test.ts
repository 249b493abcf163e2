/**
 * Produce validation on the wire: acks 0 / 1 / -1 and invalid acks, CRC (CORRUPT_MESSAGE),
 * message.max.bytes (MESSAGE_TOO_LARGE). A refused batch is never appended.
 */
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { Produce } from '../../../src/protocol/messages/data';
import { encodeBatch } from '../../../src/protocol/record-batch';
import { RawClient } from './raw-client';

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 1, maxMessageBytes: 2000 }); });
afterAll(async () => { await cluster.stop(); });

const produce = (topic: string, acks: number, records: Buffer) =>
  ({ transactionalId: null, acks, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
const errorOf = (res: Record<string, any>) => // eslint-disable-line @typescript-eslint/no-explicit-any
  res.responses[0].partitionResponses[0].errorCode;

test('acks=0 gets no response (the next request\'s response comes first) and the batch is appended; acks 1 and -1 answer', async () => {
  cluster.createTopic('acks', 1);
  const c = await RawClient.connect(cluster.bootstrap[0]);
  c.write(c.frame(Produce, 8, produce('acks', 0, encodeBatch({ records: [{ value: 'a' }] })), 100));
  const res1 = await c.request(Produce, 8, produce('acks', 1, encodeBatch({ records: [{ value: 'b' }] })));
  expect(errorOf(res1)).toBe(0);
  expect(res1.responses[0].partitionResponses[0].baseOffset).toBe(1n); // the acks=0 batch took offset 0
  const resAll = await c.request(Produce, 8, produce('acks', -1, encodeBatch({ records: [{ value: 'c' }] })));
  expect(resAll.responses[0].partitionResponses[0].baseOffset).toBe(2n);
  expect(cluster.partitions('acks')[0].highWatermark).toBe(3);
  c.close();
});

test('acks other than 0, 1 and -1 is INVALID_REQUIRED_ACKS and nothing is appended', async () => {
  cluster.createTopic('bad-acks', 1);
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const res = await c.request(Produce, 8, produce('bad-acks', 2, encodeBatch({ records: [{ value: 'x' }] })));
  expect(errorOf(res)).toBe(ErrorCode.INVALID_REQUIRED_ACKS);
  expect(cluster.partitions('bad-acks')[0].highWatermark).toBe(0);
  c.close();
});

test('a batch whose CRC does not match is CORRUPT_MESSAGE and nothing is appended', async () => {
  cluster.createTopic('crc', 1);
  const batch = encodeBatch({ records: [{ value: 'payload' }] });
  batch[batch.length - 2] ^= 0xff;
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const res = await c.request(Produce, 8, produce('crc', -1, batch));
  expect(errorOf(res)).toBe(ErrorCode.CORRUPT_MESSAGE);
  expect(res.responses[0].partitionResponses[0].errorMessage).toMatch(/CRC/);
  expect(cluster.partitions('crc')[0].highWatermark).toBe(0);
  c.close();
});

test('a batch over message.max.bytes is MESSAGE_TOO_LARGE, on the wire and for KafkaJS', async () => {
  cluster.createTopic('big', 1);
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const res = await c.request(Produce, 8, produce('big', -1, encodeBatch({ records: [{ value: 'x'.repeat(3000) }] })));
  expect(errorOf(res)).toBe(ErrorCode.MESSAGE_TOO_LARGE);
  c.close();
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const producer = kafka.producer();
  await producer.connect();
  await expect(producer.send({ topic: 'big', messages: [{ value: 'y'.repeat(3000) }] }))
    .rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
  await producer.send({ topic: 'big', messages: [{ value: 'small' }] });
  await producer.disconnect();
  expect(cluster.partitions('big')[0].highWatermark).toBe(1);
});
