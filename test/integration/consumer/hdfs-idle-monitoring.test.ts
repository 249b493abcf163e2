/**
 * Issue 24: with the HDFS sink, Kafka's monitoring commit follows the durable position after every rotation, also one
 * the wall-clock schedule (rotateScheduleIntervalMs) makes while the topic is idle. Before, Kafka's committed offsets
 * stayed at the last rotation inside a write (the soak: files complete at 822, Kafka at 600 for 20 s and more), lag
 * tools showed false lag and `waitForCaughtUp` never resolved.
 */
import { MockCluster, waitForCaughtUp } from '../../../src/testing/mock-broker';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { HdfsSink } from '../../../src/sinks/hdfs';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { committedOffsets, range as offsets } from '../../sinks/hdfs/helpers';
import { consumerOn, kafkaOf, range, stopAll, until } from '../../consumer/helpers';

jest.setTimeout(60000);

let cluster: MockCluster;
let hdfs: WebHdfsServer;
const consumers: GroupConsumer[] = [];
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  hdfs = await WebHdfsServer.start();
});
afterAll(async () => {
  await stopAll(consumers);
  await cluster.stop();
  await hdfs.stop();
});

test('an idle topic: the scheduled rotation completes the files and Kafka\'s committed offsets follow within the interval; '
  + 'waitForCaughtUp resolves', async () => {
  const topic = 'idle-rot';
  cluster.createTopic(topic, 3);
  const rotateMs = 1000;
  // flushSize 100: rotations inside writes commit 100, 200, ...; the rest (the tail of each partition) stays staged
  // until the schedule commits it while nothing more arrives.
  const sink = new HdfsSink({ url: hdfs.url, topicsDir: '/idle', flushSize: 100, rotateScheduleIntervalMs: rotateMs,
    includeKafkaCoordinates: true });
  const producer = kafkaOf(cluster).producer();
  await producer.connect();
  const counts = [222, 188, 91];
  for (const [partition, n] of counts.entries()) {
    await producer.send({ topic, acks: -1, messages: range(0, n).map((i) => ({ partition, value: JSON.stringify({ i }) })) });
  }
  await producer.disconnect();
  const c = consumerOn(cluster, { groupId: 'idle-rot-g', topics: [topic], delivery: 'exactly-once', sink }, consumers);
  await c.start();
  // Everything staged (the topic is idle from now on), then made durable by the schedule alone.
  await until(() => counts.every((n, p) => sink.positions().get(`${topic}:${p}`)?.durable === BigInt(n)), 'the files to complete', 20000);
  const durableAt = Date.now();
  const committed = await waitForCaughtUp(cluster, 'idle-rot-g', topic, { timeoutMs: 2 * rotateMs + 2000 });
  expect(Date.now() - durableAt).toBeLessThan(2 * rotateMs + 2000);
  // Kafka's offsets equal the durable position (the files' ends), never more.
  expect(counts.map((_, p) => cluster.inspect.committedOffset('idle-rot-g', topic, p))).toEqual(counts);
  expect(committed).toBeDefined();
  for (const [p, n] of counts.entries()) expect(await committedOffsets(sink.client, '/idle', topic, p)).toEqual(offsets(0n, BigInt(n)));
  await c.stop();
  await sink.close();
});
