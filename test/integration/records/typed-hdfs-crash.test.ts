/**
 * The typed path under SIGKILL: Avro records from Confluent's Python serializer (and a second, evolved schema
 * version from ours) through `kafka-eos run` into HDFS Avro container files (format avro, schemas from the
 * registry, a new file when the writer schema changes). The first run is SIGKILLed after some files are
 * committed; the second run finishes. Every record is in exactly one file, each file holds one schema, and
 * avsc's own container-file reader reads every file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import * as avro from 'avsc';
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { SchemaRegistryServer } from '../../../src/testing/schema-registry/server';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { createConverter } from '../../../src/consumer/converters/converter';
import { SchemaRegistryClient } from '../../../src/consumer/converters/registry-client';
import { until } from '../../consumer/helpers';
import { committedFiles } from '../../sinks/hdfs/helpers';
import { requireBuiltCli, startCli } from '../cli/helpers';
import { describePython, producePython } from './helpers';

jest.setTimeout(180000);

/** The records of an Avro object container file, read by avsc's BlockDecoder, with the file's writer schema. */
async function readContainer(bytes: Buffer): Promise<{ schema: { fields: { name: string }[] }; records: Record<string, unknown>[] }> {
  const decoder = new avro.streams.BlockDecoder();
  let schema: unknown;
  decoder.on('metadata', (type: avro.Type) => { schema = type.schema(); });
  const records: Record<string, unknown>[] = [];
  await new Promise<void>((resolve, reject) => {
    decoder.on('data', (r: Record<string, unknown>) => records.push(r)).on('end', resolve).on('error', reject);
    Readable.from([bytes]).pipe(decoder);
  });
  return { schema: schema as { fields: { name: string }[] }, records };
}

describePython()('typed records under SIGKILL', () =>
  test('Avro records into HDFS Avro files through `run`: SIGKILL, restart, every record exactly once, one schema per file', async () => {
  requireBuiltCli();
  const cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  const registry = await SchemaRegistryServer.start();
  const hdfs = await WebHdfsServer.start();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-typed-hdfs-'));
  const client = new WebHdfsClient({ url: hdfs.url });
  const topic = 'typed-orders';
  try {
    cluster.createTopic(topic, 2);
    await producePython(cluster.bootstrap.join(','), registry.url, topic, 'avro', 0, 400);
    // A second writer version: an optional field with a default (BACKWARD-compatible), from our serializer.
    const v1 =
      JSON.parse(((await (await fetch(`${registry.url}/subjects/${topic}-value/versions/latest`)).json()) as { schema: string }).schema);
    const v2 = JSON.stringify({ ...v1, fields: [...v1.fields, { name: 'channel', type: ['null', 'string'], default: null }] });
    const conv = createConverter({ type: 'avro' }, new SchemaRegistryClient({ url: registry.url }));
    const producer = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({ topic, messages: await Promise.all(Array.from({ length: 40 }, async (_, i) => ({
      key: `k${1000 + i}`,
      value: await conv.serialize(topic, { id: 1000 + i, customer: 'v2', amount: '1.50', placed_at: new Date(1700000000000),
        note: null, address: { city: 'c', zip: 'z' }, channel: 'web' }, { schema: v2 }),
    }))) });
    await producer.disconnect();
    const file = path.join(dir, 'run.json');
    writeFileSync(file, JSON.stringify({
      brokers: cluster.bootstrap, groupId: 'typed-hdfs', topics: [topic],
      valueConverter: { type: 'avro' }, keyConverter: { type: 'string' }, schemaRegistry: { url: registry.url },
      sink: { type: 'hdfs', url: hdfs.url, topicsDir: '/typed', flushSize: 30, format: { type: 'avro' } },
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 300, maxWaitTimeMs: 100 },
    }));
    // First run: SIGKILLed once some files are committed (the rest staged or not yet fetched).
    const first = startCli(['run', '--config', file]);
    await until(() => hdfs.requests.filter((r) => r.op === 'RENAME').length >= 4, 'some files committed', 60000);
    first.child.kill('SIGKILL');
    await first.exited;
    const before = (await committedFiles(client, '/typed', topic)).length;
    expect(before).toBeGreaterThan(0);
    // Second run: recovers the claims, finishes, flushes on SIGINT.
    const second = startCli(['run', '--config', file]);
    const count = async () => (await committedFiles(client, '/typed', topic)).reduce((n, f) => n + Number(f.end - f.start + 1n), 0);
    const deadline = Date.now() + 90000;
    while (Date.now() < deadline && (await count()) < 440 - 2 * 30) await new Promise((r) => setTimeout(r, 200));
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    const files = await committedFiles(client, '/typed', topic);
    const ids: number[] = [];
    for (const f of files) {
      const { schema, records } = await readContainer(await client.open(f.path));
      expect(records).toHaveLength(Number(f.end - f.start + 1n)); // offsets are contiguous: one record per offset
      const names = schema.fields.map((x) => x.name);
      expect(names.slice(0, 6)).toEqual(['id', 'customer', 'amount', 'placed_at', 'note', 'address']);
      // One schema per file: v2 files hold only v2 records, v1 files only v1 records.
      const v2Records = records.filter((r) => Number(r.id) >= 1000).length;
      expect(v2Records === 0 || v2Records === records.length).toBe(true);
      expect(names.includes('channel')).toBe(v2Records > 0);
      ids.push(...records.map((r) => Number(r.id)));
    }
    expect(ids.sort((a, b) => a - b))
      .toEqual([...Array.from({ length: 400 }, (_, i) => i), ...Array.from({ length: 40 }, (_, i) => 1000 + i)]);
  } finally {
    await Promise.all([cluster.stop(), registry.stop(), hdfs.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}));
