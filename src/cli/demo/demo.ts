/**
 * `kafka-eos demo`: the main job end to end on real data.
 *
 * 1. Starts the embedded 3-broker cluster (or connects to --brokers: cluster.ts) and creates topic `flights` (6 partitions).
 * 2. Starts a group of consumer processes (default 3), each sinking exactly once into SQL.
 * 3. Produces the flight records from a producer process of its own (producer.ts), keyed by
 *    distance so that order within a key is kept; while kill points are pending, production stays
 *    just ahead of consumption and short of the last records (pacing.ts), so that every kill
 *    interrupts real work and the run cannot finish before its planned kills.
 * 4. SIGKILLs consumers at seeded points (default one, midway): no LeaveGroup, no commit.
 *    The group rebalances when the session times out and the survivors finish.
 * 5. Verifies the table against the source file and exits non-zero on any failure.
 * 6. Prints where the time went (phases.ts): setup, produce, worker start-up, settle, consume,
 *    recovery after each kill (bounded by --session-timeout), verify.
 */
import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SingleBar } from 'cli-progress';
import knexFactory from 'knex';
import { assertDriverInstalled } from '../../sinks/sql/dialect';
import type { MockCluster } from '../../testing/mock-broker';
import { mulberry32 } from '../../util/prng';
import { SqlSink } from '../../sinks/sql';
import { SqlOffsetStore } from '../../sinks/sql/offset-store';
import { Flight, loadFlights } from './dataset';
import { databaseName, FLIGHT_MAPPING, isMysql, isPostgres, knexConfig } from './db';
import { dropOwnDemoTable, markDemoTable, validateDemoTable } from './tables';
import { PhaseTimes } from './phases';
import { paceWindow, planKills, productionAllowance } from './pacing';
import type { AllowMessage, DemoCompression, ProducerConfig, ProducerMessage } from './producer';
import { formatChecks, verify } from './verify';
import type { Check } from './verify';
import type { DemoGroupProtocol, WorkerConfig, WorkerMessage } from './worker';
import { startHdfsDemo, type HdfsDemo } from './hdfs';
import {
  checkConnectOptions, CONNECT_COORDINATES, formatConnectFiles, spawnConnectWorker, sunkRows, writeConnectFiles, type DemoConnectFiles,
} from './connect';
import { startDemoCluster, type DemoCluster } from './cluster';
import { OUTPUT_TOPIC, verifyKafkaOutput, type KafkaOutputSummary } from './kafka';
import { KafkaEosError } from '../../errors';
import { timelineFromMockEvents, type TimelineEvent } from '../../timeline/model';
import { renderTimelineHtml } from '../../timeline/render';

export interface DemoOptions {
  rows?: number;
  db?: string;
  consumers: number;
  /**
   * Table to (re)create for the demo (default 'flights'). The demo drops it only if it created it
   * (see tables.ts); an existing table it did not create, or an offsets table, is refused
   * (DemoTableError DEMO_TABLE_REFUSED) before anything is started.
   */
  table?: string;
  partitions: number;
  kills: number;
  seed: number;
  sessionTimeoutMs: number;
  /** Give up after this long, ms. */
  timeoutMs: number;
  quiet?: boolean;
  /**
   * Where the consumers sink: 'sql' (default), 'hdfs' (the embedded WebHDFS server, or `hdfs`) or 'kafka' (KafkaSink: the
   * topic `flights-out`, one transaction per write with the consumed offsets, verified read_committed: kafka.ts).
   */
  sink?: 'sql' | 'hdfs' | 'kafka';
  /** NameNode URL for `sink: 'hdfs'` (default: the embedded WebHDFS server). */
  hdfs?: string;
  /** Write the group's rebalance timeline (HTML + SVG, from the mock's event log and the kills) here at the end. */
  timeline?: string;
  /** The producer's compression codec (default 'none'); zstd needs Node.js 22.15+ to compress. */
  compression?: DemoCompression;
  /**
   * The consumers' group protocol (default 'classic'): classic eager (range), cooperative (KIP-429, cooperative-sticky)
   * or consumer (KIP-848; the cluster's session timeout is `sessionTimeoutMs`).
   */
  groupProtocol?: DemoGroupProtocol;
  /**
   * Run the consumers the Kafka Connect way (connect.ts): write a worker and a JDBC sink connector `.properties` into a
   * work directory, print them, and run each consumer process as `kafka-eos run <worker> <connector>`. SQL sink and
   * classic protocol only (ConfigError CONFIG_INVALID otherwise).
   */
  connect?: boolean;
  /**
   * Run against this external cluster (bootstrap `host:port` list: a `kafka-eos broker` process, or Apache Kafka) instead of
   * the embedded one. The demo's topics must not exist there (DemoTopicError DEMO_TOPIC_REFUSED). The group settings are
   * the cluster's own (group.min.session.timeout.ms must admit `sessionTimeoutMs`); the checks that read the embedded
   * mock's state (stored codec, generations, --timeline) are not made.
   */
  brokers?: string[];
}

