/**
 * At-least-once: offsets of finished records are committed (every `commitIntervalMs`, and always
 * before a partition is revoked or the consumer stops). A crash repeats at most the work finished
 * since the last commit plus the record in hand. Retries and a dead-letter topic handle poison
 * messages; rebalance listeners see partitions come and go.
 *
 *   node examples/run.js examples/at-least-once.ts
 */
import { Kafka, logLevel } from 'kafkajs';
import { createGroupConsumer, TopicPartition } from 'kafka-eos';
import { MockCluster } from 'kafka-eos/mock-broker';

export async function main(brokers?: string[]): Promise<{ handled: string[]; deadLettered: number; assigned: number; revoked: number }> {
  const cluster = brokers ? null : await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  const kafka = new Kafka({ clientId: 'example', brokers: brokers ?? cluster!.bootstrap, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }, { topic: 'orders.dlq', numPartitions: 1 }] });
  await admin.disconnect();

  const handled: string[] = [];
  let assigned = 0;
  let revoked = 0;
  const consumer = createGroupConsumer({
    kafka,
    groupId: 'order-mailer',
    topics: ['orders'],
    delivery: 'at-least-once',
    assignors: ['sticky', 'range'],
    commitIntervalMs: 1000,
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 200,
    retry: { retries: 2, minTimeoutMs: 50 },
    poisonPolicy: 'dead-letter',            // to orders.dlq, with source topic/partition/offset/error headers
    recordHandler: async (record) => {
      const order = JSON.parse(record.value!.toString()) as { id: string };   // a bad record throws here
      handled.push(order.id);
    },
    onPartitionsAssigned: (ps: TopicPartition[]) => { assigned += ps.length; },
    onPartitionsRevoked: (ps: TopicPartition[]) => { revoked += ps.length; },   // offsets already committed
  });
  await consumer.start();

  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ value: '{"id":"o-1"}' }, { value: 'not json' }, { value: '{"id":"o-2"}' }] });
  await producer.disconnect();

  while (handled.length < 2 || consumer.metrics().deadLettered < 1) await new Promise((r) => setTimeout(r, 50));
  await consumer.stop();
  await cluster?.stop();
  return { handled: handled.sort(), deadLettered: consumer.metrics().deadLettered, assigned, revoked };
}
