/**
 * Prometheus metrics of a real exactly-once consumer on the mock cluster, scraped over HTTP:
 * per-partition lag and position, records processed, commits (Kafka and sink), a fenced write
 * (the offsets table moved under the consumer), rebalances with durations, the sink write
 * latency histogram, and errors by code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Registry } from 'prom-client';
import { MockCluster } from '../../src/testing/mock-broker';
import { GroupConsumer } from '../../src/consumer/group-consumer';
import { KafkaEosError } from '../../src/errors';
import { ConsumerPrometheusMetrics, errorCodeOf } from '../../src/metrics/prometheus';
import { serveMetrics, type MetricsServer } from '../../src/metrics/server';
import { overwriteStoredPositions } from '../../src/offsets/sql-positions';
import { SqlOffsetStore } from '../../src/sinks/sql/offset-store';
import { SqlSink } from '../../src/sinks/sql';
import { consumerOn, kafkaOf, produce, stopAll, until } from '../consumer/helpers';

jest.setTimeout(60000);

let cluster: MockCluster;
let dir: string;
const consumers: GroupConsumer[] = [];
let server: MetricsServer | undefined;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-prom-'));
});
afterAll(async () => {
  await stopAll(consumers);
  await server?.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The value of one sample line `name{labels} value` in the exposition text (labels in any order). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[4]);
  }
  return undefined;
}

const scrape = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
};

test('an exactly-once consumer, scraped over HTTP', async () => {
  cluster.createTopic('pm-t', 2);
  await produce(kafkaOf(cluster), 'pm-t', 0, Array.from({ length: 30 }, (_, i) => JSON.stringify({ id: i })));
  await produce(kafkaOf(cluster), 'pm-t', 1, Array.from({ length: 12 }, (_, i) => JSON.stringify({ id: 100 + i })));
  const knex = { client: 'sqlite3', connection: { filename: path.join(dir, 'pm.sqlite') }, useNullAsDefault: true };
  const sink = new SqlSink({ knex, table: 'pm', mode: 'upsert', upsertKey: ['id'], autoCreate: true,
    mapping: { columns: { id: { path: 'id', type: 'integer' } } } });
  const prom = new ConsumerPrometheusMetrics();
  server = await serveMetrics(prom.registry, { port: 0 });
  const c = consumerOn(cluster, { groupId: 'pm-g', topics: ['pm-t'], delivery: 'exactly-once', sink: prom.instrumentSink(sink) },
    consumers);
  prom.attach(c, 'pm-g');
  await c.start();
  await until(() => c.metrics().processed >= 42, 'all 42 records');

  let text = await scrape(server.port);
  expect(sample(text, 'kafka_eos_records_processed_total', { group: 'pm-g', topic: 'pm-t', partition: '0' })).toBe(30);
  expect(sample(text, 'kafka_eos_records_processed_total', { group: 'pm-g', topic: 'pm-t', partition: '1' })).toBe(12);
  expect(sample(text, 'kafka_eos_partition_position', { group: 'pm-g', topic: 'pm-t', partition: '0' })).toBe(30);
  expect(sample(text, 'kafka_eos_partition_lag', { group: 'pm-g', topic: 'pm-t', partition: '1' })).toBe(0);
  expect(sample(text, 'kafka_eos_assigned_partitions', { group: 'pm-g' })).toBe(2);
  expect(sample(text, 'kafka_eos_rebalances_total', { group: 'pm-g' })).toBe(1);
  expect(sample(text, 'kafka_eos_rebalance_duration_seconds_count', { group: 'pm-g' })).toBe(1);
  expect(sample(text, 'kafka_eos_rebalance_duration_seconds_sum', { group: 'pm-g' })).toBeGreaterThan(0);
  const writes = sample(text, 'kafka_eos_sink_write_duration_seconds_count', { group: 'pm-g', outcome: 'committed' }) ?? 0;
  expect(writes).toBeGreaterThanOrEqual(1);
  expect(sample(text, 'kafka_eos_sink_write_duration_seconds_bucket', { group: 'pm-g', outcome: 'committed', le: '+Inf' })).toBe(writes);
  expect(sample(text, 'kafka_eos_commits_total', { group: 'pm-g', target: 'sink' })).toBe(writes);
  await until(() => c.listenerCount('commit') > 0, 'the commit listener');

  // Move the stored position under the running consumer: its next write is fenced, counted, and
  // the consumer re-reads the position and goes on.
  const store = new SqlOffsetStore({ knex: sink.knex, autoCreate: false });
  await overwriteStoredPositions(store, 'pm-g', [{ topic: 'pm-t', partition: 0, nextOffset: 10n }]);
  await produce(kafkaOf(cluster), 'pm-t', 0, ['{"id":30}']);
  // The fenced write (offset 30) counts nothing: records count only once written. The replay covers offsets 10-30.
  await until(() => c.metrics().processed >= 42 + 21, 'the replay from offset 10 after the fence');
  // An error event carries its code into errors_total.
  c.emit('error', new KafkaEosError('COMMIT_ON_REVOKE_FAILED', 'x'));
  text = await scrape(server.port);
  expect(sample(text, 'kafka_eos_fenced_writes_total', { group: 'pm-g', topic: 'pm-t', partition: '0' })).toBe(1);
  expect(sample(text, 'kafka_eos_errors_total', { group: 'pm-g', code: 'COMMIT_ON_REVOKE_FAILED' })).toBe(1);
  expect(sample(text, 'kafka_eos_partition_position', { group: 'pm-g', topic: 'pm-t', partition: '0' })).toBe(31);
  expect(sample(text, 'kafka_eos_commits_total', { group: 'pm-g', target: 'kafka' })).toBeGreaterThanOrEqual(1);
  expect(await sink.knex('pm').count({ n: '*' })).toEqual([{ n: 43 }]);
  await stopAll(consumers);
  await sink.close();
  expect((await fetch(`http://127.0.0.1:${server.port}/nothing`)).status).toBe(404);
});

test('a registry of the caller\'s is used as given; errorCodeOf prefers code, then name', async () => {
  const registry = new Registry();
  const prom = new ConsumerPrometheusMetrics({ registry, prefix: 'app_' });
  expect(prom.registry).toBe(registry);
  expect(await registry.getSingleMetricAsString('app_records_processed_total')).toMatch(/# TYPE app_records_processed_total counter/);
  expect(errorCodeOf(new KafkaEosError('SINK_CLOSED', 'm'))).toBe('SINK_CLOSED');
  expect(errorCodeOf(new TypeError('m'))).toBe('TypeError');
  expect(errorCodeOf(new Error('m'))).toBe('UNKNOWN');
  expect(errorCodeOf('a string')).toBe('UNKNOWN');
});

test('a port in use is reported by name', async () => {
  const first = await serveMetrics(new Registry(), { port: 0 });
  await expect(serveMetrics(new Registry(), { port: first.port })).rejects.toMatchObject({ code: 'METRICS_PORT_UNAVAILABLE' });
  await first.close();
});
