/**
 * Poison rows the sink refuses (a value that fails to map, a row that violates a constraint)
 * follow the consumer's poison policy in exactly-once mode: skip or dead-letter writes the
 * batch without them, with the offset moving over them; fail writes nothing. Never half a batch.
 */
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { PoisonMessageError } from '../../../src/consumer/errors';
import { SqlSink } from '../../../src/sinks/sql';
import { consumerOn, kafkaOf, produce, until, useConsumerCluster } from '../../consumer/helpers';

jest.setTimeout(60000);

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-sink-poison-');
const { consumers } = fx;

function sinkFor(table: string): SqlSink {
  return new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(fx.dir, `${table}.sqlite`) }, useNullAsDefault: true },
    table, mode: 'insert', autoCreate: true,
    mapping: { columns: { id: { path: 'id', type: 'integer' }, name: { path: 'name', type: 'string' } } },
  });
}

// Offsets 0..4: offset 1 is not JSON (fails to map); offset 3 has no `name` (NOT NULL column).
const VALUES = ['{"id":1,"name":"a"}', 'not json', '{"id":3,"name":"c"}', '{"id":4}', '{"id":5,"name":"e"}'];

test.each(['skip', 'dead-letter'] as const)('policy %s: the rejected rows are left out, the rest commit with the offset past them',
  async (policy) => {
  const topic = `sink-poison-${policy}`;
  fx.cluster.createTopic(topic, 1);
  await produce(kafkaOf(fx.cluster), topic, 0, VALUES);
  const sink = sinkFor(`t_${policy.replace('-', '_')}`);
  const c = consumerOn(fx.cluster, {
    groupId: `${topic}-g`, topics: [topic], delivery: 'exactly-once', sink, poisonPolicy: policy,
    ...(policy === 'dead-letter' ? { deadLetterTopic: `${topic}.dlq` } : {}),
  }, consumers);
  const errors: unknown[] = [];
  c.on('error', (e) => errors.push(e));
  await c.start();
  await until(() => c.metrics().processed >= 5 || errors.length > 0, 'the batch');
  const stored = async () => (await sink.open(`${topic}-g`, [{ topic, partition: 0 }])).get(`${topic}:0`);
  await until(async () => (await stored()) === 5n, 'the stored position 5', 20000);
  expect(errors).toEqual([]);
  expect(await stored()).toBe(5n);
  const rows = await sink.knex(sink.table).select('id', 'kafka_offset').orderBy('kafka_offset');
  expect(rows.map((r: { kafka_offset: number }) => Number(r.kafka_offset))).toEqual([0, 2, 4]);
  if (policy === 'dead-letter') {
    const dlq = fx.cluster.partitions(`${topic}.dlq`)[0];
    expect(dlq.highWatermark).toBe(2);
  } else {
    expect(fx.cluster.partitions(`${topic}.dlq`)).toEqual([]);
  }
  await c.stop();
  await sink.close();
});

test('policy skip: three refused rows in a row (same trigger) between good rows are skipped, not a stall', async () => {
  const topic = 'sink-poison-run';
  fx.cluster.createTopic(topic, 1);
  const table = 't_run';
  const sink = new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(fx.dir, `${table}.sqlite`) }, useNullAsDefault: true },
    table, mode: 'insert', autoCreate: true,
    mapping: { columns: { id: { path: 'id', type: 'integer' }, delay: { path: 'delay', type: 'integer' } } },
  });
  await sink.open(`${topic}-g`, [{ topic, partition: 0 }]);
  await sink.knex.raw(`CREATE TRIGGER ${table}_no_negative BEFORE INSERT ON ${table} WHEN NEW.delay < 0
    BEGIN SELECT RAISE(ABORT, 'delay must not be negative'); END`);
  const delays = [1, 2, -1, -2, -3, 3, 4];
  await produce(kafkaOf(fx.cluster), topic, 0, delays.map((d, i) => JSON.stringify({ id: i, delay: d })));
  const c = consumerOn(fx.cluster, {
    groupId: `${topic}-g`, topics: [topic], delivery: 'exactly-once', sink, poisonPolicy: 'skip',
  }, consumers);
  const errors: unknown[] = [];
  c.on('error', (e) => errors.push(e));
  await c.start();
  const stored = async () => (await sink.open(`${topic}-g`, [{ topic, partition: 0 }])).get(`${topic}:0`);
  await until(async () => (await stored()) === 7n, 'the stored position 7', 30000);
  expect(errors).toEqual([]);
  expect(await stored()).toBe(7n);
  const rows = await sink.knex(table).select('kafka_offset').orderBy('kafka_offset');
  expect(rows.map((r: { kafka_offset: number }) => Number(r.kafka_offset))).toEqual([0, 1, 5, 6]);
  await c.stop();
  await sink.close();
});

test('policy fail: the consumer stops with PoisonMessageError naming the record, and nothing of the batch is written', async () => {
  const topic = 'sink-poison-fail';
  fx.cluster.createTopic(topic, 1);
  await produce(kafkaOf(fx.cluster), topic, 0, VALUES);
  const sink = sinkFor('t_fail');
  const c = consumerOn(fx.cluster, {
    groupId: `${topic}-g`, topics: [topic], delivery: 'exactly-once', sink, poisonPolicy: 'fail',
  }, consumers);
  c.on('error', () => undefined);
  await c.start();
  await until(() => c.state === 'failed', 'failure');
  expect(c.failure).toBeInstanceOf(PoisonMessageError);
  expect((c.failure as PoisonMessageError).offset).toBe(1n);
  await c.stop();
  expect(await sink.knex(sink.table).count({ n: '*' }).then((r) => Number(r[0].n))).toBe(0);
  expect((await sink.open(`${topic}-g`, [{ topic, partition: 0 }])).get(`${topic}:0`)).toBe(-1n);
  await sink.close();
});
