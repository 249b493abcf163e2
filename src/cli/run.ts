/**
 * `kafka-eos run <config.json>`: runs an exactly-once sink (SQL or HDFS) from a config file against any
 * Kafka cluster, until SIGINT or SIGTERM, then stops cleanly (finishes the batch in hand and
 * leaves the group). The config is validated up front; errors name the field.
 *
 * ```json
 * { "brokers": ["127.0.0.1:9092"], "groupId": "loader", "topics": ["flights"],
 *   "sink": { "type": "sql", "knex": { "client": "pg", "connection": "postgresql://u@127.0.0.1/db" },
 *             "table": "flights", "mode": "insert", "autoCreate": true,
 *             "mapping": { "columns": { "delay": { "path": "delay", "type": "integer" } } } },
 *   "consumer": { "sessionTimeoutMs": 30000 } }
 * ```
 * or `"sink": { "type": "hdfs", "url": "http://namenode:9870", "format": { "type": "jsonl" } }` (docs/hdfs-sink.md).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { createGroupConsumer } from '../consumer/group-consumer';
import { ConfigError } from '../consumer/options';
import { openSink, sinkConfigSchema } from './sink-factory';

export const runConfigSchema = z.object({
  brokers: z.array(z.string().regex(/^[^:\s]+:\d+$/, 'expected host:port')).min(1),
  clientId: z.string().min(1).optional(),
  groupId: z.string().min(1),
  topics: z.array(z.string().min(1)).min(1),
  sink: sinkConfigSchema,
  consumer: z.object({
    sessionTimeoutMs: z.number().int().positive().optional(),
    rebalanceTimeoutMs: z.number().int().positive().optional(),
    heartbeatIntervalMs: z.number().int().positive().optional(),
    fromBeginning: z.boolean().optional(),
  }).strict().optional(),
}).strict();

export type RunConfig = z.infer<typeof runConfigSchema>;

/** Reads and validates a run config. Throws ConfigError naming the field. */
export function loadRunConfig(file: string): RunConfig {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(file, `cannot read JSON: ${(e as Error).message}`);
  }
  const parsed = runConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(issue.path.join('.') || '(config)', issue.message);
  }
  return parsed.data;
}

/**
 * Runs the sink until SIGINT/SIGTERM (exit 0) or until the consumer fails (exit 1, the error
 * printed). The database is checked before anything is consumed.
 */
export async function runSink(file: string): Promise<number> {
  const config = loadRunConfig(file);
  const { sink, description, store } = await openSink(config.groupId, config.sink);
  const consumer = createGroupConsumer({
    brokers: config.brokers, clientId: config.clientId, groupId: config.groupId, topics: config.topics,
    delivery: 'exactly-once', sink, ...config.consumer,
  });
  consumer.on('error', () => undefined); // reported once, below, when the consumer fails
  consumer.on('sink-unavailable', ({ topic, partition, error }) => {
    process.stderr.write(`kafka-eos run: ${store} unavailable writing ${topic}-${partition}, retrying: ${error.message}\n`);
  });
  consumer.on('assigned', ({ partitions }) => {
    process.stdout.write(`assigned: ${partitions.map((p) => `${p.topic}-${p.partition}`).join(', ') || '(none)'}\n`);
  });
  try {
    await consumer.start();
  } catch (e) {
    await sink.close();
    throw e;
  }
  process.stdout.write(`kafka-eos run: group ${config.groupId} consuming ${config.topics.join(', ')} into ${description}\n`);
  const outcome = await new Promise<'signal' | 'failed'>((resolve) => {
    process.once('SIGINT', () => resolve('signal'));
    process.once('SIGTERM', () => resolve('signal'));
    consumer.on('state', ({ to }: { to: string }) => { if (to === 'failed') resolve('failed'); });
    if (consumer.state === 'failed') resolve('failed');
  });
  const failure = consumer.failure;
  await consumer.stop();
  await sink.close();
  if (outcome === 'failed') {
    const code = (failure as { code?: string } | null)?.code;
    process.stderr.write(`kafka-eos run: the consumer failed${code ? ` [${code}]` : ''}: ${failure?.message ?? 'unknown error'}\n`);
    return 1;
  }
  return 0;
}
