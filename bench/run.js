#!/usr/bin/env node
/**
 * `npm run bench`: every benchmark with a baseline, one markdown table (figure | ours | baseline | ratio |
 * runs), raw numbers in bench/results/latest.json. Run `npm run build` first.
 *
 *   node bench/run.js [--rows 40000] [--rounds 5] [--e2e-rows 50000] [--messages 100000]
 *     [--only sql,kafka,hdfs,hdfs-e2e,e2e,mock,converters,fetch,rebalance,record]
 *     [--record-rows 300000] [--hdfs-e2e-rows 60000] [--record-compression none|lz4] [--record-before other/dist] [--sql-before other/dist]
 *     [--fetch-messages 300000] [--rr-rounds 2] [--rr-rate 30000]
 *
 * PostgreSQL figures need KAFKA_EOS_PG_URL (or --pg). The mock-broker figure needs /usr/bin/python3 with
 * confluent_kafka (librdkafka's mock is the baseline); without it that row is skipped and says so.
 * Every figure: variants interleaved in the same run, order rotated each round, ratio = median of per-round
 * ratios (> 1: ours is faster). The machine is shared: read ratios, not absolute rates.
 * Benchmarks without a baseline (settle time, memory, sticky assignor) stay separate scripts: see bench/README.md.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { execFileSync } = require('node:child_process');
const { mkdirSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { table, arg, helpAndExit } = require('./lib/figures.js');

helpAndExit(__filename);

const log = (l) => console.error(l);

function hasRdkafka() {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import confluent_kafka'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

(async () => {
  const only = new Set((arg('--only', 'sql,kafka,hdfs,hdfs-e2e,e2e,mock,converters,fetch,rebalance,record')).split(','));
  const rows = Number(arg('--rows', 40000));
  const rounds = Number(arg('--rounds', 5));
  const pgUrl = arg('--pg', process.env.KAFKA_EOS_PG_URL);
  const started = new Date();
  const figures = [];
  const notes = [];
  if (only.has('sql')) {
    log('== SQL sink');
    const mariadbUrl = arg('--mariadb', process.env.KAFKA_EOS_MARIADB_URL);
    figures.push(...await require('./sql-sink.js').runSqlSink({
      rows, batch: Number(arg('--batch', 2000)), rounds, pgUrl, mariadbUrl, log, beforeDist: arg('--sql-before') && path.resolve(arg('--sql-before')),
    }));
    if (!pgUrl) notes.push('PostgreSQL figures skipped: KAFKA_EOS_PG_URL not set');
    if (!mariadbUrl) notes.push('MariaDB figures skipped: KAFKA_EOS_MARIADB_URL not set');
  }
  if (only.has('kafka')) {
    log('== Kafka sink');
    figures.push(...await require('./kafka-sink.js').runKafkaSink({ rows, batch: Number(arg('--batch', 2000)), rounds, log }));
  }
  if (only.has('hdfs')) {
    log('== HDFS sink');
    figures.push(...await require('./hdfs-sink.js').runHdfsSink({ rows, rounds, log }));
  }
  if (only.has('hdfs-e2e')) {
    log('== HDFS end to end');
    figures.push(...await require('./hdfs-end-to-end.js').runHdfsEndToEnd({ rows: Number(arg('--hdfs-e2e-rows', 60000)), rounds: Math.max(3, Math.min(rounds, 5)), log }));
  }
  if (only.has('converters')) {
    log('== converters');
    figures.push(...await require('./converters.js').runConverters({ rows, rounds, log }));
  }
  if (only.has('e2e')) {
    log('== end to end');
    figures.push(...await require('./end-to-end.js').runEndToEnd({ rows: Number(arg('--e2e-rows', 50000)), rounds: Math.max(2, Math.min(rounds, 4)), log }));
  }
  if (only.has('fetch')) {
    log('== consumer fetch loop');
    figures.push(...await require('./consumer-fetch.js').runConsumerFetch({
      messages: Number(arg('--fetch-messages', 300000)), rounds: Math.max(2, Math.min(rounds, 3)), log,
    }));
  }
  if (only.has('record')) {
    log('== record handler vs batch handler');
    figures.push(...await require('./record-handler.js').runRecordHandler({
      rows: Number(arg('--record-rows', 300000)), rounds: Math.max(3, Math.min(rounds, 7)), compression: arg('--record-compression', 'none'),
      beforeDist: arg('--record-before') && path.resolve(arg('--record-before')), log,
    }));
  }
  if (only.has('rebalance')) {
    log('== rolling restart (group protocols)');
    const rr = await require('./rolling-restart.js').runRollingRestart({
      rate: Number(arg('--rr-rate', 30000)), rounds: Number(arg('--rr-rounds', 2)), pgUrl, log,
    });
    figures.push(...rr.figures);
  }
  if (only.has('mock')) {
    if (hasRdkafka()) {
      log('== mock broker throughput');
      figures.push(...await require('./mock-throughput.js').runMockThroughput({ messages: Number(arg('--messages', 100000)), rounds: Math.max(2, Math.min(rounds, 3)), log }));
    } else {
      notes.push('mock broker figures skipped: /usr/bin/python3 with confluent_kafka (librdkafka) not found');
    }
  }
  const md = table(figures);
  console.log(md);
  for (const n of notes) console.log(`\n${n}`);
  const dir = path.join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const machine = { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadavgAtEnd: os.loadavg(), platform: `${os.platform()} ${os.release()}` };
  writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify({
    started: started.toISOString(), finished: new Date().toISOString(), argv: process.argv.slice(2), machine, notes, table: md,
    figures,
  }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
  log(`raw numbers: ${path.relative(process.cwd(), path.join(dir, 'latest.json'))}`);
  // Child processes and pools are closed; a stray handle must not keep the command alive.
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
