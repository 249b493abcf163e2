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
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) && !/^postgres(ql)?:\/\//i.test(v)) {
    throw new InvalidArgumentError('--db must be a SQLite file path or a postgresql:// URL');
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

function sinkType(v: string): 'sql' | 'hdfs' {
  if (v !== 'sql' && v !== 'hdfs') throw new InvalidArgumentError('--sink must be sql or hdfs');
  return v;
}

const program = new Command();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { version } = require('../../package.json') as { version: string };
program.name('kafka-eos').version(version).description('Exactly-once Kafka consumers for Node.js, and an embedded mock Kafka cluster.');
// Usage errors (unknown option, bad option value, missing argument) exit 2 like a bad config, not commander's 1;
// --help and --version exit 0. Set before the commands are added: subcommands inherit it.
program.exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : 2));

program.command('demo')
  .description('the main job on real data: embedded 3-broker cluster → consumer group (child processes, one SIGKILLed) '
    + '→ exactly-once SQL sink, then verify')
  .option('--rows <n>', 'number of flight records (default: all 200000)', nonNegativeInt('--rows', 1, 200000))
  .option('--db <path|url>',
    'SQLite file to keep, or postgresql://user:pass@host:port/db (the demo table is dropped and recreated there)', database)
  .option('--table <name>',
    'table to (re)create for the demo (only a table the demo created is ever dropped; never an offsets table)', 'flights')
  .option('--consumers <n>', 'consumer processes', nonNegativeInt('--consumers', 1, 32), 3)
  .option('--partitions <n>', 'partitions of topic flights', nonNegativeInt('--partitions', 1, 1000), 6)
  .option('--kills <k>', 'consumer processes to SIGKILL at seeded random points', nonNegativeInt('--kills', 0, 100), 1)
  .option('--seed <s>', 'seed for the kill points', nonNegativeInt('--seed'), 42)
  .option('--session-timeout <ms>', 'consumer session timeout', nonNegativeInt('--session-timeout', 1000, 300000), 6000)
  .option('--timeout <ms>', 'give up after this long', nonNegativeInt('--timeout', 10000, 86400000), 600000)
  .option('--quiet', 'print nothing but errors')
  .option('--sink <type>', 'sink: sql (SQLite or --db) or hdfs (the embedded WebHDFS server, or --hdfs)', sinkType, 'sql')
  .option('--hdfs <url>', 'with --sink hdfs: a NameNode URL (http://namenode:9870) instead of the embedded WebHDFS server')
  .option('--timeline <file.html>', "write the group's rebalance timeline (HTML + SVG) here at the end")
  .option('--compression <codec>', 'the producer compresses the flights with none, gzip, snappy, lz4 or zstd', compressionCodec, 'none')
  .option('--group-protocol <protocol>', 'the consumers\' group protocol: classic (eager, range), cooperative (KIP-429, '
    + 'cooperative-sticky) or consumer (KIP-848)', groupProtocol, 'classic')
  .action(async (o) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { runDemo } = require('./demo/demo') as typeof import('./demo/demo');
    process.exitCode = await runDemo({
      sink: o.sink, hdfs: o.hdfs, timeline: o.timeline, compression: o.compression, groupProtocol: o.groupProtocol,
      rows: o.rows, db: o.db, table: o.table, consumers: o.consumers, partitions: o.partitions, kills: o.kills, seed: o.seed,
      sessionTimeoutMs: o.sessionTimeout, timeoutMs: o.timeout, quiet: o.quiet,
    });
  });

program.command('run')
  .description('run a SQL or HDFS sink from a JSON or YAML connector config against any Kafka cluster, until SIGINT/SIGTERM')
  .argument('[config]', 'path of the config file (JSON, or YAML for .yaml/.yml); same as --config')
  .option('--config <file>', 'path of the config file (JSON, or YAML for .yaml/.yml)')
  .option('--print-schema', 'print every config field with its type and meaning, and exit')
  .option('--metrics-port <port>',
    'serve Prometheus metrics at http://127.0.0.1:<port>/metrics (0 = any free port)', nonNegativeInt('--metrics-port', 0, 65535))
  .addOption(new Option('--log-level <level>', "our own and KafkaJS's log lines at or above this level")
    .choices([...LOG_LEVELS]).default('info'))
  .option('--timeline <file.html>', "on exit, write this consumer's rebalance timeline (HTML + SVG) here")
  .option('--status-interval <ms>',
    'status log line period when stdout is not a TTY (default 10000)', nonNegativeInt('--status-interval', 100, 86400000))
  .addHelpText('after', `\nExit codes: 0 stopped by SIGINT/SIGTERM (drained, committed, left the group); 1 the consumer failed;
2 invalid config or arguments, or the database cannot be used at start.\n\n${printableSchema()}`)
  .action(async (file: string | undefined, o) => {
    if (o.printSchema) {
      process.stdout.write(printableSchema());
      return;
    }
    const path = o.config ?? file;
    if (!path) {
      throw new ConfigError('--config', 'give the config file (kafka-eos run --config connector.yaml); --print-schema lists its fields');
    }
    process.exitCode = await runSink(path, {
      metricsPort: o.metricsPort, logLevel: o.logLevel, statusIntervalMs: o.statusInterval, timeline: o.timeline,
    });
  });

registerOffsetsCommand(program);

program.command('broker')
  .description('a standalone mock Kafka cluster, serving until interrupted')
  .option('--port <port>', 'port of the first broker; the others take the next ports', nonNegativeInt('--port', 1, 65535), 9092)
  .option('--brokers <n>', 'number of brokers', nonNegativeInt('--brokers', 1, 64), 3)
  .option('--host <host>', 'address to listen on and advertise', '127.0.0.1')
  .option('--initial-rebalance-delay <ms>', 'group.initial.rebalance.delay.ms', nonNegativeInt('--initial-rebalance-delay'), 0)
  .option('--min-session-timeout <ms>', 'group.min.session.timeout.ms (default 6000, as in Kafka)', nonNegativeInt('--min-session-timeout'))
  .option('--retention-bytes <n>', 'retention.bytes per partition (default unbounded)', nonNegativeInt('--retention-bytes'))
  .option('--retention-ms <ms>', 'retention.ms (default unbounded)', nonNegativeInt('--retention-ms'))
  .option('--verbose', 'print every event (group transitions, joins, assignments, faults) as a JSON line')
  .option('--schema-registry-port <port>', 'also serve a Schema Registry (Confluent REST API) on http://<host>:<port> (0 = any free port)',
    nonNegativeInt('--schema-registry-port', 0, 65535))
  .option('--topic <name:partitions[:replication]>', 'create this topic at start (repeatable)', (v: string, all: string[]) => [...all, v],
    [] as string[])
  .action(async (o) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { runBroker, parseTopicSpec } = require('./broker') as typeof import('./broker');
    await runBroker({
      topics: (o.topic as string[]).map(parseTopicSpec),
      port: o.port, brokers: o.brokers, host: o.host, initialRebalanceDelayMs: o.initialRebalanceDelay,
      minSessionTimeoutMs: o.minSessionTimeout, retentionBytes: o.retentionBytes, retentionMs: o.retentionMs, verbose: o.verbose === true,
      schemaRegistryPort: o.schemaRegistryPort,
    });
  });

program.command('webhdfs')
  .description('a standalone WebHDFS test server (NameNode + DataNode over HTTP, as Hadoop\'s REST API), serving until interrupted')
  .option('--port <port>', 'NameNode port (Hadoop\'s dfs.namenode.http-address; 0 = any free port)', nonNegativeInt('--port', 0, 65535), 9870)
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
