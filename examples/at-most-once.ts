/**
 * At-most-once: offsets are committed before the handler runs, so a crash loses the batch in hand
 * and never repeats it. Suits metrics, sampling, notifications that must not be sent twice.
 *
 *   node examples/run.js examples/at-most-once.ts
 *
 * Starts an embedded mock cluster when no `brokers` are given.
 */
import { Kafka, logLevel } from 'kafkajs';
import { createGroupConsumer } from 'kafka-eos';
import { MockCluster } from 'kafka-eos/mock-broker';

export async function main(brokers?: string[]): Promise<{ received: string[]; state: string }> {
  const cluster = brokers ? null : await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  const bootstrap = brokers ?? cluster!.bootstrap;
  const kafka = new Kafka({ clientId: 'example', brokers: bootstrap, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'clicks', numPartitions: 2 }] });
  await admin.disconnect();

  const received: string[] = [];
  const consumer = createGroupConsumer({
    kafka,
    groupId: 'click-counter',
    topics: ['clicks'],
    delivery: 'at-most-once',
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 200,
    // Whole batches; the batch's offsets (last offset + 1) are already committed when this runs.
    handler: async (batch) => {
      for (const r of batch.records) received.push(r.value!.toString());
    },
  });
  await consumer.start();

  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'clicks', messages: ['home', 'cart', 'checkout'].map((value) => ({ value })) });
  await producer.disconnect();

  while (received.length < 3) await new Promise((r) => setTimeout(r, 50));
  await consumer.stop();
  await cluster?.stop();
  return { received: received.sort(), state: consumer.state };
}
