/**
 * The `run` status line against hostile and awkward input: a client id carrying terminal escapes and
 * newlines (another member of the group chose it) is printed escaped on the TTY line and in the plain
 * log line; terminals 0 to 5 columns wide get a cut line that never splits a surrogate pair.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { Admin } from 'kafkajs';
import { AssignerProtocol } from 'kafkajs';
import type { GroupConsumer } from '../../../src/consumer/group-consumer';
import { StatusReporter } from '../../../src/cli/connector/status';

const HOSTILE = 'evil\x1b]0;pwned\x07\x1b[2J\nkafka-eos run: forged line\r';

/** A consumer as the reporter reads it: state, metrics and events. */
function consumerOf(counts = { processed: 10, tombstones: 0, skipped: 0, deadLettered: 0 }): GroupConsumer {
  const e = new EventEmitter() as EventEmitter & Record<string, unknown>;
  e.state = 'running';
  e.metrics = () => ({ partitions: [{ topic: 't', partition: 0, lag: 3n }], processedPerSecond: 1.5, ...counts });
  return e as unknown as GroupConsumer;
}

/** DescribeGroups answering one member with the hostile client id. */
const admin = {
  describeGroups: async () => ({ groups: [{ members: [{ memberId: 'm-1', clientId: HOSTILE,
    memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: { t: [0] }, userData: Buffer.alloc(0) }) }] }] }),
} as unknown as Admin;

function sink(columns?: number): Writable & { text: () => string; columns?: number } {
  const chunks: string[] = [];
  const w = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }) as Writable & { text: () => string; columns?: number };
  w.text = () => chunks.join('');
  if (columns !== undefined) w.columns = columns;
  return w;
}

/** Waits for the reporter's first DescribeGroups to be answered. */
async function described(r: StatusReporter): Promise<void> {
  for (let i = 0; i < 200 && !r.format().includes('m-1') && !r.format().includes('evil'); i++) await new Promise((x) => setTimeout(x, 5));
}

