/**
 * `kafka-eos run --config connector.yaml` as an operator runs it: YAML config, periodic status
 * lines (stdout not a TTY), Prometheus metrics scraped over HTTP, a bad record survived under
 * `poisonPolicy: skip`, a broker restart reported within seconds and waited out, SIGTERM → exit 0
 * with the --timeline page written;
 * config errors name the field (exit 2); --print-schema documents every field; the example
 * configs run against the mock cluster. (The compiled CLI is used: `npm test` builds first.)
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import knexFactory from 'knex';
import { parse, stringify } from 'yaml';
import { MockCluster } from '../../../src/testing/mock-broker';
import { runConfigSchema } from '../../../src/cli/connector/config';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { committedFiles } from '../../sinks/hdfs/helpers';
import { kafkaOf, produce, until } from '../../consumer/helpers';
import { CLI, runUntilThreeRecordsThenSigterm, startCli as start, startCliCluster, stopCliCluster } from './helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
jest.setTimeout(90000);

let cluster: MockCluster;
let dir: string;
beforeAll(async () => { ({ cluster, dir } = await startCliCluster('kafka-eos-connector-')); });
afterAll(() => stopCliCluster(cluster, dir));

const sample = (text: string, name: string, labels: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((x) => l.includes(x)));
  return line === undefined ? undefined : Number(line.split(' ').pop());
};

test('YAML config: status lines, metrics scraped, a bad record skipped, a broker restart reported and waited out, SIGTERM exits 0',
  async () => {
  cluster.createTopic('conn-t', 2);
  await produce(kafkaOf(cluster), 'conn-t', 0, ['{"id":1,"v":"a"}', 'not json', '{"id":2,"v":"b"}']);
  await produce(kafkaOf(cluster), 'conn-t', 1, ['{"id":3,"v":"c"}']);
  const db = path.join(dir, 'conn.sqlite');
  const file = path.join(dir, 'connector.yaml');
  writeFileSync(file, [
    `brokers: [${cluster.bootstrap.join(', ')}]`,
    'groupId: conn-g',
    'topics: [conn-t]',
    'kafka: { connectionTimeoutMs: 500, retry: { retries: 3, initialRetryTimeMs: 100, maxRetryTimeMs: 1000 } }',
    'consumer: { poisonPolicy: skip, sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100, assignors: [sticky] }',
    'sink:',
    '  type: sql',
    `  knex: { client: sqlite3, connection: { filename: ${JSON.stringify(db)} } }`,
    '  table: rows',
    '  mode: upsert',
    '  upsertKey: [id]',
    '  autoCreate: true',
    '  mapping: { columns: { id: { type: integer }, v: { type: string } } }',
  ].join('\n'));
  const timeline = path.join(dir, 'run-timeline.html');
  const run = start(['run', '--config', file, '--metrics-port', '0', '--status-interval', '300', '--timeline', timeline]);
  try {
    await until(() => /Prometheus metrics at http:\/\/127\.0\.0\.1:(\d+)\/metrics/.test(run.out()), 'the metrics address', 30000);
    const port = Number(/127\.0\.0\.1:(\d+)\/metrics/.exec(run.out())![1]);
    // The skipped record is counted as skipped, not written.
    const bothConsumed = new RegExp('status .* running \\| members kafka-eos-run\\[conn-t-0,conn-t-1\\] \\| 4 total \\([\\d.]+/s\\): '
      + '3 written, 0 tombstones, 1 skipped, 0 dead-lettered \\| lag conn-t-0:0 conn-t-1:0');
    await until(() => bothConsumed.test(run.out()), 'a status line with both partitions consumed', 30000);
    expect(run.out()).toMatch(/kafka-eos run: skipped conn-t:\d+@\d+: \S/); // the skipped record is named, with the reason
    expect(run.out()).not.toMatch(/skipped (conn-t:\d+@\d+): \1/); // once
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(sample(text, 'kafka_eos_records_processed_total', 'partition="0"')).toBe(3);
    expect(sample(text, 'kafka_eos_partition_lag', 'partition="1"')).toBe(0);
    expect(sample(text, 'kafka_eos_rebalances_total', 'group="conn-g"')).toBe(1);

    // The broker goes away: said within seconds, with since when and what is retried.
    const stoppedAt = Date.now();
    await cluster.faults.stopBroker(1);
    const outage = /cannot reach broker 127\.0\.0\.1:\d+ since \d{4}-\d\d-\d\dT[\d:.]+Z: .*the consumer keeps retrying with backoff/;
    await until(() => outage.test(run.out()), 'the outage message', 15000);
    expect(Date.now() - stoppedAt).toBeLessThan(15000);
    await new Promise((r) => setTimeout(r, 2000));
    await cluster.faults.startBroker(1);
    await produce(kafkaOf(cluster), 'conn-t', 1, ['{"id":4,"v":"d"}']);
    await until(() => /broker 127\.0\.0\.1:\d+ reachable again after \d+ s/.test(run.out()), 'the recovery message', 45000);
    await until(() => /5 total/.test(run.out()), 'the record produced after the restart', 45000);
    expect(run.child.exitCode).toBeNull();
  } finally {
    run.child.kill('SIGTERM');
  }
  expect(await run.exited).toBe(0);
  expect(run.out()).toMatch(new RegExp('kafka-eos run: stopped: rows holds every record handled with its offset '
    + '\\(next offsets conn-t-0 \\d+, conn-t-1 \\d+\\); Kafka\'s group offsets committed there; left the group'));
  // run --timeline: this consumer's own records, both partitions owned until it stopped.
  const html = readFileSync(timeline, 'utf8');
  expect(html.match(/<rect class="span" [^>]*data-partition="conn-t-[01]"/g)?.length).toBeGreaterThanOrEqual(2);
  expect(html).toMatch(/<g class="event" data-kind="leave"><title>leave at [^<]*stopped: kafka-eos-run/);
  const k = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
  expect(await k('rows').select('id', 'v').orderBy('id')).toEqual([
    { id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: 'c' }, { id: 4, v: 'd' },
  ]);
  await k.destroy();
});

test('a config error names the field and the expected value, exit 2', async () => {
  const file = path.join(dir, 'bad.yaml');
  writeFileSync(file, 'brokers: [127.0.0.1:9092]\ngroupId: g\ntopics: [t]\nconsumer: { poisonPolicy: ignore }\nsink: { type: sql }\n');
  let run = start(['run', '--config', file]);
  expect(await run.exited).toBe(2);
  expect(run.out()).toMatch(/\[CONFIG_INVALID\] consumer\.poisonPolicy: expected one of "fail", "skip", "dead-letter"/);
  writeFileSync(file, 'brokers: [127.0.0.1:9092]\ngroupId: g\ntopics: [t]\nconsumer: { sessionTimeout: 5 }\n');
  run = start(['run', file]);
  expect(await run.exited).toBe(2);
  expect(run.out()).toMatch(/\[CONFIG_INVALID\] consumer\.sessionTimeout: unknown option: did you mean sessionTimeoutMs\?/);
  writeFileSync(file, 'brokers: [127.0.0.1:9092\n');
  run = start(['run', file]);
  expect(await run.exited).toBe(2);
  expect(run.out()).toMatch(/\[CONFIG_INVALID\] .*bad\.yaml: not valid YAML/);
});

test('--print-schema documents every field of the config', async () => {
  const run = start(['run', '--print-schema']);
  expect(await run.exited).toBe(0);
  const leaves: string[] = [];
  const walk = (shape: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(shape)) {
      leaves.push(prefix + k);
      let inner = v as { def?: { innerType?: unknown; shape?: unknown; options?: unknown[] }; shape?: Record<string, unknown> };
      while (inner.def?.innerType) inner = inner.def.innerType as typeof inner;
      if (inner.shape) walk(inner.shape, `${prefix}${k}.`);
    }
  };
  walk(runConfigSchema.shape as Record<string, unknown>, '');
  expect(leaves.length).toBeGreaterThan(40);
  for (const field of leaves) {
    expect(run.out()).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}\\s+\\S.*\\s(required|optional)\\s+\\S`, 'm'));
  }
});

test('the example config examples/connector/hdfs.yaml runs against the mock cluster and the embedded WebHDFS server', async () => {
  const config = parse(readFileSync(path.join(ROOT, 'examples', 'connector', 'hdfs.yaml'), 'utf8'));
  expect(runConfigSchema.safeParse(config).success).toBe(true);
  const hdfs = await WebHdfsServer.start();
  try {
    const topic = `ex-hdfs-${process.pid}`;
    cluster.createTopic(topic, 2);
    await produce(kafkaOf(cluster), topic, 0, ['{"id":1}', '{"id":2}']);
    await produce(kafkaOf(cluster), topic, 1, ['{"id":3}']);
    Object.assign(config, { brokers: cluster.bootstrap, topics: [topic], groupId: `${config.groupId}-${process.pid}` });
    config.consumer = { ...config.consumer, sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 };
    config.sink.url = hdfs.url;
    const file = path.join(dir, 'hdfs.yaml');
    writeFileSync(file, stringify(config));
    await runUntilThreeRecordsThenSigterm(file);
    // On stop the open files are committed: every record is in a committed file.
    const files = await committedFiles(new WebHdfsClient({ url: hdfs.url }), config.sink.topicsDir, topic);
    expect(files.map((f) => [f.partition, f.start, f.end]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([[0, 0n, 1n], [1, 0n,
      0n]]);
  } finally {
    await hdfs.stop();
  }
});

const pgUrl = process.env.KAFKA_EOS_PG_URL;
const examples = [
  { file: 'sqlite.yaml', skip: false },
  { file: 'postgresql.yaml', skip: !pgUrl },
];
for (const ex of examples) {
  (ex.skip ? test.skip : test)(`the example config examples/connector/${ex.file} runs against the mock cluster`, async () => {
    const config = parse(readFileSync(path.join(ROOT, 'examples', 'connector', ex.file), 'utf8'));
    expect(runConfigSchema.safeParse(config).success).toBe(true);
    const topic = `ex-${ex.file.replace('.', '-')}-${process.pid}`;
    const table = `ex_${ex.file.replace('.yaml', '')}_${process.pid}`;
    cluster.createTopic(topic, 2);
    await produce(kafkaOf(cluster), topic, 0, ['{"id":1,"origin":"SFO","delay":3}', '{"id":2,"origin":"JFK","delay":-1}']);
    await produce(kafkaOf(cluster), topic, 1, ['{"id":3,"origin":"LAX","delay":0}']);
    config.brokers = cluster.bootstrap;
    config.topics = [topic];
    config.groupId = `${config.groupId}-${process.pid}`;
    config.sink.table = table;
    config.consumer = { ...config.consumer, sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 };
    delete config.metrics;
    if (config.sink.knex.client === 'sqlite3') config.sink.knex.connection = { filename: path.join(dir, 'example.sqlite') };
    else config.sink.knex.connection = pgUrl;
    const file = path.join(dir, ex.file);
    writeFileSync(file, stringify(config));
    await runUntilThreeRecordsThenSigterm(file);
    const k = knexFactory({ ...config.sink.knex, useNullAsDefault: true });
    try {
      expect((await k(table).select('id', 'origin', 'delay').orderBy('id')).map((r: { id: unknown; delay: unknown }) => ({ ...r,
        id: Number(r.id), delay: Number(r.delay) }))).toEqual([
        { id: 1, origin: 'SFO', delay: 3 }, { id: 2, origin: 'JFK', delay: -1 }, { id: 3, origin: 'LAX', delay: 0 },
      ]);
    } finally {
      await k.schema.dropTableIfExists(table);
      await k.destroy();
    }
  });
}

test('SIGTERM while the CLI modules are still loading exits 0 (handlers installed first), not 143', async () => {
  cluster.createTopic('early-t', 1);
  const file = path.join(dir, 'early.yaml');
  writeFileSync(file, [
    `brokers: [${cluster.bootstrap.join(', ')}]`,
    'groupId: early-g',
    'topics: [early-t]',
    'consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 }',
    'sink:',
    '  type: sql',
    `  knex: { client: sqlite3, connection: { filename: ${JSON.stringify(path.join(dir, 'early.sqlite'))} } }`,
    '  table: rows',
    '  mode: insert',
    '  autoCreate: true',
    '  mapping: { columns: { id: { type: integer } } }',
  ].join('\n'));
  // A preload that says when Node starts running JavaScript: 250 ms later index.js is still loading its modules (~1.5 s).
  const preload = path.join(dir, 'preload.js');
  writeFileSync(preload, "process.stderr.write('preloaded\\n');\n");
  const child = spawn(process.execPath, ['-r', preload, CLI, 'run', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let sent = false;
  const onData = (d: Buffer) => {
    out += d;
    if (!sent && out.includes('preloaded')) { sent = true; setTimeout(() => child.kill('SIGTERM'), 250); }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const hard = setTimeout(() => child.kill('SIGKILL'), 60000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  clearTimeout(hard);
  expect(sent).toBe(true);
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  expect(out).not.toMatch(/kafka-eos: \[/);
});
