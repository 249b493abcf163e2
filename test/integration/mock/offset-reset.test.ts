/**
 * Auto offset reset with KafkaJS: a new group with fromBeginning false sees only what is produced
 * after it joined; with true it sees the backlog; a group with a committed offset resumes there
 * either way.
 */
import type { Kafka } from 'kafkajs';
import { MockCluster, startCluster, waitForCaughtUp } from '../../../src/testing/mock-broker';
import { waitUntil } from '../../../src/testing/mock-broker/testing';
import { FAST_CONSUMER, kafkaFor } from './helpers';

jest.setTimeout(90_000);

const TOPIC = 'reset';

describe('auto offset reset', () => {
  let cluster: MockCluster;
  let kafka: Kafka;
  beforeAll(async () => {
    cluster = await startCluster();
    cluster.createTopic(TOPIC, 1);
    cluster.append(TOPIC, 0, Array.from({ length: 10 }, (_, i) => ({ value: `old${i}` })));
    kafka = kafkaFor(cluster, 'reset').kafka;
  });
  afterAll(async () => {
    await cluster.stop();
  });

  /** Runs a consumer until its first fetch has completed (its start offset is resolved by then). */
  async function consume(groupId: string, fromBeginning: boolean) {
    const got: string[] = [];
    const consumer = kafka.consumer({ groupId, ...FAST_CONSUMER });
    let fetched = false;
    consumer.on(consumer.events.FETCH, () => {
      fetched = true;
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPIC], fromBeginning });
    await consumer.run({ eachMessage: async ({ message }) => { got.push(message.value!.toString()); } });
    await waitUntil(() => fetched, `${groupId}'s first fetch`);
    return { got, consumer };
  }

  async function produceNew(tag: string) {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: [{ value: `${tag}-a` }, { value: `${tag}-b` }] });
    await producer.disconnect();
  }

  test('fromBeginning false: only what is produced after joining', async () => {
    const { got, consumer } = await consume('latest-g', false);
    await produceNew('n1');
    await waitForCaughtUp(cluster, 'latest-g', TOPIC);
    expect(got).toEqual(['n1-a', 'n1-b']);
    await consumer.disconnect();
  });

  test('fromBeginning true: the whole backlog', async () => {
    const hw = cluster.partitions(TOPIC)[0].highWatermark;
    const { got, consumer } = await consume('earliest-g', true);
    await waitForCaughtUp(cluster, 'earliest-g', TOPIC);
    expect(got).toHaveLength(hw);
    expect(got.slice(0, 3)).toEqual(['old0', 'old1', 'old2']);
    await consumer.disconnect();
  });

  test.each([false, true])('a committed offset wins (fromBeginning %s)', async (fromBeginning) => {
    const groupId = `committed-${fromBeginning}`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.setOffsets({ groupId, topic: TOPIC, partitions: [{ partition: 0, offset: '7' }] });
    await admin.disconnect();
    expect(cluster.inspect.committedOffset(groupId, TOPIC, 0)).toBe(7);
    const { got, consumer } = await consume(groupId, fromBeginning);
    await waitForCaughtUp(cluster, groupId, TOPIC);
    expect(got.slice(0, 3)).toEqual(['old7', 'old8', 'old9']);
    expect(got).toHaveLength(cluster.partitions(TOPIC)[0].highWatermark - 7);
    await consumer.disconnect();
  });
});
