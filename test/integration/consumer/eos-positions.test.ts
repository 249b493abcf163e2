/**
 * Exactly-once positions at the edges: a new group with fromBeginning false starts at the end;
 * a stored position outside the log fails by name instead of looping; a sink outage longer than
 * the sink's own retries keeps the partition, waits, re-reads the position and goes on.
 */
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { StoredOffsetOutOfRangeError } from '../../../src/consumer/strategies/exactly-once';
import { KafkaEosError } from '../../../src/errors';
import { SqlSink } from '../../../src/sinks/sql';
import type { ExactlyOnceSink } from '../../../src/sink-contract';
import type { SinkBatch, TopicPartition } from '../../../src/records';
import { consumerOn, kafkaOf, produce, until, useConsumerCluster } from '../../consumer/helpers';

jest.setTimeout(60000);

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-positions-');
const { consumers } = fx;
const sinks: SqlSink[] = [];
// After the fixture's afterEach (one scope's hooks run in declaration order): consumers stop before their sinks close.
afterEach(async () => {
  await Promise.allSettled(sinks.splice(0).map((s) => s.close()));
});

const json = (n: number, from = 0) => Array.from({ length: n }, (_, i) => JSON.stringify({ id: from + i }));
function sinkFor(table: string): SqlSink {
  const sink = new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(fx.dir, `${table}.sqlite`) }, useNullAsDefault: true },
    table, mode: 'insert', autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } },
  });
  sinks.push(sink);
  return sink;
}
const rowCount = async (sink: SqlSink) => Number((await sink.knex(sink.table).count({ n: '*' }))[0].n);
const stored = async (sink: SqlSink, group: string, topic: string) => (await sink.open(group, [{ topic, partition: 0 }])).get(`${topic}:0`);

test('fromBeginning: false starts a partition with no stored position at the end of the log', async () => {
  fx.cluster.createTopic('fb-false', 1);
  await produce(kafkaOf(fx.cluster), 'fb-false', 0, json(50));
  const sink = sinkFor('fb_false');
  const c = consumerOn(fx.cluster, {
    groupId: 'fb-false-g', topics: ['fb-false'], delivery: 'exactly-once', sink, fromBeginning: false,
  }, consumers);
  // The strategy resolves a partition with no stored position (ListOffsets LATEST) when its first batch arrives, after
  // KafkaJS's own ListOffsets: records produced before that would count as already there.
  const listOffsets = () => fx.cluster.requestVersions.list().filter((v) => v.api === 'ListOffsets').reduce((n, v) => n + v.count, 0);
  const before = listOffsets();
  await c.start();
  await until(() => c.assignment().length === 1, 'the assignment');
  await until(() => listOffsets() >= before + 2, 'the consumer to resolve its starting position (the log end)');
  await produce(kafkaOf(fx.cluster), 'fb-false', 0, json(5, 50));
  await until(() => c.metrics().processed >= 5, 'the new records');
  expect(await rowCount(sink)).toBe(5);
  expect(await stored(sink, 'fb-false-g', 'fb-false')).toBe(55n);
  await sink.close();
});

test('a stored position below the log start (records deleted before they were sunk) fails with StoredOffsetOutOfRangeError, not a loop',
  async () => {
  fx.cluster.createTopic('oor', 1);
  await produce(kafkaOf(fx.cluster), 'oor', 0, json(30));
  const sink = sinkFor('oor');
  await sink.open('oor-g', [{ topic: 'oor', partition: 0 }]);
  await sink.write('oor-g', [{ topic: 'oor', partition: 0, expectedOffset: -1n, nextOffset: 10n, records: [] }]);
  fx.cluster.deleteRecordsBefore('oor', 0, 20);
  const c = consumerOn(fx.cluster, { groupId: 'oor-g', topics: ['oor'], delivery: 'exactly-once', sink }, consumers);
  c.on('error', () => undefined);
  await c.start();
  await until(() => c.state === 'failed', 'the failure');
  expect(c.failure).toBeInstanceOf(StoredOffsetOutOfRangeError);
  expect(c.failure).toMatchObject({ code: 'STORED_OFFSET_OUT_OF_RANGE', stored: 10n, earliest: 20n, latest: 30n });
  expect(await rowCount(sink)).toBe(0);
  await sink.close();
});

