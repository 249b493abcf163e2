/**
 * The sinks `kafka-eos run` can drive: one zod discriminated union on `type` ('sql' | 'hdfs') and a
 * factory that builds the sink and checks its store before anything is consumed.
 */
import { Kafka, logLevel } from 'kafkajs';
import { z } from 'zod';
import { ConfigError } from '../consumer/options';
import { KafkaEosError } from '../errors';

/**
 * What a database failure at start says: the driver's own words when the sink wrapped them as an outage or a refusal
 * to retry (SINK_UNAVAILABLE, SINK_WRITE_REFUSED: "retrying" is not true here, `run` stops), else the error's message.
 */
function startFailure(e: unknown): string {
  const retryWrapper = e instanceof KafkaEosError && (e.code === 'SINK_UNAVAILABLE' || e.code === 'SINK_WRITE_REFUSED') && e.cause;
  return ((retryWrapper ? e.cause : e) as Error).message;
}

import type { ExactlyOnceSink } from '../sink-contract';
import { JdbcSink, SqlSink } from '../sinks/sql';
import { HdfsSink } from '../sinks/hdfs/hdfs-sink';
import { hdfsSinkConfigSchema } from '../sinks/hdfs/config';
import { quietKnexLog } from './knex-log';
import { jdbcSinkSchema } from './connector/jdbc-sink-schema';
import { sqlSinkSchema } from './connector/sql-sink-schema';
import { kafkaSinkSchema } from './connector/kafka-sink-schema';
import { KafkaSink } from '../sinks/kafka/kafka-sink';
import type { KafkaSinkConfig } from './connector/kafka-sink-schema';

/**
 * `sink` of a run config: `{ "type": "sql", ... }` (SqlSinkConfig), `{ "type": "jdbc", ... }` (JdbcSinkConfig) or
 * `{ "type": "hdfs", ... }` (HdfsSinkConfig) or `{ "type": "kafka", ... }` (KafkaSinkConfig).
 */
export const sinkConfigSchema = z.discriminatedUnion('type', [sqlSinkSchema, jdbcSinkSchema, hdfsSinkConfigSchema.extend({
  type: z.literal('hdfs').describe('an exactly-once HDFS sink over WebHDFS'),
}), kafkaSinkSchema]);

export type SinkConfig = z.infer<typeof sinkConfigSchema>;

/**
 * The database a SQL or JDBC sink's `knex` config names, for error text: ` (SQLite file <path>)` for sqlite3 (the path
 * sqlite3 could not open, e.g. SQLITE_CANTOPEN for a missing directory), else '' (a server URL may hold a password).
 */
export function databaseLabel(knex: unknown): string {
  const k = knex as { client?: unknown; connection?: unknown } | undefined;
  if (k?.client !== 'sqlite3' && k?.client !== 'better-sqlite3') return '';
  const c = k.connection as { filename?: unknown } | string | undefined;
  const file = typeof c === 'string' ? c : c?.filename;
  return typeof file === 'string' ? ` (SQLite file ${file})` : '';
}

/**
 * The tables of a JDBC sink for log lines: the concrete tables of `topics` (`table orders` / `tables sink_a, sink_b`),
 * else the format labelled as one, with an example (`the tables table.name.format "sink_${topic}" names (topic t → sink_t)`).
 */
export function jdbcTablesDescription(sink: JdbcSink, format: string, topics?: readonly string[]): string {
  if (topics && topics.length > 0) {
    const tables = [...new Set(topics.map((t) => sink.tableFor(t)))];
    return `${tables.length === 1 ? 'table' : 'tables'} ${tables.join(', ')}`;
  }
  if (!format.includes('${topic}')) return `table ${format}`;
  return `the tables table.name.format "${format}" names (topic t → table ${format.split('${topic}').join('t')})`;
}

/**
 * Builds the configured sink and checks its store (the database and table; the NameNode). `topics`: the subscribed
 * topics when known (a topics list), to name a JDBC sink's concrete tables.
 * @returns the sink and a description for log lines ("flights", "HDFS http://nn:9870/topics", "tables sink_a, sink_b").
 * @throws ConfigError (missing table); KafkaEosError SINK_UNAVAILABLE when the store cannot be used.
 */
/**
 * `sink: { type: kafka }`'s start check: the output topic must exist before anything is consumed (a run that only
 * found out at its first write would consume, then fail). Lists the topics of the output cluster (`sink.brokers`,
 * else the run's client `kafka`). Throws KafkaEosError UNKNOWN_TOPIC (exit 2). A cluster that cannot be reached is
 * left to the consumer's own start (which reports it as such).
 */
export async function checkKafkaOutputTopic(kafka: Kafka, config: KafkaSinkConfig): Promise<void> {
  const client = config.brokers
    ? new Kafka({ clientId: 'kafka-eos-sink', brokers: config.brokers, logLevel: logLevel.NOTHING, retry: { retries: 2 } })
    : kafka;
  const admin = client.admin();
  let topics: string[];
  try {
    await admin.connect();
    topics = await admin.listTopics();
  } catch {
    return;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  if (!topics.includes(config.topic)) {
    throw new KafkaEosError('UNKNOWN_TOPIC', `sink.topic: the output topic '${config.topic}' does not exist`
      + `${config.brokers ? ` on ${config.brokers.join(', ')}` : ''}; create it (KafkaSink does not create topics) or fix the name`);
  }
}

export async function openSink(
  groupId: string, config: SinkConfig, topics?: readonly string[],
): Promise<{ sink: ExactlyOnceSink; description: string; store: string }> {
  if (config.type === 'hdfs') {
    const { type: _type, ...hdfsConfig } = config;
    const sink = new HdfsSink(hdfsConfig);
    try {
      await sink.client.status('/');
    } catch (e) {
      await sink.close();
      throw new KafkaEosError('SINK_UNAVAILABLE', `cannot use HDFS at ${config.url}: ${(e as Error).message}`, { cause: e });
    }
    return { sink, description: `HDFS ${config.url}${sink.layout.topicsDir}`, store: 'HDFS' };
  }
  if (config.type === 'kafka') {
    // No store to check up front: the producer connects on the first assignment (on the run's client without `brokers`).
    const { type: _type, topic, key: _key, partition: _partition, ...kafkaConfig } = config;
    return { sink: new KafkaSink(kafkaConfig), description: `topic ${topic}`, store: 'Kafka output' };
  }
  if (config.type === 'jdbc') {
    const { type: _type, ...jdbcConfig } = config;
    const sink = new JdbcSink({ ...jdbcConfig, knex: { useNullAsDefault: true, ...jdbcConfig.knex, log: quietKnexLog } as never });
    try {
      await sink.open(groupId, []);
    } catch (e) {
      await sink.close();
      throw new KafkaEosError('SINK_UNAVAILABLE', `cannot use the database${databaseLabel(jdbcConfig.knex)}: ${startFailure(e)}`,
        { cause: e });
    }
    return { sink, description: jdbcTablesDescription(sink, jdbcConfig.tableNameFormat ?? '${topic}', topics), store: 'database' };
  }
  const { type: _type, ...sinkConfig } = config;
  const sink = new SqlSink({ ...sinkConfig, knex: { useNullAsDefault: true, ...sinkConfig.knex, log: quietKnexLog } as never });
  try {
    await sink.open(groupId, []);
    if (!(sinkConfig.autoCreate ?? false) && !(await sink.knex.schema.hasTable(sinkConfig.table))) {
      throw new ConfigError(
        'sink.table', `table "${sinkConfig.table}" does not exist (create it, or set "autoCreate": true with a declarative mapping)`,
      );
    }
  } catch (e) {
    await sink.close();
    if (e instanceof ConfigError) throw e;
    throw new KafkaEosError('SINK_UNAVAILABLE', `cannot use the database${databaseLabel(sinkConfig.knex)}: ${startFailure(e)}`,
      { cause: e });
  }
  return { sink, description: sinkConfig.table, store: 'database' };
}
