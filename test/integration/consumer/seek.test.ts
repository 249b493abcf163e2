/**
 * GroupConsumer.seek(partition, offset) (issue 24), per delivery, with real consumers on the mock cluster:
 * - exactly-once (SQL sink): the seek moves the sink's stored position (offsets table) before anything is fetched
 *   from there; back writes the records again, forward skips them; a member started later resumes from the sink;
 * - at-least-once and at-most-once: the seek is the group's committed offset at once; the handler sees the records
 *   from the seek on.
 * Refusals by name: a partition not owned (NOT_ASSIGNED), a negative offset (INVALID_ARGUMENT), HDFS (SEEK_UNSUPPORTED).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import type { SinkRecord } from '../../../src/records';
import { SqlSink } from '../../../src/sinks/sql';
import { consumerOn, kafkaOf, range, stopAll, until } from '../../consumer/helpers';

jest.setTimeout(60000);

let cluster: MockCluster;
let dir: string;
const consumers: GroupConsumer[] = [];
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-seek-'));
});
afterAll(async () => {
  await stopAll(consumers);
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function produce(topic: string, from: number, n: number): Promise<void> {
  const producer = kafkaOf(cluster).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: range(from, from + n).map((id) => ({ partition: 0, value: JSON.stringify({ id }) })) });
  await producer.disconnect();
}

test('exactly-once: a seek moves the sink\'s stored position (back: written again; forward: skipped); a later member resumes there',
  async () => {
    const topic = 'seek-eos';
    cluster.createTopic(topic, 1);
    const tp = { topic, partition: 0 };
    const sinkOf = () => new SqlSink({
      knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'eos.sqlite') }, useNullAsDefault: true },
      table: 'rows', mode: 'insert', autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } },
    });
    const sink = sinkOf();
    const stored = async () => (await sink.offsets.read('seek-eos-g', [tp])).get(`${topic}:0`);
    const ids = async () => (await sink.knex('rows').select('id')).map((r: { id: number }) => Number(r.id)).sort((a, b) => a - b);
    await produce(topic, 0, 40);
    const c = consumerOn(cluster, { groupId: 'seek-eos-g', topics: [topic], delivery: 'exactly-once', sink }, consumers);
    await c.start();
    await until(async () => (await stored()) === 40n, 'the first 40 rows');

    await expect(c.seek({ topic, partition: 3 }, 0)).rejects.toMatchObject({ code: 'NOT_ASSIGNED' });
    await expect(c.seek(tp, -1)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(c.seek(tp, 41)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' }); // past the high watermark
    expect(await stored()).toBe(40n);

    // Back: paused, so the stored position is seen as the seek left it, before any batch from there.
    c.pause([tp]);
    await c.seek(tp, 25n);
    expect(await stored()).toBe(25n);
    c.resume([tp]);
    await until(async () => (await stored()) === 40n, 'rows 25..39 again');
    expect(await ids()).toEqual([...range(0, 40), ...range(25, 40)].sort((a, b) => a - b));

    // Forward: 40..59 produced while paused; the seek to 55 skips 40..54.
    c.pause([tp]);
    await produce(topic, 40, 20);
    await c.seek(tp, 55);
    expect(await stored()).toBe(55n);
    c.resume([tp]);
    await until(async () => (await stored()) === 60n, 'rows 55..59');
    await until(() => cluster.inspect.committedOffset('seek-eos-g', topic, 0) === 60, 'Kafka\'s monitoring offset at 60');
    expect((await ids()).filter((id) => id >= 40)).toEqual(range(55, 60));

    // A seek back, then the member stops: the next member resumes from the sink (the seek), not from Kafka's offset.
    await c.seek(tp, 58);
    await until(async () => (await stored()) === 60n, 'rows 58..59 again');
    await c.seek(tp, 50);
    c.pause([tp]);
    await c.stop();
    await sink.close();
    const again = sinkOf();
    const next = consumerOn(cluster, { groupId: 'seek-eos-g', topics: [topic], delivery: 'exactly-once', sink: again }, consumers);
    const firstBatch = new Promise<bigint>((resolve) => next.once('batch', (b) => resolve(b.nextOffset - BigInt(b.records))));
    await next.start();
    expect(await firstBatch).toBe(50n);
    await until(async () => (await again.offsets.read('seek-eos-g', [tp])).get(`${topic}:0`) === 60n, 'the next member to finish');
    await next.stop();
    await again.close();
  });

for (const delivery of ['at-least-once', 'at-most-once'] as const) {
  test(`${delivery}: the seek is the group's committed offset at once; the handler sees the records from there`, async () => {
    const topic = `seek-${delivery}`;
    const group = `${topic}-g`;
    cluster.createTopic(topic, 1);
    const tp = { topic, partition: 0 };
    const seen: number[] = [];
    await produce(topic, 0, 30);
    const c = consumerOn(cluster, {
      groupId: group, topics: [topic], delivery, commitIntervalMs: 0,
      recordHandler: async (r: SinkRecord) => { seen.push(Number(r.offset)); },
    } as never, consumers);
    await c.start();
    await until(() => seen.length === 30, 'the first 30 records');
    await until(() => cluster.inspect.committedOffset(group, topic, 0) === 30, 'committed at 30');

    c.pause([tp]);
    await c.seek(tp, 12);
    expect(cluster.inspect.committedOffset(group, topic, 0)).toBe(12);
    seen.length = 0;
    c.resume([tp]);
    await until(() => seen.length === 18, 'records 12..29 again');
    expect(seen).toEqual(range(12, 30));

    c.pause([tp]);
    await produce(topic, 30, 20);
    await c.seek(tp, 45n);
    expect(cluster.inspect.committedOffset(group, topic, 0)).toBe(45);
    seen.length = 0;
    c.resume([tp]);
    await until(() => seen.length === 5, 'records 45..49');
    await until(() => cluster.inspect.committedOffset(group, topic, 0) === 50, 'committed at 50');
    expect(seen).toEqual(range(45, 50));
    await c.stop();
  });
}

test('a seek during a batch waits for it: the batch finishes, nothing of it is handled after the seek, which then applies', async () => {
  const topic = 'seek-busy';
  const group = `${topic}-g`;
  cluster.createTopic(topic, 1);
  const tp = { topic, partition: 0 };
  const seen: { offset: number; at: number }[] = [];
  await produce(topic, 0, 20);
  const c = consumerOn(cluster, {
    groupId: group, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0, maxBatchRecords: 10,
    recordHandler: async (r: SinkRecord) => {
      await new Promise((res) => setTimeout(res, 40)); seen.push({ offset: Number(r.offset), at: Date.now() });
    },
  } as never, consumers);
  await c.start();
  await until(() => seen.length >= 2, 'the first batch under way');
  await c.seek(tp, 3);
  const seekDone = Date.now();
  // The batch in hand (0..9) finished before the seek resolved; the seek was committed before anything after it.
  const before = seen.filter((s) => s.at <= seekDone).map((s) => s.offset);
  expect(before).toEqual(range(0, 10));
  expect(cluster.inspect.committedOffset(group, topic, 0)).toBe(3);
  await until(() => seen.length >= 10 + 17, 'records 3..19 after the seek');
  expect(seen.filter((s) => s.at > seekDone).map((s) => s.offset)).toEqual(range(3, 20));
  await c.stop();
});
