#!/usr/bin/env node
/**
 * The `kafka-eos` command line: demo, run, offsets, broker and webhdfs. Exit codes of every command: 0 done
 * (run, broker: stopped by SIGINT/SIGTERM); 1 a failure at run time (demo: a check failed); 2 invalid
 * arguments or config (commander's usage errors included), or (run) a database or brokers it cannot use at start.
 */
// First: `run`'s signal handlers, before the heavy modules below load (a signal meanwhile must not kill it). Only
// Node.js's own start-up, before this line, is left to the default action (README, "exit 130/143").
import './early-signals';
import { Command, InvalidArgumentError, Option } from 'commander';
// demo and broker load the test servers (src/testing): imported when those commands run, so that `run` and
// `offsets` never load them (test/layers.test.ts checks the runtime path).
import type { DemoCompression } from './demo/producer';
import { nativeZstdCompress } from '../protocol/compression';
import { ConfigError } from '../consumer/options';
import { printableSchema } from './connector/config';
import { LOG_LEVELS, runSink } from './run';
import { registerOffsetsCommand } from './offsets/command';

function nonNegativeInt(name: string, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(min === 0 && max === Number.MAX_SAFE_INTEGER ? `${name} must be a non-negative integer`
        : `${name} must be an integer from ${min} to ${max}`);
    }
    return n;
  };
}

function database(v: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) && !/^(postgres(ql)?|mysql|mariadb):\/\//i.test(v)) {
    throw new InvalidArgumentError('--db must be a SQLite file path, a postgresql:// URL or a mysql:// URL');
  }
  return v;
}

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
function compressionCodec(v: string): DemoCompression {
  if (!(CODECS as readonly string[]).includes(v)) throw new InvalidArgumentError(`--compression must be one of ${CODECS.join(', ')}`);
  if (v === 'zstd' && !nativeZstdCompress) {
    throw new InvalidArgumentError(`--compression zstd needs Node.js 22.15 or later to compress (this is ${process.version}); `
      + 'every Node.js reads zstd');
  }
  return v as DemoCompression;
}

function groupProtocol(v: string): 'classic' | 'cooperative' | 'consumer' {
  if (v !== 'classic' && v !== 'cooperative' && v !== 'consumer') {
    throw new InvalidArgumentError('--group-protocol must be classic, cooperative or consumer');
  }
  return v;
}

function sinkType(v: string): 'sql' | 'hdfs' | 'kafka' {
  if (v !== 'sql' && v !== 'hdfs' && v !== 'kafka') throw new InvalidArgumentError('--sink must be sql, hdfs or kafka');
  return v;
}

/** `host:port[,host:port...]` as a list; InvalidArgumentError for an entry without a port. */
function brokerList(v: string): string[] {
  const list = v.split(',').map((b) => b.trim()).filter(Boolean);
  const bad = list.find((b) => !/^[^\s:]+:\d{1,5}$/.test(b) && !/^\[[0-9a-fA-F:.]+\]:\d{1,5}$/.test(b));
  if (list.length === 0 || bad !== undefined) {
    throw new InvalidArgumentError(`--brokers must be host:port[,host:port...]${bad ? ` (not ${bad})` : ''}`);
  }
  return list;
}

const program = new Command();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { version } = require('../../package.json') as { version: string };
program.name('kafka-eos').version(version).description('Exactly-once Kafka consumers for Node.js, and an embedded mock Kafka cluster.');
// Usage errors (unknown option, bad option value, missing argument) exit 2 like a bad config, not commander's 1;
// --help and --version exit 0. Set before the commands are added: subcommands inherit it.
program.exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : 2));

