/**
 * The readiness model (metrics/health.ts) over a scripted consumer: each state, its reason and since when, and the
 * probes and the gauge that read it (metrics/server.ts, metrics/prometheus.ts).
 */
import { EventEmitter } from 'node:events';
import { ConsumerHealth } from '../../src/metrics/health';
import { ConsumerPrometheusMetrics } from '../../src/metrics/prometheus';
import { serveMetrics } from '../../src/metrics/server';
import { SinkWriteError } from '../../src/sinks/errors';

class ScriptedConsumer extends EventEmitter {
  state = 'running';
  membership = 'joining';
  failure: Error | null = null;
  membershipState() { return { state: this.membership, epoch: 0, history: [] }; }
}

function scripted() {
  const c = new ScriptedConsumer();
  const clock = { t: Date.UTC(2026, 0, 1) };
  let kafka: { since: number; reason: string } | null = null;
  const h = new ConsumerHealth(c as never, { now: () => clock.t, kafkaUnreachable: () => kafka });
  return { c, h, clock, kafkaDown: (k: typeof kafka) => { kafka = k; } };
}

test('joining, ready, rebalancing: from the membership; ready only while stable', () => {
  const { c, h, clock } = scripted();
  c.state = 'starting';
  expect(h.report()).toMatchObject({ live: true, ready: false, state: 'starting' });
  c.state = 'running';
  c.emit('state', { from: 'starting', to: 'running' });
  expect(h.report()).toMatchObject({ ready: false, state: 'joining', reason: 'membership joining' });
  clock.t += 1000;
  c.membership = 'stable';
  c.emit('membership', { to: 'stable' });
  expect(h.report()).toMatchObject({ live: true, ready: true, state: 'ready' });
  clock.t += 5000;
  c.membership = 'revoking';
  c.emit('membership', { to: 'revoking' });
  expect(h.report())
    .toMatchObject({ ready: false, state: 'rebalancing', since: new Date(clock.t).toISOString(), reason: 'membership revoking' });
});

test('a blocked sink names table and column since the first refusal; a committed batch ends it; an outage is sink-unavailable', () => {
  const { c, h, clock } = scripted();
  c.membership = 'stable';
  c.emit('membership', { to: 'stable' });
  const since = clock.t;
  const refused = new SinkWriteError('SINK_WRITE_REFUSED', 'the database refused the write', {}, { retriable: true });
  c.emit('sink-unavailable', { error: refused }); // the same refusal, as the consumer reports it too
  c.emit('sink-blocked', { since, error: refused, table: 'flights', column: 'delay', refusals: 1 });
  clock.t += 3000;
  expect(h.report()).toEqual({ live: true, ready: false, state: 'sink-blocked', since: new Date(since).toISOString(),
    reason: 'table flights, column delay: the database refused the write' });
  c.emit('batch', { records: 0 }); // a refused write counts no record: still blocked
  expect(h.report().state).toBe('sink-blocked');
  c.emit('batch', { records: 5 });
  expect(h.report()).toMatchObject({ ready: true, state: 'ready' });
  c.emit('sink-unavailable', { error: new SinkWriteError('SINK_RETRIES_EXHAUSTED', 'connect ECONNREFUSED', {}, { retriable: true }) });
  expect(h.report()).toMatchObject({ ready: false, state: 'sink-unavailable', reason: 'connect ECONNREFUSED' });
  c.emit('assigned', { partitions: [] });
  expect(h.report().state).toBe('ready');
});

test('Kafka unreachable (from the caller) comes first; stopping, stopped; failed is the only state not live', () => {
  const { c, h, kafkaDown } = scripted();
  c.membership = 'stable';
  kafkaDown({ since: 5, reason: 'cannot reach broker 1' });
  expect(h.report()).toMatchObject({ live: true, ready: false, state: 'kafka-unreachable', since: new Date(5).toISOString() });
  kafkaDown(null);
  c.state = 'stopping';
  expect(h.report()).toMatchObject({ live: true, ready: false, state: 'stopping' });
  c.state = 'failed';
  c.failure = new Error('SINK_BLOCKED past the bound');
  expect(h.report()).toMatchObject({ live: false, ready: false, state: 'failed', reason: 'SINK_BLOCKED past the bound' });
  h.detach();
  expect(c.listenerCount('sink-blocked')).toBe(0);
});

test('/healthz and /readyz answer 200 or 503 with the report as JSON; the gauge shows the same state', async () => {
  const { c, h } = scripted();
  const prom = new ConsumerPrometheusMetrics();
  prom.attachHealth(h, 'g');
  const server = await serveMetrics(prom.registry, { port: 0, health: () => h.report() });
  const get = async (p: string) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${p}`);
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  };
  try {
    let ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.type).toBe('application/json');
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'not ready', state: 'joining', ready: false, live: true });
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/metrics')).body).toMatch(/kafka_eos_health_state\{group="g",state="joining"\} 1/);
    c.membership = 'stable';
    ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'ok', state: 'ready' });
    const metrics = (await get('/metrics')).body;
    expect(metrics).toMatch(/kafka_eos_health_state\{group="g",state="ready"\} 1/);
    expect(metrics).toMatch(/kafka_eos_health_state\{group="g",state="joining"\} 0/);
    c.state = 'failed';
    expect(JSON.parse((await get('/healthz')).body)).toMatchObject({ status: 'failed', state: 'failed' });
    expect((await get('/healthz')).status).toBe(503);
  } finally {
    await server.close();
  }
  const bare = await serveMetrics(prom.registry, { port: 0 });
  try {
    expect((await fetch(`http://127.0.0.1:${bare.port}/readyz`)).status).toBe(404); // no health source: no probes
  } finally {
    await bare.close();
  }
});
