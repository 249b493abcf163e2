/**
 * Records compressed by other producers reach the SDK's consumer: kcat and confluent-kafka Python
 * (librdkafka 2.0.2), kafka-python 2.0.2, and, where the interop clients are installed,
 * @confluentinc/kafka-javascript (librdkafka 2.15) and @platformatic/kafka, each with every codec it
 * offers. Each combination is checked twice: the mock stored batches with that codec's id (so the
 * producer really compressed), and the SDK's consumer read every key, value and header back.
 *
 * Then the failures: a batch with a codec id Kafka does not define, and a corrupt lz4 batch, stop the
 * consumer with a typed error naming the partition (not a generic Kafka failure), on a one-broker
 * cluster where the consumer fetches two partitions in one request, so the partition must be found.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory from 'knex';
import { MockCluster } from '../../../src/testing/mock-broker';
import { Compression, encodeBatch } from '../../../src/protocol/record-batch';
import { nativeZstdCompress } from '../../../src/protocol/compression';
import { crc32c } from '../../../src/protocol/crc32c';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import type { SinkRecord } from '../../../src/records';
import { FAST, until } from '../../consumer/helpers';
import { run } from '../interop/helpers';
import { interopClientsDir } from '../interop/clients';
import { RpcWorker } from '../interop/rpc';
import { expectDemoPassed, requireBuiltCli, runCli, startCli } from '../cli/helpers';

jest.setTimeout(300000);

const CODECS = [['gzip', Compression.Gzip], ['snappy', Compression.Snappy], ['lz4', Compression.Lz4], ['zstd', Compression.Zstd]] as const;
type CodecName = (typeof CODECS)[number][0];
const PY = '/usr/bin/python3';
const COUNT = 40;

/** The records every producer writes: keyed, with a header, values long enough to compress. */
const recordsOf = (producer: string, codec: string) => Array.from({ length: COUNT }, (_, i) => ({
  key: `k${i}`, value: `${producer}-${codec}-${i}-${'v'.repeat(20 + (i % 7))}`, header: `h${i}`,
}));

let cluster: MockCluster;
let bootstrap: string;

/** Each producer: the codecs it offers and how it writes `records` to partition 0 of `topic`. */
interface ProducerUnderTest {
  name: string;
  codecs: readonly CodecName[];
  produce(topic: string, codec: CodecName, records: ReturnType<typeof recordsOf>): Promise<void>;
}

const KAFKA_PYTHON = `
import json, sys
from kafka import KafkaProducer
bootstrap, topic, codec = sys.argv[1], sys.argv[2], sys.argv[3]
p = KafkaProducer(bootstrap_servers=bootstrap.split(','), compression_type=codec, linger_ms=50, api_version=(2, 3, 0))
for r in json.load(sys.stdin):
    p.send(topic, partition=0, key=r['key'].encode(), value=r['value'].encode(), headers=[('h', r['header'].encode())])
p.flush()
p.close()
`;

const CONFLUENT_PYTHON = `
import json, sys
from confluent_kafka import Producer
bootstrap, topic, codec = sys.argv[1], sys.argv[2], sys.argv[3]
p = Producer({'bootstrap.servers': bootstrap, 'compression.type': codec, 'linger.ms': 50, 'broker.address.family': 'v4'})
for r in json.load(sys.stdin):
    p.produce(topic, partition=0, key=r['key'], value=r['value'], headers=[('h', r['header'])])
if p.flush(30) != 0:
    sys.exit('records left undelivered')
`;

async function mustRun(cmd: string, args: string[], input: string): Promise<void> {
  const res = await run(cmd, args, { input, timeoutMs: 90000 });
  if (res.code !== 0) throw new Error(`${cmd} exited ${res.code}: ${res.stderr.slice(-2000)}`);
}

const pythonProducer = (name: string, script: string): ProducerUnderTest => ({
  name,
  codecs: ['gzip', 'snappy', 'lz4', 'zstd'],
  produce: (topic, codec, records) => mustRun(PY, ['-c', script, bootstrap, topic, codec], JSON.stringify(records)),
});