program.command('demo')
  .description('the main job on real data: embedded 3-broker cluster (or --brokers) → consumer group (child processes, one '
    + 'SIGKILLed) → exactly-once SQL, HDFS or Kafka sink, then verify')
  .option('--rows <n>', 'number of flight records (default: all 200000)', nonNegativeInt('--rows', 1, 200000))
  .option('--db <path|url>',
    'SQLite file to keep, postgresql://user:pass@host:port/db or mysql://user:pass@host:port/db (MySQL / MariaDB; the demo '
    + 'table is dropped and recreated there)', database)
  .option('--table <name>',
    'table to (re)create for the demo (only a table the demo created is ever dropped; never an offsets table)', 'flights')
  .option('--consumers <n>', 'consumer processes', nonNegativeInt('--consumers', 1, 32), 3)
  .option('--partitions <n>', 'partitions of topic flights', nonNegativeInt('--partitions', 1, 1000), 6)
  .option('--kills <k>', 'consumer processes to SIGKILL at seeded random points', nonNegativeInt('--kills', 0, 100), 1)
  .option('--seed <s>', 'seed for the kill points', nonNegativeInt('--seed'), 42)
  .option('--session-timeout <ms>', 'consumer session timeout', nonNegativeInt('--session-timeout', 1000, 300000), 6000)
  .option('--timeout <ms>', 'give up after this long', nonNegativeInt('--timeout', 10000, 86400000), 600000)
  .option('--quiet', 'print nothing but errors')
  .option('--sink <type>', 'sink: sql (SQLite or --db), hdfs (the embedded WebHDFS server, or --hdfs) or kafka (KafkaSink into the '
    + 'topic flights-out, verified read_committed)', sinkType, 'sql')
  .option('--hdfs <url>', 'with --sink hdfs: a NameNode URL (http://namenode:9870) instead of the embedded WebHDFS server')
  .option('--timeline <file.html>', "write the group's rebalance timeline (HTML + SVG) here at the end")
  .option('--compression <codec>', 'the producer compresses the flights with none, gzip, snappy, lz4 or zstd', compressionCodec, 'none')
  .option('--group-protocol <protocol>', 'the consumers\' group protocol: classic (eager, range), cooperative (KIP-429, '
    + 'cooperative-sticky) or consumer (KIP-848)', groupProtocol, 'classic')
  .option('--brokers <list>', 'run against this cluster (host:port,... : a kafka-eos broker process, or Kafka) instead of the embedded '
    + 'one; the demo\'s topics must not exist there', brokerList)
  .option('--connect', 'the Kafka Connect way: write a Connect worker and a JDBC sink connector .properties, print them, and run '
    + 'each consumer process as kafka-eos run <worker> <connector> (SQL sink, classic protocol)')
  .action(async (o) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { runDemo } = require('./demo/demo') as typeof import('./demo/demo');
    process.exitCode = await runDemo({
      connect: o.connect === true, brokers: o.brokers,
      sink: o.sink, hdfs: o.hdfs, timeline: o.timeline, compression: o.compression, groupProtocol: o.groupProtocol,
      rows: o.rows, db: o.db, table: o.table, consumers: o.consumers, partitions: o.partitions, kills: o.kills, seed: o.seed,
      sessionTimeoutMs: o.sessionTimeout, timeoutMs: o.timeout, quiet: o.quiet,
    });
  });

