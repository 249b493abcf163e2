/**
 * Heartbeats while a handler runs and max processing time (under each group protocol), retries and poison policies
 * (dead letters with headers, exactly-once never half-committed), manual assignment, metrics and drain().
 */
import * as path from 'node:path';
import { startCluster } from '../../../src/testing/mock-broker/testing';
import { MaxProcessingTimeExceededError, PoisonMessageError } from '../../../src/consumer/errors';
import { DEAD_LETTER_HEADERS } from '../../../src/consumer/retry';
import { SqlSink } from '../../../src/sinks/sql';
import type { GroupConsumerOptions } from '../../../src/consumer/options';
import { consumerOn, kafkaOf, produce, sleep, stopAll, until, useConsumerCluster, valueOf } from '../../consumer/helpers';
import { PROTOCOLS, protocolOptions } from '../../consumer/protocols';

jest.setTimeout(90000);

function sqliteSink(dir: string, table: string): SqlSink {
  return new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'db.sqlite') }, useNullAsDefault: true, pool: { min: 1, max: 1 } },
    table, mode: 'insert', includeKafkaCoordinates: false, mapping: (r) => ({ v: valueOf(r), o: Number(r.offset) }),
  });
}

describe.each(PROTOCOLS)('the processing time limit, %s protocol', (protocol) => {
  const fx = useConsumerCluster(
    () => startCluster({ group: { consumerSessionTimeoutMs: 1500, consumerHeartbeatIntervalMs: 200 } }), `kafka-eos-time-${protocol}-`,
  );
  const { consumers } = fx;
  const on = (options: Omit<GroupConsumerOptions, 'brokers'>) => consumerOn(fx.cluster, {
    ...protocolOptions(protocol), ...(protocol === 'consumer' ? {} : { sessionTimeoutMs: 1500, heartbeatIntervalMs: 200 }), ...options,
  } as Omit<GroupConsumerOptions, 'brokers'>, consumers);

  test('a handler running 3x the session timeout keeps its membership (background heartbeats): no rebalance', async () => {
    fx.cluster.createTopic(`long-${protocol}`, 1);
    await produce(kafkaOf(fx.cluster), `long-${protocol}`, 0, ['a', 'b']);
    const done: string[] = [];
    const groupId = `long-${protocol}-g`;
    const c = on({
      groupId, topics: [`long-${protocol}`], delivery: 'at-least-once', maxProcessingTimeMs: 60000,
      handler: async (b) => { await sleep(4500); done.push(...b.records.map(valueOf)); },
    });
    await c.start();
    await until(() => done.length === 2, 'the slow batch to finish');
    expect(fx.cluster.events.entries({ type: 'member.expired', groupId })).toEqual([]);
    expect(fx.cluster.inspect.group(groupId)!.generationId).toBe(1);
    expect(c.state).toBe('running');
  });

  test('past maxProcessingTimeMs the member leaves and the error is surfaced; nothing is committed', async () => {
    const topic = `stuck-${protocol}`;
    const groupId = `${topic}-g`;
    fx.cluster.createTopic(topic, 1);
    await produce(kafkaOf(fx.cluster), topic, 0, ['a']);
    let release: () => void = () => undefined;
    const errors: unknown[] = [];
    const c = on({
      groupId, topics: [topic], delivery: 'at-least-once', commitIntervalMs: 0, maxProcessingTimeMs: 2500,
      recordHandler: () => new Promise<void>((r) => { release = r; }),
    });
    c.on('error', (e) => errors.push(e));
    await c.start();
    await until(() => c.state === 'failed', 'the consumer to fail');
    expect(errors[0]).toBeInstanceOf(MaxProcessingTimeExceededError);
    await until(() => fx.cluster.events.entries({ type: 'member.left', groupId }).length === 1, 'the member to leave');
    release();
    await c.stop();
    expect(fx.cluster.events.entries({ type: 'offsets.committed', groupId })).toEqual([]);
  });
});

