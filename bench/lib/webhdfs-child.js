// Child process for the HDFS sink benchmark: the embedded WebHDFS server alone in its own process, as a
// NameNode and DataNode are in a real cluster (so the sink's CPU and the server's do not share one thread).
// Sends { url } when listening; exits on 'stop' (removing its temp directory).
/* eslint-disable @typescript-eslint/no-require-imports */
const { WebHdfsServer } = require('../../dist/webhdfs-server');

WebHdfsServer.start().then((server) => {
  process.on('message', async (m) => {
    if (m === 'stop') { await server.stop(); process.exit(0); }
  });
  process.send({ url: server.url });
}, (e) => { console.error(e); process.exit(1); });
