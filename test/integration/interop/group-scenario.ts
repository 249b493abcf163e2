/**
 * The group scenario every interop client runs, under either group protocol (one jest `describe` per client and
 * protocol): three members, each a child process running the client's worker fixture
 * (test/fixtures/<client>-group-worker.js, line protocol in test/fixtures/interop-worker-io.js), so one can be
 * SIGKILLed. `classic` is JoinGroup/SyncGroup, `consumer` is KIP-848 (ConsumerGroupHeartbeat).
 *
 * The steps share one group and run in order (each test needs the previous one's state):
 * 1. settle: 3 members, every partition owned by exactly one member, as the mock and the members both see it, in a
 *    group of the protocol asked for; the settle time (first join to that moment) is printed as
 *    `interop-settle <client> <protocol> <ms>`;
 * 2. consume: every record exactly once, each partition in offset order by its owner, committed to the high watermark;
 * 3. kill: one member SIGKILLed while idle; its partitions move to the two others within the session timeout
 *    (plus one rebalance); new records are consumed once, from the committed offsets (nothing from before again);
 * 4. join: a new member joins and resumes at the committed offsets of the partitions it is given;
 * 5. restart: every member closes (each exits 0 after leaving the group), a new process alone owns every partition
 *    and starts at the committed offsets (commits survive a restart of the whole group).
 * Membership changes happen only while the group is idle (nothing produced yet, or everything consumed and
 * committed), so exactly-once delivery is a fair expectation of any client. Each member commits a record before it
 * reports it; what the platformatic worker drops to get there is documented in docs/mock-broker.md "Interop suites".
 */
import { join } from 'node:path';
import { MockCluster, waitForCaughtUp, waitForStableGroup } from '../../../src/testing/mock-broker';
import { Child } from './helpers';
import { until } from '../../helpers/until';

/** What a client's group scenario needs. */
export interface GroupScenarioOptions {
  /** The client's name in test titles and the settle-time line. */
  client: string;
  /** The group protocol the members use: `classic` or `consumer` (KIP-848). */
  protocol: 'classic' | 'consumer';
  /** The worker fixture's file name under test/fixtures. */
  worker: string;
  /** The cluster (shared by the file). */
  cluster: () => MockCluster;
  /** The interop clients' node_modules folder. */
  clientsDir: () => string;
  /**
   * Session timeout (ms): under `classic` the members ask for it (default 4000); under `consumer` it is the
   * broker's (the cluster's `group.consumerSessionTimeoutMs`), which the caller must pass here.
   */
  sessionTimeoutMs?: number;
}

interface Member {
  child: Child;
  /** The worker printed `closed` (after a graceful close). */
  closed: boolean;
  owned: number[];
  records: { p: number; o: number }[];
}

const PARTITIONS = 6;
const PER_PARTITION = 50;

