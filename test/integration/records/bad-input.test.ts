/**
 * Bad typed input, each a clear typed error with nothing lost: a wrong magic byte and an unknown schema id are
 * poison records for themselves alone (skip: the others land; fail: the error names topic, partition, offset and
 * id); the registry answering 5xx or unreachable is systemic (the consumer waits, says so, and goes on when it
 * answers, skipping nothing); a record whose schema has a field the table lacks is named with the column.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { SchemaRegistryServer } from '../../../src/testing/schema-registry/server';
import { createGroupConsumer, type GroupConsumer } from '../../../src/consumer/group-consumer';
import { createConverter } from '../../../src/consumer/converters/converter';
import { SchemaRegistryClient } from '../../../src/consumer/converters/registry-client';
import { PoisonMessageError } from '../../../src/consumer/errors';
import { SqlSink } from '../../../src/sinks/sql';
import { FAST, until } from '../../consumer/helpers';

jest.setTimeout(60000);

const SCHEMA = JSON.stringify({ type: 'record', name: 'Reading', namespace: 'iot', fields: [
  { name: 'sensor', type: 'string' }, { name: 'celsius', type: 'double' }] });

let cluster: MockCluster;
let dir: string;
let n = 0;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-bad-'));
});
afterAll(async () => { await cluster.stop(); rmSync(dir, { recursive: true, force: true }); });

async function produce(topic: string, values: (Buffer | null)[]): Promise<void> {
  const p = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }).producer();
  await p.connect();
  await p.send({ topic, messages: values.map((value, i) => ({ key: `k${i}`, value })) });
  await p.disconnect();
}

function setup(): { topic: string; table: string; knex: Knex } {
  n += 1;
  const topic = `bad-${n}`;
  cluster.createTopic(topic, 1);
  return { topic, table: `t${n}`,
    knex: knexFactory({ client: 'sqlite3', connection: { filename: path.join(dir, `${n}.db`) }, useNullAsDefault: true }) };
}

function consumer(o: { topic: string; table: string; knex: Knex; url: string; poisonPolicy: 'skip' | 'fail' }): GroupConsumer {
  return createGroupConsumer({
    brokers: cluster.bootstrap, groupId: `g-${o.table}`, topics: [o.topic], delivery: 'exactly-once', ...FAST, poisonPolicy: o.poisonPolicy,
    sink: new SqlSink({ knex: o.knex, table: o.table, mode: 'insert', autoCreate: true, mapping: { fromSchema: true } }),
    valueConverter: { type: 'avro' }, schemaRegistry: { url: o.url, requestTimeoutMs: 2000 },
  });
}

const rows = async (knex: Knex, table: string) =>
  (await knex.schema.hasTable(table)) ? (await knex(table).select('sensor').orderBy('kafka_offset')).map((r) => r.sensor as string) : [];

test('a wrong magic byte and an unknown schema id: poison records alone (skip: the others land; fail: named with offset and id)',
  async () => {
  const registry = await SchemaRegistryServer.start();
  const t = setup();
  const avro = createConverter({ type: 'avro' }, new SchemaRegistryClient({ url: registry.url }));
  const good = (s: string) => avro.serialize(t.topic, { sensor: s, celsius: 1.5 }, { schema: SCHEMA });
  const unknownId = Buffer.concat([Buffer.from([0, 0, 0, 0x03, 0xe7]), Buffer.from('junk')]); // id 999
  await produce(t.topic, [await good('a'), Buffer.from('plain text'), await good('b'), unknownId, await good('c')]);
  const c = consumer({ ...t, url: registry.url, poisonPolicy: 'skip' });
  const skipped: { offset: bigint; error: unknown }[] = [];
  c.on('skipped', (s) => skipped.push(s));
  try {
    await c.start();
    await until(() => skipped.length === 2, 'two records skipped');
    await until(async () => (await rows(t.knex, t.table)).length >= 3, 'three rows', 20000);
    expect(await rows(t.knex, t.table)).toEqual(['a', 'b', 'c']);
    expect(skipped.map((s) => s.offset)).toEqual([1n, 3n]);
    expect((skipped[0]!.error as Error).message).toMatch(new RegExp(`^${t.topic}:0@1 value: .*magic byte 112`));
    expect(skipped[1]!.error).toMatchObject({ code: 'SCHEMA_NOT_FOUND', schemaId: 999, offset: 3n, partition: 0, topic: t.topic });
    expect((skipped[1]!.error as Error).message).toMatch(new RegExp(`^${t.topic}:0@3 value \\(schema id 999\\): .*schema id 999`));
  } finally {
    await c.stop();
  }
  // Policy fail: the consumer stops at the first bad record, naming it; nothing of its batch is written.
  const t2 = setup();
  await produce(t2.topic, [await good('x'), unknownId]);
  const f = consumer({ ...t2, url: registry.url, poisonPolicy: 'fail' });
  const failed = new Promise<Error>((resolve) => f.on('error', resolve));
  try {
    await f.start();
    const e = await failed;
    expect(e).toBeInstanceOf(PoisonMessageError);
    expect(e.message).toContain(`${t2.topic}:0@1 value (schema id 999)`);
    expect(await rows(t2.knex, t2.table)).toEqual([]);
  } finally {
    await f.stop();
    await Promise.all([t.knex.destroy(), t2.knex.destroy(), registry.stop()]);
  }
});

test('the registry answering 503, then unreachable: the consumer waits and says so, then every record lands, none skipped', async () => {
  const first = await SchemaRegistryServer.start();
  const t = setup();
  const avro = createConverter({ type: 'avro' }, new SchemaRegistryClient({ url: first.url }));
  await produce(t.topic,
    await Promise.all(['a', 'b', 'c'].map((s) => avro.serialize(t.topic, { sensor: s, celsius: 2 }, { schema: SCHEMA }))));
  // A second topic's consumer points at a port nobody listens on yet.
  const port = await new Promise<number>((resolve) => { const s = createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); }); });
  const t2 = setup();
  await produce(t2.topic, [await avro.serialize(t2.topic, { sensor: 'z', celsius: 3 }, { schema: SCHEMA })]);
  first.inject({ status: 503, times: 3 });
  const a = consumer({ ...t, url: first.url, poisonPolicy: 'skip' });
  const b = consumer({ ...t2, url: `http://127.0.0.1:${port}`, poisonPolicy: 'skip' });
  const waits: Error[] = [];
  const skipped: unknown[] = [];
  for (const c of [a, b]) { c.on('schema-registry-unavailable', (w) => waits.push(w.error)); c.on('skipped', (s) => skipped.push(s)); }
  let second: SchemaRegistryServer | undefined;
  try {
    await Promise.all([a.start(), b.start()]);
    await until(async () => (await rows(t.knex, t.table)).length >= 3, 'three rows', 20000);
    expect(await rows(t.knex, t.table)).toEqual(['a', 'b', 'c']);
    expect(waits.filter((e) => /HTTP 503/.test(e.message)).length).toBeGreaterThanOrEqual(1);
    await until(() => waits.some((e) => /cannot be reached/.test(e.message)), 'the unreachable registry reported');
    expect(waits.every((e) => (e as { code?: string }).code === 'SCHEMA_REGISTRY_UNAVAILABLE')).toBe(true);
    // The registry comes up (a new instance on that port, the same schema registered: the same id).
    second = await SchemaRegistryServer.start({ port });
    second.store.register(`${t2.topic}-value`, { schema: SCHEMA });
    await until(async () => (await rows(t2.knex, t2.table)).length >= 1, 'the row', 20000);
    expect(await rows(t2.knex, t2.table)).toEqual(['z']);
    expect(skipped).toEqual([]);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await Promise.all([t.knex.destroy(), t2.knex.destroy(), first.stop(), second?.stop()]);
  }
});

test('a schema field the table has no column for: SINK_MAPPING_FAILED names the column and the field (policy fail)', async () => {
  const registry = await SchemaRegistryServer.start();
  const t = setup();
  await t.knex.schema.createTable(t.table, (tb) => {
    tb.text('kafka_topic'); tb.integer('kafka_partition'); tb.bigInteger('kafka_offset'); tb.text('sensor');
  });
  const avro = createConverter({ type: 'avro' }, new SchemaRegistryClient({ url: registry.url }));
  await produce(t.topic, [await avro.serialize(t.topic, { sensor: 's', celsius: 4 }, { schema: SCHEMA })]);
  const c = createGroupConsumer({
    brokers: cluster.bootstrap, groupId: `g-${t.table}`, topics: [t.topic], delivery: 'exactly-once', ...FAST,
    sink: new SqlSink({ knex: t.knex, table: t.table, mode: 'insert', mapping: { fromSchema: true } }),
    valueConverter: { type: 'avro' }, schemaRegistry: { url: registry.url },
  });
  const failed = new Promise<Error>((resolve) => c.on('error', resolve));
  try {
    await c.start();
    const e = await failed;
    expect(e).toMatchObject({ code: 'POISON_MESSAGE' });
    expect((e.cause as { code?: string; column?: string })).toMatchObject({ code: 'SINK_MAPPING_FAILED', column: 'celsius' });
    expect(e.message).toContain(`table ${t.table} has no column celsius for schema field value.celsius (schema id 1)`);
  } finally {
    await c.stop();
    await Promise.all([t.knex.destroy(), registry.stop()]);
  }
});
