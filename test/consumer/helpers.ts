/** Shared by the consumer tests: a mock cluster, a producer, condition waits, quiet KafkaJS clients. */
import { Kafka, logLevel } from 'kafkajs';
import type { MockCluster } from '../../src/mock-broker';
import { GroupConsumer } from '../../src/consumer/group-consumer';
import type { GroupConsumerOptions } from '../../src/consumer/options';
import type { SinkRecord } from '../../src/sinks/sink';

export const FAST = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 100, maxWaitTimeMs: 100, rebalanceTimeoutMs: 10000 } as const;

export function kafkaOf(cluster: MockCluster, clientId = 'test'): Kafka {
  return new Kafka({ clientId, brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, retry: { initialRetryTime: 50, retries: 8 } });
}

/** Waits until `cond()` is true; polls every 20 ms; throws naming `what` after `ms`. */
export async function until(cond: () => boolean, what: string, ms = 30000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Produces `values` to one partition, in one request (one batch), and returns nothing. */
export async function produce(kafka: Kafka, topic: string, partition: number, values: string[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: values.map((value) => ({ partition, value })) });
  await producer.disconnect();
}

export const valueOf = (r: SinkRecord) => r.value?.toString() ?? '';

/** A GroupConsumer with fast timings on `cluster`, stopped by `stopAll`. */
export function consumerOn(cluster: MockCluster, options: Omit<GroupConsumerOptions, 'brokers'>, started: GroupConsumer[]): GroupConsumer {
  const c = new GroupConsumer({ brokers: cluster.bootstrap, ...FAST, ...options } as GroupConsumerOptions);
  started.push(c);
  return c;
}

export async function stopAll(consumers: GroupConsumer[]): Promise<void> {
  await Promise.allSettled(consumers.splice(0).map((c) => c.stop()));
}
