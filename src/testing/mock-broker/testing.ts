/**
 * Helpers for test suites (jest, mocha, node:test — nothing here depends on a runner's globals
 * except {@link useMockCluster}, which needs `beforeAll`/`afterAll`).
 *
 * Waiting is event-driven: each helper checks its condition now and after every event-log entry
 * (the group coordinator records every state change), with a slow poll as a safety net, and
 * rejects with {@link MockTimeoutError} (code `MOCK_WAIT_TIMEOUT`) carrying the last state seen.
 * Timeouts are generous by default (30 s) because shared CI machines are slow; a passing wait
 * returns as soon as the condition holds.
 */
import { KafkaEosError } from '../../errors';
import type { EventLogEntry } from './event-log';
import { EventFilter, GroupInspection, matchesEvent } from './inspect';
import { MockCluster, MockClusterOptions } from './mock-cluster';

/**
 * Test-friendly group defaults:
 * - `initialRebalanceDelayMs: 0` — a consumer gets its assignment at once instead of after Kafka's
 *   3 s; members starting together still settle quickly because a join phase ends as soon as every
 *   known member has rejoined.
 * - `minSessionTimeoutMs: 1000` — tests may use session timeouts down to 1 s (Kafka's floor is
 *   6 s), so expiry scenarios run fast; below 1 s a loaded CI machine expires healthy members.
 * - KIP-848 groups: `consumerHeartbeatIntervalMs: 500` and `consumerSessionTimeoutMs: 6000` (Kafka's 5 s
 *   and 45 s): members reconcile within a second or two, and a killed member's partitions move in ~6 s.
 */
export const TEST_GROUP_DEFAULTS = {
  initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000, consumerHeartbeatIntervalMs: 500, consumerSessionTimeoutMs: 6000,
} as const;

/** Default timeout of every wait helper, in ms. */
export const DEFAULT_WAIT_TIMEOUT_MS = 30_000;

export class MockTimeoutError extends KafkaEosError {
  constructor(what: string, timeoutMs: number, readonly lastSeen: unknown) {
    super('MOCK_WAIT_TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${safeJson(lastSeen)}`);
  }
}

function safeJson(v: unknown): string {
  try {
    const s = JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : Buffer.isBuffer(x) ? `<${x.length} bytes>` : x));
    return s === undefined ? String(v) : s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
  } catch {
    return String(v);
  }
}

/**
 * Starts a mock cluster with test-friendly defaults: 3 brokers on free loopback ports and
 * {@link TEST_GROUP_DEFAULTS}; any option given wins. Call `cluster.stop()` when done.
 * Throws MockClusterError (MOCK_LISTEN_FAILED, CONFIG_INVALID).
 */
export function startCluster(options: MockClusterOptions = {}): Promise<MockCluster> {
  return MockCluster.start({ brokers: 3, ...options, group: { ...TEST_GROUP_DEFAULTS, ...options.group } });
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start and stop a cluster for the enclosing describe
 * block; read the cluster through the returned getter inside tests.
 * Throws Error when called outside a runner that defines `beforeAll`/`afterAll`.
 */
export function useMockCluster(options: MockClusterOptions = {}): () => MockCluster {
  const g = globalThis as {
    beforeAll?: (fn: () => unknown, timeout?: number) => void; afterAll?: (fn: () => unknown, timeout?: number) => void;
  };
  if (typeof g.beforeAll !== 'function' || typeof g.afterAll !== 'function') {
    throw new KafkaEosError('INVALID_ARGUMENT', 'useMockCluster needs beforeAll/afterAll (jest, vitest, mocha with bdd)');
  }
  let cluster: MockCluster | undefined;
  g.beforeAll(async () => {
    cluster = await startCluster(options);
  });
  g.afterAll(async () => {
    await cluster?.stop();
  });
  return () => {
    if (!cluster) throw new KafkaEosError('NOT_RUNNING', 'the mock cluster is not started yet (use it inside a test or a later hook)');
    return cluster;
  };
}

export interface WaitOptions {
  /** Give up after this many ms (default 30 000). */
  timeoutMs?: number;
  /** Safety-net poll interval in ms, for conditions no event announces (default 50). */
  pollMs?: number;
}

/**
 * Resolves with `probe()`'s value once it is neither undefined, null nor false; re-checks after
 * every event-log entry and every `pollMs`. `describe` names the condition in the timeout error.
 * Rejects with MockTimeoutError, or with whatever `probe` throws.
 */
export function waitFor<T>(
  cluster: MockCluster, probe: () => T | undefined | null | false, describe: string, options: WaitOptions = {},
  lastSeen: () => unknown = () => undefined,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      off();
      clearInterval(poll);
      clearTimeout(timer);
      fn();
    };
    const check = () => {
      if (settled) return;
      try {
        const v = probe();
        if (v !== undefined && v !== null && v !== false) finish(() => resolve(v as T));
      } catch (e) {
        finish(() => reject(e));
      }
    };
    // Check after the recording code has finished its step (listeners run synchronously inside it).
    const off = cluster.events.on(() => queueMicrotask(check));
    const poll = setInterval(check, options.pollMs ?? 50);
    const timer = setTimeout(() => finish(() => reject(new MockTimeoutError(describe, timeoutMs, lastSeen()))), timeoutMs);
    check();
  });
}

