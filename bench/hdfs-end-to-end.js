#!/usr/bin/env node
/**
 * HDFS end to end (Kafka → files): the exactly-once GroupConsumer with HdfsSink against the hand-written consumer a
 * careful engineer would write without kafka-eos (KafkaJS eachBatch, one JSON-lines file per fetched batch with one
 * two-step WebHDFS CREATE, lines spliced from the value bytes, no JSON check, offsets auto-committed: at-least-once,
 * and a replay after a crash rewrites files). One member each, in a fresh child process per run; the mock cluster
 * and the WebHDFS server each alone in a child process. Clocks (wall and the consumer process's CPU) run from before
 * the consumer connects until every record is durable in a file. Variants interleaved, order rotated, medians of
 * per-round ratios; the load average is printed with every run.
 *
 *   npm run build && node bench/hdfs-end-to-end.js [--rows 100000] [--rounds 5] [--flush 10000] [--before other/dist]
 *     [--profile dir]
 *
 * --profile dir: every consumer child (both variants) runs under `node --cpu-prof --cpu-prof-dir dir/<variant>`
 * (one V8 profile per run; summed per function by `node bench/lib/cpuprofile-top.js dir/<variant>`).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { fork } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const { Kafka, logLevel } = require('kafkajs');
const { startOursChild, startWebHdfsChild } = require('./lib/harness.js');
const { flightsDataset } = require('./lib/workload.js');
const { interleave, figure, table, arg, helpAndExit } = require('./lib/figures.js');

const PARTITIONS = 6;
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');


function runChild(args, env = process.env, profileDir = undefined) {
  const execArgv = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'lib', 'hdfs-e2e-child.js'), args,
      { env, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result;
    child.on('message', (m) => { result = m; });
    child.on('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`${args[0]} child exited ${code}`))));
  });
}

async function produce(bootstrap, topic, n) {
  const producer = new Kafka({ brokers: bootstrap, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  const flights = flightsDataset();
  for (let i = 0; i < n; i += 5000) {
    const messages = [];
    for (let j = i; j < Math.min(n, i + 5000); j++) messages.push({ key: String(j % 997), value: JSON.stringify({ ...flights[j % flights.length], seq: j }) });
    await producer.send({ topic, messages });
  }
  await producer.disconnect();
}

/** Exactly-once HdfsSink consumer vs the hand-written one. @returns the figures (rows/s and rows per CPU-second). */
async function runHdfsEndToEnd({ rows = 100000, rounds = 5, flush = 10000, beforeDist, profileDir, log = () => undefined } = {}) {
  const topic = 'hdfs-e2e';
  const mock = await startOursChild([[topic, PARTITIONS]], { group: { initialRebalanceDelayMs: 0 } });
  const hdfs = await startWebHdfsChild();
  let run = 0;
  try {
    await produce(mock.bootstrap, topic, rows);
    const cpu = { eos: [], raw: [], 'eos-before': [] };
    const variant = (mode) => async () => {
      const env = mode === 'eos-before' ? { ...process.env, KAFKA_EOS_BENCH_DIST: beforeDist } : process.env;
      const res = await runChild([mode === 'eos-before' ? 'eos' : mode, mock.bootstrap.join(','), topic, hdfs.url, `/bench/e2e-${mode}-${run++}`,
        String(rows), String(flush)], env, profileDir && path.join(profileDir, mode));
      cpu[mode].push(res.cpu);
      log(`    ${mode}: ${res.s.toFixed(3)} s, cpu ${res.cpu.toFixed(3)} s${res.files ? `, ${res.files} files` : ''}, load ${load()}`);
      return res.s;
    };
    const t = await interleave({ eos: variant('eos'), raw: variant('raw'), ...(beforeDist ? { 'eos-before': variant('eos-before') } : {}) }, rounds, log);
    const what = `${rows} rows, ${PARTITIONS} partitions, JSON lines, one member, child processes`;
    const base = 'hand-written KafkaJS eachBatch, one file per batch (at-least-once)';
    return [
      figure(`HDFS end to end (${what})`, 'rows/s', rows, `exactly-once + HdfsSink (flushSize ${flush})`, base, t.eos, t.raw, 1.0),
      figure('HDFS end to end, per CPU-second of the consumer process', 'rows/CPU-s', rows, 'exactly-once + HdfsSink', base, cpu.eos, cpu.raw, 1.0),
      ...(beforeDist ? [
        figure('HDFS end to end, now vs before (--before dist)', 'rows/s', rows, 'HdfsSink', 'HdfsSink before', t.eos, t['eos-before']),
        figure('HDFS end to end, now vs before, per CPU-second', 'rows/CPU-s', rows, 'HdfsSink', 'HdfsSink before', cpu.eos, cpu['eos-before']),
        figure('HDFS end to end before vs the hand-written consumer', 'rows/s', rows, 'HdfsSink before', base, t['eos-before'], t.raw),
        figure('HDFS end to end before, per CPU-second', 'rows/CPU-s', rows, 'HdfsSink before', base, cpu['eos-before'], cpu.raw),
      ] : []),
    ];
  } finally {
    await hdfs.stop();
    await mock.stop();
  }
}

module.exports = { runHdfsEndToEnd, produce };

if (require.main === module) {
  helpAndExit(__filename);
  runHdfsEndToEnd({
    rows: Number(arg('--rows', 100000)), rounds: Number(arg('--rounds', 5)), flush: Number(arg('--flush', 10000)),
    beforeDist: arg('--before') && path.resolve(arg('--before')), profileDir: arg('--profile') && path.resolve(arg('--profile')),
    log: (l) => console.error(l),
  })
    .then((f) => { console.log(table(f)); console.log(`load average at the end: ${load()}`); process.exit(0); }, (e) => { console.error(e); process.exit(1); });
}
