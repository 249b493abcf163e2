/**
 * `kafka-eos run --config connector.(json|yaml)`: runs a SQL or HDFS sink from a config file against any
 * Kafka cluster, until SIGINT or SIGTERM, then stops cleanly (finishes the batch in hand, commits
 * and leaves the group). The config is validated up front; errors name the field (see
 * connector/config.ts and `kafka-eos run --print-schema`).
 *
 * Exit codes: 0 stopped by a signal; 1 the consumer failed (the error printed, by code);
 * 2 the config or the command line is invalid, or the database cannot be used at start.
 *
 * ```yaml
 * brokers: [127.0.0.1:9092]
 * groupId: loader
 * topics: [flights]
 * consumer: { poisonPolicy: skip }
 * sink: { type: sql, knex: { client: pg, connection: postgresql://u@127.0.0.1/db }, table: flights, mode: insert,
 *         autoCreate: true, mapping: { columns: { delay: { path: delay, type: integer } } } }
 * ```
 */
import { Kafka, logLevel as kafkaLogLevel, type KafkaConfig, type LogEntry } from 'kafkajs';
import { createGroupConsumer } from '../consumer/group-consumer';
import { ConfigError } from '../consumer/options';
import { SqlSink } from '../sinks/sql';
import type { ExactlyOnceSink } from '../sinks/sink';
import { ConsumerPrometheusMetrics } from '../metrics/prometheus';
import { serveMetrics, type MetricsServer } from '../metrics/server';
import { openSink } from './sink-factory';
import { loadRunConfig, resolveSsl, type RunConfig } from './connector/config';
import { OutageReporter } from './connector/health';
import { plainRecordWriter } from './connector/plain-writer';
import { StatusReporter } from './connector/status';

export { loadRunConfig, runConfigSchema } from './connector/config';
export type { RunConfig } from './connector/config';

/** Log levels of `--log-level`, lowest first (KafkaJS's names). */
export const LOG_LEVELS = ['nothing', 'error', 'warn', 'info', 'debug'] as const;
export type RunLogLevel = (typeof LOG_LEVELS)[number];
const KAFKAJS_LEVEL: Record<RunLogLevel, number> = { nothing: kafkaLogLevel.NOTHING, error: kafkaLogLevel.ERROR, warn: kafkaLogLevel.WARN, info: kafkaLogLevel.INFO, debug: kafkaLogLevel.DEBUG };

/** Command-line options of `run` (each overrides the config's field of the same meaning). */
export interface RunOptions {
  /** Serve Prometheus metrics on this port (0 = any free port; the port is printed). */
  metricsPort?: number;
  /** Our own and KafkaJS's log lines at or above this level are printed (default info). */
  logLevel?: RunLogLevel;
  /** Status log line period when stdout is not a TTY, ms. */
  statusIntervalMs?: number;
  /** Force the TTY status line (true) or log lines (false); default: whether stdout is a TTY. */
  tty?: boolean;
}

function kafkaConfig(config: RunConfig, logCreator: KafkaConfig['logCreator']): KafkaConfig {
  const k = config.kafka ?? {};
  return {
    clientId: config.clientId ?? 'kafka-eos-run',
    brokers: config.brokers,
    ...(k.ssl !== undefined ? { ssl: resolveSsl(k.ssl) as KafkaConfig['ssl'] } : {}),
    ...(k.sasl ? { sasl: k.sasl as KafkaConfig['sasl'] } : {}),
    ...(k.connectionTimeoutMs ? { connectionTimeout: k.connectionTimeoutMs } : {}),
    ...(k.requestTimeoutMs ? { requestTimeout: k.requestTimeoutMs } : {}),
    retry: { retries: k.retry?.retries ?? 5, initialRetryTime: k.retry?.initialRetryTimeMs ?? 300, maxRetryTime: k.retry?.maxRetryTimeMs ?? 30000 },
    logLevel: kafkaLogLevel.DEBUG,
    logCreator,
  };
}

/** The row writer for at-least-once / at-most-once delivery (SQL sinks only; validateRunConfig refuses others). */
function plainWriterFor(sink: ExactlyOnceSink, config: RunConfig) {
  if (!(sink instanceof SqlSink) || config.sink.type !== 'sql') throw new ConfigError('consumer.delivery', `the ${config.sink.type} sink runs exactly-once only`);
  const { type: _type, ...sqlConfig } = config.sink;
  return plainRecordWriter(sink.knex, { ...sqlConfig, knex: sink.knex });
}

/**
 * Runs the sink until SIGINT/SIGTERM (exit 0) or until the consumer fails (exit 1, the error
 * printed). The database is checked before anything is consumed (exit 2 when it cannot be used).
 */