export interface StableGroupOptions extends WaitOptions {
  /** Exact number of members (default: any number ≥ 1). */
  members?: number;
  /** Every partition of these topics is assigned to exactly one member. */
  allAssigned?: readonly string[];
  /** Only a generation greater than this one (e.g. to wait for the rebalance after a change). */
  afterGeneration?: number;
  /** Any further condition on the stable group. */
  where?: (group: GroupInspection) => boolean;
}

/**
 * Waits until `groupId` is Stable, every member has its assignment (none parked in JoinGroup or
 * SyncGroup), and the options hold. A KIP-848 consumer group is Stable when every member is at the
 * target assignment epoch with nothing pending revocation or release; `afterGeneration` then compares
 * the group epoch. Resolves with the group's inspection.
 * Rejects with MockTimeoutError (its `lastSeen` is the group as last inspected).
 */
export function waitForStableGroup(cluster: MockCluster, groupId: string, options: StableGroupOptions = {}): Promise<GroupInspection> {
  const want = [
    'Stable',
    options.members !== undefined ? `${options.members} members` : null,
    options.allAssigned ? `all partitions of ${options.allAssigned.join(', ')} assigned once` : null,
    options.afterGeneration !== undefined ? `generation > ${options.afterGeneration}` : null,
  ].filter(Boolean).join(', ');
  const probe = () => {
    const g = cluster.inspect.group(groupId);
    if (!g || g.state !== 'Stable' || g.members.length === 0) return undefined;
    if (options.members !== undefined && g.members.length !== options.members) return undefined;
    if (options.afterGeneration !== undefined && g.generationId <= options.afterGeneration) return undefined;
    if (g.members.some((m) => m.awaitingJoin || m.awaitingSync)) return undefined;
    if (options.allAssigned && !allAssignedOnce(cluster, g, options.allAssigned)) return undefined;
    if (options.where && !options.where(g)) return undefined;
    return g;
  };
  return waitFor(cluster, probe, `group '${groupId}' to be ${want}`, options, () => cluster.inspect.group(groupId));
}

function allAssignedOnce(cluster: MockCluster, g: GroupInspection, topics: readonly string[]): boolean {
  const counts = new Map<string, number>();
  for (const m of g.members) {
    if (m.assignment === null) return false;
    for (const [t, ps] of Object.entries(m.assignment)) for (const p of ps) counts.set(`${t}-${p}`, (counts.get(`${t}-${p}`) ?? 0) + 1);
  }
  for (const t of topics) {
    const parts = cluster.inspect.partitions(t);
    if (parts.length === 0) return false;
    if (parts.some((p) => counts.get(`${t}-${p.partition}`) !== 1)) return false;
  }
  return true;
}

/**
 * Resolves with the first event-log entry matching `filter` (already recorded or future; use
 * `afterSeq` with `cluster.inspect.lastEventSeq()` to ignore the past). Rejects with MockTimeoutError.
 */
export function waitForEvent(cluster: MockCluster, filter: EventFilter, options: WaitOptions = {}): Promise<EventLogEntry> {
  return waitFor(
    cluster, () => cluster.inspect.events(filter)[0],
    `an event matching ${safeJson({ ...filter, where: filter.where ? 'fn' : undefined })}`, options,
    () => cluster.inspect.events({ groupId: filter.groupId }).slice(-5));
}

/**
 * Waits until `groupId` has committed at least the given offsets: `{ topic: { partition: offset } }`
 * (offset = the next offset to consume, as committed). Resolves with the committed offsets.
 * Rejects with MockTimeoutError (its `lastSeen` is the committed offsets).
 */
export function waitForCommittedOffsets(
  cluster: MockCluster, groupId: string, expected: Record<string, Record<number, number>>, options: WaitOptions = {},
) {
  const probe = () => {
    for (const [topic, parts] of Object.entries(expected)) {
      for (const [p, offset] of Object.entries(parts)) {
        const committed = cluster.inspect.committedOffset(groupId, topic, Number(p));
        if (committed === undefined || committed < offset) return undefined;
      }
    }
    return cluster.inspect.committedOffsets(groupId);
  };
  return waitFor(
    cluster, probe, `group '${groupId}' to commit ${safeJson(expected)}`, options, () => cluster.inspect.committedOffsets(groupId),
  );
}

/**
 * Waits until `groupId` has committed up to the high watermark on every partition of `topic`
 * (it has consumed everything produced so far). Resolves with the committed offsets.
 */
export function waitForCaughtUp(cluster: MockCluster, groupId: string, topic: string, options: WaitOptions = {}) {
  const probe = () => {
    const lag = cluster.inspect.lag(groupId, topic);
    return lag.length > 0 && lag.every((l) => l.lag === 0 && l.committed !== undefined)
      ? cluster.inspect.committedOffsets(groupId, topic)
      : undefined;
  };
  return waitFor(cluster, probe, `group '${groupId}' to catch up on '${topic}'`, options, () => cluster.inspect.lag(groupId, topic));
}

/** Resolves once `condition()` is truthy, polling every `pollMs` (no cluster needed). Rejects with MockTimeoutError. */
export async function waitUntil(condition: () => unknown, describe = 'condition', options: WaitOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new MockTimeoutError(describe, timeoutMs, undefined);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 25));
  }
}
