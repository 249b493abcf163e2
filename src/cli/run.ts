/**
 * `kafka-eos run --config connector.(json|yaml)`: runs a SQL, HDFS or Kafka sink from a config file against any
 * Kafka cluster, until SIGINT or SIGTERM, then stops cleanly (finishes the batch in hand, commits
 * and leaves the group). The config is validated up front; errors name the field (see
 * connector/config.ts and `kafka-eos run --print-schema`).
 *
 * Exit codes: 0 stopped by a signal; 1 the consumer failed, or its commit while stopping (the error printed,
 * by code); 2 the config or the command line is invalid (also when found only at the first assignment: a
 * `topics.regex` topic whose table name is refused), or the database or the brokers cannot be used at start
 * (brokers: after KafkaJS's retries, kafka.retry); 3 stopping took longer than `shutdownTimeoutMs` (the partitions
 * not committed are listed; their records are consumed again by their next owner, nothing is lost).
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
import { writeFileSync } from 'node:fs';
import { takeEarlySignal } from './early-signals';
import { Kafka, logLevel as kafkaLogLevel, type KafkaConfig, type LogEntry } from 'kafkajs';
import { createGroupConsumer } from '../consumer/group-consumer';
import type { ConverterConfig } from '../consumer/converters/converter';
import { ConfigError, validateOptions } from '../consumer/options';
import { kafkaEosErrorOf, type KafkaEosError } from '../errors';
import { SqlSink } from '../sinks/sql';
import type { ExactlyOnceSink } from '../sink-contract';
import type { OutputRecord, SinkRecord } from '../records';
import type { KafkaSinkConfig } from './connector/kafka-sink-schema';
import { ConsumerPrometheusMetrics } from '../metrics/prometheus';
import { serveMetrics } from '../metrics/server';
import { CleanupStack, type CleanupFailure } from './cleanup';
import { checkKafkaOutputTopic, openSink } from './sink-factory';
import { classifyRunFailure } from './connector/failure';
import { loadRunConfig, resolveSsl, subscription, subscriptionText, type RunConfig } from './connector/config';
import { OutageReporter } from './connector/health';
import { plainRecordWriter } from './connector/plain-writer';
import { StatusReporter } from './connector/status';
import { ProgressTracker } from './connector/progress';
import { ConsumerHealth } from '../metrics/health';
import { TimelineRecorder } from '../timeline/model';
import { renderTimelineHtml } from '../timeline/render';

export { loadRunConfig, runConfigSchema } from './connector/config';
export type { RunConfig } from './connector/config';

/** Log levels of `--log-level`, lowest first (KafkaJS's names). */
export const LOG_LEVELS = ['nothing', 'error', 'warn', 'info', 'debug'] as const;
export type RunLogLevel = (typeof LOG_LEVELS)[number];

/** Command-line options of `run` (each overrides the config's field of the same meaning). */
export interface RunOptions {
  /** Serve Prometheus metrics on this port (0 = any free port; the port is printed). */
  metricsPort?: number;
  /** Our own and KafkaJS's log lines at or above this level are printed (default info). */
  logLevel?: RunLogLevel;
  /** Status log line period when stdout is not a TTY, ms. */
  statusIntervalMs?: number;
  /** On exit, write this consumer's rebalance timeline (HTML + SVG) to this file. */
  timeline?: string;
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
    retry: {
      retries: k.retry?.retries ?? 5, initialRetryTime: k.retry?.initialRetryTimeMs ?? 300, maxRetryTime: k.retry?.maxRetryTimeMs ?? 30000,
    },
    logLevel: kafkaLogLevel.DEBUG,
    logCreator,
  };
}

/** The row writer for at-least-once / at-most-once delivery (SQL sinks only; validateRunConfig refuses others). */
function plainWriterFor(sink: ExactlyOnceSink, config: RunConfig) {
  if (!(sink instanceof SqlSink) || config.sink.type !== 'sql') {
    throw new ConfigError('consumer.delivery', `the ${config.sink.type} sink runs exactly-once only`);
  }
  const { type: _type, ...sqlConfig } = config.sink;
  return plainRecordWriter(sink.knex, { ...sqlConfig, knex: sink.knex });
}

