/**
 * A migration from Kafka Connect: the worker and JDBC sink files of Confluent's quickstart shape, unchanged, run by
 * `kafka-eos run worker.properties jdbc-sink.properties hdfs-sink.properties` (connect-standalone's order) against the
 * mock cluster: two topics into two tables (table.name.format), record-key upserts, a tombstone deleting its row, a new
 * optional field adding a column while the connector runs, an HDFS sink beside it in the same process, each
 * connector in its own group connect-<name>, SIGTERM exiting 0. The same JDBC files run on PostgreSQL and MariaDB
 * (as connector JSON, Connect's REST shape, with --worker). The compiled CLI is used.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import type { MockCluster } from '../../../src/testing/mock-broker';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { kafkaOf, until } from '../../consumer/helpers';
import { committedFiles } from '../../sinks/hdfs/helpers';
import { describeOn, mariadbTarget, openKnex, sqliteTarget, targets, uniqueName, type Target } from '../../sinks/sql/fixtures';
import { requireBuiltCli, runCli, startCli, startCliCluster, stopCliCluster } from '../cli/helpers';

jest.setTimeout(90000);

let cluster: MockCluster;
let dir: string;
let hdfs: WebHdfsServer;
beforeAll(async () => {
  requireBuiltCli();
  ({ cluster, dir } = await startCliCluster('kafka-eos-connect-'));
  hdfs = await WebHdfsServer.start();
});
afterAll(async () => {
  await hdfs?.stop();
  await stopCliCluster(cluster, dir);
});

const write = (name: string, lines: string[]) => {
  const file = path.join(dir, name);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
};

/** A JsonConverter {schema, payload} value; `note` adds an optional field (a schema change). */
function order(id: string, product: string, qty: number, note?: string): string {
  const fields = [{ field: 'product', type: 'string', optional: false }, { field: 'qty', type: 'int32', optional: false }];
  if (note !== undefined) fields.push({ field: 'note', type: 'string', optional: true });
  return JSON.stringify({ schema: { type: 'struct', name: 'order', optional: false, fields },
    payload: { product, qty, ...(note !== undefined ? { note } : {}) } });
}
const customer = (name: string) => JSON.stringify({ schema: { type: 'struct', optional: false,
  fields: [{ field: 'name', type: 'string', optional: false }] }, payload: { name } });

async function send(kafka: Kafka, topic: string, messages: { key: string; value: string | null }[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: messages.map((m) => ({ ...m, partition: 0 })) });
  await producer.disconnect();
}

const WORKER = (bootstrap: string) => [
  '# connect-standalone.properties', `bootstrap.servers=${bootstrap}`,
  'key.converter=org.apache.kafka.connect.storage.StringConverter', 'value.converter=org.apache.kafka.connect.json.JsonConverter',
  'key.converter.schemas.enable=false', 'value.converter.schemas.enable=true', 'offset.storage.file.filename=/tmp/connect.offsets',
  'offset.flush.interval.ms=10000', 'plugin.path=/usr/share/java', 'consumer.session.timeout.ms=10000',
  'consumer.heartbeat.interval.ms=500',
];

/** The JDBC sink keys of Confluent's documentation example (upsert by record key, deletes, evolution). */
const JDBC = (name: string, url: string, topics: string[], extra: Record<string, string> = {}) => ({
  name, 'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector', 'tasks.max': '1', topics: topics.join(','),
  'connection.url': url, 'auto.create': 'true', 'auto.evolve': 'true', 'insert.mode': 'upsert', 'delete.enabled': 'true',
  'pk.mode': 'record_key', 'pk.fields': 'id', 'table.name.format': 'kafka_${topic}', ...extra,
});

const asProperties = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${k}=${v}`);

/** The JDBC URL and user of a target (what a Connect user's file says). */
function jdbcUrl(c: Knex.Config, t: Target): { url: string; extra: Record<string, string> } {
  if (t.name === 'sqlite') return { url: `jdbc:sqlite:${(c.connection as { filename: string }).filename}`, extra: {} };
  const u = new URL(c.connection as string);
  return { url: `jdbc:${t.name === 'postgres' ? 'postgresql' : 'mariadb'}://${u.hostname}:${u.port}${u.pathname}`,
    extra: { 'connection.user': decodeURIComponent(u.username), 'connection.password': decodeURIComponent(u.password) } };
}