/** A sink that is down (every call fails with a retriable error) while `down` is true. */
class FlakySink implements ExactlyOnceSink {
  down = false;
  failures = 0;
  constructor(private readonly inner: ExactlyOnceSink) {}
  private check(): void {
    if (this.down) {
      this.failures++;
      throw new KafkaEosError('SINK_RETRIES_EXHAUSTED', 'database unavailable (test outage)', { retriable: true });
    }
  }
  async open(g: string, p: TopicPartition[]) { this.check(); return this.inner.open(g, p); }
  async write(g: string, b: SinkBatch[]) { this.check(); return this.inner.write(g, b); }
  close() { return this.inner.close(); }
}

test('a sink outage longer than its own retries: the consumer keeps the partition, waits, re-reads and writes everything once',
  async () => {
  fx.cluster.createTopic('outage', 1);
  const inner = sinkFor('outage');
  const sink = new FlakySink(inner);
  const c = consumerOn(fx.cluster, { groupId: 'outage-g', topics: ['outage'], delivery: 'exactly-once', sink }, consumers);
  const unavailable: unknown[] = [];
  c.on('sink-unavailable', (e) => unavailable.push(e));
  await c.start();
  await until(() => c.assignment().length === 1, 'the assignment');
  await produce(kafkaOf(fx.cluster), 'outage', 0, json(20));
  await until(() => c.metrics().processed >= 20, 'the first records');
  sink.down = true;
  await produce(kafkaOf(fx.cluster), 'outage', 0, json(20, 20));
  await until(() => unavailable.length >= 2, 'the outage to be noticed');
  expect(c.state).toBe('running');
  sink.down = false;
  await until(async () => (await stored(inner, 'outage-g', 'outage')) === 40n, 'the stored position 40', 30000);
  expect(await stored(inner, 'outage-g', 'outage')).toBe(40n);
  expect(await rowCount(inner)).toBe(40);
  const [{ d }] = await inner.knex('outage').countDistinct({ d: 'kafka_offset' });
  expect(Number(d)).toBe(40);
  expect(c.state).toBe('running');
  await c.stop();
  await inner.close();
});

test('group commit: three partitions consumed concurrently share sink transactions, and the table is exact', async () => {
  fx.cluster.createTopic('grouped', 3);
  const kafka = kafkaOf(fx.cluster);
  for (let p = 0; p < 3; p++) await produce(kafka, 'grouped', p, json(200, p * 1000));
  const sink = sinkFor('grouped');
  let mostPartitionsInOneWrite = 0;
  const counted: ExactlyOnceSink = {
    open: (g, p) => sink.open(g, p),
    write: (g, b) => { mostPartitionsInOneWrite = Math.max(mostPartitionsInOneWrite, b.length); return sink.write(g, b); },
    close: () => sink.close() };
  await sink.open('grouped-g', []); // creates the table
  const c = consumerOn(fx.cluster, {
    groupId: 'grouped-g', topics: ['grouped'], delivery: 'exactly-once', sink: counted, partitionsConsumedConcurrently: 3,
    groupCommit: { maxRows: 5000, lingerMs: 20 },
  }, consumers);
  await c.start();
  await until(async () => (await rowCount(sink)) >= 600, '600 rows', 30000);
  expect(await rowCount(sink)).toBe(600);
  const [{ d }] = await sink.knex('grouped').select(sink.knex.raw('count(distinct kafka_partition || \'-\' || kafka_offset) as d'));
  expect(Number(d)).toBe(600);
  const positions = await sink.open('grouped-g', [0, 1, 2].map((partition) => ({ topic: 'grouped', partition })));
  expect([...positions.values()]).toEqual([200n, 200n, 200n]);
  expect(mostPartitionsInOneWrite).toBeGreaterThanOrEqual(2); // writes of different partitions did share a transaction
  await c.stop();
});
