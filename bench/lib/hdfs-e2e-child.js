// Child process for bench/hdfs-end-to-end.js: one member consumes the topic into HDFS (JSON lines with the Kafka
// coordinates) and reports wall and CPU time from before it connects until every record is durable in a file.
// Modes: `eos` (exactly-once GroupConsumer + HdfsSink, files committed every `flush` records per partition and on
// revoke at stop()) and `raw` (the hand-written consumer: KafkaJS eachBatch, one file per fetched batch written with
// one two-step WebHDFS CREATE, lines spliced from the value bytes, offsets auto-committed by KafkaJS: at-least-once).
/* eslint-disable @typescript-eslint/no-require-imports */
const { Kafka, logLevel } = require('kafkajs');
// KAFKA_EOS_BENCH_DIST: another build's dist/ (e.g. the code before a change, measured in the same run).
const DIST = process.env.KAFKA_EOS_BENCH_DIST ?? '../../dist';
const { createGroupConsumer } = require(DIST);
const { HdfsSink } = require(`${DIST}/sinks/hdfs/hdfs-sink`);

const [mode, bootstrap, topic, hdfsUrl, dir, total, flush] = process.argv.slice(2);
const N = Number(total);
const brokers = bootstrap.split(',');
const groupId = `bench-hdfs-${mode}-${process.pid}`;

async function raw() {
  const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let done = 0;
  let files = 0;
  const finished = new Promise((resolve, reject) => {
    consumer.run({
      eachBatch: async ({ batch }) => {
        if (batch.messages.length === 0) return;
        // The same line as the sink's: {"_topic":..,"_partition":..,"_offset":"..","_timestamp":..,"value":<value bytes>}
        const head = Buffer.from(`{"_topic":${JSON.stringify(batch.topic)},"_partition":${batch.partition},"_offset":"`);
        const parts = [];
        for (const m of batch.messages) {
          parts.push(head, Buffer.from(`${m.offset}","_timestamp":${m.timestamp},"value":`), m.value, CLOSE);
        }
        const file = `${dir}/partition=${batch.partition}/${batch.firstOffset()}-${batch.lastOffset()}.jsonl`;
        const nn = await fetch(`${hdfsUrl}/webhdfs/v1${file}?op=CREATE&overwrite=true`, { method: 'PUT', redirect: 'manual' });
        await nn.arrayBuffer();
        const dn = await fetch(nn.headers.get('location'), { method: 'PUT', body: Buffer.concat(parts) });
        await dn.arrayBuffer();
        if (dn.status !== 201) reject(new Error(`CREATE answered ${dn.status}`));
        files += 1;
        done += batch.messages.length;
        if (done >= N) resolve();
      },
    });
  });
  await finished;
  await consumer.disconnect();
  return { files };
}
const CLOSE = Buffer.from('}\n');

async function eos() {
  const sink = new HdfsSink({ url: hdfsUrl, topicsDir: dir, flushSize: Number(flush), includeKafkaCoordinates: true, format: { type: 'jsonl' } });
  const consumer = createGroupConsumer({ brokers, groupId, topics: [topic], delivery: 'exactly-once', sink, maxWaitTimeMs: 100, commitToKafkaForMonitoring: false });
  let done = 0;
  const finished = new Promise((resolve) => consumer.on('batch', (b) => { done += b.records; if (done >= N) resolve(); }));
  await consumer.start();
  await finished;
  await consumer.stop(); // revokes: the files still open are committed
  await sink.close();
  return {};
}

const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
// Under --cpu-prof: where the clock starts, in the profile's timebase (µs of the monotonic clock), for
// bench/lib/cpuprofile-top.js to count only the samples inside the clock (not module loading).
const profDir = process.execArgv.includes('--cpu-prof') && process.execArgv[process.execArgv.indexOf('--cpu-prof-dir') + 1];
if (profDir) {
  require('node:fs').mkdirSync(profDir, { recursive: true });
  require('node:fs').writeFileSync(`${profDir}/clock-${process.pid}.json`, JSON.stringify({ t0: Number(t0 / 1000n) }));
}
(mode === 'raw' ? raw() : eos()).then((extra) => {
  const c = process.cpuUsage(c0);
  const result = { s: Number(process.hrtime.bigint() - t0) / 1e9, cpu: (c.user + c.system) / 1e6, ...extra };
  // Forked by bench/hdfs-end-to-end.js (an IPC channel); run by bench/instructions.js under valgrind (none: stdout).
  if (process.send) process.send(result);
  else console.log(JSON.stringify(result));
  process.exit(0);
}, (e) => { console.error(e); process.exit(1); });