/** Runs the JDBC scenario on `t`; `hdfsToo` adds the HDFS sink connector to the same process. */
async function migrate(t: Target, shape: 'properties' | 'rest-json', hdfsToo: boolean): Promise<void> {
  const orders = uniqueName('orders');
  const customers = uniqueName('customers');
  const hdfsTopic = uniqueName('clicks');
  for (const topic of [orders, customers, hdfsTopic]) cluster.createTopic(topic, 1);
  const kafka = kafkaOf(cluster);
  await send(kafka, orders, [{ key: 'o1', value: order('o1', 'tea', 1) }, { key: 'o2', value: order('o2', 'cup', 2) },
    { key: 'o3', value: order('o3', 'pot', 3) }]);
  await send(kafka, customers, [{ key: 'c1', value: customer('Ada') }, { key: 'c2', value: customer('Alan') }]);
  const knexConfig = t.knexConfig();
  const { url, extra } = jdbcUrl(knexConfig, t);
  const name = uniqueName('jdbc-sink');
  const jdbc = JDBC(name, url, [orders, customers], extra);
  const worker = write(`${name}-worker.properties`, WORKER(cluster.bootstrap.join(',')));
  const connector = shape === 'properties' ? write(`${name}.properties`, asProperties(jdbc))
    : write(`${name}.json`, [JSON.stringify({ name, config: { ...jdbc, name: undefined, 'tasks.max': 1 } })]);
  const args = shape === 'properties' ? ['run', worker, connector] : ['run', connector, '--worker', worker];
  if (hdfsToo) {
    args.push(write(`${name}-hdfs.properties`, [
      `name=${name}-hdfs`, 'connector.class=io.confluent.connect.hdfs.HdfsSinkConnector', 'tasks.max=1', `topics=${hdfsTopic}`,
      `hdfs.url=webhdfs://${new URL(hdfs.url).host}`, 'topics.dir=connect', 'logs.dir=logs', 'flush.size=3',
      'format.class=io.confluent.connect.hdfs.json.JsonFormat', 'value.converter=org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable=false',
    ]));
    await send(kafka, hdfsTopic, [1, 2, 3].map((i) => ({ key: `k${i}`, value: JSON.stringify({ click: i }) })));
  }
  const knex = openKnex(knexConfig);
  const run = startCli([...args, '--status-interval', '500'], 80000);
  const counted = new RegExp(`kafka-eos run \\[${name}\\]: status .* 9 total \\([\\d.]+/s\\): 8 written, 1 tombstone, 0 skipped`);
  try {
    const rows = async (table: string) => (await knex(table).select().catch(() => [] as Record<string, unknown>[]))
      .map((r) => ({ ...r, qty: r.qty === undefined ? undefined : Number(r.qty) }))
      .sort((a, b) => String(a.id).localeCompare(String(b.id)));
    await until(async () => (await rows(`kafka_${orders}`)).length === 3 && (await rows(`kafka_${customers}`)).length === 2,
      'the first rows', 40000);
    // While it runs: an update (upsert by key), a tombstone (delete), a new optional field (auto.evolve adds a column).
    await send(kafka, orders, [{ key: 'o1', value: order('o1', 'tea', 10) }, { key: 'o2', value: null },
      { key: 'o4', value: order('o4', 'jar', 4, 'gift') }]);
    await send(kafka, customers, [{ key: 'c1', value: customer('Ada L.') }]);
    const want = [
      { id: 'o1', product: 'tea', qty: 10, note: null }, { id: 'o3', product: 'pot', qty: 3, note: null },
      { id: 'o4', product: 'jar', qty: 4, note: 'gift' },
    ];
    const names = async () => (await rows(`kafka_${customers}`)).map((r) => [r.id, r.name]);
    await until(async () => JSON.stringify(await rows(`kafka_${orders}`)) === JSON.stringify(want)
      && JSON.stringify(await names()) === JSON.stringify([['c1', 'Ada L.'], ['c2', 'Alan']]), 'the updated orders and customers', 40000);
    await until(() => counted.test(run.out()), 'a status line counting the 9 records', 20000);
    // The positions live in the database, under the connector's group, Connect's name for it.
    const stored = await knex('kafka_eos_offsets').where({ group_id: `connect-${name}` }).select('topic', 'next_offset');
    expect(stored.map((r) => [r.topic, String(r.next_offset)]).sort()).toEqual([[customers, '3'], [orders, '6']].sort());
    if (hdfsToo) {
      const client = new WebHdfsClient({ url: hdfs.url });
      await until(async () => (await committedFiles(client, '/connect', hdfsTopic).catch(() => [])).length === 1, 'the HDFS file', 30000);
      expect((await committedFiles(client, '/connect', hdfsTopic)).map((f) => [f.start, f.end])).toEqual([[0n, 2n]]);
    }
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- kafka-eos run said ---\n${run.out()}`);
  } finally {
    run.child.kill('SIGTERM');
    await knex.destroy();
  }
  const code = await run.exited;
  expect({ code, out: run.out() }).toMatchObject({ code: 0 });
  expect(run.out()).toContain('info: accepted with no effect here: offset.storage.file.filename, offset.flush.interval.ms, plugin.path');
  expect(run.out()).toMatch(/warning: .*tasks\.max differs from Connect/);
  // Each connector's own truthful last line, under its label (the offsets above are where its sink holds the records).
  // The start line names the concrete tables, not the format.
  expect(run.out()).toContain(`kafka-eos run [${name}]: group connect-${name} consuming ${orders}, ${customers} into tables `
    + `kafka_${orders}, kafka_${customers} (exactly-once)`);
  // The tombstone is counted as one, not as a row written.
  expect(run.out()).toMatch(counted);
  expect(run.out()).toContain(`kafka-eos run [${name}]: stopped: tables kafka_${orders}, kafka_${customers} holds every record `
    + 'handled with its offset '
    + `(next offsets ${customers}-0 3, ${orders}-0 6); Kafka's group offsets committed there; left the group`);
  if (hdfsToo) {
    expect(run.out()).toMatch(new RegExp(`kafka-eos run \\[${name}-hdfs\\]: stopped: HDFS .* holds every record handled with its offset `
      + `\\(next offsets ${hdfsTopic}-0 3\\); Kafka's group offsets committed there; left the group`));
  }
}

describe('a Kafka Connect JDBC sink migration', () => {
  const sqlite = sqliteTarget();
  afterAll(() => sqlite.cleanup());
  test('SQLite, connect-standalone files, with an HDFS sink connector in the same process', async () => {
    await migrate(sqlite, 'properties', true);
  });
});

for (const t of [targets().find((x) => x.name === 'postgres')!, mariadbTarget()]) {
  describeOn(t)(`a Kafka Connect JDBC sink migration on ${t.name}`, () => {
    test('connector JSON in the REST shape with --worker', async () => {
      await migrate(t, 'rest-json', false);
    });
  });
}

describe('Connect files the run refuses or cannot start', () => {
  test('every refused key is named at once, with a did-you-mean, and nothing starts (exit 2)', async () => {
    const worker = write('refused-worker.properties', WORKER(cluster.bootstrap.join(',')));
    const bad = write('refused.properties', asProperties({ ...JDBC('refused', `jdbc:sqlite:${path.join(dir, 'r.db')}`, ['t']),
      'pk.mdoe': 'kafka', transforms: 'route' }));
    const { code, stdout, stderr } = await runCli(['run', worker, bad], 30000);
    expect(code).toBe(2);
    expect(stderr).toMatch(/\[CONFIG_INVALID\] connect: 2 keys refused/);
    expect(stderr).toContain('refused.properties: pk.mdoe = kafka: not a key kafka-eos knows for the JDBC sink connector '
      + '(did you mean pk.mode?)');
    expect(stderr).toContain('refused.properties: transforms = route: single message transforms (SMTs) are not supported');
    expect(stdout).not.toMatch(/consumer idle -> starting/);
    const explained = await runCli(['run', '--explain', worker, bad], 30000);
    expect(explained.code).toBe(2);
    expect(explained.stdout).toMatch(/refused {3}pk\.mdoe = kafka {2}— not a key/);
    expect(explained.stdout).toMatch(/"groupId": "connect-refused"/);
  });

  test('a value Connect\'s ConfigDef refuses (tasks.max=abc, batch.size 10^12 or -1) is named with its message (exit 2)', async () => {
    const worker = write('typed-worker.properties', WORKER(cluster.bootstrap.join(',')));
    const bad = write('typed.properties', asProperties({ ...JDBC('typed', `jdbc:sqlite:${path.join(dir, 't.db')}`, ['t']),
      'tasks.max': 'abc', 'batch.size': '1000000000000' }));
    const negative = write('negative.properties', asProperties({ ...JDBC('negative', `jdbc:sqlite:${path.join(dir, 'n.db')}`, ['t']),
      'batch.size': '-1' }));
    const { code, stderr } = await runCli(['run', worker, bad, negative], 30000);
    expect(code).toBe(2);
    expect(stderr).toMatch(/\[CONFIG_INVALID\] connect: 3 keys refused/);
    expect(stderr).toContain('typed.properties: tasks.max = abc: Invalid value abc for configuration tasks.max: Not a number of type INT');
    expect(stderr).toContain('typed.properties: batch.size = 1000000000000: Invalid value 1000000000000 for configuration batch.size: '
      + 'Not a number of type INT');
    expect(stderr).toContain('negative.properties: batch.size = -1: Invalid value -1 for configuration batch.size: '
      + 'Value must be at least 0');
  });

  test('a topic whose table name is refused (a dot, the offsets table) stops the run before it joins a group (exit 2)', async () => {
    const worker = write('tables-worker.properties', WORKER(cluster.bootstrap.join(',')));
    const dotted = uniqueName('eu.orders');
    cluster.createTopic(dotted, 1);
    const file = write('tables.properties', asProperties({ ...JDBC('tables', `jdbc:sqlite:${path.join(dir, 'tables.db')}`,
      [dotted]), 'table.name.format': '${topic}' }));
    const listed = await runCli(['run', worker, file], 30000);
    expect(listed.code).toBe(2);
    expect(listed.stderr).toMatch(new RegExp(`\\[CONFIG_INVALID\\] connect: 1 key refused[^]*tables\\.properties: table\\.name\\.format = `
      + `\\$\\{topic\\}: for topic ${dotted.replace(/\./g, '\\.')}, the table name: "${dotted.replace(/\./g, '\\.')}" contains '\\.'`));
    expect(cluster.inspect.group('connect-tables')).toBeUndefined(); // refused before the consumer joined
    const offsets = write('offsets.properties', asProperties({ ...JDBC('offsets', `jdbc:sqlite:${path.join(dir, 'o.db')}`,
      ['kafka_eos_offsets']), 'table.name.format': '${topic}' }));
    const named = await runCli(['run', worker, offsets], 30000);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('offsets.properties: table.name.format = ${topic}: for topic kafka_eos_offsets, the table name: '
      + '"kafka_eos_offsets" is the sink\'s offsets table (kafka_eos_offsets)');
    // topics.regex: the topics are known at the first assignment (within the consumer's start); the run stops there with the config
    // error's code and exit 2.
    const regex = write('regex.properties', asProperties({ ...JDBC('regex', `jdbc:sqlite:${path.join(dir, 'regex.db')}`, []),
      topics: '', 'topics.regex': dotted, 'table.name.format': '${topic}' }));
    const late = await runCli(['run', worker, regex], 40000);
    const quoted = dotted.replace(/\./g, '\\.');
    expect(late.stderr).toMatch(new RegExp(`kafka-eos: \\[CONFIG_INVALID\\] tableNameFormat \\(for topic ${quoted}\\): `
      + `"${quoted}" contains '\\.'`));
    expect(late.code).toBe(2);
  });

  test('a connector whose database cannot be used stops the process, the other connector with it (exit 2)', async () => {
    const topic = uniqueName('down');
    cluster.createTopic(topic, 1);
    const worker = write('down-worker.properties', WORKER(cluster.bootstrap.join(',')));
    const down = write('down.properties', asProperties({ ...JDBC('down', 'jdbc:postgresql://127.0.0.1:1/nothing', [topic]),
      'connection.user': 'u', 'max.retries': '0' }));
    const fine = write('fine.properties', [`name=fine`, 'connector.class=io.confluent.connect.hdfs.HdfsSinkConnector', `topics=${topic}`,
      `hdfs.url=${hdfs.url}`, 'flush.size=10', 'topics.dir=fine']);
    const { code, stderr } = await runCli(['run', worker, down, fine], 40000);
    expect(code).toBe(2);
    expect(stderr).toMatch(/\[SINK_UNAVAILABLE\] cannot use the database/);
  });
});