program.command('run')
  .description('run a SQL, JDBC, HDFS or Kafka sink from a JSON or YAML run config, or Kafka Connect sink connector configs '
    + '(docs/connect.md), against any Kafka cluster, until SIGINT/SIGTERM')
  .argument('[files...]', 'a run config (JSON, or YAML for .yaml/.yml); or Kafka Connect files: worker.properties '
    + 'connector.properties [...] (connect-standalone\'s order), or connector .properties / .json files with --worker')
  .option('--config <file>', 'path of the run config file (JSON, or YAML for .yaml/.yml)')
  .option('--worker <file>', 'Kafka Connect worker .properties for the connector files given')
  .option('--bootstrap-servers <list>', 'Kafka Connect: the brokers (bootstrap.servers), over the worker file\'s')
  .option('--explain', 'Kafka Connect: print how every key of the files is understood, and the run configs, then exit')
  .option('--print-schema', 'print every config field with its type and meaning, and exit')
  .option('--metrics-port <port>',
    'serve Prometheus metrics at http://127.0.0.1:<port>/metrics (0 = any free port)', nonNegativeInt('--metrics-port', 0, 65535))
  .addOption(new Option('--log-level <level>', "our own and KafkaJS's log lines at or above this level")
    .choices([...LOG_LEVELS]).default('info'))
  .option('--timeline <file.html>', "on exit, write this consumer's rebalance timeline (HTML + SVG) here")
  .option('--status-interval <ms>',
    'status log line period when stdout is not a TTY (default 10000)', nonNegativeInt('--status-interval', 100, 86400000))
  .addHelpText('after', `\nExit codes: 0 stopped by SIGINT/SIGTERM (drained, committed, left the group); 1 the consumer failed;
2 invalid config or arguments, or the database (SINK_UNAVAILABLE) or brokers (KAFKA_UNAVAILABLE, after kafka.retry) cannot be
used at start; also CONFIG_INVALID found at the first assignment (a topicsRegex topic whose table name is refused).` +
    `\n\n${printableSchema()}`)
  .action(async (args: string[], o) => {
    if (o.printSchema) {
      process.stdout.write(printableSchema());
      return;
    }
    const files: string[] = o.config ? [o.config, ...args] : args;
    if (files.length === 0) {
      throw new ConfigError('--config', 'give the config file (kafka-eos run --config connector.yaml), or Kafka Connect files '
        + '(kafka-eos run worker.properties connector.properties); --print-schema lists the run config\'s fields');
    }
    const runOptions = { metricsPort: o.metricsPort, logLevel: o.logLevel, statusIntervalMs: o.statusInterval, timeline: o.timeline };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const connect = require('../connect/connector') as typeof import('../connect/connector');
    if (o.bootstrapServers !== undefined || connect.isConnectInvocation(files, o.worker)) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { connectRunConfigs, explainConnect } = require('./connect-run') as typeof import('./connect-run');
      if (o.explain) {
        process.exitCode = explainConnect(files, o);
        return;
      }
      const configs = connectRunConfigs(files, o);
      // One port and one timeline file per process: with several connectors, run a process per connector for them.
      if (configs.length > 1 && o.timeline) throw new ConfigError('--timeline', 'one connector at a time (run one process per connector)');
      if (configs.length > 1 && o.metricsPort !== undefined) {
        throw new ConfigError('--metrics-port', 'one connector at a time (run one process per connector)');
      }
      process.exitCode = await runSink(configs, runOptions);
      return;
    }
    if (o.explain) throw new ConfigError('--explain', 'explains Kafka Connect files (.properties, or connector JSON)');
    process.exitCode = await runSink(files[0]!, runOptions);
  });

registerOffsetsCommand(program);

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

