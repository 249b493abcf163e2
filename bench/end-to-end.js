#!/usr/bin/env node
/**
 * End to end: the embedded mock cluster into SQLite, kafka-eos's exactly-once GroupConsumer
 * against raw KafkaJS eachBatch doing a raw knex insert of the same rows, one member each,
 * in child processes, alternating rounds in the same run (median of per-round ratios). Both clocks
 * start in the child before anything connects and stop when the last row is written. With --memory,
 * also the consumer's peak RSS as the input grows (it streams; it must not buffer a topic).
 *
 *   npm run build && node bench/end-to-end.js [--rows 200000] [--rounds 3] [--memory]
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { fork } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Kafka, logLevel } = require('kafkajs');
const { MockCluster } = require('../dist/mock-broker');
const { loadFlights } = require('../dist/cli/demo/dataset');

const { figure, table, arg, helpAndExit } = require('./lib/figures.js');

function runChild(mode, cluster, topic, db, n, execArgv = ['--expose-gc']) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'e2e-consumer.js'), [mode, cluster.bootstrap.join(','), topic, db, String(n)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    let result;
    child.on('message', (m) => { result = m; });
    child.on('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`${mode} child exited ${code}`))));
  });
}

async function produce(cluster, topic, n) {
  cluster.createTopic(topic, 6);
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const flights = loadFlights(Math.min(n, 200000));
  for (let i = 0; i < n; i += 5000) {
    const chunk = [];
    for (let j = i; j < Math.min(n, i + 5000); j++) { const f = flights[j % flights.length]; chunk.push({ key: String(f.distance), value: JSON.stringify({ ...f, seq: j }) }); }
    await producer.send({ topic, messages: chunk });
  }
  await producer.disconnect();
}

/** Exactly-once consumer vs raw KafkaJS + knex, end to end into SQLite. @returns one figure. */
async function runEndToEnd({ rows = 100000, rounds = 3, memory = false, log = () => undefined } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-e2e-'));
  const cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0 } });
  try {
    await produce(cluster, 'e2e', rows);
    const times = { raw: [], eos: [] };
    for (let r = 0; r < rounds; r++) {
      for (const mode of r % 2 === 0 ? ['raw', 'eos'] : ['eos', 'raw']) {
        const res = await runChild(mode, cluster, 'e2e', path.join(dir, `${mode}-${r}.sqlite`), rows);
        times[mode].push(res.ms / 1000);
        log(`  round ${r + 1}/${rounds} ${mode}: ${(res.ms / 1000).toFixed(3)} s`);
      }
    }
    const out = [figure(`end to end into SQLite (${rows} rows, 6 partitions, one member, child processes)`, 'rows/s', rows,
      'exactly-once GroupConsumer + SqlSink', 'KafkaJS eachBatch + knex insert (no offsets in the DB)', times.eos, times.raw)];
    if (memory) await memoryRuns(cluster, dir, rows);
    return out;
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function memoryRuns(cluster, dir, rows) {
  const sizes = [rows / 4, rows / 2, rows].map(Math.floor);
  const rss = [];
  const heap = [];
  for (const n of sizes) {
    const topic = `mem-${n}`;
    await produce(cluster, topic, n);
    const res = await runChild('eos', cluster, topic, path.join(dir, `mem-${n}.sqlite`), n);
    rss.push(res.maxRssKiB);
    heap.push(res.heapAfterGcMiB);
  }
  console.log(`consumer peak RSS by input size: ${sizes.map((n, i) => `${n} rows → ${Math.round(rss[i] / 1024)} MiB`).join(', ')}; growth ${(rss[2] / rss[0]).toFixed(2)}x for ${sizes[2] / sizes[0]}x the input`);
  console.log(`consumer heap after the run (after GC): ${heap.map((h) => `${h.toFixed(1)} MiB`).join(', ')}`);
  // Streaming, not buffering: the largest input again, with V8's old space capped at 64 MiB.
  const capped = await runChild('eos', cluster, `mem-${sizes[2]}`, path.join(dir, 'capped.sqlite'), sizes[2], ['--expose-gc', '--max-old-space-size=64']);
  console.log(`with --max-old-space-size=64: ${sizes[2]} rows consumed, peak RSS ${Math.round(capped.maxRssKiB / 1024)} MiB (${(capped.maxRssKiB / rss[0]).toFixed(2)}x the ${sizes[0]}-row run)`);
}

module.exports = { runEndToEnd };

if (require.main === module) {
  helpAndExit(__filename);
  runEndToEnd({ rows: Number(arg('--rows', 200000)), rounds: Number(arg('--rounds', 3)), memory: process.argv.includes('--memory'), log: (l) => console.error(l) })
    .then((f) => console.log(table(f)), (e) => { console.error(e); process.exit(1); });
}
