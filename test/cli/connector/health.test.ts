/** OutageReporter: a store that refuses writes is worded as a refusal, and only a committed write ends it. */
import { KafkaEosError } from '../../../src/errors';
import { OutageReporter } from '../../../src/cli/connector/health';

function reporter(): { r: OutageReporter; lines: string[]; clock: { t: number } } {
  const lines: string[] = [];
  const clock = { t: 1_000_000 };
  const r = new OutageReporter((l) => lines.push(l), 10_000, () => clock.t);
  return { r, lines, clock };
}

test('a refused write (SINK_WRITE_REFUSED cause) says the database refused it, with the error, not that it cannot be reached', () => {
  const { r, lines, clock } = reporter();
  const refused = new KafkaEosError('SINK_UNAVAILABLE', 'sink unavailable', {
    cause: new KafkaEosError('SINK_WRITE_REFUSED', 'permission denied for table t') });
  r.sinkUnavailable('database', refused, 't-0');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/the database refused the write since .*: sink unavailable: permission denied for table t \(writing t-0\)/);
  expect(lines[0]).not.toMatch(/cannot reach/);
  expect(r.current().map((o) => o.kind)).toEqual(['refused']);
  clock.t += 3000;
  r.up('sink');
  expect(lines[1]).toBe('kafka-eos run: the database accepts writes again after 3 s (a write committed)');
});

test('an unreachable database is still worded as unreachable; broker recovery does not end a sink outage', () => {
  const { r, lines } = reporter();
  r.sinkUnavailable('database', new Error('connect ECONNREFUSED 127.0.0.1:5432'), 't-1');
  expect(lines[0]).toMatch(/cannot reach the database since .*ECONNREFUSED/);
  r.up('broker');
  expect(lines).toHaveLength(1);
  expect(r.current()).toHaveLength(1);
});

test("the SDK's own log line about an unreachable database (ECONNREFUSED) is not a broker outage; KafkaJS's is", () => {
  const { r, lines } = reporter();
  const entry = (namespace: string, message: string, error?: string) => ({ namespace, level: 4, label: 'WARN',
    log: { timestamp: '', message, ...(error ? { error } : {}) } });
  r.kafkaLog(entry('kafka-eos', 'sink unavailable for t:0, waiting: transient database errors (connect ECONNREFUSED 127.0.0.1:5432)'));
  expect(lines).toEqual([]);
  r.kafkaLog(entry('Connection', 'Connection error', 'connect ECONNREFUSED 127.0.0.1:9092'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/cannot reach the Kafka cluster since .*ECONNREFUSED 127\.0\.0\.1:9092/);
  r.up('broker');
  expect(lines[1]).toMatch(/^kafka-eos run: the Kafka cluster reachable again after \d+ s$/);
});

test('during start-up a broker outage says run gives up after its retries (exit 2), not that it waits; after it, that KafkaJS reconnects',
  () => {
  // Issue 19 item 8: the line said "reconnects ... until it answers" while run exited 2 after ~12 s.
  const { r, lines, clock } = reporter();
  const refused = { namespace: 'Connection', level: 1, label: 'ERROR',
    log: { timestamp: '', message: 'Connection error: connect ECONNREFUSED 127.0.0.1:1', broker: '127.0.0.1:1' } };
  r.startingUp(5);
  r.kafkaLog(refused);
  expect(lines[0]).toMatch(new RegExp(String.raw`cannot reach broker 127\.0\.0\.1:1 since .*; start-up retries 5 times with backoff ` +
    String.raw`\(kafka\.retry\.retries\), then exits 2 with KAFKA_UNAVAILABLE$`));
  r.up('broker');
  r.startingUp(null);
  clock.t += 1000;
  r.kafkaLog(refused);
  expect(lines.at(-1))
    .toMatch(/the consumer keeps retrying with backoff until they answer \(the group moves its partitions if its session times out\)$/);
});

test('an idle connection the broker closed (connections.max.idle.ms) is no outage; a request timed out (a frozen broker) is', () => {
  const { r, lines } = reporter();
  r.kafkaLog({ namespace: 'Runner', level: 1, label: 'ERROR',
    log: { timestamp: '', message: 'Error while fetching', error: 'Closed connection', broker: '127.0.0.1:9092' } } as never);
  expect(lines).toEqual([]);
  r.kafkaLog({ namespace: 'Connection', level: 1, label: 'ERROR',
    log: { timestamp: '', message: 'Request Fetch(key: 1, version: 11) timed out', broker: '127.0.0.1:9092' } } as never);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/cannot reach broker 127\.0\.0\.1:9092 since .*timed out/);
});
