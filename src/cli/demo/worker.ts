/**
 * A demo consumer: one child process, one member of the group, sinking the flights topic
 * exactly once into the demo table. It reports to the parent over IPC (assignments and
 * committed batches) and stops cleanly on a `stop` message. The parent may SIGKILL it at any
 * point; the sink's transaction and compare-and-set keep the table exact regardless.
 */
import { createGroupConsumer } from '../../consumer/group-consumer';
import type { HdfsSinkConfig } from '../../sinks/hdfs/config';
import type { ExactlyOnceSink } from '../../sink-contract';
import type { OutputRecord, SinkRecord } from '../../records';
import { FLIGHT_MAPPING, knexConfig } from './db';

/** The demo's group protocols: classic eager (range), cooperative (KIP-429, cooperative-sticky), consumer (KIP-848). */
export type DemoGroupProtocol = 'classic' | 'cooperative' | 'consumer';

export interface WorkerConfig {
  bootstrap: string[];
  groupId: string;
  topic: string;
  db: string;
  table: string;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** Sink into HDFS with this config instead of SQL. */
  hdfs?: HdfsSinkConfig;
  /**
   * Sink into Kafka instead (KafkaSink): each flight to `outputTopic`, keyed "<source partition>:<source offset>", on
   * the source record's partition number, in one transaction with the consumed offsets; transaction.timeout.ms.
   */
  kafka?: { outputTopic: string; transactionTimeoutMs: number };
  groupProtocol: DemoGroupProtocol;
}

export type WorkerMessage =
  | { type: 'ready'; loadMs: number }
  /** The partitions the member owns now (after every assignment, revocation or loss). */
  | { type: 'owned'; partitions: number[] }
  | { type: 'batch'; partition: number; rows: number; nextOffset: string }
  | { type: 'fenced'; partition: number; expected: string; stored: string }
  | { type: 'error'; message: string };

/** The demo's transform for KafkaSink: one output record per source record, keyed "<partition>:<offset>", same partition. */
function kafkaTransform(outputTopic: string): (r: SinkRecord) => OutputRecord[] {
  return (r) => [{ topic: outputTopic, key: `${r.partition}:${r.offset}`, value: r.value, partition: r.partition }];
}

function send(msg: WorkerMessage): void {
  if (process.send && process.connected) process.send(msg);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2]) as WorkerConfig;
  // Only the sink this run uses is loaded (each costs a few hundred ms of require at start-up).
  /* eslint-disable @typescript-eslint/no-require-imports */
  const sink: ExactlyOnceSink = config.kafka
    ? new (require('../../sinks/kafka') as typeof import('../../sinks/kafka')).KafkaSink({
      brokers: config.bootstrap, clientId: `demo-worker-${process.pid}-sink`, transactionTimeoutMs: config.kafka.transactionTimeoutMs,
    })
    : config.hdfs
    ? new (require('../../sinks/hdfs/hdfs-sink') as typeof import('../../sinks/hdfs/hdfs-sink')).HdfsSink(config.hdfs)
    : new (require('../../sinks/sql/sql-sink') as typeof import('../../sinks/sql/sql-sink')).SqlSink({
      knex: knexConfig(config.db), table: config.table, mode: 'insert', mapping: FLIGHT_MAPPING, autoCreate: true,
    });
  /* eslint-enable @typescript-eslint/no-require-imports */
  // Modules are loaded by now: report how long the process took to get here (node start-up + require).
  send({ type: 'ready', loadMs: Math.round(process.uptime() * 1000) });
  const consumer = createGroupConsumer({
    brokers: config.bootstrap,
    clientId: `demo-worker-${process.pid}`,
    groupId: config.groupId,
    topics: [config.topic],
    delivery: 'exactly-once',
    sink,
    // KafkaSink: the transform. One output record per flight, keyed by its source coordinates, the value as it came.
    ...(config.kafka ? { recordHandler: kafkaTransform(config.kafka.outputTopic) } : {}),
    maxWaitTimeMs: 200,
    ...(config.groupProtocol === 'consumer'
      ? { groupProtocol: 'consumer' as const }
      : { sessionTimeoutMs: config.sessionTimeoutMs, heartbeatIntervalMs: config.heartbeatIntervalMs }),
    ...(config.groupProtocol === 'cooperative' ? { assignors: ['cooperative-sticky' as const] } : {}),
  });
  // Under the incremental protocols an event names only what moved: report what is owned after each.
  const owned = () => send({ type: 'owned', partitions: consumer.assignment().map((p) => p.partition).sort((a, b) => a - b) });
  consumer.on('assigned', owned);
  consumer.on('revoked', owned);
  consumer.on('lost', owned);
  consumer.on('batch', (b: { partition: number; records: number; nextOffset: bigint }) =>
    send({ type: 'batch', partition: b.partition, rows: b.records, nextOffset: b.nextOffset.toString() }));
  consumer.on('fenced', (f: { partition: number; expected: bigint; stored: bigint }) =>
    send({ type: 'fenced', partition: f.partition, expected: f.expected.toString(), stored: f.stored.toString() }));
  consumer.on('error', (e: Error) => send({ type: 'error', message: e.message }));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await consumer.stop();
    await sink.close();
    process.exit(0);
  };
  process.on('message', (m: { type?: string }) => { if (m?.type === 'stop') void stop(); });
  process.on('SIGTERM', () => void stop());
  process.on('disconnect', () => void stop());
  await consumer.start();
}

main().catch((e: Error) => {
  send({ type: 'error', message: e.stack ?? e.message });
  process.exit(1);
});
