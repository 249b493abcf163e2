#!/usr/bin/env node
/** The `kafka-eos` command line: demo, run and broker. */
import { Command, InvalidArgumentError } from 'commander';
import { runBroker } from './broker';
import { runDemo } from './demo/demo';
import { runSink } from './run';

function nonNegativeInt(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
    return n;
  };
}

const program = new Command();
program.name('kafka-eos').description('Exactly-once Kafka consumers for Node.js, and an embedded mock Kafka cluster.');

program.command('demo')
  .description('the main job on real data: embedded 3-broker cluster → consumer group (child processes, one SIGKILLed) → exactly-once SQL sink, then verify')
  .option('--rows <n>', 'number of flight records (default: all 200000)', nonNegativeInt('--rows'))
  .option('--db <path|url>', 'SQLite file to keep, or postgresql://user@host:port/db')
  .option('--table <name>', 'table to (re)create for the demo', 'flights')
  .option('--consumers <n>', 'consumer processes', nonNegativeInt('--consumers'), 3)
  .option('--partitions <n>', 'partitions of topic flights', nonNegativeInt('--partitions'), 6)
  .option('--kills <k>', 'consumer processes to SIGKILL at seeded random points', nonNegativeInt('--kills'), 1)
  .option('--seed <s>', 'seed for the kill points', nonNegativeInt('--seed'), 42)
  .option('--session-timeout <ms>', 'consumer session timeout', nonNegativeInt('--session-timeout'), 6000)
  .option('--timeout <ms>', 'give up after this long', nonNegativeInt('--timeout'), 600000)
  .option('--quiet', 'print nothing but errors')
  .action(async (o) => {
    process.exitCode = await runDemo({
      rows: o.rows, db: o.db, table: o.table, consumers: o.consumers, partitions: o.partitions, kills: o.kills, seed: o.seed,
      sessionTimeoutMs: o.sessionTimeout, timeoutMs: o.timeout, quiet: o.quiet,
    });
  });

program.command('run')
  .description('run a sink from a JSON config file against any Kafka cluster')
  .argument('<config>', 'path of the JSON config file')
  .action(async (file: string) => {
    process.exitCode = await runSink(file);
  });

program.command('broker')
  .description('a standalone mock Kafka cluster, serving until interrupted')
  .option('--port <port>', 'port of the first broker; the others take the next ports', nonNegativeInt('--port'), 9092)
  .option('--brokers <n>', 'number of brokers', nonNegativeInt('--brokers'), 3)
  .option('--host <host>', 'address to listen on and advertise', '127.0.0.1')
  .option('--initial-rebalance-delay <ms>', 'group.initial.rebalance.delay.ms', nonNegativeInt('--initial-rebalance-delay'), 0)
  .option('--min-session-timeout <ms>', 'group.min.session.timeout.ms (default 6000, as in Kafka)', nonNegativeInt('--min-session-timeout'))
  .option('--retention-bytes <n>', 'retention.bytes per partition (default unbounded)', nonNegativeInt('--retention-bytes'))
  .option('--retention-ms <ms>', 'retention.ms (default unbounded)', nonNegativeInt('--retention-ms'))
  .option('--verbose', 'print every event (group transitions, joins, assignments, faults) as a JSON line')
  .action(async (o) => {
    await runBroker({
      port: o.port, brokers: o.brokers, host: o.host, initialRebalanceDelayMs: o.initialRebalanceDelay,
      minSessionTimeoutMs: o.minSessionTimeout, retentionBytes: o.retentionBytes, retentionMs: o.retentionMs, verbose: o.verbose === true,
    });
  });

program.parseAsync(process.argv).catch((e: Error & { code?: string }) => {
  process.stderr.write(`kafka-eos: ${e.code ? `[${e.code}] ` : ''}${e.message}\n`);
  process.exitCode = 2;
});
