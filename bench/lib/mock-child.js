// Child process for the mock-broker benchmarks: our mock cluster alone in its own process, like
// librdkafka's mock in its Python process. argv[2] is JSON: { options, topics: [[name, partitions]] }.
// Sends { bootstrap } when listening; answers 'stats' with memory figures; exits on 'stop'.
/* eslint-disable @typescript-eslint/no-require-imports */
const { MockCluster } = require('../../dist/mock-broker');

async function main() {
  const { options, topics } = JSON.parse(process.argv[2] || '{}');
  const cluster = await MockCluster.start({ brokers: 3, ...options });
  for (const [name, partitions] of topics || []) cluster.createTopic(name, partitions, Math.min(3, partitions));
  process.on('message', async (m) => {
    if (m === 'stats') {
      if (global.gc) global.gc();
      const mem = process.memoryUsage();
      process.send({
        maxRssBytes: process.resourceUsage().maxRSS * 1024, rssBytes: mem.rss, heapUsedBytes: mem.heapUsed, externalBytes: mem.arrayBuffers,
        partitions: cluster.partitions(),
      });
    } else if (m === 'stop') {
      await cluster.stop();
      process.exit(0);
    }
  });
  process.send({ bootstrap: cluster.bootstrap });
}
main().catch((e) => { console.error(e); process.exit(1); });