export async function runSink(file: string, options: RunOptions = {}): Promise<number> {
  const config = loadRunConfig(file);
  const level = LOG_LEVELS.indexOf(options.logLevel ?? 'info');
  const say = (lvl: RunLogLevel, line: string) => {
    if (LOG_LEVELS.indexOf(lvl) > level || lvl === 'nothing') return;
    if (status) status.log(line);
    else (lvl === 'info' || lvl === 'debug' ? process.stdout : process.stderr).write(line + '\n');
  };
  let status: StatusReporter | undefined;
  const outages = new OutageReporter((line) => say('warn', line));
  const kafkaLogs = (entry: LogEntry) => {
    outages.kafkaLog(entry);
    const lvl = (['nothing', 'error', 'warn', 'info', 'info', 'debug'] as RunLogLevel[])[entry.level] ?? 'debug';
    const { message, timestamp: _t, logger: _l, ...extra } = entry.log as { message: string; timestamp?: string; logger?: string } & Record<string, unknown>;
    const rest = Object.keys(extra).length > 0 ? ` ${JSON.stringify(extra)}` : '';
    // Connection errors are reported once, with their duration, by the outage reporter.
    if (lvl === 'error' && /connect|Connection/i.test(`${message}${rest}`) && level < LOG_LEVELS.indexOf('debug')) return;
    say(lvl, `[kafkajs ${entry.label}] ${entry.namespace}: ${message}${rest}`);
  };
  const kafka = new Kafka(kafkaConfig(config, () => kafkaLogs));
  const { sink, description, store } = await openSink(config.groupId, config.sink);
  const prom = new ConsumerPrometheusMetrics();
  const { delivery = 'exactly-once', deadLetterTopic, ...consumerOptions } = config.consumer ?? {};
  const consumer = createGroupConsumer({
    kafka, groupId: config.groupId, topics: config.topics, ...consumerOptions,
    ...(deadLetterTopic ? { deadLetterTopic } : {}),
    delivery,
    ...(delivery === 'exactly-once'
      ? { sink: prom.instrumentSink(sink) }
      : { recordHandler: plainWriterFor(sink, config) }),
  });
  prom.attach(consumer, config.groupId);
  consumer.on('error', () => undefined); // reported once, below, when the consumer fails
  consumer.on('sink-unavailable', ({ topic, partition, error }) => outages.sinkUnavailable(store, error, `${topic}-${partition}`));
  consumer.on('batch', () => { outages.up('broker'); outages.up('sink'); });
  consumer.on('assigned', ({ partitions }) => {
    outages.up('broker');
    say('info', `kafka-eos run: assigned: ${partitions.map((p) => `${p.topic}-${p.partition}`).join(', ') || '(none)'}`);
  });
  consumer.on('revoked', ({ partitions }) => say('info', `kafka-eos run: revoked: ${partitions.map((p) => `${p.topic}-${p.partition}`).join(', ') || '(none)'}`));
  consumer.on('dead-letter', (d) => say('warn', `kafka-eos run: ${d.topic}-${d.partition}@${d.offset} sent to ${d.deadLetterTopic}: ${(d.error as Error)?.message ?? String(d.error)}`));
  let metricsServer: MetricsServer | undefined;
  const metricsPort = options.metricsPort ?? config.metrics?.port;
  const admin = kafka.admin();
  outages.start();
  try {
    if (metricsPort !== undefined) {
      metricsServer = await serveMetrics(prom.registry, { port: metricsPort, host: config.metrics?.host });
      say('info', `kafka-eos run: Prometheus metrics at http://${config.metrics?.host ?? '127.0.0.1'}:${metricsServer.port}/metrics`);
    }
    await consumer.start();
    await admin.connect().catch(() => undefined);
  } catch (e) {
    outages.stop();
    await metricsServer?.close();
    await admin.disconnect().catch(() => undefined);
    await sink.close();
    throw e;
  }
  say('info', `kafka-eos run: group ${config.groupId} consuming ${config.topics.join(', ')} into ${description} (${delivery})`);
  status = new StatusReporter(consumer, {
    tty: options.tty ?? process.stdout.isTTY === true, intervalMs: options.statusIntervalMs ?? config.status?.intervalMs,
    admin, groupId: config.groupId, outages: () => outages.current(),
  });
  status.start();
  const outcome = await new Promise<'signal' | 'failed'>((resolve) => {
    process.once('SIGINT', () => resolve('signal'));
    process.once('SIGTERM', () => resolve('signal'));
    consumer.on('state', ({ to }) => { if (to === 'failed') resolve('failed'); });
    if (consumer.state === 'failed') resolve('failed');
  });
  const failure = consumer.failure;
  outages.stop();
  await status.stop();
  status = undefined;
  await consumer.stop();
  await admin.disconnect().catch(() => undefined);
  await metricsServer?.close();
  await sink.close();
  if (outcome === 'failed') {
    const code = (failure as { code?: string } | null)?.code;
    process.stderr.write(`kafka-eos run: the consumer failed${code ? ` [${code}]` : ''}: ${failure?.message ?? 'unknown error'}\n`);
    return 1;
  }
  say('info', 'kafka-eos run: stopped (committed and left the group)');
  return 0;
}
