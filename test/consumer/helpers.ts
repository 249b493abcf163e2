/** Shared by the consumer tests: a mock cluster, a producer, condition waits, quiet KafkaJS clients. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { MockCluster } from '../../src/testing/mock-broker';
import { GroupConsumer } from '../../src/consumer/group-consumer';
import type { GroupConsumerOptions } from '../../src/consumer/options';
import type { SinkRecord } from '../../src/records';

export const FAST = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 100, maxWaitTimeMs: 100, rebalanceTimeoutMs: 10000 } as const;

export function kafkaOf(cluster: MockCluster, clientId = 'test'): Kafka {
  return new Kafka({ clientId, brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, retry: { initialRetryTime: 50, retries: 8 } });
}

export { until } from '../helpers/until';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Produces `values` to one partition, in one request (one batch), and returns nothing. */
export async function produce(kafka: Kafka, topic: string, partition: number, values: string[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: values.map((value) => ({ partition, value })) });
  await producer.disconnect();
}

export const valueOf = (r: SinkRecord) => r.value?.toString() ?? '';

/**
 * A GroupConsumer with fast timings on `cluster`, stopped by `stopAll`. A KIP-848 member (`groupProtocol: 'consumer'`)
 * gets only the timings it may set (its session and heartbeat interval are the cluster's).
 */
export function consumerOn(cluster: MockCluster, options: Omit<GroupConsumerOptions, 'brokers'>, started: GroupConsumer[]): GroupConsumer {
  const { sessionTimeoutMs, heartbeatIntervalMs, ...kip848 } = FAST;
  void sessionTimeoutMs;
  void heartbeatIntervalMs;
  const timings = options.groupProtocol === 'consumer' ? kip848 : FAST;
  const c = new GroupConsumer({ brokers: cluster.bootstrap, ...timings, ...options } as GroupConsumerOptions);
  started.push(c);
  return c;
}

export async function stopAll(consumers: GroupConsumer[]): Promise<void> {
  await Promise.allSettled(consumers.splice(0).map((c) => c.stop()));
}

/** The integers from `from` up to `to` (excluded). */
export const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/** Committed offsets of (group, topic, partition) in the order the coordinator accepted them (the mock's event log). */
export function commitsOf(cluster: MockCluster, groupId: string, topic: string, partition = 0): bigint[] {
  return cluster.events.entries({ type: 'offsets.committed', groupId })
    .flatMap((e) => (e.data.partitions as { topic: string; partition: number; offset: bigint }[]))
    .filter((p) => p.topic === topic && p.partition === partition)
    .map((p) => BigInt(p.offset));
}

/** What {@link useConsumerCluster} sets up; `cluster` and `dir` are readable once the block's tests run. */
export interface ConsumerClusterFixture {
  readonly cluster: MockCluster;
  /** A temporary directory (SQLite files), removed after the block. */
  readonly dir: string;
  /** Consumers the tests start (see {@link consumerOn}); stopped after each test. */
  readonly consumers: GroupConsumer[];
}

/**
 * Registers the hooks of a describe block (or file) of consumer tests: `start()` makes the mock
 * cluster and a temporary directory (named `tmpPrefix...`) is created before the tests, the
 * consumers are stopped after each test, and the cluster is stopped and the directory removed after them.
 */
export function useConsumerCluster(start: () => Promise<MockCluster>, tmpPrefix: string): ConsumerClusterFixture {
  let cluster: MockCluster | undefined;
  let dir: string | undefined;
  const consumers: GroupConsumer[] = [];
  beforeAll(async () => {
    cluster = await start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  });
  afterEach(() => stopAll(consumers));
  afterAll(async () => {
    await cluster?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const ready = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`useConsumerCluster: ${what} is set up in beforeAll`);
    return v;
  };
  return {
    get cluster() { return ready(cluster, 'the cluster'); },
    get dir() { return ready(dir, 'the directory'); },
    consumers,
  };
}
