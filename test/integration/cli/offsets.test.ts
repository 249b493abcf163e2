/**
 * `kafka-eos offsets describe|reset` against the mock cluster: positions in Kafka and in a SQL
 * sink's offsets table (SQLite; PostgreSQL too when KAFKA_EOS_PG_URL is set), dry run by default,
 * refusal while the group has members, and a rewind + replay into an `upsert` table that leaves
 * the table as it was. (The compiled CLI is used: `npm test` builds first.)
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Consumer } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { SqlSink } from '../../../src/sinks/sql';
import { consumerOn, kafkaOf, produce, stopAll, until, useConsumerCluster } from '../../consumer/helpers';
import { runCli } from './helpers';

jest.setTimeout(60000);

/** `kafka-eos offsets <args>`: exit code, stdout and stderr. */
async function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const { code, stdout, stderr } = await runCli(['offsets', ...args], 45000);
  return { code, out: stdout, err: stderr };
}

const fx = useConsumerCluster(
  () => MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } }), 'kafka-eos-offsets-');
const sinks: SqlSink[] = [];
afterEach(async () => { await Promise.allSettled(sinks.splice(0).map((s) => s.close())); });

const brokers = () => fx.cluster.bootstrap.join(',');
const records = (n: number, from = 0) => Array.from({ length: n }, (_, i) => JSON.stringify({ id: from + i, name: `row-${from + i}` }));

/** A KafkaJS consumer of `topic` that commits after every batch, run until `n` records arrived. */
async function consumeWithKafka(groupId: string, topic: string, n: number, keepRunning = false): Promise<Consumer> {
  const consumer = kafkaOf(fx.cluster, `kafkajs-${groupId}`).consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 200,
    maxWaitTimeInMs: 100 });
  let seen = 0;
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async () => { seen += 1; } });
  await until(() => seen >= n, `${n} records`);
  await until(() => (fx.cluster.inspect.committedOffsets(groupId, topic).reduce((s, c) => s + Number(c.offset), 0)) >= n, 'the commits');
  if (!keepRunning) await consumer.disconnect();
  return consumer;
}

const committed = (group: string, topic: string, p: number) => fx.cluster.inspect.committedOffset(group, topic, p);