program.command('broker')
  .description('a standalone mock Kafka cluster, serving until interrupted')
  .option('--port <port>', 'PLAINTEXT port of the first broker; the others take the next ports (see --port-step)',
    nonNegativeInt('--port', 1, 65535), 9092)
  .option('--brokers <n>', 'number of brokers', nonNegativeInt('--brokers', 1, 64), 3)
  .option('--host <host>', 'address to listen on and advertise', '127.0.0.1')
  .option('--advertised-host <host>', 'host the brokers advertise to clients (default: --host)')
  .addOption(new Option('--auto-create-as <mode>', 'how Metadata answers a topic it auto-creates: kraft (Kafka 4.0: '
    + 'UNKNOWN_TOPIC_OR_PARTITION first) or zookeeper (Kafka up to 3.9: LEADER_NOT_AVAILABLE first)').choices(['kraft',
      'zookeeper']).default('kraft'))
  .option('--first-node-id <id>', 'node id of the first broker; the others count up (default 1)',
    nonNegativeInt('--first-node-id', 0, 1_000_000))
  .option('--ssl-port <port>', 'also an SSL listener from this port (needs --ssl-cert and --ssl-key)',
    nonNegativeInt('--ssl-port', 1, 65535))
  .option('--sasl-port <port>', 'also a SASL_PLAINTEXT listener from this port', nonNegativeInt('--sasl-port', 1, 65535))
  .option('--sasl-ssl-port <port>', 'also a SASL_SSL listener from this port (needs --ssl-cert and --ssl-key)',
    nonNegativeInt('--sasl-ssl-port', 1, 65535))
  .option('--ssl-cert <file>', 'PEM certificate of the SSL and SASL_SSL listeners')
  .option('--ssl-key <file>', 'PEM private key of the SSL and SASL_SSL listeners')
  .option('--port-step <n>', 'broker k listens on each port + (k-1) x step (default: the number of listeners)',
    nonNegativeInt('--port-step', 1, 1000))
  .option('--sasl-mechanisms <list>', 'sasl.enabled.mechanisms (default PLAIN,SCRAM-SHA-256,SCRAM-SHA-512)')
  .option('--user <name:password[:mechanism]>', 'a SASL user (repeatable; without a mechanism: every enabled one)', collect)
  .option('--topic <name:partitions[:replication]>', 'a topic to create at start (repeatable)', collect)
  .option('--config <key=value>', 'a broker config the mock acts on, e.g. log.retention.ms=60000 (repeatable)', collect)
  .option('--initial-rebalance-delay <ms>', 'group.initial.rebalance.delay.ms (default 0; Kafka: 3000)',
    nonNegativeInt('--initial-rebalance-delay'))
  .option('--min-session-timeout <ms>', 'group.min.session.timeout.ms (default 6000, as in Kafka)', nonNegativeInt('--min-session-timeout'))
  .option('--consumer-heartbeat-interval <ms>', 'KIP-848 group.consumer.heartbeat.interval.ms (default 5000, as in Kafka)',
    nonNegativeInt('--consumer-heartbeat-interval', 1))
  .option('--consumer-session-timeout <ms>', 'KIP-848 group.consumer.session.timeout.ms (default 45000, as in Kafka)',
    nonNegativeInt('--consumer-session-timeout', 1))
  .option('--retention-bytes <n>', 'log.retention.bytes (default unbounded)', nonNegativeInt('--retention-bytes'))
  .option('--retention-ms <ms>', 'log.retention.ms (default 7 days, as in Kafka)', nonNegativeInt('--retention-ms'))
  .option('--verbose', 'print every event (group transitions, joins, assignments, faults) as a JSON line')
  .option('--schema-registry-port <port>', 'also serve a Schema Registry (Confluent REST API) on http://<host>:<port> (0 = any free port)',
    nonNegativeInt('--schema-registry-port', 0, 65535))
  .action(async (o) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { runBroker } = require('./broker') as typeof import('./broker');
    await runBroker({
      port: o.port, brokers: o.brokers, firstNodeId: o.firstNodeId, host: o.host, advertisedHost: o.advertisedHost,
        autoCreateTopicsAs: o.autoCreateAs,
      initialRebalanceDelayMs: o.initialRebalanceDelay,
      minSessionTimeoutMs: o.minSessionTimeout, retentionBytes: o.retentionBytes, retentionMs: o.retentionMs, verbose: o.verbose === true,
      schemaRegistryPort: o.schemaRegistryPort, sslPort: o.sslPort, saslPort: o.saslPort, saslSslPort: o.saslSslPort,
      sslCert: o.sslCert, sslKey: o.sslKey, portStep: o.portStep, saslMechanisms: o.saslMechanisms, users: o.user, topics: o.topic,
      configs: o.config, consumerHeartbeatIntervalMs: o.consumerHeartbeatInterval, consumerSessionTimeoutMs: o.consumerSessionTimeout,
    });
  });

program.command('webhdfs')
  .description('a standalone WebHDFS test server (NameNode + DataNode over HTTP, as Hadoop\'s REST API), serving until interrupted')
  .option('--port <port>', 'NameNode port (Hadoop\'s dfs.namenode.http-address; 0 = any free port)', nonNegativeInt('--port', 0, 65535),
    9870)
  .option('--datanode-port <port>', 'DataNode port (dfs.datanode.http.address; 0 = any free port)',
    nonNegativeInt('--datanode-port', 0, 65535), 0)
  .option('--host <host>', 'address to listen on and advertise in redirects', '127.0.0.1')
  .option('--dir <path>', 'directory holding the file system (default: a new temporary directory, removed at exit)')
  .option('--require-user', 'refuse requests without user.name (401), as a secured cluster')
  .action(async (o) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { runWebHdfs } = require('./webhdfs') as typeof import('./webhdfs');
    await runWebHdfs({ port: o.port, dataNodePort: o.datanodePort, host: o.host, dir: o.dir, requireUser: o.requireUser === true });
  });

program.parseAsync(process.argv).catch((e: Error & { code?: string }) => {
  process.stderr.write(`kafka-eos: [${typeof e.code === 'string' ? e.code : 'INTERNAL_ERROR'}] ${e.message}\n`);
  process.exitCode = 2;
});
