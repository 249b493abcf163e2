// Child process for the mock-broker benchmarks: our mock cluster alone in its own process, like
// librdkafka's mock in its Python process. argv[2] is JSON: { options, topics: [[name, partitions]] }.
// Sends { bootstrap } when listening; answers 'stats' with memory figures and 'hw' with the high watermarks; on
// { type: 'produce', topic, rate, partitions } appends `rate` records/s itself (steady input); exits on 'stop'.
/* eslint-disable @typescript-eslint/no-require-imports */
const { MockCluster } = require('../../dist/mock-broker');

async function main() {
  const { options, topics } = JSON.parse(process.argv[2] || '{}');
  const cluster = await MockCluster.start({ brokers: 3, ...options });
  for (const [name, partitions] of topics || []) cluster.createTopic(name, partitions, Math.min(3, partitions));
  let produceTimer = null;
  process.on('message', async (m) => {
    if (m === 'stats') {
      if (global.gc) global.gc();
      const mem = process.memoryUsage();
      process.send({
        maxRssBytes: process.resourceUsage().maxRSS * 1024, rssBytes: mem.rss, heapUsedBytes: mem.heapUsed, externalBytes: mem.arrayBuffers,
        partitions: cluster.partitions(),
      });
    } else if (m && m.type === 'produce') {
      // Steady input without a client: `rate` records/s of `size` bytes, appended every 10 ms, round-robin over partitions.
      const { topic, rate, size = 100, partitions } = m;
      // A JSON object of `size` bytes: {"v":"xxx…"}
      const value = Buffer.from(JSON.stringify({ v: 'x'.repeat(Math.max(0, size - 8)) }));
      let carry = 0;
      let next = 0;
      produceTimer = setInterval(() => {
        carry += rate / 100;
        const n = Math.floor(carry);
        carry -= n;
        const per = Array.from({ length: partitions }, () => []);
        for (let i = 0; i < n; i++) per[(next++) % partitions].push({ value });
        per.forEach((records, p) => { if (records.length > 0) cluster.append(topic, p, records); });
      }, 10);
    } else if (m === 'hw') {
      process.send({ hw: cluster.partitions().map((p) => ({ topic: p.topic, partition: p.partition, highWatermark: Number(p.highWatermark) })) });
    } else if (m === 'stop') {
      if (produceTimer) clearInterval(produceTimer);
      await cluster.stop();
      process.exit(0);
    }
  });
  process.send({ bootstrap: cluster.bootstrap });
}
main().catch((e) => { console.error(e); process.exit(1); });