const kcat: ProducerUnderTest = {
  name: 'kcat',
  codecs: ['gzip', 'snappy', 'lz4', 'zstd'],
  // kcat sets one header for a whole run: one run per record would make one batch per record, so the header is the codec here.
  produce: (topic, codec, records) => mustRun('kcat', [
    '-b', bootstrap, '-X', 'broker.address.family=v4', '-P', '-t', topic, '-p', '0', '-K', '\t', '-z', codec, '-X', 'linger.ms=50',
    '-H', `h=${codec}`,
  ], `${records.map((r) => `${r.key}\t${r.value}`).join('\n')}\n`),
};

const clientsDir = interopClientsDir();
const workers: RpcWorker[] = [];

function rpcProducer(name: string, fixture: string, op: string, codecs: readonly CodecName[],
  extra: (codec: CodecName) => object): ProducerUnderTest {
  let worker: RpcWorker | null = null;
  return {
    name,
    codecs,
    async produce(topic, codec, records) {
      if (!worker) {
        worker = new RpcWorker(fixture, clientsDir!);
        workers.push(worker);
        await worker.call('connect', { bootstrap: cluster.bootstrap });
      }
      await worker.call(op, {
        topic, ...extra(codec),
        records: records.map((r) => ({ partition: 0, key: r.key, value: r.value, headers: { h: r.header } })),
      });
    },
  };
}

const producers: ProducerUnderTest[] = [
  kcat,
  pythonProducer('confluent-kafka-python', CONFLUENT_PYTHON),
  pythonProducer('kafka-python', KAFKA_PYTHON),
  ...(clientsDir ? [
    rpcProducer('confluent-kafka-javascript', 'confluent-rpc-worker.js', 'nativeProduce', ['gzip', 'snappy', 'lz4', 'zstd'],
      (codec) => ({ extra: { 'compression.codec': codec } })),
    // @platformatic/kafka compresses zstd with node:zlib (Node.js 22.15+), and refuses it on older Node.js, as we do.
    rpcProducer('platformatic-kafka', 'platformatic-rpc-worker.js', 'produce', nativeZstdCompress ? ['gzip', 'snappy', 'lz4', 'zstd']
      : ['gzip', 'snappy', 'lz4'], (codec) => ({ compression: codec })),
  ] : []),
];

const cases = producers.flatMap((p) => p.codecs.map((codec) => ({ producer: p, codec, topic: `codec-${p.name}-${codec}` })));
const consumed = new Map<string, SinkRecord[]>();
let consumer: GroupConsumer | null = null;

beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0 } });
  bootstrap = cluster.bootstrap.join(',');
  for (const c of cases) {
    cluster.createTopic(c.topic, 1);
    await c.producer.produce(c.topic, c.codec, recordsOf(c.producer.name, c.codec));
  }
  consumer = new GroupConsumer({
    brokers: cluster.bootstrap, ...FAST, groupId: 'codecs', topics: cases.map((c) => c.topic), delivery: 'at-least-once',
    fromBeginning: true,
    recordHandler: async (record) => {
      const list = consumed.get(record.topic) ?? [];
      list.push(record);
      consumed.set(record.topic, list);
    },
  });
  const c = consumer;
  c.on('error', () => undefined); // a failure ends the wait below and is reported there
  await c.start();
  const all = () => cases.every((x) => (consumed.get(x.topic)?.length ?? 0) >= COUNT);
  await until(() => all() || c.state === 'failed', 'every record of every producer', 120000);
  if (!all()) throw new Error(`the consumer failed: ${c.failure?.message}`);
});

afterAll(async () => {
  await consumer?.stop();
  for (const w of workers) await w.close();
  await cluster?.stop();
});

test('the interop clients are part of this run where installed (skips are reported, never silent)', () => {
  expect(producers.length).toBe(clientsDir ? 5 : 3);
});