/** Registers the five ordered tests of the group scenario for one client and group protocol. */
export function describeGroupScenario(opts: GroupScenarioOptions): void {
  const { client, protocol } = opts;
  const sessionTimeoutMs = opts.sessionTimeoutMs ?? 4000;
  const groupId = `${client}-${protocol}`;
  const topic = `${client}-${protocol}-group`;
  const members: Member[] = [];
  /** "partition-offset" → the indexes of the members that consumed it. */
  const seen = new Map<string, number[]>();
  const cluster = opts.cluster;

  const spawnMember = (i: number): Member => {
    const config = {
      bootstrap: cluster().bootstrap, groupId, topic, groupProtocol: protocol, sessionTimeoutMs, heartbeatMs: 300,
      clientId: `${client}-${protocol}-${i}`, clientsDir: opts.clientsDir(),
    };
    const child = new Child(process.execPath, [join(__dirname, '..', '..', 'fixtures', opts.worker), JSON.stringify(config)]);
    const m: Member = { child, closed: false, owned: [], records: [] };
    const index = members.length;
    void (async () => {
      for (;;) {
        const line = await child.line(() => true, 600000).catch(() => null);
        if (line === null) return;
        const ev = JSON.parse(line) as { e: string; partitions?: number[]; p?: number; o?: number };
        if (ev.e === 'assigned') m.owned = ev.partitions!;
        if (ev.e === 'closed') m.closed = true;
        if (ev.e === 'rec') {
          m.records.push({ p: ev.p!, o: ev.o! });
          const key = `${ev.p}-${ev.o}`;
          seen.set(key, [...(seen.get(key) ?? []), index]);
        }
      }
    })();
    members.push(m);
    return m;
  };
  const live = () => members.filter((m) => m.child.proc.exitCode === null && m.child.proc.signalCode === null);
  /** Every partition owned by exactly one live member, as the members report it. */
  const ownedOnce = (want: number) => {
    const l = live();
    const all = l.flatMap((m) => m.owned);
    return l.length === want && l.every((m) => m.owned.length > 0) && all.length === PARTITIONS && new Set(all).size === PARTITIONS;
  };
  const produce = (from: number) => {
    for (let p = 0; p < PARTITIONS; p++) {
      cluster().append(topic, p, Array.from({ length: PER_PARTITION }, (_, i) => ({ key: `k${i}`, value: `${p}-${from + i}` })));
    }
  };
  /** Every record below `perPartition` on every partition seen exactly once, in order by one member. */
  const expectExactlyOnce = (perPartition: number) => {
    const dup = [...seen].filter(([, by]) => by.length > 1).map(([k, by]) => `${k} by members ${by.join(',')}`);
    expect(dup).toEqual([]);
    for (let p = 0; p < PARTITIONS; p++) {
      for (let o = 0; o < perPartition; o++) expect(seen.get(`${p}-${o}`)).toHaveLength(1);
    }
    expect(seen.size).toBe(PARTITIONS * perPartition);
    for (const m of members) {
      for (let p = 0; p < PARTITIONS; p++) {
        const offs = m.records.filter((r) => r.p === p).map((r) => r.o);
        expect(offs).toEqual([...offs].sort((a, b) => a - b));
      }
    }
  };
  const caughtUp = async (perPartition: number) => {
    await until(() => seen.size >= PARTITIONS * perPartition, `${PARTITIONS * perPartition} records consumed`, 120000);
    await waitForCaughtUp(cluster(), groupId, topic, { timeoutMs: 60000 });
  };

  /** Ends the member's stdin (it closes its consumer, leaving the group) and waits for its exit code (20 s at most). */
  const close = async (m: Member) => {
    m.child.proc.stdin.end();
    const t = setTimeout(() => m.child.kill(), 20000);
    const code = await m.child.exited;
    clearTimeout(t);
    return code;
  };
  /** The member's first record on each partition it owns is `offset` (it started at the group's commits). */
  const expectStartedAt = (m: Member, offset: number) => {
    expect(m.owned.length).toBeGreaterThan(0);
    const first = m.owned.map((p) => [p, m.records.find((r) => r.p === p)?.o]);
    expect(first).toEqual(m.owned.map((p) => [p, offset]));
  };

  describe(`${client}: a group of 3 under the ${protocol} protocol`, () => {
    afterAll(async () => {
      for (const m of members) await close(m);
    });

    test('settles with every partition owned by exactly one member', async () => {
      cluster().createTopic(topic, PARTITIONS);
      const started = Date.now();
      for (let i = 0; i < 3; i++) spawnMember(i);
      const group = await waitForStableGroup(cluster(), groupId, { members: 3, allAssigned: [topic], timeoutMs: 120000 });
      await until(() => ownedOnce(3), 'the 3 members to report owning every partition once', 120000);
      const settledAt = Date.now();
      // The group's own settle time starts at the first JoinGroup; process start-up (seconds on a loaded machine) is apart.
      const firstJoin = cluster().inspect.events({ groupId })[0].ts;
      process.stdout.write(`interop-settle ${client} ${protocol} ${settledAt - firstJoin} ms from the first join `
        + `(${settledAt - started} ms from spawning the processes)\n`);
      expect(group.groupType).toBe(protocol);
      if (protocol === 'classic') expect(group.protocolType).toBe('consumer');
      // What each member reports owning is what the mock handed it.
      const fromMock = group.members.map((m) => (m.assignment?.[topic] ?? []).slice().sort((a, b) => a - b).join(',')).sort();
      expect(live().map((m) => m.owned.join(',')).sort()).toEqual(fromMock);
    });

    test('consumes every record exactly once, in order per partition, and commits to the high watermark', async () => {
      produce(0);
      await caughtUp(PER_PARTITION);
      expectExactlyOnce(PER_PARTITION);
      // Each partition's records come from its owner only.
      for (const m of members) {
        for (const r of m.records) expect(m.owned).toContain(r.p);
      }
      for (let p = 0; p < PARTITIONS; p++) expect(cluster().inspect.committedOffset(groupId, topic, p)).toBe(PER_PARTITION);
    });

    test('a SIGKILLed member\'s partitions move to the others within the session timeout', async () => {
      const victim = members[0];
      const orphaned = victim.owned.slice();
      const generation = cluster().inspect.group(groupId)!.generationId;
      const killedAt = Date.now();
      victim.child.kill();
      await victim.child.exited;
      await waitForStableGroup(cluster(), groupId, { members: 2, allAssigned: [topic], afterGeneration: generation, timeoutMs: 60000 });
      await until(() => ownedOnce(2), 'the 2 survivors to own every partition once', 60000);
      const movedMs = Date.now() - killedAt;
      process.stdout.write(`interop-failover ${client} ${protocol} ${movedMs} ms (session timeout ${sessionTimeoutMs} ms)\n`);
      // Session expiry, then one rebalance (the survivors rejoin on their next heartbeat); generous on a loaded machine.
      expect(movedMs).toBeLessThan(sessionTimeoutMs + 15000);
      const expired = cluster().inspect.events({ type: 'member.expired', groupId });
      expect(expired.length).toBeGreaterThan(0);
      expect(live().flatMap((m) => m.owned)).toEqual(expect.arrayContaining(orphaned));
      produce(PER_PARTITION);
      await caughtUp(2 * PER_PARTITION);
      expectExactlyOnce(2 * PER_PARTITION);
    });

    /**
     * A new member (the `index`th spawned) joins the group as it is now, which then has `members` members; then
     * round `round` of records (after `round` produced before) is consumed once, the new member starting at the commits.
     */
    const joinAndConsume = async (index: number, members: number, round: number) => {
      const generation = cluster().inspect.group(groupId)!.generationId;
      const fresh = spawnMember(index);
      await waitForStableGroup(cluster(), groupId, { members, allAssigned: [topic], afterGeneration: generation, timeoutMs: 60000 });
      await until(() => ownedOnce(members), `the ${members} members to own every partition once`, 60000);
      produce(round * PER_PARTITION);
      await caughtUp((round + 1) * PER_PARTITION);
      expectExactlyOnce((round + 1) * PER_PARTITION);
      expectStartedAt(fresh, round * PER_PARTITION);
    };

    test('a new member resumes at the committed offsets of the partitions it is given', async () => {
      await joinAndConsume(3, 3, 2);
    });

    test('commits survive a restart: after every member closed, a new process starts at the committed offsets', async () => {
      for (const m of live()) {
        const code = await close(m);
        if (code !== 0) process.stderr.write(`member did not close cleanly (exit ${code}); stderr:\n${m.child.stderr.slice(-2000)}\n`);
        expect(code).toBe(0);
        expect(m.closed).toBe(true);
      }
      await joinAndConsume(4, 1, 3);
    });
  });
}
