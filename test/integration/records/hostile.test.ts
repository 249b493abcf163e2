/**
 * Hostile and odd typed input through the SDK consumer, exactly once into SQLite (one scenario): a compacted topic
 * with string keys and Avro values, tombstones, truncated frames, an id of another schema type, a binary header mapped
 * to a column, a timestamp no date can hold, longs near -2^53 and decimals of large scale. Each bad record is a dead
 * letter carrying its own bytes, every good one a row with exact values, the positions cover every offset. And the
 * registry refusing the consumer (401) is not any record's fault: the consumer fails, nothing skipped or committed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { SchemaRegistryServer } from '../../../src/testing/schema-registry/server';
import { createGroupConsumer, type GroupConsumer } from '../../../src/consumer/group-consumer';
import { compileAvro } from '../../../src/consumer/converters/avro';
import { createConverter } from '../../../src/consumer/converters/converter';
import { frame } from '../../../src/consumer/converters/wire-format';
import { SchemaRegistryClient } from '../../../src/consumer/converters/registry-client';
import { SqlSink } from '../../../src/sinks/sql';
import { FAST, until } from '../../consumer/helpers';

jest.setTimeout(90000);

const SCHEMA = JSON.stringify({ type: 'record', name: 'Reading', namespace: 'iot', fields: [
  { name: 'n', type: 'long' }, { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 60, scale: 30 } },
  { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } }] });
const PLAIN = JSON.stringify({ type: 'record', name: 'Reading', namespace: 'iot', fields: [
  { name: 'n', type: 'long' }, { name: 'amount', type: 'bytes' }, { name: 'at', type: 'long' }] });

let cluster: MockCluster;
let registry: SchemaRegistryServer;
let dir: string;
let knex: Knex;
const consumers: GroupConsumer[] = [];
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  registry = await SchemaRegistryServer.start();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-hostile-'));
  knex = knexFactory({ client: 'sqlite3', connection: { filename: path.join(dir, 'db.sqlite') }, useNullAsDefault: true });
});
afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  await knex.destroy();
  await registry.stop();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

const kafka = () => new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
type Message = { key: string; value: Buffer | null; headers?: Record<string, Buffer> };
async function produce(topic: string, messages: Message[]): Promise<void> {
  const p = kafka().producer();
  await p.connect();
  await p.send({ topic, messages });
  await p.disconnect();
}

function consumer(topic: string, url: string, policy: 'dead-letter' | 'skip', table: string): GroupConsumer {
  const c = createGroupConsumer({
    brokers: cluster.bootstrap, groupId: `g-${topic}`, topics: [topic], delivery: 'exactly-once', ...FAST, poisonPolicy: policy,
    ...(policy === 'dead-letter' ? { deadLetterTopic: `${topic}.dlq` } : {}),
    sink: new SqlSink({ knex, table, mode: 'insert', autoCreate: true,
      mapping: { fromSchema: { keyColumn: 'k', headers: { trace: 'trace' } } } }),
    keyConverter: { type: 'string' }, valueConverter: { type: 'avro' }, schemaRegistry: { url, requestTimeoutMs: 2000 },
  });
  consumers.push(c);
  return c;
}

test('a compacted topic of odd records: bad ones dead-lettered with their own bytes, good ones exact, every offset covered', async () => {
  const topic = 'hostile';
  cluster.createTopic(topic, 1, 1, { 'cleanup.policy': 'compact' });
  const client = new SchemaRegistryClient({ url: registry.url });
  const avro = createConverter({ type: 'avro' }, client);
  const good = (n: bigint | number, amount: string) =>
    avro.serialize(topic, { n, amount, at: new Date(1700000000000) }, { schema: SCHEMA });
  const protoBytes = await createConverter({ type: 'protobuf' }, client)
    .serialize('other', { a: 1 }, { schema: 'syntax = "proto3"; message P { int32 a = 1; }' });
  const ok1 = await good(-(2n ** 53n) + 1n, `-0.${'0'.repeat(29)}1`);
  // The registered schema's id over bytes a writer without the logical type made: a timestamp-millis of 9e15 ms.
  const farTimestamp = frame(ok1.readInt32BE(1), compileAvro(PLAIN).encode({ n: 1, amount: Buffer.alloc(1), at: 9e15 }));
  const messages: Message[] = [
    { key: 'a', value: ok1, headers: { trace: Buffer.from('t-a') } },                 // 0 good, a long avsc alone would read as positive
    { key: 'b', value: ok1.subarray(0, ok1.length - 3) },                             // 1 truncated after the header
    { key: 'c', value: protoBytes },                                                  // 2 an id of a Protobuf schema
    { key: 'd', value: await good(5, '1.5'), headers: { trace: Buffer.from([0xff, 0xfe]) } }, // 3 a header that is not text
    { key: 'e', value: farTimestamp },                                                // 4 a timestamp no date holds
    { key: 'a', value: null },                                                        // 5 a tombstone
    { key: 'f', value: Buffer.from([0]) },                                            // 6 the magic byte and nothing else
    { key: 'g', value: await good(2n ** 62n, `123456789012345678901234567890.${'9'.repeat(30)}`) }, // 7 good
  ];
  await produce(topic, messages);
  const c = consumer(topic, registry.url, 'dead-letter', 't_hostile');
  const dead: bigint[] = [];
  const errors: unknown[] = [];
  c.on('dead-letter', (d) => dead.push(d.offset));
  c.on('error', (e) => errors.push(e));
  await c.start();
  const stored = async () => (await (c as unknown as { strategy: { positions(): Map<string, bigint> } }).strategy.positions())
    .get(`${topic}:0`);
  c.on('skipped', (x) => errors.push(x));
  await until(() => dead.length === 5 || errors.length > 0, 'the dead letters');
  const end = Date.now() + 20000;
  while ((await stored()) !== 8n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(errors).toEqual([]);
  expect(await stored()).toBe(8n);
  expect(dead.sort()).toEqual([1n, 2n, 3n, 4n, 6n]);
  const rows = await knex('t_hostile').select('k', 'n', 'amount', 'trace', 'kafka_offset').orderBy('kafka_offset');
  expect(rows).toEqual([
    { k: 'a', n: -9007199254740991, amount: `-0.${'0'.repeat(29)}1`, trace: 't-a', kafka_offset: 0 },
    { k: 'g', n: 4611686018427387904, amount: `123456789012345678901234567890.${'9'.repeat(30)}`, trace: null, kafka_offset: 7 }]);
  expect(String((await knex.raw('select cast(n as text) n from t_hostile where kafka_offset = 7'))[0].n)).toBe('4611686018427387904');
  // The dead letters carry the records' own bytes.
  const dlq: Buffer[] = [];
  const reader = kafka().consumer({ groupId: 'dlq-reader' });
  await reader.connect();
  await reader.subscribe({ topic: `${topic}.dlq`, fromBeginning: true });
  await reader.run({ eachMessage: async ({ message }) => { dlq.push(message.value!); } });
  await until(() => dlq.length === 5, 'the dead-letter topic read');
  await reader.disconnect();
  // (the conversion's poison records are policed before the batch reaches the sink, the header's after)
  expect(dlq).toHaveLength(5);
  expect(dlq).toEqual(expect.arrayContaining([1, 2, 3, 4, 6].map((i) => messages[i]!.value)));
});

test('the registry refusing the consumer (401) fails it with the code; nothing written, skipped or committed; then all goes in',
  async () => {
  const topic = 'refused';
  cluster.createTopic(topic, 1);
  const avro = createConverter({ type: 'avro' }, new SchemaRegistryClient({ url: registry.url }));
  await produce(topic, [{ key: 'x', value: await avro.serialize(topic, { n: 1, amount: '1', at: new Date(0) }, { schema: SCHEMA }) },
    { key: 'y', value: Buffer.from('not avro') }]);
  registry.inject({ status: 401, times: 1, pathContains: '/schemas/ids/' });
  const c = consumer(topic, registry.url, 'skip', 't_refused');
  const skipped: unknown[] = [];
  c.on('skipped', (s) => skipped.push(s));
  const failed = new Promise<Error>((resolve) => c.on('error', resolve));
  await c.start();
  const e = await failed;
  expect(e).toMatchObject({ code: 'SCHEMA_REGISTRY_REQUEST_FAILED',
    message: expect.stringMatching(/^refused:0@0 value \(schema id \d+\): .*HTTP 401/) });
  await c.stop();
  expect(skipped).toEqual([]);
  expect(await knex.schema.hasTable('t_refused')).toBe(false);
  // The registry answers again: a new consumer writes the good record and skips the bad one.
  const again = consumer(topic, registry.url, 'skip', 't_refused');
  again.on('skipped', (x) => skipped.push(x));
  await again.start();
  await until(() => skipped.length === 1, 'the bad record skipped');
  const rows = async () => (await knex.schema.hasTable('t_refused') ? (await knex('t_refused').select('k')).map((r) => r.k as string) : []);
  const end = Date.now() + 20000;
  while ((await rows()).length < 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(await rows()).toEqual(['x']);
});
