/**
 * A service's test suite in a new TypeScript project (this folder's tsconfig.json, jest.config.js and package.json):
 * orders from the embedded Kafka cluster into the HDFS sink's Parquet files on the embedded WebHDFS server, exactly
 * once, then read back in the test. `scripts/check-package.js` runs it against the packed package with jest 29 and 30.
 */
import { Kafka, logLevel } from 'kafkajs';
import { createGroupConsumer, HdfsSink } from 'kafka-eos';
import { startCluster, type MockCluster } from 'kafka-eos/mock-broker';
import { readHdfsSinkOutput, WebHdfsServer } from 'kafka-eos/webhdfs-server';

let cluster: MockCluster;
let hdfs: WebHdfsServer;
beforeAll(async () => {
  cluster = await startCluster({ brokers: 1 });
  hdfs = await WebHdfsServer.start();
});
afterAll(async () => {
  await cluster.stop();
  await hdfs.stop();
});

test('orders land in Parquet exactly once and read back typed', async () => {
  cluster.createTopic('orders', 2);
  const kafka = new Kafka({ clientId: 'orders-test', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [1, 2, 3, 4].map((id) => ({ partition: id % 2, value: JSON.stringify({ id, total: id * 2.5 }) })) });
  await producer.disconnect();

  const sink = new HdfsSink({
    url: hdfs.url, topicsDir: '/orders-test', flushSize: 2,
    format: { type: 'parquet', columns: [{ name: 'id', type: 'int64' }, { name: 'total', type: 'double' }] },
  });
  const consumer = createGroupConsumer({
    kafka, groupId: 'orders-loader', topics: ['orders'], delivery: 'exactly-once', sink,
    sessionTimeoutMs: 6000, heartbeatIntervalMs: 200, maxWaitTimeMs: 100,
  });
  try {
    await consumer.start();
    const end = Date.now() + 20000;
    let rows: unknown[] = [];
    while (rows.length < 4 && Date.now() < end) {
      ({ rows } = await readHdfsSinkOutput({ url: hdfs.url, topicsDir: '/orders-test', topic: 'orders' }));
      if (rows.length < 4) await new Promise((r) => setTimeout(r, 50));
    }
    expect(rows).toEqual(expect.arrayContaining([{ id: 1n, total: 2.5 }, { id: 2n, total: 5 }, { id: 3n, total: 7.5 }, { id: 4n, total: 10 }]));
    expect(rows).toHaveLength(4);
  } finally {
    await consumer.stop();
    await sink.close();
  }
});
