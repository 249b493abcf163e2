/**
 * Exactly-once into SQL: each batch's rows and its next offset are written in one transaction,
 * guarded by a compare-and-set on the stored offset, and positions are read from the database on
 * every assignment. A crash at any point neither loses nor duplicates a row.
 *
 *   node examples/run.js examples/exactly-once.ts
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { createGroupConsumer, SqlSink } from 'kafka-eos';
import { MockCluster } from 'kafka-eos/mock-broker';

export async function main(brokers?: string[]): Promise<{ rows: { sku: string; qty: number }[]; storedOffset: string }> {
  const cluster = brokers ? null : await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  const kafka = new Kafka({ clientId: 'example', brokers: brokers ?? cluster!.bootstrap, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'stock', numPartitions: 1 }] });
  await admin.disconnect();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-example-'));
  const sink = new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(dir, 'stock.sqlite') }, useNullAsDefault: true },
    table: 'stock_moves',
    mode: 'insert',
    autoCreate: true,
    mapping: { columns: { sku: { type: 'string' }, qty: { type: 'integer' } } },
  });
  const consumer = createGroupConsumer({
    kafka,
    groupId: 'stock-loader',
    topics: ['stock'],
    delivery: 'exactly-once',
    sink,
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 200,
  });
  await consumer.start();

  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'stock', messages: [{ value: '{"sku":"a","qty":2}' }, { value: '{"sku":"b","qty":5}' }] });
  await producer.disconnect();

  while (consumer.metrics().processed < 2) await new Promise((r) => setTimeout(r, 50));
  await consumer.stop();
  const rows = (await sink.knex('stock_moves').select('sku', 'qty').orderBy('kafka_offset')) as { sku: string; qty: number }[];
  const stored = await sink.open('stock-loader', [{ topic: 'stock', partition: 0 }]);
  await sink.close();
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  return { rows, storedOffset: String(stored.get('stock:0')) };
}