/**
 * The transform of a `sink: { type: kafka }` run: each input record copied to the output topic with its value and
 * headers, keyed by its key or by `<source partition>:<source offset>` (`key: source`), partitioned by the default
 * partitioner or as its source (`partition: source`).
 */
function kafkaCopy(sink: KafkaSinkConfig): (record: SinkRecord) => OutputRecord[] {
  return (record) => {
    const headers: Record<string, Buffer | string> = {};
    // A header repeated in the input (an array, as KafkaJS reads it) keeps its last value.
    for (const [k, v] of Object.entries(record.headers) as [string, unknown][]) {
      const last = Array.isArray(v) ? v[v.length - 1] : v;
      if (typeof last === 'string' || Buffer.isBuffer(last)) headers[k] = last;
    }
    return [{
      topic: sink.topic, value: record.value, headers, timestamp: record.timestamp,
      key: sink.key === 'source' ? `${record.partition}:${record.offset}` : record.key,
      ...(sink.partition === 'source' ? { partition: record.partition } : {}),
    }];
  };
}

/** How long a stop after SIGINT/SIGTERM may take before the process exits anyway, ms (`shutdownTimeoutMs`'s default). */
export const STOP_BOUND_MS = 30000;

/** The exit code of a stop that ran out of `shutdownTimeoutMs`. */
export const EXIT_SHUTDOWN_TIMEOUT = 3;

/** GroupConsumer options the run config sets at its top level (the others come from `consumer`). */
const TOP_LEVEL_FIELDS = new Set(['brokers', 'clientId', 'groupId', 'topics']);

/**
 * Checks the consumer options the config makes before anything is opened, naming the field
 * as the config spells it (`consumer.sessionTimeoutMs`). @throws ConfigError
 */
function validateConsumerConfig(config: RunConfig): void {
  const placeholderSink = { open: () => undefined, write: () => undefined, close: () => undefined };
  const { delivery = 'exactly-once', ...consumer } = config.consumer ?? {};
  try {
    validateOptions({
      brokers: config.brokers, groupId: config.groupId, topics: subscription(config), ...consumer, delivery,
      ...(delivery === 'exactly-once' ? { sink: placeholderSink as never } : { recordHandler: async () => undefined }),
    });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const field = TOP_LEVEL_FIELDS.has(e.field.split('.')[0]!) ? e.field : `consumer.${e.field}`;
    throw new ConfigError(field, e.message.replace(/^[^:]*: /, ''));
  }
}

/**
 * Runs the sink of a config file (or of each config of `source`: Kafka Connect connectors, each its own consumer
 * group, sink and status, log lines tagged with its label) until SIGINT/SIGTERM (exit 0; exit 1 when the commit while
 * stopping failed) or until the
 * consumer fails (exit 1, the error printed). The config (consumer options included) is validated before anything is opened, naming
 * the field as the config spells it; the database is checked before anything is consumed (exit 2
 * when it cannot be used). Every exit path closes what was opened. A signal at any point of
 * start-up ends the run: the step under way finishes, then everything is stopped; if stopping
 * takes longer than the shutdown bound the process exits with {@link EXIT_SHUTDOWN_TIMEOUT} anyway, naming what each
 * connector left uncommitted. The bound is one for the process, armed at the signal: `stopBoundMs` if given, else the
 * largest `shutdownTimeoutMs` of the configs (each {@link STOP_BOUND_MS} when unset). With several
 * configs, one that fails (or cannot start) stops the others; the exit code is the worst of theirs.
 * @throws ConfigError (CONFIG_INVALID); KafkaEosError SINK_UNAVAILABLE, KAFKA_UNAVAILABLE,
 *   KAFKA_AUTHENTICATION_FAILED (kafka.sasl refused), INVALID_SESSION_TIMEOUT, UNKNOWN_TOPIC... for start-up failures.
 */
