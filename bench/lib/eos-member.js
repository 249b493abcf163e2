// Child process for bench/rolling-restart.js: one exactly-once member of the group, sinking into SQL (PostgreSQL when
// `db` is a postgresql:// URL, else SQLite), under the group protocol asked for (eager, cooperative, consumer).
// Reports over IPC: { type: 'batch', p, n, next, at } for every batch with records; { type: 'first', ms } once, the
// time from start() to its first batch; { type: 'owned', partitions } after every change; { type: 'revoked', n, at }
// for every revocation (n partitions); { type: 'opened', n, at } for every sink open() (n partitions whose stored
// positions are read: a reopen of a partition the member kept is what incremental rebalancing saves). Stops (leaving
// the group) on 'stop', then exits 0.
/* eslint-disable @typescript-eslint/no-require-imports */
const path = require('node:path');

const config = JSON.parse(process.argv[2]);
// `dist`: another build of the package (bench/lib/baseline-build.js), e.g. the consumer before issue 21.
const { createGroupConsumer, SqlSink } = require(config.dist ? path.join(config.dist, 'dist') : '../../dist');
const send = (m) => { if (process.connected) process.send(m); };

async function main() {
  const pg = config.db.startsWith('postgresql://');
  const sink = new SqlSink({
    knex: pg
      ? { client: 'pg', connection: config.db, pool: { min: 1, max: 4 } }
      : { client: 'sqlite3', connection: { filename: config.db } },
    table: config.table, offsetsTable: `${config.table}_offsets`, mode: 'insert', autoCreate: true,
    mapping: { columns: { v: { path: 'v', type: 'string' } } },
  });
  const open = sink.open.bind(sink);
  sink.open = async (groupId, partitions) => {
    send({ type: 'opened', n: partitions.length, at: Date.now() });
    return open(groupId, partitions);
  };
  const protocol = config.protocol === 'consumer'
    ? { groupProtocol: 'consumer' }
    : {
      sessionTimeoutMs: config.sessionMs, heartbeatIntervalMs: config.heartbeatMs,
      ...(config.protocol === 'cooperative' ? { assignors: ['cooperative-sticky'] } : {}),
    };
  const consumer = createGroupConsumer({
    brokers: config.bootstrap, clientId: `member-${process.pid}`, groupId: config.groupId, topics: [config.topic], delivery: 'exactly-once',
    sink, maxWaitTimeMs: 100, commitToKafkaForMonitoring: false, partitionsConsumedConcurrently: 6, ...protocol,
  });
  const t0 = performance.now();
  let first = true;
  consumer.on('batch', (b) => {
    if (b.records === 0) return;
    if (first) { first = false; send({ type: 'first', ms: performance.now() - t0 }); }
    send({ type: 'batch', p: b.partition, n: b.records, next: Number(b.nextOffset), at: Date.now() });
  });
  const owned = () => send({ type: 'owned', partitions: consumer.assignment().map((tp) => tp.partition).sort((a, b) => a - b) });
  consumer.on('assigned', owned);
  consumer.on('revoked', (e) => { send({ type: 'revoked', n: e.partitions.length, at: Date.now() }); owned(); });
  consumer.on('lost', owned);
  consumer.on('error', (e) => send({ type: 'error', message: e.message }));
  process.on('message', async (m) => {
    if (m !== 'stop') return;
    await consumer.stop();
    await sink.close();
    process.exit(0);
  });
  await consumer.start();
}
main().catch((e) => { console.error(e); process.exit(1); });