test('describe shows log start, high watermark, committed offset and lag per partition, Kafka as the source of truth', async () => {
  fx.cluster.createTopic('od-t', 2);
  await produce(kafkaOf(fx.cluster), 'od-t', 0, records(10));
  await produce(kafkaOf(fx.cluster), 'od-t', 1, records(4));
  await consumeWithKafka('od-g', 'od-t', 14);
  await produce(kafkaOf(fx.cluster), 'od-t', 0, records(3, 10));
  const { code, out } = await cli(['describe', '--brokers', brokers(), '--group', 'od-g', '--json']);
  expect(code).toBe(0);
  const d = JSON.parse(out);
  expect(d.state).toBe('Empty');
  expect(d.sourceOfTruth).toBe('kafka');
  expect(d.partitions).toEqual([
    { topic: 'od-t', partition: 0, logStartOffset: '0', highWatermark: '13', committed: '10', sinkPosition: null, lag: '3' },
    { topic: 'od-t', partition: 1, logStartOffset: '0', highWatermark: '4', committed: '4', sinkPosition: null, lag: '0' },
  ]);
  const table = await cli(['describe', '--brokers', brokers(), '--group', 'od-g']);
  expect(table.out).toMatch(/source of truth: Kafka's committed offsets/);
  expect(table.out).toMatch(/od-t\s+0\s+0\s+13\s+10\s+-\s+3/);
});

test('reset is a dry run by default; --execute moves the committed offsets (earliest, shift-by, datetime, explicit, clamped)',
  async () => {
  fx.cluster.createTopic('or-t', 2);
  const before = Date.now();
  await produce(kafkaOf(fx.cluster), 'or-t', 0, records(10));
  await produce(kafkaOf(fx.cluster), 'or-t', 1, records(10));
  await consumeWithKafka('or-g', 'or-t', 20);
  const base = ['reset', '--brokers', brokers(), '--group', 'or-g'];

  const dry = await cli([...base, '--to-earliest']);
  expect(dry.code).toBe(0);
  expect(dry.out).toMatch(/dry run \(add --execute to apply\)/);
  expect(dry.out).toMatch(/or-t\s+0\s+10\s+0/);
  expect(committed('or-g', 'or-t', 0)).toBe(10);

  const shifted = await cli([...base, '--shift-by', '-4', '--execute']);
  expect(shifted.code).toBe(0);
  expect([committed('or-g', 'or-t', 0), committed('or-g', 'or-t', 1)]).toEqual([6, 6]);

  const clamped = await cli([...base, '--shift-by', '-100', '--execute', '--json']);
  expect(JSON.parse(clamped.out).entries[0]).toMatchObject({ current: '6', target: '0',
    note: expect.stringMatching(/before the log start offset; clamped/) });
  expect(committed('or-g', 'or-t', 1)).toBe(0);

  await new Promise((r) => setTimeout(r, 20));
  const mid = Date.now();
  await new Promise((r) => setTimeout(r, 20));
  await produce(kafkaOf(fx.cluster), 'or-t', 0, records(5, 10));
  const byTime = await cli([...base, '--to-datetime', new Date(mid).toISOString(), '--execute']);
  expect(byTime.code).toBe(0);
  // partition 0: the first record at or after `mid` is offset 10; partition 1 has none: the high watermark.
  expect([committed('or-g', 'or-t', 0), committed('or-g', 'or-t', 1)]).toEqual([10, 10]);
  expect(before).toBeLessThan(mid);

  const explicit = await cli([...base, '--to-offset', 'or-t:1:3', '--execute']);
  expect(explicit.code).toBe(0);
  expect([committed('or-g', 'or-t', 0), committed('or-g', 'or-t', 1)]).toEqual([10, 3]);

  const noSuch = await cli([...base, '--to-offset', 'or-t:7:3', '--execute']);
  expect(noSuch.code).toBe(1);
  expect(noSuch.err).toMatch(/\[UNKNOWN_PARTITION\] partition\(s\) or-t:7 do not exist/);
});

test('--to-datetime: a time before the epoch plans the log start, not a ListOffsets sentinel; one range for ISO and epoch ms', async () => {
  // Issue 19 item 5: -1 ms (LATEST) planned the end, -3 ms (MAX_TIMESTAMP) near the end; 99999999999999999 passed, year 275760 not.
  fx.cluster.createTopic('odt-t', 1);
  await produce(kafkaOf(fx.cluster), 'odt-t', 0, records(10));
  await consumeWithKafka('odt-g', 'odt-t', 10);
  const plan = (time: string) => cli(['reset', '--brokers', brokers(), '--group', 'odt-g', `--to-datetime=${time}`]);
  for (const before of ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.997Z', '-2', '-8640000000000000']) {
    const r = await plan(before);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/odt-t\s+0\s+10\s+0\b/);
  }
  for (const last of ['+275760-09-13T00:00:00.000Z', '8640000000000000']) {
    const r = await plan(last);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/odt-t\s+0\s+10\s+10\b/);
  }
  for (const beyond of ['+275760-09-13T00:00:00.001Z', '8640000000000001', '99999999999999999']) {
    const r = await plan(beyond);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/within 8\.64e15 ms of the epoch/);
  }
});

test('reset refuses while the group has active members, and names them', async () => {
  fx.cluster.createTopic('oa-t', 1);
  await produce(kafkaOf(fx.cluster), 'oa-t', 0, records(5));
  const consumer = await consumeWithKafka('oa-g', 'oa-t', 5, true);
  try {
    const { code, err } = await cli(['reset', '--brokers', brokers(), '--group', 'oa-g', '--to-earliest', '--execute']);
    expect(code).toBe(1);
    expect(err).toMatch(/\[GROUP_ACTIVE\] group "oa-g" is Stable with 1 active member\(s\): .*client kafkajs-oa-g/);
    expect(committed('oa-g', 'oa-t', 0)).toBe(5);
  } finally {
    await consumer.disconnect();
  }
});

test('argument errors exit 2 and name the option; a topic name Kafka would refuse (../x) is refused before any path is built', async () => {
  const none = await cli(['reset', '--brokers', brokers(), '--group', 'x']);
  expect(none.code).toBe(2);
  expect(none.err).toMatch(/\[CONFIG_INVALID\] reset: give exactly one of --to-earliest/);
  const sinkOnly = await cli(['reset', '--brokers', brokers(), '--group', 'x', '--to-latest', '--store', 'sink']);
  expect(sinkOnly.code).toBe(2);
  expect(sinkOnly.err).toMatch(/--store: "sink" needs --db/);
  // Topic names become HDFS paths with --hdfs: one Kafka would refuse never reaches them (no ../ traversal).
  for (const bad of ['../x', '..', 'a/b', 'a b']) {
    const r = await cli(['describe', '--brokers', brokers(), '--group', 'x', '--topic', bad]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`"${bad}" is not a legal Kafka topic name`);
  }
  const badOffset = await cli(['reset', '--brokers', brokers(), '--group', 'x', '--to-offset', '../x:0:5']);
  expect(badOffset.code).toBe(2);
  expect(badOffset.err).toContain('"../x" is not a legal Kafka topic name');
});

