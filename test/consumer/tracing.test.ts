/**
 * OpenTelemetry spans (consumer/tracing.ts) of a real exactly-once consumer on the mock cluster, exported to the
 * in-memory exporter of @opentelemetry/sdk-trace-base: a CONSUMER span per batch with the messaging attributes,
 * linked to the producer's spans through the records' W3C traceparent/tracestate headers, and the sink
 * transaction's span as its child. Without a registered SDK, nothing is read from the records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MockCluster } from '../../src/testing/mock-broker';
import { GroupConsumer } from '../../src/consumer/group-consumer';
import { createTracing, spanContextOf } from '../../src/consumer/tracing';
import type { CommitStrategy, StrategyBatch } from '../../src/consumer/strategies/types';
import { SqlSink } from '../../src/sinks/sql';
import { consumerOn, kafkaOf, stopAll, until } from './helpers';

jest.setTimeout(60000);

const PRODUCER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const producerSpan = (i: number) => `00f067aa0ba902b${i}`;

test('spanContextOf reads W3C traceparent and tracestate, and refuses what the spec calls invalid', () => {
  expect(spanContextOf(api, { traceparent: `00-${PRODUCER_TRACE}-00f067aa0ba902b7-01`, tracestate: 'congo=t61rcWkgMzE' })).toMatchObject({
    traceId: PRODUCER_TRACE, spanId: '00f067aa0ba902b7', traceFlags: 1, isRemote: true,
  });
  expect(spanContextOf(api, { traceparent: Buffer.from(`00-${PRODUCER_TRACE}-00f067aa0ba902b7-00`) })?.traceFlags).toBe(0);
  expect(spanContextOf(api, { traceparent: `01-${PRODUCER_TRACE}-00f067aa0ba902b7-01-future` })?.spanId).toBe('00f067aa0ba902b7');
  for (const bad of [`ff-${PRODUCER_TRACE}-00f067aa0ba902b7-01`, `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    `00-${PRODUCER_TRACE}-${'0'.repeat(16)}-01`, `00-${PRODUCER_TRACE}-00f067aa0ba902b7-01-extra`, 'garbage', undefined]) {
    expect(spanContextOf(api, { traceparent: bad })).toBeNull();
  }
});

test('no SDK registered: spans are not recording and the records are never read', async () => {
  api.trace.disable();
  const tracing = createTracing('g', api)!;
  let reads = 0;
  const headers = new Proxy({}, { get: () => { reads += 1; return undefined; } });
  const inner: CommitStrategy = {
    name: 'test',
    onAssigned: async () => null,
    handleBatch: async () => ({ kind: 'done' }),
  };
  const batch: StrategyBatch = { topic: 't', partition: 0, fetchOffset: 0n, nextOffset: 1n,
    records: [{ topic: 't', partition: 0, offset: 0n, key: null, value: null, headers, timestamp: 0n } as never] };
  await expect(tracing.strategy(inner).handleBatch({} as never, batch, async () => ({ processedUpTo: 1n, output: [], complete: true })))
    .resolves.toEqual({ kind: 'done' });
  expect(reads).toBe(0);
  expect(createTracing('g', null)).toBeNull(); // the package absent: nothing wrapped
});

describe('with an SDK registered (in-memory exporter)', () => {
  let cluster: MockCluster;
  let dir: string;
  const consumers: GroupConsumer[] = [];
  const exporter = new InMemorySpanExporter();
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(async () => {
    api.context.setGlobalContextManager(contextManager.enable());
    api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
    dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-otel-'));
  });
  afterAll(async () => {
    await stopAll(consumers);
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
    api.trace.disable();
    api.context.disable();
  });

  test('a span per batch linked to the producers\' spans, and the sink transaction its child', async () => {
    const topic = 'otel-t';
    cluster.createTopic(topic, 1);
    const producer = kafkaOf(cluster).producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 4 }, (_, i) => ({
      value: JSON.stringify({ id: i }),
      headers: i < 3 ? { traceparent: `00-${PRODUCER_TRACE}-${producerSpan(i)}-01`, tracestate: 'vendor=x' } : {},
    })) });
    await producer.disconnect();
    const sink = new SqlSink({
      knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'otel.sqlite') }, useNullAsDefault: true },
      table: 'rows', mode: 'insert', autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } },
    });
    const c = consumerOn(cluster, { groupId: 'otel-g', topics: [topic], delivery: 'exactly-once', sink }, consumers);
    let stored = 0;
    c.on('batch', (b) => { stored += b.records; });
    await c.start();
    await until(() => stored === 4, 'the 4 records');
    await c.stop();
    await sink.close();
    const spans = exporter.getFinishedSpans();
    const batchSpan = spans.find((s) => s.name === `process ${topic}` && s.attributes['messaging.batch.message_count'] === 4);
    expect(batchSpan).toBeDefined();
    expect(batchSpan!.kind).toBe(api.SpanKind.CONSUMER);
    expect(batchSpan!.attributes).toMatchObject({
      'messaging.system': 'kafka', 'messaging.operation.type': 'process', 'messaging.destination.name': topic,
      'messaging.destination.partition.id': '0', 'messaging.consumer.group.name': 'otel-g', 'messaging.kafka.offset': 0,
      'kafka_eos.next_offset': '4', 'kafka_eos.outcome': 'done',
    });
    expect(batchSpan!.links.map((l) => [l.context.traceId, l.context.spanId, l.context.traceState?.get('vendor'), l.attributes]))
      .toEqual([0, 1, 2].map((i) => [PRODUCER_TRACE, producerSpan(i), 'x', { 'messaging.kafka.offset': i }]));
    const write = spans.find((s) => s.name === 'sink write' && s.parentSpanContext?.spanId === batchSpan!.spanContext().spanId);
    expect(write).toBeDefined();
    expect(write!.spanContext().traceId).toBe(batchSpan!.spanContext().traceId);
    expect(write!.attributes).toMatchObject({
      'messaging.system': 'kafka', 'messaging.batch.message_count': 4, 'kafka_eos.sink.partitions': [`${topic}-0`],
      'kafka_eos.sink.next_offsets': ['4'], 'kafka_eos.sink.status': 'committed',
    });
    expect(write!.endTime[0] * 1e9 + write!.endTime[1]).toBeLessThanOrEqual(batchSpan!.endTime[0] * 1e9 + batchSpan!.endTime[1]);
  });
});