describe.each(cases.map((c) => [c.producer.name, c.codec, c] as const))('%s -z %s', (_name, codec, c) => {
  test('the producer compressed with the codec, and the SDK consumer read every key, value and header', () => {
    const id = CODECS.find(([n]) => n === codec)![1];
    const batches = cluster.inspect.batches(c.topic, 0);
    expect(batches.length).toBeGreaterThan(0);
    // librdkafka sends a batch uncompressed when compressing would not make it smaller (a batch of one short
    // record, when linger.ms ends early under load): at least one batch has the codec, and none another one.
    const codecs = batches.map((b) => b.bytes.readInt16BE(21) & 7);
    expect(codecs).toContain(id);
    expect(codecs.filter((x) => x !== id && x !== Compression.None)).toEqual([]);
    const expected = recordsOf(c.producer.name, codec);
    const got = consumed.get(c.topic)!;
    expect(got.map((r) => r.value!.toString())).toEqual(expected.map((r) => r.value));
    expect(got.map((r) => r.key!.toString())).toEqual(expected.map((r) => r.key));
    const header = (r: SinkRecord) => String(r.headers?.h);
    expect(got.map(header)).toEqual(c.producer === kcat ? expected.map(() => codec) : expected.map((r) => r.header));
    expect(got.map((r) => r.offset)).toEqual(expected.map((_r, i) => BigInt(i)));
  });
});

describe('batches no consumer can read', () => {
  let single: MockCluster;
  beforeAll(async () => { single = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0 } }); });
  afterAll(async () => { await single.stop(); });

  /** Partition 0 holds a readable batch; partition 1 a batch `tamper` made unreadable. Resolves with the consumer's failure. */
  async function failureOn(topic: string, tamper: (bytes: Buffer) => Buffer): Promise<Error & Record<string, unknown>> {
    single.createTopic(topic, 2);
    single.appendBatches(topic, 0, encodeBatch({ compression: Compression.Lz4, records: [{ value: 'fine' }, { value: 'also fine' }] }));
    const bad = tamper(encodeBatch({ compression: Compression.Lz4, records: [{ value: 'x'.repeat(300) }] }));
    single.appendBatches(topic, 1, bad, { corrupt: true });
    const errors: Error[] = [];
    const seen: string[] = [];
    const c = new GroupConsumer({
      brokers: single.bootstrap, ...FAST, groupId: `g-${topic}`, topics: [topic], delivery: 'at-least-once', fromBeginning: true,
      recordHandler: async (r) => { seen.push(r.value!.toString()); },
    });
    c.on('error', (e) => errors.push(e));
    try {
      await c.start();
      await until(() => c.state === 'failed', 'the consumer to fail', 60000);
    } finally {
      await c.stop();
    }
    expect(errors.length).toBeGreaterThan(0);
    return errors[errors.length - 1] as Error & Record<string, unknown>;
  }

  test('a codec id Kafka does not define (5) fails with UNSUPPORTED_COMPRESSION naming the partition', async () => {
    const err = await failureOn('codec-five', (bytes) => {
      bytes.writeInt16BE((bytes.readInt16BE(21) & ~7) | 5, 21);
      // A valid CRC over the changed attributes: the batch is well formed, only its codec is unknown.
      bytes.writeUInt32BE(crc32c(bytes, 21), 17);
      return bytes;
    });
    expect(err.code).toBe('UNSUPPORTED_COMPRESSION');
    expect(err.location).toEqual({ topic: 'codec-five', partition: 1, fetchOffset: '0' });
    expect(err.message).toContain('codec-five:1');
  });

  test('a batch whose CRC-32C does not match fails with RECORD_BATCH_CORRUPT before it is read (check.crcs)', async () => {
    const err = await failureOn('codec-crc', (bytes) => {
      bytes[bytes.length - 1] ^= 0xff; // a flipped bit in the compressed data: the CRC no longer matches
      return bytes;
    });
    expect(err.code).toBe('RECORD_BATCH_CORRUPT');
    expect(err.message).toMatch(/CRC mismatch: stored \d+, computed \d+ \(check\.crcs\)/);
    expect(err.location).toEqual({ topic: 'codec-crc', partition: 1, fetchOffset: '0' });
  });

  test('a corrupt lz4 batch fails with RECORD_BATCH_CORRUPT naming the partition, never as a poison record', async () => {
    const err = await failureOn('codec-corrupt', (bytes) => {
      // The LZ4 frame starts after the 61-byte batch header: break its magic number (and keep the CRC valid, as a
      // producer that wrote a broken frame would).
      bytes.writeUInt32LE(0xdeadbeef, 61);
      bytes.writeUInt32BE(crc32c(bytes, 21), 17);
      return bytes;
    });
    expect(err.code).toBe('RECORD_BATCH_CORRUPT');
    expect(err.location).toEqual({ topic: 'codec-corrupt', partition: 1, fetchOffset: '0' });
  });
});