test('a client id carrying terminal escapes and newlines is printed escaped, on the TTY line and in the log line', async () => {
  for (const tty of [true, false]) {
    const out = sink(tty ? 200 : undefined);
    const r = new StatusReporter(consumerOf(), { tty, intervalMs: 20, out, admin, groupId: 'g' });
    r.start();
    await described(r);
    const line = r.format();
    expect(line).toContain('evil\\x1b]0;pwned\\x07\\x1b[2J\\nkafka-eos run: forged line\\r[t-0]');
    expect(line).not.toMatch(/[\x00-\x1f]/);
    for (let i = 0; i < 300 && out.text().length === 0; i++) await new Promise((x) => setTimeout(x, 10));
    await r.stop();
    const written = out.text();
    expect(written).toContain('evil\\x1b]0;pwned');
    // Only the reporter's own controls: CR + erase line on the TTY, a newline ending each log line.
    const controls = written.replace(/\r\x1b\[K/g, '').replace(/\n/g, '');
    expect(controls).not.toMatch(/[\x00-\x1f]/);
    if (!tty) expect(written.split('\n').filter(Boolean).every((l) => l.startsWith('kafka-eos run: status ['))).toBe(true);
  }
});

test.each([1, 2, 3, 5])('a %i-column terminal gets the line cut to fit, never half a surrogate pair', async (columns) => {
  const out = sink(columns);
  const c = consumerOf();
  (c as unknown as { metrics: () => unknown }).metrics = () => ({ partitions: [], processedPerSecond: 0, processed: 0, skipped: 0,
    deadLettered: 0 });
  const r = new StatusReporter(c, { tty: true, out, groupId: 'g' });
  // A line of emoji (two UTF-16 units each): any cut by units would split one.
  (r as unknown as { format: () => string }).format = () => '😀😀😀😀😀😀';
  r.start();
  for (let i = 0; i < 300 && out.text().length === 0; i++) await new Promise((x) => setTimeout(x, 10));
  await r.stop();
  const drawn = out.text().split('\r\x1b[K')[1]!.replace(/\n$/, '');
  expect(Array.from(drawn)).toHaveLength(columns - 1);
  expect(drawn).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
});

test('an idle partition (no batch fetched) shows the lag the cluster knows; `?` only where it is not knowable', async () => {
  const consumer = consumerOf();
  (consumer as unknown as { metrics: () => unknown }).metrics = () => ({ processedPerSecond: 0, processed: 0, skipped: 0, deadLettered: 0,
    partitions: [0, 1, 2, 3].map((partition) => ({ topic: 't', partition, lag: partition === 2 ? 5n : null })) });
  const idleAdmin = {
    describeGroups: async () => ({ groups: [{ members: [{ memberId: 'm-1', clientId: 'm-1', memberAssignment: Buffer.alloc(0) }] }] }),
    fetchOffsets: async () => [{ topic: 't', partitions: [{ partition: 0, offset: '10' }, { partition: 1, offset: '-1' },
      { partition: 3, offset: '-1' }] }],
    fetchTopicOffsets: async () => [{ partition: 0, offset: '12', high: '12', low: '0' },
      { partition: 1, offset: '7', high: '7', low: '3' }, { partition: 3, offset: '4', high: '4', low: '4' }],
  } as unknown as Admin;
  const r = new StatusReporter(consumer, { tty: false, intervalMs: 60000, out: sink(), admin: idleAdmin, groupId: 'g' });
  r.start();
  await described(r);
  // t-0: committed 10 of 12; t-1: nothing committed on a non-empty log; t-2: the consumer's own; t-3: an empty log.
  expect(r.format()).toContain('| lag t-0:2 t-1:? t-2:5 t-3:0 |');
  await r.stop();
});

test('stop() waits for an idle-lag query in flight, so the admin client is not used after it is disconnected', async () => {
  // Breaker: a lag query still running when run disconnected the admin client reopened a broker connection, and a failed
  // run stayed alive until the broker's connections.max.idle.ms (10 minutes).
  const consumer = consumerOf();
  (consumer as unknown as { metrics: () => unknown }).metrics = () => ({ processedPerSecond: 0, processed: 0, skipped: 0, deadLettered: 0,
    partitions: [{ topic: 't', partition: 0, lag: null }] });
  let release: () => void = () => undefined;
  let queried = false;
  let answered = false;
  const slowAdmin = {
    describeGroups: async () => ({ groups: [] }),
    fetchOffsets: async () => {
      queried = true;
      await new Promise<void>((r) => { release = r; });
      return [{ topic: 't', partitions: [{ partition: 0, offset: '1' }] }];
    },
    fetchTopicOffsets: async () => { answered = true; return [{ partition: 0, offset: '2', high: '2', low: '0' }]; },
  } as unknown as Admin;
  const r = new StatusReporter(consumer, { tty: false, intervalMs: 60000, out: sink(), admin: slowAdmin, groupId: 'g' });
  r.start();
  for (let i = 0; i < 200 && !queried; i++) await new Promise((x) => setTimeout(x, 5));
  expect(queried).toBe(true);
  let stopped = false;
  const stopping = r.stop().then(() => { stopped = true; });
  await new Promise((x) => setTimeout(x, 50));
  expect(stopped).toBe(false); // still waiting for the query in flight
  release();
  await stopping;
  expect(answered).toBe(true); // the query finished before stop() returned: nothing runs after the disconnect
});

test('the counts say what became of the records handled: written, tombstones, skipped, dead-lettered (the metrics\' figures)', () => {
  const r = new StatusReporter(consumerOf({ processed: 10, tombstones: 2, skipped: 3, deadLettered: 1 }), { tty: false, groupId: 'g' });
  expect(r.format()).toMatch(/ \| 10 total \(1\.5\/s\): 4 written, 2 tombstones, 3 skipped, 1 dead-lettered \| lag t-0:3 \|/);
  const one = new StatusReporter(consumerOf({ processed: 1, tombstones: 1, skipped: 0, deadLettered: 0 }), { tty: false, groupId: 'g' });
  expect(one.format()).toContain('1 total (1.5/s): 0 written, 1 tombstone, 0 skipped, 0 dead-lettered');
});
