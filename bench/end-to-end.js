#!/usr/bin/env node
/**
 * End to end: the embedded mock cluster into SQLite, kafka-eos's exactly-once GroupConsumer
 * against raw KafkaJS eachBatch doing a raw knex insert of the same rows, one member each,
 * in child processes, alternating rounds in the same run. Also the consumer's peak RSS as the
 * input grows (it streams; it must not buffer a topic).
 *
 *   npm run build && node bench/end-to-end.js [--rows 200000] [--rounds 3]
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { fork } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Kafka, logLevel } = require('kafkajs');
const { MockCluster } = require('../dist/mock-broker');
const { loadFlights } = require('../dist/cli/demo/dataset');

const arg = (name, def) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : def; };
const ROWS = Number(arg('--rows', 200000));
const ROUNDS = Number(arg('--rounds', 3));

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

(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-e2e-'));
  const cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0 } });
  try {
    await produce(cluster, 'e2e', ROWS);
    const times = { raw: [], eos: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const mode of r % 2 === 0 ? ['raw', 'eos'] : ['eos', 'raw']) {
        const res = await runChild(mode, cluster, 'e2e', path.join(dir, `${mode}-${r}.sqlite`), ROWS);
        times[mode].push(res.ms);
      }
    }
    const rate = (ms) => Math.round(ROWS / (ms / 1000));
    const best = (a) => Math.min(...a);
    console.log(`end to end, ${ROWS} rows, 6 partitions, best of ${ROUNDS}: raw KafkaJS eachBatch + knex ${rate(best(times.raw))} rows/s | kafka-eos exactly-once ${rate(best(times.eos))} rows/s | ratio ${(best(times.raw) / best(times.eos)).toFixed(2)}x`);

    const sizes = [ROWS / 4, ROWS / 2, ROWS].map(Math.floor);
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
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });
