/**
 * The consumer controls users of KafkaJS and Java ask for (issue 24), on an exactly-once SQL sink:
 * `maxBatchRecords` caps every batch and sink write (Java's max.poll.records) with every record stored once;
 * `pause()` stops a partition's batches with the member keeping it (no rebalance, the stored position still),
 * `resume()` carries on from there; pausing a partition not owned is refused by name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { SqlSink } from '../../../src/sinks/sql';
import { consumerOn, kafkaOf, stopAll, until } from '../../consumer/helpers';

jest.setTimeout(60000);

let cluster: MockCluster;
let dir: string;
const consumers: GroupConsumer[] = [];
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-controls-'));
});
afterAll(async () => {
  await stopAll(consumers);
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('maxBatchRecords caps batches; pause keeps the partition and its position, resume carries on; nothing lost or doubled', async () => {
  const topic = 'controls-t';
  cluster.createTopic(topic, 2);
  const sink = new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'controls.sqlite') }, useNullAsDefault: true },
    table: 'rows', mode: 'insert', autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } },
  });
  const producer = kafkaOf(cluster).producer();
  await producer.connect();
  const send = (from: number, n: number, partition: number) => producer.send({ topic, acks: -1,
    messages: Array.from({ length: n }, (_, i) => ({ partition, value: JSON.stringify({ id: from + i }) })) });
  await send(0, 100, 0);
  await send(100, 100, 1);
  const c = consumerOn(cluster, { groupId: 'controls-g', topics: [topic], delivery: 'exactly-once', sink, maxBatchRecords: 7 }, consumers);
  const batches: { partition: number; records: number; nextOffset: bigint }[] = [];
  let rebalances = 0;
  c.on('batch', (b) => batches.push(b));
  c.on('rebalance', () => { rebalances += 1; });
  await c.start();
  const handled = (p: number) => batches.filter((b) => b.partition === p).reduce((n, b) => n + b.records, 0);
  await until(() => handled(0) === 100 && handled(1) === 100, 'the first 200 records');
  expect(Math.max(...batches.map((b) => b.records))).toBe(7);
  expect(batches.filter((b) => b.records > 0).length).toBeGreaterThanOrEqual(2 * Math.ceil(100 / 7));

  expect(() => c.pause([{ topic, partition: 5 }])).toThrow(expect.objectContaining({ code: 'NOT_ASSIGNED' }));
  c.pause([{ topic, partition: 1 }]);
  expect(c.paused()).toEqual([{ topic, partition: 1 }]);
  // Partition 1's records are in the log before partition 0's: unpaused, one Fetch (one leader) would bring both.
  await send(300, 30, 1);
  await send(200, 30, 0);
  await until(() => handled(0) === 130, 'partition 0 to go on while 1 is paused');
  expect(handled(1)).toBe(100);
  expect((await sink.offsets.read('controls-g', [{ topic, partition: 1 }])).get(`${topic}:1`)).toBe(100n);
  expect(c.assignment()).toHaveLength(2);
  expect(rebalances).toBe(1);

  c.resume([{ topic, partition: 1 }]);
  expect(c.paused()).toEqual([]);
  await until(() => handled(1) === 130, 'partition 1 after resume');
  await c.stop();
  await producer.disconnect();
  const ids = (await sink.knex('rows').select('id')).map((r: { id: number }) => Number(r.id)).sort((a, b) => a - b);
  await sink.close();
  expect(ids)
    .toEqual([...Array.from({ length: 230 }, (_, i) => i), ...Array.from({ length: 30 }, (_, i) => 300 + i)].sort((a, b) => a - b));
});

test('stop({ timeoutMs }) with a cluster that no longer answers rejects with STOP_TIMEOUT in time, naming what was owned', async () => {
  const topic = 'controls-stop';
  cluster.createTopic(topic, 1);
  const sink = new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'stop.sqlite') }, useNullAsDefault: true },
    table: 'rows', mode: 'insert', autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } },
  });
  const c = consumerOn(cluster, { groupId: 'controls-stop-g', topics: [topic], delivery: 'exactly-once', sink }, consumers);
  await c.start();
  cluster.faults.delay({ ms: 30_000 }); // every request: the coordinator's answer to the leave never comes in time
  try {
    const started = Date.now();
    const error = await c.stop({ timeoutMs: 1000 }).then(() => null, (e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error).toMatchObject({ code: 'STOP_TIMEOUT', retriable: false });
    // The revoke commits in the sink without Kafka; what hangs is the leave: the message says so, not "not committed".
    expect((error as Error).message).toMatch(new RegExp(String.raw`did not stop within 1000 ms \(timeoutMs\); ` +
      String.raw`(still owned, not committed past their last commit: controls-stop:0|` +
      String.raw`every partition was given up with its work committed \(controls-stop:0\); ` +
      String.raw`leaving the group and closing connections did not finish)$`));
  } finally {
    cluster.faults.clear();
    await sink.close();
  }
});
