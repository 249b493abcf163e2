/**
 * The lag metric is the high watermark minus the position the sink stored, whatever the consumer is doing (issue 24's
 * soak: it read 0 to a third of the true lag while the consumer was paused or waiting for the database, while Kafka's
 * committed lag stayed right). Exactly-once into SQLite: paused, the lag grows with what is produced (ListOffsets for
 * a partition not fetched); with the database refusing writes (a column dropped), it grows too; back to 0 after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { SqlSink } from '../../../src/sinks/sql';
import { consumerOn, kafkaOf, range, stopAll, until } from '../../consumer/helpers';

jest.setTimeout(60000);

let cluster: MockCluster;
let dir: string;
const consumers: GroupConsumer[] = [];
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-lag-'));
});
afterAll(async () => {
  await stopAll(consumers);
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('lag = high watermark − the sink\'s stored position while paused and while the database refuses writes', async () => {
  const topic = 'lag-t';
  cluster.createTopic(topic, 1);
  const tp = { topic, partition: 0 };
  const sink = new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'lag.sqlite') }, useNullAsDefault: true },
    table: 'rows', mode: 'insert', autoCreate: true,
    mapping: { columns: { id: { path: 'id', type: 'integer' }, v: { path: 'v', type: 'integer', nullable: true } } },
  });
  const producer = kafkaOf(cluster).producer();
  await producer.connect();
  let next = 0;
  const send = async (n: number) => {
    await producer.send({ topic, acks: -1,
      messages: range(next, next + n).map((id) => ({ partition: 0, value: JSON.stringify({ id, v: 1 }) })) });
    next += n;
  };
  const c = consumerOn(cluster, { groupId: 'lag-g', topics: [topic], delivery: 'exactly-once', sink, sinkBlockedTimeoutMs: 0 }, consumers);
  const lag = () => c.metrics().partitions.find((p) => p.partition === 0)?.lag;
  const stored = async () => (await sink.offsets.read('lag-g', [tp])).get(`${topic}:0`);
  await send(20);
  await c.start();
  await until(async () => (await stored()) === 20n && lag() === 0n, 'caught up');

  c.pause([tp]);
  await send(30);
  await until(() => lag() === 30n, 'the lag of the paused partition to count what was produced', 15000);
  expect(c.metrics().partitions[0]).toMatchObject({ position: 20n, highWatermark: 50n, lag: 30n });
  c.resume([tp]);
  await until(() => lag() === 0n, 'caught up after resume');

  await sink.knex.raw('ALTER TABLE "rows" DROP COLUMN "v"'); // every write refused from now (SINK_WRITE_REFUSED), waited out
  await send(15);
  await until(() => lag() === 15n, 'the lag while the database refuses writes', 15000);
  await new Promise((r) => setTimeout(r, 1500)); // the refused writes go on; the lag stays the truth
  expect(await stored()).toBe(50n);
  expect(lag()).toBe(15n);
  await sink.knex.raw('ALTER TABLE "rows" ADD COLUMN "v" INTEGER');
  await until(() => lag() === 0n, 'caught up once the column is back', 20000);
  expect(await stored()).toBe(65n);
  await c.stop();
  await producer.disconnect();
  await sink.close();
});