describe('the CLI reads every codec', () => {
  let dir: string;
  beforeAll(() => { requireBuiltCli(); dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-codecs-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('`kafka-eos run` sinks kcat batches of every codec exactly once into SQLite, then exits 0 on SIGTERM', async () => {
    const topic = 'run-codecs';
    cluster.createTopic(topic, CODECS.length);
    for (const [p, [codec]] of CODECS.entries()) {
      const lines = Array.from({ length: COUNT }, (_, i) => JSON.stringify({ id: p * 1000 + i, codec }));
      await mustRun('kcat', ['-b', bootstrap, '-X', 'broker.address.family=v4', '-P', '-t', topic, '-p', String(p), '-z', codec,
        '-X', 'linger.ms=50'], `${lines.join('\n')}\n`);
    }
    const db = path.join(dir, 'run.sqlite');
    const config = path.join(dir, 'run.json');
    writeFileSync(config, JSON.stringify({
      brokers: cluster.bootstrap, groupId: 'run-codecs', topics: [topic],
      consumer: { delivery: 'exactly-once', sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },
      sink: {
        type: 'sql', knex: { client: 'sqlite3', connection: { filename: db } }, table: 'rows', mode: 'insert', autoCreate: true,
        mapping: { columns: { id: { path: 'id', type: 'integer' }, codec: { path: 'codec', type: 'string' } } },
      },
    }));
    const running = startCli(['run', '--config', config, '--status-interval', '300']);
    const knex = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
    try {
      await until(() => new RegExp(`status .* ${CODECS.length * COUNT} total`).test(running.out()), 'every record sunk', 60000);
    } finally {
      running.child.kill('SIGTERM');
    }
    expect({ code: await running.exited, out: running.out() }).toMatchObject({ code: 0 });
    try {
      const rows = await knex('rows').select('id', 'codec', 'kafka_partition').orderBy('id');
      expect(rows).toHaveLength(CODECS.length * COUNT);
      expect(rows.map((r) => Number(r.id))).toEqual(CODECS.flatMap((_c, p) => Array.from({ length: COUNT }, (_x, i) => p * 1000 + i)));
      for (const r of rows) expect(r.codec).toBe(CODECS[Number(r.kafka_partition)][0]);
      const stored = await knex('kafka_eos_offsets').where({ group_id: 'run-codecs' }).select('partition', 'next_offset');
      expect(stored.map((o) => [Number(o.partition), Number(o.next_offset)]).sort()).toEqual(CODECS.map((_c, p) => [p, COUNT]));
    } finally {
      await knex.destroy();
    }
  });

  test('`kafka-eos demo --compression snappy` consumes snappy batches through a SIGKILL and verifies', async () => {
    const res = await runCli(['demo', '--rows', '6000', '--compression', 'snappy', '--kills', '1', '--session-timeout', '3000'], 180000);
    expect(res.out).toMatch(/PASS +batches stored with the producer's codec +snappy +snappy/);
    expectDemoPassed(res.out);
    expect(res.code).toBe(0);
  });

  test('`demo --compression` refuses an unknown codec with exit 2', async () => {
    const res = await runCli(['demo', '--compression', 'brotli'], 30000);
    expect(res.code).toBe(2);
    expect(res.out).toContain('--compression must be one of none, gzip, snappy, lz4, zstd');
  });
});