const TOPIC = 'flights';
const CODEC_IDS: Record<DemoCompression, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

/** That the topic's batches are stored with the codec the producer was given (read from the cluster: attributes bits 0-2). */
function codecCheck(cluster: MockCluster, topic: string, partitions: number, codec: DemoCompression): Check {
  const used = new Set<number>();
  for (let p = 0; p < partitions; p++) for (const b of cluster.inspect.batches(topic, p)) used.add(b.bytes.readInt16BE(21) & 7);
  const names = [...used].sort().map((id) => Object.keys(CODEC_IDS).find((k) => CODEC_IDS[k as DemoCompression] === id) ?? String(id));
  const actual = names.join(', ');
  return { name: 'batches stored with the producer\'s codec', expected: codec, actual, pass: actual === codec };
}
const OFFSETS_TABLE = 'kafka_eos_offsets';


interface Worker {
  id: number;
  child: ChildProcess;
  partitions: number[];
  state: 'running' | 'killed' | 'exited';
}

export async function runDemo(o: DemoOptions): Promise<number> {
  const log = (s: string) => { if (!o.quiet) process.stdout.write(`${s}\n`); };
  const TABLE = validateDemoTable(o.table ?? 'flights', OFFSETS_TABLE);
  checkConnectOptions(o);
  if (o.brokers && o.timeline) {
    throw new KafkaEosError('CONFIG_INVALID', '--timeline needs the embedded cluster (it reads the mock\'s event log): '
      + 'drop --brokers or --timeline');
  }
  const started = Date.now();
  // Node's start-up and loading the CLI's modules happened before runDemo (npx's own start-up before that, in another process).
  const startupSeconds = process.uptime(); // s since this Node process started
  const phases = new PhaseTimes();
  // What the setup makes: the SQL sink's table, or the HDFS directory, or the Kafka sink's output topic.
  const setupPhase =
    `setup (${o.sink === 'kafka' ? 'cluster, topics' : o.sink === 'hdfs' ? 'WebHDFS, cluster, topic' : 'table, cluster, topic'})`;
  phases.start(setupPhase, started);
  const flights: Flight[] = loadFlights(o.rows);
  const N = flights.length;
  const db = o.db ?? path.join(os.tmpdir(), `kafka-eos-demo-${process.pid}.sqlite`);
  const keepDb = o.db !== undefined;
  const groupId = `kafka-eos-demo-${Date.now()}-${process.pid}`;
  const random = mulberry32(o.seed);
  const killAt = planKills(N, o.kills, random);
  const hdfs: HdfsDemo | null = o.sink === 'hdfs' ? await startHdfsDemo(o.hdfs, groupId) : null;
  const toKafka = o.sink === 'kafka';
  const target = hdfs ? hdfs.description
    : toKafka ? `Kafka topic ${OUTPUT_TOPIC} (KafkaSink: one transaction per write with the consumed offsets)` : databaseName(db);
  const codec = o.compression ?? 'none';
  log(`kafka-eos demo: ${N} flight records${codec === 'none' ? '' : ` (${codec} batches)`} → ${o.partitions} partitions`
    + `${o.brokers ? ` on ${o.brokers.join(',')}` : ''} → ${o.consumers} consumer processes → ${target}`);
  log(`seed ${o.seed}; SIGKILL at rows sunk ≥ ${killAt.join(', ') || '(none)'}; group protocol ${o.groupProtocol ?? 'classic'}`);

  // Only the SQL sink's demo opens a database: --sink kafka and --sink hdfs run without the sqlite3 package. A missing
  // driver is DRIVER_MISSING (named), not knex's own "run npm install" error.
  const sqlDemo = !hdfs && !toKafka;
  if (sqlDemo) assertDriverInstalled(String(knexConfig(db).client));
  const sqlKnex = sqlDemo ? knexFactory(knexConfig(db)) : null;
  if (sqlKnex) {
    const knex = sqlKnex;
    try {
      // Before anything else: the demo only drops a table it created itself.
      await dropOwnDemoTable(knex, TABLE);
      await markDemoTable(knex, TABLE); // first: a crash before the CREATE leaves a record, not an orphan table
      // --connect: the JDBC sink connector creates the table from the record schema (auto.create).
      const setup = new SqlSink({
        knex, table: TABLE, mode: 'insert', mapping: FLIGHT_MAPPING, autoCreate: true, offsetsTable: OFFSETS_TABLE,
      });
      if (!o.connect) await setup.open(groupId, []);
      else await new SqlOffsetStore({ knex, table: OFFSETS_TABLE }).ensureTable(); // the demo reads positions from the start
    } catch (e) {
      await sqlKnex.destroy();
      if (!keepDb) for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
      throw e;
    }
  }
  const protocol = o.groupProtocol ?? 'classic';
  const heartbeatIntervalMs = Math.max(100, Math.floor(o.sessionTimeoutMs / 6));
  let cluster: DemoCluster;
  try {
    cluster = await startDemoCluster(o.brokers, { sessionTimeoutMs: o.sessionTimeoutMs, heartbeatIntervalMs });
  } catch (e) {
    await Promise.allSettled([sqlKnex?.destroy(), hdfs?.stop()]);
    if (!keepDb) for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
    throw e;
  }
  const embedded = cluster.embedded;
  const workers: Worker[] = [];
  const killMarks: (TimelineEvent & { clientId?: string })[] = [];
  let bar: SingleBar | null = null;
  try {
    // --sink kafka: as many output partitions as input ones (each output record goes to its source record's partition number).
    const output = toKafka ? [{ topic: OUTPUT_TOPIC, partitions: o.partitions }] : [];
    await cluster.createTopics([{ topic: TOPIC, partitions: o.partitions }, ...output]);
    if (toKafka) {
      log(`output topic: ${OUTPUT_TOPIC} (keys "<source partition>:<source offset>"; read it with isolation.level=read_committed)`);
    }

    /** Records sunk: the sum of the partitions' positions the consumers reported (a record re-sunk after a kill counts once). */
    let sunk = 0;
    const positions = new Map<number, number>();
    let fenced = 0;
    let kills = 0;
    const errors: string[] = [];
    const workerConfig: WorkerConfig = {
      bootstrap: cluster.bootstrap, groupId, topic: TOPIC, db, table: TABLE, hdfs: hdfs?.sinkConfig,
      // A SIGKILLed member's open transaction holds its partitions' committed offsets (require_stable) and the output's LSO
      // until the coordinator aborts it: bounded here like the session timeout.
      kafka: toKafka ? { outputTopic: OUTPUT_TOPIC, transactionTimeoutMs: o.sessionTimeoutMs } : undefined,
      sessionTimeoutMs: o.sessionTimeoutMs, heartbeatIntervalMs, groupProtocol: protocol,
    };
    let connectFiles: DemoConnectFiles | null = null;
    if (o.connect) {
      connectFiles = writeConnectFiles({
        dir: mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-demo-connect-')), bootstrap: cluster.bootstrap, db, table: TABLE,
        topic: TOPIC, groupId, sessionTimeoutMs: o.sessionTimeoutMs, heartbeatIntervalMs,
      });
      log(formatConnectFiles(connectFiles));
    }
    const allPartitions = o.partitions;
    const killedAt: number[] = [];
    /** After a kill: recovered once the running members own every partition again. */
    const checkRecovery = () => {
      const owned = new Set(workers.filter((w) => w.state === 'running').flatMap((w) => w.partitions));
      if (owned.size < allPartitions) return;
      if (!settled) { settled = true; phases.end('settle (first assignment of every partition)'); }
      while (recovered < killedAt.length) {
        recovered++;
        phases.end(`recovery after kill ${recovered}`, `session timeout ${(o.sessionTimeoutMs / 1000).toFixed(1)} s`);
      }
    };
    let settled = false;
    let recovered = 0;
    let firstReady = true;
    const spawnWorker = () => {
      const id = workers.length + 1;
      const child = connectFiles
        ? spawnConnectWorker(connectFiles, { owned: (partitions) => { w.partitions = partitions; checkRecovery(); } })
        : fork(path.join(__dirname, 'worker.js'), [JSON.stringify(workerConfig)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const w: Worker = { id, child, partitions: [], state: 'running' };
      child.on('message', (m: WorkerMessage) => {
        if (m.type === 'ready') {
          if (firstReady) { firstReady = false; phases.add('worker start-up (node + require, first)', m.loadMs / 1000); }
        } else if (m.type === 'owned') { w.partitions = m.partitions; checkRecovery(); }
        else if (m.type === 'batch') {
          const next = Number(m.nextOffset);
          const before = positions.get(m.partition) ?? 0;
          if (next > before) { positions.set(m.partition, next); sunk += next - before; allowProduction(); }
        }
        else if (m.type === 'fenced') fenced++;
        else if (m.type === 'error') errors.push(`consumer ${id}: ${m.message}`);
      });
      child.on('exit', () => { if (w.state === 'running') w.state = 'exited'; });
      workers.push(w);
    };
    phases.end(setupPhase);

    // The producer runs in a process of its own. While kill points are pending it stays at most
    // `window` records ahead of what is sunk (and of the next kill point), so that a consumer
    // killed midway always leaves work that only a rebalance can hand over, and it never sends the
    // last records, so that the run cannot finish before a kill (pacing.ts); then it runs free.
    const window = paceWindow(N, o.kills);
    const producerConfig: ProducerConfig = {
      bootstrap: cluster.bootstrap, topic: TOPIC, rows: N, compression: o.compression ?? 'none', envelope: o.connect,
    };
    const producerChild = fork(
      path.join(__dirname, 'producer.js'), [JSON.stringify(producerConfig)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    let allowedUpTo = -1;
    const allowProduction = () => {
      const upTo = productionAllowance(N, sunk, window, killAt[kills]);
      if (upTo === allowedUpTo || !producerChild.connected) return;
      allowedUpTo = upTo;
      producerChild.send({ type: 'allow', upTo } satisfies AllowMessage);
    };
    const produceDone = new Promise<void>((resolve, reject) => {
      producerChild.on('message', (m: ProducerMessage) => {
        if (m.type === 'done') {
          phases.end('produce', `${N} records from a producer process${o.kills > 0 ? ', paced while kills were pending' : ''}`);
          resolve();
        } else if (m.type === 'error') reject(new Error(`producer: ${m.message}`));
      });
      producerChild.on('exit', (code) => reject(new Error(`producer exited with code ${code}`)));
    });
    produceDone.catch(() => undefined);
    phases.start('produce');
    phases.start('settle (first assignment of every partition)');
    for (let i = 0; i < o.consumers; i++) spawnWorker();
    allowProduction();

    const members = () => workers.map((w) => `c${w.id}${w.state === 'running' ? `[${w.partitions.join(',')}]` : `(${w.state})`}`).join(' ');
    bar = o.quiet ? null : new SingleBar({
      format: 'sunk {value}/{total} rows | {rate} rows/s | {members}',
      noTTYOutput: true, notTTYSchedule: 2000, hideCursor: true,
    });
    bar?.start(N, 0, { rate: 0, members: members() });

    const consumeStart = Date.now();
    const deadline = started + o.timeoutMs;
    let produced = false;
    void produceDone.then(() => { produced = true; }, (e: Error) => { errors.push(e.message); });
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      // `kafka-eos run` has no channel to the demo: what it sunk is what its transactions stored.
      if (connectFiles) { sunk = await sunkRows(sqlKnex!, OFFSETS_TABLE, groupId, TOPIC); allowProduction(); }
      const elapsed = (Date.now() - consumeStart) / 1000;
      bar?.update(Math.min(sunk, N), { rate: Math.round(sunk / Math.max(elapsed, 0.001)), members: members() });
      // At most one kill per tick, so that every kill point is a distinct moment.
      if (kills < killAt.length && sunk >= killAt[kills]) {
        // Kill only a member that owns partitions, so every kill interrupts real work.
        const live = workers.filter((w) => w.state === 'running' && w.partitions.length > 0);
        const victim = live[Math.floor(random() * live.length)];
        if (victim) {
          victim.state = 'killed';
          victim.child.kill('SIGKILL');
          killMarks.push({
            ts: Date.now(), kind: 'kill', clientId: `demo-worker-${victim.child.pid}`,
            label: `SIGKILL consumer ${victim.id} (pid ${victim.child.pid}, partitions ${victim.partitions.join(',')})`,
          });
          kills++;
          killedAt.push(Date.now());
          phases.start(`recovery after kill ${kills}`);
          allowProduction();
          bar?.update({ members: members() });
          if (workers.filter((w) => w.state === 'running').length < 2) spawnWorker();
        }
      }
      if (produced) {
        const hw = await cluster.highWatermarks(TOPIC);
        const rows = hdfs
          ? [...(await hdfs.positions([...hw.keys()]))].map(([partition, next]) => ({ partition, next_offset: next }))
          : toKafka ? [...(await groupOffsets(cluster, groupId))].map(([partition, next]) => ({ partition, next_offset: next }))
          : await sqlKnex!(OFFSETS_TABLE).where({ group_id: groupId, topic: TOPIC }).select('partition', 'next_offset');
        const done = rows.length === hw.size && rows.every((r) => Number(r.next_offset) === hw.get(Number(r.partition)));
        if (done) break;
      }
      if (Date.now() > deadline) {
        errors.push(`timed out after ${o.timeoutMs} ms with ${sunk}/${N} rows sunk`);
        break;
      }
      if (workers.every((w) => w.state !== 'running')) {
        errors.push('every consumer process has exited');
        break;
      }
      if (errors.some((e) => e.startsWith('producer'))) break;
    }
    if (producerChild.exitCode === null && producerChild.signalCode === null) producerChild.kill('SIGKILL');
    bar?.update(Math.min(sunk, N), { members: members() });
    bar?.stop();
    bar = null;
    const consumeSeconds = (Date.now() - consumeStart) / 1000;
    phases.add(
      'consume (workers started → every offset stored)', consumeSeconds, kills > 0 ? `includes the recoveries after kills` : undefined,
    );

    await stopWorkers(workers);
    phases.start('verify');
    const hw = await cluster.highWatermarks(TOPIC);
    const verified = hdfs ? await hdfs.verify(TOPIC, flights, hw) : null;
    // --sink kafka: a SIGKILLed member's transaction holds the output's LSO until its timeout (the session timeout here).
    const kafkaVerified = toKafka
      ? await verifyKafkaOutput(cluster.bootstrap, TOPIC, flights, await groupOffsets(cluster, groupId), 2 * o.sessionTimeoutMs + 30000)
      : null;
    const kafkaSummary: KafkaOutputSummary | null = kafkaVerified?.summary ?? null;
    const checks = verified ? verified.checks : kafkaVerified ? kafkaVerified.checks
      : await verify(sqlKnex!, TABLE, OFFSETS_TABLE, groupId, TOPIC, flights, hw, connectFiles ? CONNECT_COORDINATES : undefined);
    if (embedded) checks.unshift(codecCheck(embedded, TOPIC, o.partitions, codec));
    phases.end('verify');
    // Kills are the experiment, not the data: kill points a run that stopped early (timed out, failed) never reached are
    // reported, not failed. A run that finishes has made every planned kill: production holds back its last records until then.
    const missedKills = killAt.length - kills;
    const written = verified ? verified.rows : kafkaSummary ? kafkaSummary.committed : (await sqlKnex!(TABLE).count({ n: '*' }))[0]!.n;
    // A KIP-848 group has epochs where a classic group has generations.
    const generations = embedded
      ? embedded.events.entries({ type: protocol === 'consumer' ? 'group.epoch' : 'group.generation', groupId }).length
      : 'not known (external cluster)';
    log('');
    log(formatChecks(checks));
    if (kafkaSummary) {
      log(`\noutput topic ${OUTPUT_TOPIC}: ${kafkaSummary.committed} records read with isolation.level=read_committed; `
        + `${kafkaSummary.aborted} records of aborted transactions in its log, skipped by read_committed; `
        + `waited ${kafkaSummary.lsoWaitSeconds.toFixed(1)} s for its LSO to reach the high watermark`);
    }
    log('');
    const wall = (Date.now() - started) / 1000;
    const rounds = protocol === 'consumer' ? 'epochs' : 'generations';
    log(`consumer processes: ${workers.length} started, ${kills} killed with SIGKILL; group ${rounds}: ${generations};`
      + ` fenced writes refused: ${connectFiles ? 'not reported by kafka-eos run' : fenced}`);
    if (!embedded && codec !== 'none') log(`note: the codec of the stored batches is not checked on an external cluster`);
    if (missedKills > 0) {
      log(`note: ${missedKills} of ${killAt.length} planned kills did not happen: the run stopped (timed out or failed) `
        + `before kill point${missedKills > 1 ? 's' : ''} ${killAt.slice(kills).join(', ')}; this is not a data failure`);
    }
    const rows = Number(written);
    const waits = kills > 0 ? ` (including ${kills} session-timeout wait${kills > 1 ? 's' : ''} after the kills)` : '';
    log(`wall time ${wall.toFixed(1)} s from the demo's start to here (not counted: ${startupSeconds.toFixed(1)} s of Node start-up and `
      + `module loading before it, npx's own start-up, and the shutdown below); ${rows} rows sunk in ${consumeSeconds.toFixed(1)} s = `
      + `${Math.round(rows / consumeSeconds)} rows/s${waits}`);
    log('where the time went:');
    log(phases.format());
    if (keepDb && !isPostgres(db) && !isMysql(db)) log(`database kept at ${db}`);
    if (connectFiles) log(`Kafka Connect files kept in ${path.dirname(connectFiles.worker)}`);
    for (const e of errors) log(`error: ${e}`);
    const ok = checks.every((c) => c.pass) && errors.length === 0;
    log(ok ? 'VERIFICATION PASSED' : 'VERIFICATION FAILED');
    return ok ? 0 : 1;
  } finally {
    const shutdownFrom = Date.now();
    bar?.stop();
    await stopWorkers(workers);
    if (o.timeline && embedded) {
      const t = timelineFromMockEvents(
        embedded.events.entries({ groupId }), groupId, { title: `kafka-eos demo: group ${groupId}, topic ${TOPIC}`, extra: killMarks },
      );
      writeFileSync(o.timeline, renderTimelineHtml(t));
      if (!o.quiet) process.stdout.write(`rebalance timeline written to ${o.timeline}\n`);
    }
    await Promise.allSettled([sqlKnex?.destroy(), hdfs?.stop()]);
    await cluster.stop();
    if (!keepDb) for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
    if (!o.quiet) {
      process.stdout.write(
        `shut down (workers, cluster, ${hdfs ? "WebHDFS server" : toKafka ? "admin client" : "database"}) ` +
          `in ${((Date.now() - shutdownFrom) / 1000).toFixed(1)} s\n`,
      );
    }
  }
}

/** The group's committed offsets of the source topic (OffsetFetch), partition → next offset (-1: none). */
async function groupOffsets(cluster: DemoCluster, groupId: string): Promise<Map<number, number>> {
  const [topic] = await cluster.admin.fetchOffsets({ groupId, topics: [TOPIC] });
  return new Map((topic?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
}

/**
 * Stops the consumer processes: a `stop` message over IPC (SIGTERM when the channel is gone or the
 * message cannot be sent, e.g. EPIPE from a process that is exiting), SIGKILL after 15 s; resolves
 * when every one has exited. A failed send is never an unhandled 'error' event.
 */
export async function stopWorkers(workers: Pick<Worker, 'child'>[]): Promise<void> {
  await Promise.all(workers.map((w) => new Promise<void>((resolve) => {
    const c = w.child;
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const timer = setTimeout(() => c.kill('SIGKILL'), 15000);
    c.once('exit', () => { clearTimeout(timer); resolve(); });
    if (c.connected) c.send({ type: 'stop' }, (err) => { if (err) c.kill('SIGTERM'); });
    else c.kill('SIGTERM');
  })));
}