export async function runSink(source: RunSource, options: RunOptions & { stopBoundMs?: number } = {}): Promise<number> {
  // Listen for signals before anything else, so that none is missed during start-up.
  let signalled = false;
  let signalledAt = 0;
  const wakers: (() => void)[] = [];
  const inputs = typeof source === 'string' ? [{ label: undefined, config: undefined, file: source }]
    : source.map((s) => ({ ...s, file: undefined }));
  const runs = inputs.map((input) => {
    let wake: () => void = () => undefined;
    wakers.push(() => wake());
    return { input, cleanup: new CleanupStack(), onWake: (f: () => void) => { wake = f; } };
  });
  const several = runs.length > 1;
  let bound: NodeJS.Timeout | undefined;
  // One bound for the process, armed at the signal: stopBoundMs, else the largest shutdownTimeoutMs of
  // the connectors (each STOP_BOUND_MS when unset; STOP_BOUND_MS while no config is read yet).
  const timeouts: (number | undefined)[] = [];
  const boundMs = () => {
    const known = timeouts.filter((t): t is number => t !== undefined);
    return options.stopBoundMs ?? (known.length > 0 ? Math.max(...known) : STOP_BOUND_MS);
  };
  // What each connector would leave uncommitted (set once its consumer exists), reported together when the bound runs out.
  const unfinished: (() => string)[] = [];
  const arm = () => {
    if (bound) clearTimeout(bound);
    const ms = boundMs();
    bound = setTimeout(() => {
      const reports = runs.map((r, i) => (several ? `[${r.input.label}] ` : '')
        + (unfinished[i]?.() ?? 'No partition was assigned: nothing to commit'));
      process.stderr.write(`kafka-eos run: did not stop within shutdownTimeoutMs ${ms} ms of the signal; exiting `
        + `${EXIT_SHUTDOWN_TIMEOUT}. ${reports.join('; ')}\n`);
      process.exit(EXIT_SHUTDOWN_TIMEOUT);
    }, Math.max(0, signalledAt + ms - Date.now()));
    bound.unref();
  };
  const stopAll = () => {
    signalled = true;
    for (const w of wakers) w();
  };
  const onSignal = () => {
    if (!signalledAt) {
      signalledAt = Date.now();
      arm();
    }
    stopAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (takeEarlySignal()) onSignal(); // a signal while the CLI's modules were loading
  let settled: PromiseSettledResult<RunEnding>[];
  const closeFailures: CleanupFailure[][] = [];
  try {
    // Each connector runs on its own; one that fails (or cannot start) stops the others, and the process ends.
    settled = await Promise.allSettled(runs.map(async (r, i) => {
      const bounds: ShutdownBound = {
        shutdownTimeoutMs: (ms) => {
          timeouts[i] = ms ?? STOP_BOUND_MS;
          if (signalledAt) arm();
        },
        unfinished: (f) => { unfinished[i] = f; },
      };
      try {
        const config = r.input.config ?? loadRunConfig(r.input.file!);
        const ending = await runUntilStopped(config, { ...options, ...(several ? { tty: false } : {}) }, r.input.label,
          () => signalled, r.onWake, r.cleanup, bounds);
        if (ending.failed) stopAll();
        return ending;
      } catch (e) {
        stopAll();
        throw e;
      }
    }));
  } finally {
    // Every exit path (a signal, a failure, an exception during start-up) closes what was opened, newest first.
    for (const r of runs) closeFailures.push(await r.cleanup.closeAll());
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (bound) clearTimeout(bound);
  }
  const thrown = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (thrown) throw thrown.reason;
  let code = 0;
  settled.forEach((s, i) => { code = Math.max(code, (s as PromiseFulfilledResult<RunEnding>).value.finish(closeFailures[i]!)); });
  return code;
}

/** What `run` runs: a config file, or configs already validated (Kafka Connect files, src/connect), each named by a label. */
export type RunSource = string | { label: string; config: RunConfig }[];

/**
 * How a run ended; `finish` writes the last line (after everything was closed) and returns the exit code; `failed`: the
 * consumer failed (the other connectors of the process are stopped).
 */
interface RunEnding { failed?: boolean; finish(closeFailures: CleanupFailure[]): number }

/** A run that ended before it consumed (a signal during start-up): nothing to report. */
const QUIET_END: RunEnding = { finish: () => 0 };

/** How runUntilStopped tells runSink's shutdown bound its length and what it would leave uncommitted. */
interface ShutdownBound { shutdownTimeoutMs(ms: number | undefined): void; unfinished(f: () => string): void }

async function runUntilStopped(
  config: RunConfig, options: RunOptions, label: string | undefined, signalled: () => boolean, onWake: (f: () => void) => void,
  cleanup: CleanupStack, bound: ShutdownBound,
): Promise<RunEnding> {
  const me = `kafka-eos run${label ? ` [${label}]` : ''}`;
  validateConsumerConfig(config);
  bound.shutdownTimeoutMs(config.shutdownTimeoutMs);
  if (signalled()) return QUIET_END;
  const level = LOG_LEVELS.indexOf(options.logLevel ?? 'info');
  const say = (lvl: RunLogLevel, text: string) => {
    if (LOG_LEVELS.indexOf(lvl) > level || lvl === 'nothing') return;
    const line = !label ? text : text.startsWith('kafka-eos run: ') ? `${me}: ${text.slice(15)}` : `${me}: ${text}`;
    if (status) status.log(line);
    else (lvl === 'info' || lvl === 'debug' ? process.stdout : process.stderr).write(line + '\n');
  };
  let status: StatusReporter | undefined;
  const outages = new OutageReporter((line) => say('warn', line));
  const kafkaLogs = (entry: LogEntry) => {
    outages.kafkaLog(entry);
    const lvl = (['nothing', 'error', 'warn', 'info', 'info', 'debug'] as RunLogLevel[])[entry.level] ?? 'debug';
    type KafkaJsLog = { message: string; timestamp?: string; logger?: string } & Record<string, unknown>;
    const { message, timestamp: _t, logger: _l, ...extra } = entry.log as KafkaJsLog;
    const rest = Object.keys(extra).length > 0 ? ` ${JSON.stringify(extra)}` : '';
    // Connection errors are reported once, with their duration, by the outage reporter.
    if (lvl === 'error' && /connect|Connection/i.test(`${message}${rest}`) && level < LOG_LEVELS.indexOf('debug')) return;
    say(lvl, `[kafkajs ${entry.label}] ${entry.namespace}: ${message}${rest}`);
  };
  const kafka = new Kafka(kafkaConfig(config, () => kafkaLogs));
  if (config.sink.type === 'kafka') await checkKafkaOutputTopic(kafka, config.sink);
  const { sink, description, store } = await openSink(config.groupId, config.sink, config.topics);
  cleanup.defer('sink', () => sink.close());
  if (signalled()) return QUIET_END;
  if (sink instanceof SqlSink) {
    // One group id, two tables: each table would get only some partitions, or start past records it never had.
    const others = await sink.otherTargets(config.groupId).catch(() => [] as string[]);
    if (others.length > 0) {
      say('warn', `kafka-eos run: warning: the offsets table ${sink.offsets.table} holds positions of group ${config.groupId} written for `
        + `table ${others.map((t) => `"${t}"`).join(', ')}, not "${sink.table}": this run resumes from those positions `
        + '(records before them never reach this table), and runs of the group into different tables split the partitions '
        + 'between them; use one group id per table');
    }
  }
  const prom = new ConsumerPrometheusMetrics();
  // A sink that commits the group's offsets in its transactions (KafkaSink) sends no OffsetCommit: its committed
  // writes are what the status line's "last commit" and the last line's stored positions come from.
  let lastSinkCommitAt: number | null = null;
  let tracker: ProgressTracker | undefined;
  const onSinkCommitted = (batches: readonly { topic: string; partition: number; nextOffset: bigint }[]) => {
    lastSinkCommitAt = Date.now();
    tracker?.sinkCommitted(batches);
  };
  const { delivery = 'exactly-once', deadLetterTopic, ...consumerOptions } = config.consumer ?? {};
  const consumer = createGroupConsumer({
    kafka, groupId: config.groupId, topics: subscription(config), ...consumerOptions,
    ...(config.keyConverter ? { keyConverter: config.keyConverter as ConverterConfig } : {}),
    ...(config.valueConverter ? { valueConverter: config.valueConverter as ConverterConfig } : {}),
    ...(config.schemaRegistry ? { schemaRegistry: config.schemaRegistry } : {}),
    ...(deadLetterTopic ? { deadLetterTopic } : {}),
    delivery,
    ...(delivery === 'exactly-once'
      ? {
        sink: prom.instrumentSink(sink, onSinkCommitted),
        ...(config.sink.type === 'kafka' ? { recordHandler: kafkaCopy(config.sink) } : {}),
      }
      : { recordHandler: plainWriterFor(sink, config) }),
  });
  prom.attach(consumer, config.groupId);
  const progress = new ProgressTracker(consumer, config.sink.type === 'kafka' && delivery === 'exactly-once');
  if (progress.transactionalSink) tracker = progress;
  bound.unfinished(() => {
    const open = progress.unfinished();
    if (open.length > 0) {
      return `Partitions still owned: ${open.join('; ')}; records past a partition's committed position are consumed again by `
        + 'its next owner (nothing is lost); the group moves them after session.timeout.ms';
    }
    const handled = progress.handledLine();
    return handled === '' ? 'No partition was assigned: nothing to commit'
      : `Every partition was given up with its work committed (next offsets ${handled}); what did not finish is leaving the `
        + 'group and closing connections: the group removes the member after session.timeout.ms';
  });
  const brokerOutage = () => {
    const down = outages.current().filter((o) => o.what.startsWith('broker '));
    return down.length === 0 ? null
      : { since: Math.min(...down.map((o) => o.since)),
        reason: `cannot reach ${down.map((o) => o.what).join(', ')}: ${down[0]!.lastError}` };
  };
  const health = new ConsumerHealth(consumer, { kafkaUnreachable: brokerOutage });
  prom.attachHealth(health, config.groupId);
  const recorder = options.timeline ? new TimelineRecorder() : undefined;
  const clientId = config.clientId ?? 'kafka-eos-run';
  const instanceId = config.consumer?.groupInstanceId ?? null;
  recorder?.attach(consumer, { id: instanceId ?? `${clientId} (pid ${process.pid})`, clientId, instanceId });
  const timeline = options.timeline;
  if (recorder && timeline) {
    // Registered before the consumer's stop, so that it runs after it: the timeline shows the stop's revoke and leave.
    cleanup.defer('timeline', () => {
      const title = `kafka-eos run: group ${config.groupId}, topics ${subscriptionText(config)}`;
      writeFileSync(timeline, renderTimelineHtml(recorder.timeline(title)));
      say('info', `kafka-eos run: rebalance timeline written to ${timeline}`);
    });
  }
  cleanup.defer('consumer', () => consumer.stop());
  // A failure is reported once, at the end. A commit that fails while the consumer stops (revoke) is remembered:
  // the run then did not end "committed", whatever else went well.
  let stopCommitFailure: KafkaEosError | undefined;
  consumer.on('error', (e) => {
    const typed = kafkaEosErrorOf(e);
    if (typed?.code === 'COMMIT_ON_REVOKE_FAILED') stopCommitFailure ??= typed;
  });
  consumer.on('sink-unavailable', ({ topic, partition, error }) => outages.sinkUnavailable(store, error, `${topic}-${partition}`));
  consumer.on('sink-blocked', (b) => {
    if (b.refusals !== 1) return; // the outage reporter repeats it while it lasts
    const named = [b.table && `table ${b.table}`, b.column && `column ${b.column}`].filter(Boolean).join(', ') || 'no table named';
    say('error', `kafka-eos run: sink blocked (${named}): the ${store} refuses every write; nothing is skipped; `
      + (b.timeoutMs > 0 ? `the run fails with SINK_BLOCKED at ${new Date(b.since + b.timeoutMs).toISOString()} `
        + `(sinkBlockedTimeoutMs ${b.timeoutMs}) unless a write commits before` : 'waiting without a bound (sinkBlockedTimeoutMs 0)'));
  });
  consumer.on('schema-registry-unavailable', ({ topic, partition, error }) => say('warn', `kafka-eos run: ${topic}-${partition} waits for `
    + `the Schema Registry (nothing skipped; the batch is fetched again): ${error.message}`));
  // A batch counts only the records it wrote (none when the write was refused): only a write that committed ends a sink outage.
  consumer.on('batch', ({ records }) => { outages.up('broker'); if (records > 0) outages.up('sink'); });
  const names = (partitions: { topic: string; partition: number }[]) =>
    partitions.map((p) => `${p.topic}-${p.partition}`).join(', ') || '(none)';
  consumer.on('assigned', ({ partitions }) => {
    outages.up('broker');
    say('info', `kafka-eos run: assigned: ${names(partitions)}`);
  });
  consumer.on('revoked', ({ partitions }) => say('info', `kafka-eos run: revoked: ${names(partitions)}`));
  // The reason without the record's location when the error's message starts with it (a mapping error's does).
  const reason = (d: { topic: string; partition: number; offset: bigint | string; error: unknown }) => {
    const message = (d.error as Error)?.message ?? String(d.error);
    const where = `${d.topic}:${d.partition}@${d.offset}: `;
    return message.startsWith(where) ? message.slice(where.length) : message;
  };
  consumer.on('skipped', (d) => say('warn', `kafka-eos run: skipped ${d.topic}:${d.partition}@${d.offset}`
    + `${d.records > 1 ? ` (${d.records} records)` : ''}: ${reason(d)}`));
  consumer.on('dead-letter', (d) => say('warn', `kafka-eos run: dead-lettered ${d.topic}:${d.partition}@${d.offset} `
    + `to ${d.deadLetterTopic}: ${reason(d)}`));
  const metricsPort = options.metricsPort ?? config.metrics?.port;
  const admin = kafka.admin();
  cleanup.defer('admin client', () => admin.disconnect());
  outages.start();
  outages.startingUp(config.kafka?.retry?.retries ?? 5);
  cleanup.defer('outage reporter', () => outages.stop());
  if (metricsPort !== undefined) {
    const server = await serveMetrics(prom.registry, { port: metricsPort, host: config.metrics?.host, health: () => health.report() });
    cleanup.defer('metrics server', () => server.close());
    const base = `http://${config.metrics?.host ?? '127.0.0.1'}:${server.port}`;
    say('info', `kafka-eos run: Prometheus metrics at ${base}/metrics, probes at ${base}/healthz and ${base}/readyz`);
  }
  if (signalled()) return QUIET_END;
  // A signal while the member waits for its first assignment stops it there (start() then resolves);
  // earlier steps of start() are short and let finish, so that stop() never races with them.
  onWake(() => { if (consumer.state === 'running') void consumer.stop(); });
  // start() returns once the first assignment is in: a member that died without leaving holds its partitions until
  // its session times out, so the wait can last sessionTimeoutMs. Say what is awaited.
  say('info', `kafka-eos run: joining group ${config.groupId} (waiting for its first assignment)`);
  try {
    await consumer.start();
  } catch (e) {
    if (signalled() && consumer.state !== 'failed') return QUIET_END;
    throw await classifyRunFailure(e, config);
  }
  outages.startingUp(null);
  await admin.connect().catch(() => undefined);
  if (signalled()) return QUIET_END;
  say('info', `kafka-eos run: group ${config.groupId} consuming ${subscriptionText(config)} into ${description} (${delivery})`);
  status = new StatusReporter(consumer, {
    tty: options.tty ?? process.stdout.isTTY === true, intervalMs: options.statusIntervalMs ?? config.status?.intervalMs,
    admin, groupId: config.groupId, outages: () => outages.current(), prefix: me, lastSinkCommitAt: () => lastSinkCommitAt,
    errors: () => prom.errorsByCode(config.groupId), health: () => health.report(),
    onBrokers: (answered, reason) => { if (answered) outages.up('broker'); else outages.brokersUnanswered(reason ?? 'no answer'); },
  });
  status.start();
  const running = status;
  cleanup.defer('status line', async () => { await running.stop(); status = undefined; });
  const outcome = await new Promise<'signal' | 'failed'>((resolve) => {
    onWake(() => resolve('signal'));
    consumer.on('state', ({ to }) => { if (to === 'failed') resolve('failed'); });
    if (consumer.state === 'failed') resolve('failed');
    if (signalled()) resolve('signal');
  });
  progress.stopping(); // the last line speaks of what is owned now (the stop revokes it next), not of partitions given up earlier
  const reported = outcome === 'failed' ? await classifyRunFailure(consumer.failure ?? new Error('unknown error'), config, 'run') : null;
  return {
    failed: reported !== null,
    finish: (closeFailures) => {
      if (reported) {
        process.stderr.write(`${me}: the consumer failed [${reported.code}]: ${reported.message}\n`);
        // A config the run could check only once the topics were known (topics.regex: a table name at the assignment).
        return reported.code === 'CONFIG_INVALID' ? 2 : 1;
      }
      const stopped = closeFailures.find((f) => f.name === 'consumer');
      const failed = stopCommitFailure
        ?? (stopped ? kafkaEosErrorOf(stopped.error) ?? { code: 'CONSUMER_FAILED', message: String(stopped.error) }
        : undefined);
      if (failed) {
        process.stderr.write(`${me}: stopped, but not everything consumed was committed [${failed.code}]: ${failed.message}\n`);
        return 1;
      }
      say('info', `kafka-eos run: ${stoppedLine(delivery, description, progress, consumer.membershipState().state, brokerOutage())}`);
      return 0;
    },
  };
}

/**
 * The last line of a run stopped by a signal with nothing failed: where the records of the partitions owned at the end
 * (when the stop began) are stored up to (or committed, for at-least/at-most-once), whether Kafka's group offsets caught
 * up, and whether the member left the group, each only as far as the events showed it; then, apart, the partitions
 * given up earlier to a rebalance, with how far this member had handled them (their later records are another member's).
 */
function stoppedLine(delivery: string, description: string, progress: ProgressTracker, membership: string,
  brokersDown: { since: number; reason: string } | null): string {
  const handled = progress.handledLine();
  const behind = progress.kafkaBehind();
  const givenUp = progress.givenUpLine();
  const earlier = givenUp === '' ? '' : `; given up earlier to another member (a rebalance), so not this run's to report at the end: `
    + `partitions ${givenUp.replace(/ (\d+)/g, ' (handled up to next offset $1)')}`;
  // A sink committing in transactions (KafkaSink) reports what it committed: a write that failed is not claimed.
  const notStored = progress.notStored();
  const where = handled === '' ? (givenUp === '' ? 'no record was handled' : 'no record was handled in the partitions owned at the end')
    : delivery === 'exactly-once' && notStored.length > 0
      ? `not every record handled is in ${description}: ${notStored.map((n) => `${n.partition} handled up to next offset ${n.handled}, `
        + (n.stored === null ? 'no transaction of this run committed' : `committed up to ${n.stored}`)).join('; ')}`
        + ' (what was not committed is consumed again by the next owner)'
    : delivery === 'exactly-once' ? `${description} holds every record handled with its offset (next offsets ${handled})`
      : `handled up to next offsets ${handled}`;
  const kafka = handled === '' ? '' : progress.transactionalSink
    ? (notStored.length === 0 ? '; Kafka\'s group offsets committed there, in the same transactions'
      : '; Kafka\'s group offsets are the same')
    : behind.length === 0 ? '; Kafka\'s group offsets committed there'
    : `; Kafka's group offsets not committed for ${behind.map((b) => `${b.partition} (at ${b.committed ?? 'none'})`).join(', ')}`
      + (delivery === 'exactly-once' ? ': lag tools show them behind until the next owner commits; the sink\'s positions are the truth'
        : ': the next owner consumes those records again');
  const left = brokersDown ? `; the brokers are unreachable (since ${new Date(brokersDown.since).toISOString()}), so the group `
    + 'may not know this member left: its partitions move after session.timeout.ms'
    : membership === 'left' ? '; left the group' : `; membership ${membership}`;
  return `stopped: ${where}${kafka}${left}${earlier}`;
}
