/**
 * A zombie member of `demo --sink kafka`: the demo's consumer process (dist/cli/demo/worker.js, KafkaSink) is SIGSTOPped
 * inside its first transaction (its records produced, its offsets added with TxnOffsetCommit, its EndTxn lost), stays
 * stopped past its session timeout while a second member takes every partition over (waiting, through OffsetFetch
 * require_stable, for the zombie's pending offsets) and finishes, then gets SIGCONT. The zombie's transaction must end
 * aborted (the transaction coordinator's timeout bumps its epoch; its late EndTxn is fenced), it commits nothing ever,
 * and the read_committed oracle, which is not KafkaJS (confluent-kafka Python and kcat), reads each source record
 * exactly once: the zombie's records are in the log, read by read_uncommitted only.
 */
import { ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import type { WorkerConfig, WorkerMessage } from '../../../src/cli/demo/worker';
import { loadFlights } from '../../../src/cli/demo/dataset';
import { until } from '../../helpers/until';
import { countKeys, readCommitted } from '../../helpers/read-committed';
import { requireBuiltCli } from './helpers';

const WORKER = path.join(__dirname, '..', '..', '..', 'dist', 'cli', 'demo', 'worker.js');
const ROWS = 3000;
const SESSION_MS = 2000;
const TXN_TIMEOUT_MS = 3000;

interface Member { child: ChildProcess; messages: WorkerMessage[] }

function startMember(config: WorkerConfig): Member {
  const child = fork(WORKER, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const m: Member = { child, messages: [] };
  child.on('message', (msg: WorkerMessage) => m.messages.push(msg));
  return m;
}

async function stopMember(m: Member): Promise<void> {
  const c = m.child;
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGCONT');
  if (c.connected) c.send({ type: 'stop' }, () => undefined); else c.kill('SIGTERM');
  const hard = setTimeout(() => c.kill('SIGKILL'), 15000);
  await exited;
  clearTimeout(hard);
}

test('a member SIGSTOPped mid-transaction past its session, then SIGCONT: its transaction aborted, nothing twice', async () => {
  requireBuiltCli();
  const cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  const members: Member[] = [];
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  try {
    cluster.createTopic('flights', 6, 3);
    cluster.createTopic('flights-out', 6, 3);
    const producer = kafka.producer();
    await producer.connect();
    const messages = loadFlights(ROWS).map((f) => ({ key: String(f.distance), value: JSON.stringify(f) }));
    await producer.send({ topic: 'flights', acks: -1, messages });
    await producer.disconnect();
    const groupId = `zombie-${process.pid}`;
    const config: WorkerConfig = {
      bootstrap: cluster.bootstrap, groupId, topic: 'flights', db: '', table: '', sessionTimeoutMs: SESSION_MS,
      heartbeatIntervalMs: 300, groupProtocol: 'classic', kafka: { outputTopic: 'flights-out', transactionTimeoutMs: TXN_TIMEOUT_MS },
    };

    // The zombie: its first EndTxn never reaches the coordinator (the mock closes the connection instead of handling it)
    // and the process is stopped in the same instant (the event log's listeners run synchronously), so its transaction
    // stays open with its records produced and its offsets pending in the group (TxnOffsetCommit handled).
    const zombie = startMember(config);
    members.push(zombie);
    const zombiePid = zombie.child.pid!;
    let stoppedAt = 0;
    const off = cluster.events.on((e) => {
      if (e.type === 'fault.dropped' && e.data.api === 'EndTxn' && stoppedAt === 0) {
        zombie.child.kill('SIGSTOP'); stoppedAt = Date.now();
      }
    });
    const dropped = cluster.faults.dropNext({ apiKey: 'EndTxn', count: 1 });
    await until(() => dropped.hits === 1 && stoppedAt > 0, 'the first member\'s EndTxn', 60000);
    off();
    const zombieId = (e: { data: Record<string, unknown> }) => new RegExp(`-${zombiePid}-\\d+$`).test(String(e.data.transactionalId));
    const txnEvents = (type: string) => cluster.events.entries({ type }).filter(zombieId);
    expect(txnEvents('txn.transition').pop()?.data.to).toBe('Ongoing');
    expect(cluster.partitions('flights-out').reduce((n, p) => n + Number(p.highWatermark), 0)).toBeGreaterThan(0);

    // The heir takes every partition once the zombie's session expires; its OffsetFetch (require_stable) waits for the
    // zombie's pending offsets, which go when the coordinator aborts the transaction at its timeout.
    const heir = startMember(config);
    members.push(heir);
    await admin.connect();
    const committed = async () => {
      const [t] = await admin.fetchOffsets({ groupId, topics: ['flights'] });
      return t!.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
    };
    await until(async () => (await committed()) === ROWS, 'the second member to commit every source offset', 90000);
    expect(heir.messages.filter((m) => m.type === 'owned').pop()).toEqual({ type: 'owned', partitions: [0, 1, 2, 3, 4, 5] });
    const abort = txnEvents('txn.markers-written').find((e) => e.data.result === 'ABORT');
    expect(abort).toBeDefined();
    expect(txnEvents('txn.transition').some((e) => /transaction timeout/.test(String(e.data.reason)))).toBe(true);
    const heirCommits = cluster.events.entries({ type: 'txn.markers-written' }).filter((e) => !zombieId(e) && e.data.result === 'COMMIT');
    expect(heirCommits.length).toBeGreaterThan(0);
    expect(heirCommits[0]!.seq).toBeGreaterThan(abort!.seq); // nothing committed past the zombie's pending offsets
    await until(() => Date.now() - stoppedAt > SESSION_MS, 'the zombie stopped past its session timeout');

    // SIGCONT: the zombie retries its EndTxn with its old epoch and is fenced; it re-initialises and rejoins with
    // nothing left to do.
    zombie.child.kill('SIGCONT');
    // Fenced by epoch, the zombie's sink re-initialises its producer (InitProducerId) or, if it gives up, the member
    // fails; either way it must commit nothing (checked below).
    await until(() => txnEvents('txn.transition').some((e) => e.data.to === 'Empty' && e.seq > abort!.seq)
      || zombie.child.exitCode !== null || zombie.messages.some((m) => m.type === 'error'),
    'the zombie to answer its fencing after SIGCONT', 30000);
    await new Promise((r) => setTimeout(r, 2 * SESSION_MS));
    await Promise.all(members.map(stopMember));
    expect(txnEvents('txn.markers-written').map((e) => e.data.result)).toEqual(['ABORT']);

    // The oracle: every source record once, the zombie's produced records aborted (read_uncommitted only).
    const read = await readCommitted(cluster.bootstrap, 'flights-out', 30000);
    const keys = [...Array(6).keys()].flatMap((p) => {
      const n = Number(cluster.partitions('flights').find((x) => x.partition === p)!.highWatermark);
      return Array.from({ length: n }, (_, o) => `${p}:${o}`);
    });
    expect(keys).toHaveLength(ROWS);
    expect(countKeys(read.committed, keys)).toEqual({ distinct: ROWS, duplicates: [], missing: [] });
    expect(read.committed).toHaveLength(ROWS);
    expect(read.kcat).toEqual(read.committed);
    expect(read.aborted.length).toBeGreaterThan(0);
  } finally {
    await Promise.all(members.map(stopMember));
    await admin.disconnect().catch(() => undefined);
    await cluster.stop();
  }
}, 240000);
