/** Shared by the mock-*.test.ts scenarios: a KafkaJS client whose error logs a test can read. */
import { Consumer, ConsumerConfig, Kafka, KafkaConfig, logLevel } from 'kafkajs';
import type { MockCluster } from '../../../src/testing/mock-broker';

export interface LoggedLine { level: number; namespace: string; message: string; error?: string; broker?: string }

/** A KafkaJS client for `cluster`, with its ERROR/WARN log lines captured in `logs`. */
export function kafkaFor(cluster: MockCluster | string[], clientId: string,
  extra: Partial<KafkaConfig> = {}): { kafka: Kafka; logs: LoggedLine[] } {
  const logs: LoggedLine[] = [];
  const kafka = new Kafka({
    clientId,
    brokers: Array.isArray(cluster) ? cluster : cluster.bootstrap,
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 50, retries: 8 },
    logCreator: () => ({ namespace, level, log }) => {
      logs.push({ level, namespace, message: String(log.message), error: log.error as string | undefined,
        broker: log.broker as string | undefined });
    },
    ...extra,
  });
  return { kafka, logs };
}

/** Consumer settings that react within ~100 ms, so rebalances do not wait on long polls. */
export const FAST_CONSUMER: Omit<ConsumerConfig, 'groupId'> = {
  sessionTimeout: 10_000,
  heartbeatInterval: 100,
  maxWaitTimeInMs: 100,
  retry: { initialRetryTime: 50, retries: 10 },
};

export interface Received { topic: string; partition: number; offset: string; value: string }

/** Starts a consumer of `topics` that pushes every message into `into`. */
export async function runConsumer(kafka: Kafka, groupId: string, topics: string[], into: Received[],
  options: { fromBeginning?: boolean; config?: Partial<ConsumerConfig> } = {}): Promise<Consumer> {
  const consumer = kafka.consumer({ groupId, ...FAST_CONSUMER, ...options.config });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: options.fromBeginning ?? true });
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      into.push({ topic, partition, offset: message.offset, value: message.value?.toString() ?? '' });
    },
  });
  return consumer;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