const pgUrl = process.env.KAFKA_EOS_PG_URL;
const databases: { name: string; db: () => string; knex: () => object; skip: boolean }[] = [
  { name: 'SQLite', db: () => path.join(fx.dir, 'replay.sqlite'),
    knex: () => ({ client: 'sqlite3', connection: { filename: path.join(fx.dir, 'replay.sqlite') }, useNullAsDefault: true }),
    skip: false },
  { name: 'PostgreSQL', db: () => pgUrl ?? '', knex: () => ({ client: 'pg', connection: pgUrl }), skip: !pgUrl },
];

for (const database of databases) {
  (database.skip ? describe.skip : describe)(`a sink's offsets table (${database.name})`, () => {
    const suffix = `${database.name.toLowerCase()}_${process.pid}`;
    const table = `replay_${suffix}`;
    const offsetsTable = `offsets_${suffix}`;
    const topic = `replay-${suffix}`;
    const group = `replay-g-${suffix}`;

    function sinkOf(mode: 'upsert' | 'insert', name = table): SqlSink {
      const sink = new SqlSink({
        knex: database.knex() as never, table: name, mode, offsetsTable, autoCreate: true,
        ...(mode === 'upsert' ? { upsertKey: ['id'] } : {}),
        mapping: { columns: { id: { path: 'id', type: 'integer' }, name: { path: 'name', type: 'string' } } },
      });
      sinks.push(sink);
      return sink;
    }
    const rows = async (sink: SqlSink, name = table) => sink.knex(name).select('id', 'name').orderBy('id');

    async function sinkAll(sink: SqlSink, total: number): Promise<number> {
      const c = consumerOn(fx.cluster, { groupId: group, topics: [topic], delivery: 'exactly-once', sink }, fx.consumers);
      await c.start();
      await until(() => c.metrics().processed >= total, `${total} records sunk`);
      const processed = c.metrics().processed;
      await stopAll(fx.consumers);
      return processed;
    }

    afterAll(async () => {
      if (database.name !== 'PostgreSQL') return;
      const s = sinkOf('upsert');
      for (const t of [table, `${table}_ins`, offsetsTable]) await s.knex.schema.dropTableIfExists(t);
      await s.close();
    });

    test('describe shows the sink as the source of truth; reset --execute + replay into an upsert table leaves the same table',
      async () => {
      fx.cluster.createTopic(topic, 2);
      await produce(kafkaOf(fx.cluster), topic, 0, records(30));
      await produce(kafkaOf(fx.cluster), topic, 1, records(20, 30));
      const sink = sinkOf('upsert');
      expect(await sinkAll(sink, 50)).toBe(50);
      const before = await rows(sink);
      expect(before).toHaveLength(50);

      const args = ['--brokers', brokers(), '--group', group, '--db', database.db(), '--offsets-table', offsetsTable];
      const described = await cli(['describe', ...args, '--json']);
      expect(described.code).toBe(0);
      const d = JSON.parse(described.out);
      expect(d.sourceOfTruth).toBe('sink');
      expect(d.partitions.map((p: { sinkPosition: string; lag: string }) => [p.sinkPosition, p.lag])).toEqual([['30', '0'], ['20', '0']]);
      expect((await cli(['describe', ...args])).out).toMatch(/source of truth: the sink's offsets table/);

      // "The bug": rows written wrongly. Rewind both stores to the start and replay.
      await sink.knex(table).update({ name: 'BUG' });
      const reset = await cli(['reset', ...args, '--to-earliest', '--execute']);
      expect(reset.code).toBe(0);
      expect(reset.out).toMatch(/reset Kafka's committed offsets and the sink's offsets table/);
      const after = JSON.parse((await cli(['describe', ...args, '--json'])).out);
      expect(after.partitions.map((p: { sinkPosition: string; committed: string }) => [p.sinkPosition, p.committed])).toEqual([['0',
        '0'], ['0', '0']]);

      expect(await sinkAll(sinkOf('upsert'), 50)).toBe(50); // every record was written again
      expect(await rows(sink)).toEqual(before);
    });

    test('replaying into an insert table duplicates the rows (why docs/replay.md says to clear it first)', async () => {
      const name = `${table}_ins`;
      const sink = sinkOf('insert', name);
      const args = ['--brokers', brokers(), '--group', group, '--db', database.db(), '--offsets-table', offsetsTable];
      expect((await cli(['reset', ...args, '--to-earliest', '--execute'])).code).toBe(0);
      await sinkAll(sink, 50);
      expect(await rows(sink, name)).toHaveLength(50);
      expect((await cli(['reset', ...args, '--to-earliest', '--execute', '--store', 'sink'])).code).toBe(0);
      await sinkAll(sinkOf('insert', name), 50);
      expect(await rows(sink, name)).toHaveLength(100);
    });

    test('a dry run that replays into an insert table (no key) warns of the duplicates; into an upsert table it does not', async () => {
      // Issue 19 item 13: the docs said a replay into an insert table duplicates rows; the plan did not.
      const args = (g: string) => ['reset', '--brokers', brokers(), '--group', g, '--db', database.db(), '--offsets-table', offsetsTable,
        '--to-earliest'];
      const name = `${table}_warn`;
      const g = `${group}-warn`;
      const sink = sinkOf('insert', name);
      const c = consumerOn(fx.cluster, { groupId: g, topics: [topic], delivery: 'exactly-once', sink }, fx.consumers);
      await c.start();
      await until(() => c.metrics().processed >= 50, '50 records sunk');
      await stopAll(fx.consumers);
      const insert = await cli(args(g));
      expect(insert.code).toBe(0);
      expect(insert.out).toMatch(new RegExp(`warning: table ${name} has no primary or unique key, so the sink writes it in mode insert: `
        + 'the replay inserts up to 50 record\\(s\\) from the new positions again \\(duplicates\\)'));
      expect(JSON.parse((await cli([...args(g), '--json'])).out).warnings).toHaveLength(1);
      const upsert = await cli(args(group)); // the upsert table's group (the first test)
      expect(upsert.code).toBe(0);
      expect(upsert.out).not.toMatch(/warning/);
    });

    test('reset --execute refuses a mistyped --db / --offsets-table or a group without positions, before moving Kafka', async () => {
      const kgroup = `${group}-kafka-only`;
      await consumeWithKafka(kgroup, topic, 50);
      const before = [committed(kgroup, topic, 0), committed(kgroup, topic, 1)];
      expect(before.map(Number)).toEqual([30, 20]);
      const base = ['reset', '--brokers', brokers(), '--group', kgroup, '--to-earliest', '--execute'];
      const s = sinkOf('upsert');

      const typoTable = await cli([...base, '--db', database.db(), '--offsets-table', `${offsetsTable}_typo`]);
      expect(typoTable.code).toBe(1);
      expect(typoTable.err).toMatch(/\[OFFSETS_STORE_MISSING\] --offsets-table: the table .*_typo does not exist/);
      expect(await s.knex.schema.hasTable(`${offsetsTable}_typo`)).toBe(false);

      const noPositions = await cli([...base, '--db', database.db(), '--offsets-table', offsetsTable]);
      expect(noPositions.code).toBe(1);
      expect(noPositions.err).toMatch(/\[OFFSETS_GROUP_UNKNOWN\] --group: .* holds no position of group/);
      expect(noPositions.err).not.toMatch(/kafka_eos:kafka_eos@/); // the password is not printed

      if (database.name === 'SQLite') {
        const typoDb = path.join(fx.dir, 'typo.sqlite');
        const missing = await cli([...base, '--db', typoDb, '--offsets-table', offsetsTable]);
        expect(missing.code).toBe(1);
        expect(missing.err).toMatch(/\[OFFSETS_STORE_MISSING\] --db: the SQLite file .*typo\.sqlite does not exist/);
        expect(existsSync(typoDb)).toBe(false);
        expect((await cli(['describe', '--brokers', brokers(), '--group', kgroup, '--db', typoDb])).code).toBe(1);
        expect(existsSync(typoDb)).toBe(false);
      }
      expect([committed(kgroup, topic, 0), committed(kgroup, topic, 1)]).toEqual(before); // Kafka's offsets did not move
      // --store kafka with a real offsets table still works for a group that only commits to Kafka.
      expect((await cli([...base, '--db', database.db(), '--offsets-table', offsetsTable, '--store', 'kafka'])).code).toBe(0);
      expect([committed(kgroup, topic, 0), committed(kgroup, topic, 1)].map(Number)).toEqual([0, 0]);
    });
  });
}