describe('consumer behaviour', () => {
  const fx = useConsumerCluster(() => startCluster(), 'kafka-eos-behaviour-');
  const { consumers } = fx;

  test('retries with backoff, then dead-letters with source headers and goes on (at-least-once)', async () => {
    fx.cluster.createTopic('poison', 1);
    fx.cluster.createTopic('poison.dlq', 1);
    const kafka = kafkaOf(fx.cluster);
    await produce(kafka, 'poison', 0, ['ok-0', 'bad-1', 'ok-2', 'flaky-3']);
    const attempts = new Map<string, number>();
    const done: string[] = [];
    const c = consumerOn(fx.cluster, {
      groupId: 'poison-g', topics: ['poison'], delivery: 'at-least-once', commitIntervalMs: 0,
      retry: { retries: 2, minTimeoutMs: 10, maxTimeoutMs: 20 }, poisonPolicy: 'dead-letter',
      recordHandler: async (r) => {
        const v = valueOf(r);
        attempts.set(v, (attempts.get(v) ?? 0) + 1);
        if (v.startsWith('bad')) throw new Error(`cannot handle ${v}`);
        if (v.startsWith('flaky') && attempts.get(v)! < 2) throw new Error('transient');
        done.push(v);
      },
    }, consumers);
    await c.start();
    await until(() => done.includes('flaky-3'), 'the last record');
    expect(done).toEqual(['ok-0', 'ok-2', 'flaky-3']);
    expect(attempts.get('bad-1')).toBe(3);
    expect(attempts.get('flaky-3')).toBe(2);
    const dlq = fx.cluster.partitions('poison.dlq')[0];
    expect(dlq.highWatermark).toBe(1);
    const got: { value: string; headers: Record<string, string> }[] = [];
    const reader = kafka.consumer({ groupId: 'dlq-reader', maxWaitTimeInMs: 100 });
    await reader.connect();
    await reader.subscribe({ topic: 'poison.dlq', fromBeginning: true });
    await reader.run({ eachMessage: async ({ message }) => {
      const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
      got.push({ value: String(message.value), headers });
    } });
    await until(() => got.length === 1, 'the dead letter');
    await reader.disconnect();
    expect(got[0].value).toBe('bad-1');
    expect(got[0].headers).toMatchObject({
      [DEAD_LETTER_HEADERS.topic]: 'poison', [DEAD_LETTER_HEADERS.partition]: '0', [DEAD_LETTER_HEADERS.offset]: '1',
      [DEAD_LETTER_HEADERS.error]: 'Error: cannot handle bad-1',
    });
    expect(c.metrics().deadLettered).toBe(1);
    expect(c.metrics().retries).toBe(3);
  });

  test('exactly-once with dead-letter: the poison record is left out but the batch commits whole, offsets and rows together; '
    + 'batches fetched before the assignment seeks are dropped, so the hook and the DLQ run once', async () => {
    fx.cluster.createTopic('eos-poison', 1);
    await produce(kafkaOf(fx.cluster), 'eos-poison', 0, ['a', 'bad', 'c']);
    const sink = sqliteSink(fx.dir, 'eos_poison');
    await sink.knex.schema.createTable('eos_poison', (t) => { t.string('v'); t.integer('o'); });
    const c = consumerOn(fx.cluster, {
      groupId: 'eos-poison-g', topics: ['eos-poison'], delivery: 'exactly-once', sink,
      poisonPolicy: 'dead-letter', deadLetterTopic: 'eos-poison-dead',
      recordHandler: async (r) => { if (valueOf(r) === 'bad') throw new Error('bad'); },
    }, consumers);
    const errs: string[] = [];
    c.on('error', (e: Error) => errs.push(e.message));
    await c.start();
    await until(() => c.metrics().processed === 3 || errs.length > 0, 'the batch or an error');
    expect(errs).toEqual([]);
    await until(() => (fx.cluster.partitions('eos-poison-dead')[0]?.highWatermark ?? 0) === 1, 'the dead letter');
    await until(() => c.metrics().processed === 3, 'the batch');
    await sleep(300);
    await c.stop();
    expect(c.metrics().processed).toBe(3);
    expect(fx.cluster.partitions('eos-poison-dead')[0].highWatermark).toBe(1);
    expect((await sink.knex('eos_poison').select('v', 'o').orderBy('o')).map((r: { v: string }) => r.v)).toEqual(['a', 'c']);
    const stored = await sink.open('eos-poison-g', [{ topic: 'eos-poison', partition: 0 }]);
    expect(stored.get('eos-poison:0')).toBe(3n);
    await sink.close();
  });

  test("exactly-once with policy 'fail': nothing of the failing batch is written and the consumer fails with PoisonMessageError",
    async () => {
    fx.cluster.createTopic('eos-fail', 1);
    await produce(kafkaOf(fx.cluster), 'eos-fail', 0, ['a', 'bad', 'c']);
    const sink = sqliteSink(fx.dir, 'eos_fail');
    await sink.knex.schema.createTable('eos_fail', (t) => { t.string('v'); t.integer('o'); });
    const c = consumerOn(fx.cluster, {
      groupId: 'eos-fail-g', topics: ['eos-fail'], delivery: 'exactly-once', sink,
      recordHandler: async (r) => { if (valueOf(r) === 'bad') throw new Error('bad'); },
    }, consumers);
    // The test reads c.failure; unheard, the failure would also set this (jest) process's exit code to 1.
    c.on('error', () => undefined);
    await c.start();
    await until(() => c.state === 'failed', 'failure');
    expect(c.failure).toBeInstanceOf(PoisonMessageError);
    expect((c.failure as PoisonMessageError).offset).toBe(1n);
    await c.stop();
    expect(await sink.knex('eos_fail').select('v')).toEqual([]);
    expect((await sink.open('eos-fail-g', [{ topic: 'eos-fail', partition: 0 }])).get('eos-fail:0')).toBe(-1n);
    await sink.close();
  });

  test("at-least-once with policy 'fail' commits the records finished before the poison record", async () => {
    fx.cluster.createTopic('alo-fail', 1);
    await produce(kafkaOf(fx.cluster), 'alo-fail', 0, ['a', 'b', 'bad', 'c']);
    const c = consumerOn(fx.cluster, {
      groupId: 'alo-fail-g', topics: ['alo-fail'], delivery: 'at-least-once', commitIntervalMs: 600000,
      recordHandler: async (r) => { if (valueOf(r) === 'bad') throw new Error('bad'); },
    }, consumers);
    c.on('error', () => undefined); // expected: the test waits for the failed state
    await c.start();
    await until(() => c.state === 'failed', 'failure');
    await c.stop();
    const commits = fx.cluster.events.entries({ type: 'offsets.committed', groupId: 'alo-fail-g' });
    expect(commits.map((e) => (e.data.partitions as { offset: bigint }[])[0].offset)).toEqual([2n]);
  });

  test('manual assignment: consumes the given partitions only, commits under the group id, resumes from there', async () => {
    fx.cluster.createTopic('manual', 3);
    const kafka = kafkaOf(fx.cluster);
    for (let p = 0; p < 3; p++) await produce(kafka, 'manual', p, [`${p}-a`, `${p}-b`]);
    const seen: string[] = [];
    const opts = {
      groupId: 'manual-g', assign: [{ topic: 'manual', partitions: [0, 2] }], delivery: 'at-least-once' as const,
      recordHandler: async (r: { value: Buffer | null }) => { seen.push(String(r.value)); },
    };
    const c = consumerOn(fx.cluster, opts, consumers);
    const errs: string[] = [];
    c.on('error', (e: Error) => errs.push(e.message));
    await c.start();
    await until(() => seen.length === 4 || errs.length > 0, '4 records or an error');
    expect(errs).toEqual([]);
    await until(() => seen.length === 4, '4 records');
    await c.drain();
    expect(c.state).toBe('stopped');
    expect(seen.sort()).toEqual(['0-a', '0-b', '2-a', '2-b']);
    // No member ever joined the group the offsets are committed under.
    expect(fx.cluster.events.entries({ type: 'member.joined', groupId: 'manual-g' })).toEqual([]);
    const committed = fx.cluster.groups.group('manual-g')!.offsets.map((o) => [o.partition, o.committedOffset]).sort();
    expect(committed).toEqual([[0, 2n], [2, 2n]]);

    await produce(kafka, 'manual', 0, ['0-c']);
    seen.length = 0;
    const again = consumerOn(fx.cluster, opts, consumers);
    await again.start();
    await until(() => seen.length === 1, 'the new record');
    await sleep(300);
    expect(seen).toEqual(['0-c']);
  });

  test('two manual exactly-once consumers given the same partition: the sink fences one, no duplicates', async () => {
    fx.cluster.createTopic('manual-eos', 1);
    const kafka = kafkaOf(fx.cluster);
    const setup = sqliteSink(fx.dir, 'manual_eos');
    await setup.knex.schema.createTable('manual_eos', (t) => { t.string('v'); t.integer('o'); });
    await setup.close();
    const fenced: unknown[] = [];
    const sinks = [sqliteSink(fx.dir, 'manual_eos'), sqliteSink(fx.dir, 'manual_eos')];
    const both = sinks.map((sink) => {
      const c = consumerOn(fx.cluster, {
        groupId: 'manual-eos-g', assign: [{ topic: 'manual-eos', partitions: [0] }], delivery: 'exactly-once', sink, maxWaitTimeMs: 50,
      }, consumers);
      c.on('fenced', (f) => fenced.push(f));
      return c;
    });
    for (const c of both) await c.start();
    await until(() => both.every((c) => c.assignment().length === 1), 'both to take the partition');
    for (let i = 0; i < 20; i++) await produce(kafka, 'manual-eos', 0, [`v${i}`]);
    const check = sqliteSink(fx.dir, 'manual_eos');
    await until(() => both.every((c) => (c.metrics().partitions[0]?.position ?? 0n) >= 20n), 'both to reach offset 20');
    await stopAll(consumers);
    const rows = await check.knex('manual_eos').select('o').orderBy('o');
    expect(rows.map((r: { o: number }) => r.o)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(fenced.length).toBeGreaterThan(0);
    await Promise.all([...sinks, check].map((s) => s.close()));
  });

  test('metrics: per-partition lag, processed per second, rebalances with durations', async () => {
    fx.cluster.createTopic('metrics', 2);
    const kafka = kafkaOf(fx.cluster);
    await produce(kafka, 'metrics', 0, ['a', 'b', 'c']);
    const rebalances: { durationMs: number }[] = [];
    const c = consumerOn(fx.cluster, {
      groupId: 'metrics-g', topics: ['metrics'], delivery: 'at-most-once', handler: async () => undefined,
    }, consumers);
    c.on('rebalance', (r) => rebalances.push(r));
    await c.start();
    await until(() => c.metrics().processed === 3, '3 records');
    const m = c.metrics();
    expect(m.processedPerSecond).toBeGreaterThan(0);
    expect(m.partitions.find((p) => p.partition === 0)).toMatchObject({ position: 3n, highWatermark: 3n, lag: 0n });
    expect(m.partitions.find((p) => p.partition === 1)).toMatchObject({ position: null, lag: null });
    expect(m.rebalances.count).toBe(1);
    expect(rebalances).toHaveLength(1);
    expect(rebalances[0].durationMs).toBeGreaterThanOrEqual(0);
  });
});
