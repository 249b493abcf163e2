/**
 * Zombie test for KafkaSink (KIP-447): a member is frozen (SIGSTOP) in the middle of its transaction, after its
 * outputs were produced and while its TxnOffsetCommit is on its way (the mock holds that request). Its session
 * expires, a successor takes the partition and writes every record. The zombie's TxnOffsetCommit reaches the
 * group coordinator after the rebalance and is refused; when the zombie thaws (SIGCONT) it aborts its transaction.
 * Read read_committed: every source record exactly once, nothing of the zombie's transaction.
 */
import { ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { createGroupConsumer, KafkaSink } from '../../../../src';
import { MockCluster } from '../../../../src/testing/mock-broker';
import { kafkaOf, produce, range } from '../../../consumer/helpers';
import { until } from '../../../helpers/until';
import { waitFor, ZOMBIE_WORKER } from '../../consumer/zombie-helpers';
import { expectExactlyOnce, outputOf, transform } from './helpers';

test('a frozen member whose offsets reach the coordinator after the rebalance is refused and aborts: nothing twice', async () => {
  if (!existsSync(path.join(__dirname, '..', '..', '..', '..', 'dist', 'index.js'))) {
    throw new Error('dist/ is missing: run npm run build (npm test does it)');
  }
  const cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  const sink = new KafkaSink({ transactionTimeoutMs: 60000 });
  const successor = createGroupConsumer({
    brokers: cluster.bootstrap, groupId: 'kzg', topics: ['kz'], delivery: 'exactly-once', sink, recordHandler: transform('kz-out'),
    sessionTimeoutMs: 2000, heartbeatIntervalMs: 300, maxWaitTimeMs: 100,
  });
  let zombie: ChildProcess | null = null;
  try {
    cluster.createTopic('kz', 1);
    cluster.createTopic('kz-out', 1);
    await produce(kafkaOf(cluster), 'kz', 0, range(0, 500).map((i) => `r${i}`));

    zombie = fork(ZOMBIE_WORKER, [cluster.bootstrap.join(','), 'kzg', 'kz', 'kafka', 'kz-out'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const transitions: { to: string; reason: string }[] = [];
    zombie.on('message', (m: { type: string; to: string; reason: string }) => { if (m.type === 'txn') transitions.push(m); });
    const holding = await waitFor<{ records: number }>(zombie, 'holding');
    expect(holding.records).toBeGreaterThan(0);
    // Its TxnOffsetCommit is held by the broker; the zombie is frozen as soon as it is sent, mid-transaction.
    const held = cluster.faults.delay({ apiKey: 'TxnOffsetCommit', ms: 15000, count: 1 });
    zombie.send({ type: 'go' });
    await until(() => held.hits === 1, "the zombie's TxnOffsetCommit", 30000);
    zombie.kill('SIGSTOP');
    const heldAt = Date.now();
    const zombieTxnId = cluster.inspect.events({ type: 'txn.transition' })
      .map((e) => String(e.data.transactionalId)).find((id) => id.includes(`-${zombie!.pid}-`))!;
    expect(zombieTxnId).toBeDefined();
    expect(cluster.inspect.transaction(zombieTxnId)?.state).toBe('Ongoing');

    await successor.start();
    await until(() => successor.assignment().length === 1, 'the partition to move to the successor', 30000);
    await until(() => cluster.inspect.committedOffset('kzg', 'kz', 0) === 500, 'the successor to write every record', 30000);
    // The held TxnOffsetCommit reaches the coordinator after the zombie's session expired: refused (UNKNOWN_MEMBER_ID);
    // the answer waits in the frozen zombie's socket.
    await new Promise((r) => setTimeout(r, Math.max(0, heldAt + 15500 - Date.now())));
    expect(cluster.inspect.transaction(zombieTxnId)?.state).toBe('Ongoing');

    zombie.kill('SIGCONT');
    await until(() => transitions.some((t) => t.to === 'aborting'), 'the zombie to abort its transaction', 30000);
    // Refused by the group coordinator (KIP-447), not aborted for any other reason; and it never committed.
    expect(transitions.find((t) => t.to === 'aborting')!.reason).toMatch(/TxnOffsetCommit.*(UNKNOWN_MEMBER_ID|ILLEGAL_GENERATION)/);
    expect(transitions.filter((t) => t.to === 'committing')).toEqual([]);
    await until(() => cluster.inspect.events({ type: 'txn.markers-written' }).some((e) => e.data.transactionalId === zombieTxnId),
      "the zombie's markers", 30000);
    const zombieMarkers = cluster.inspect.events({ type: 'txn.markers-written' })
      .filter((e) => e.data.transactionalId === zombieTxnId).map((e) => e.data.result);
    expect(zombieMarkers[0]).toBe('ABORT');
    expect(cluster.inspect.committedOffset('kzg', 'kz', 0)).toBe(500);
    expectExactlyOnce(await outputOf(cluster, 'kz-out'), range(0, 500).map((o) => `0:${o}`));
  } finally {
    zombie?.kill('SIGKILL');
    await successor.stop();
    await sink.close();
    await cluster.stop();
  }
}, 120000);
