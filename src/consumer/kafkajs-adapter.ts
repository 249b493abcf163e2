/**
 * The adapter that gives a KafkaJS 2.2.4 consumer what it lacks: a hook that runs before every
 * (re)join of the group (so partitions are revoked, and their last offsets committed, while the
 * member still owns them: Java's `ConsumerRebalanceListener.onPartitionsRevoked` in the eager
 * protocol), a fetch epoch to drop batches fetched under an older assignment, and KIP-345 static
 * membership (`group.instance.id` on JoinGroup v5, Heartbeat v3, SyncGroup v3, LeaveGroup v3).
 *
 * How (docs/static-membership.md has the full story):
 * - `ConsumerGroup.prototype.joinAndSync` and `.fetch`, and `Runner.prototype.fetch`, are wrapped once
 *   per process. The wrappers only act for a consumer registered here (keyed by its KafkaJS `Cluster`
 *   object); any other KafkaJS consumer in the process runs unchanged.
 * - A stopped runner ends its fetchers (see {@link RunnerStoppedError}) instead of spinning: KafkaJS's
 *   `Runner#fetch` answers `[]` at once when the runner is not running, and a fetcher that
 *   `FetchManager` re-created after `stop()` (a broker joined or left the metadata while stopping)
 *   calls it again in a microtask loop that never yields, so timers, sockets and the process hang.
 * - The `Cluster` is learnt from the partition-assigner factories, which KafkaJS calls with
 *   `{ groupId, logger, cluster }` when `kafka.consumer()` is created.
 * - That cluster's `findGroupCoordinator` is wrapped so the coordinator broker's group methods pass
 *   `groupInstanceId` to KafkaJS's own request builders (which accept it but are never given it),
 *   detect FENCED_INSTANCE_ID, refuse any request once fenced, and skip LeaveGroup when asked.
 *
 * Pinned to kafkajs 2.2.4: {@link installKafkaJsAdapter} throws {@link UnsupportedKafkaJsError} for
 * any other version or if the internals it wraps are missing.
 */
import { KafkaEosError } from '../errors';
import type { Batch, PartitionAssigner } from 'kafkajs';
import { kafkaErrorOf } from '../protocol/kafka-errors';
import { CorruptRecordBatchError, FencedInstanceIdError, UnsupportedCompressionError, UnsupportedKafkaJsError } from './errors';
import type { BatchLocation } from './errors';

/* eslint-disable @typescript-eslint/no-require-imports */
type AnyFn = (...args: any[]) => any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Loose = Record<string | symbol, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The KafkaJS version whose internals the adapter patches; a Kafka instance from another copy is refused (UnsupportedKafkaJsError). */
export const SUPPORTED_KAFKAJS_VERSION = '2.2.4';

/** What the registered consumer tells the adapter, and is told by it. */
export interface GroupHooks {
  readonly groupId: string;
  /** KIP-345 `group.instance.id`, or null for a dynamic member. */
  readonly groupInstanceId: string | null;
  /** Runs before every JoinGroup round KafkaJS starts (first join included). A throw aborts the join. */
  beforeJoin(group: KafkaJsConsumerGroup): Promise<void>;
  /** The current fetch epoch; batches are tagged with the epoch at which their fetch began. */
  epoch(): number;
  /** false: LeaveGroup is not sent (a static member's restart-style stop). */
  shouldLeave(): boolean;
  /** The coordinator answered FENCED_INSTANCE_ID. Called once. */
  onFenced(error: FencedInstanceIdError): void;
}

/** The parts of KafkaJS's (private) ConsumerGroup the consumer uses. */
export interface KafkaJsConsumerGroup {
  groupId: string;
  memberId: string | null;
  generationId: number | null;
  leave(): Promise<void>;
  /** Sends a Heartbeat unless one went out within `interval` ms (KafkaJS's shared heartbeat). */
  heartbeat(options: { interval: number }): Promise<void>;
}

/**
 * Drops the seeks KafkaJS has not applied yet. KafkaJS keeps them per partition for the consumer's
 * lifetime and applies them when the partition is next fetched, even after it was revoked and
 * assigned again: a seek from an earlier assignment would move a returning partition back.
 */
export function clearPendingSeeks(group: KafkaJsConsumerGroup): void {
  const seeks = (group as unknown as Loose).seekOffset as Map<unknown, unknown> | undefined;
  seeks?.clear();
}

const BATCH_EPOCH = Symbol('kafka-eos:batchEpoch');
const registry = new WeakMap<object, GroupHooks>();
const fenced = new WeakMap<GroupHooks, FencedInstanceIdError>();
let installed = false;

/**
 * Thrown by the wrapped `Runner#fetch` of a registered consumer whose runner has stopped, so the
 * fetcher's loop ends. KafkaJS's runner retrier then sees `running === false` and stops consuming.
 * `retriable: true` keeps it from being reported as a crash. Never reaches user code.
 */
export class RunnerStoppedError extends KafkaEosError {
  constructor() {
    super('KAFKAJS_RUNNER_STOPPED', 'kafka-eos: fetch after the KafkaJS runner stopped');
  }
}

type Loaded = { ConsumerGroup: { prototype: Loose }; Runner: { prototype: Loose }; requests: Loose; apiKeys: Loose; sendRequest: symbol };

function load(): Loaded {
  const version = (require('kafkajs/package.json') as { version: string }).version;
  if (version !== SUPPORTED_KAFKAJS_VERSION) {
    throw new UnsupportedKafkaJsError(`kafka-eos's consumer adapter is written for kafkajs ${SUPPORTED_KAFKAJS_VERSION}, found ${version}`);
  }
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as { prototype: Loose };
  const Runner = require('kafkajs/src/consumer/runner') as { prototype: Loose };
  const Broker = require('kafkajs/src/broker') as { prototype: Loose };
  const { requests } = require('kafkajs/src/protocol/requests') as { requests: Loose };
  const apiKeys = require('kafkajs/src/protocol/requests/apiKeys') as Loose;
  const sendRequest = Object.getOwnPropertySymbols(Broker.prototype).find((s) => s.description === 'private:Broker:sendRequest');
  const missing = [
    typeof ConsumerGroup.prototype.joinAndSync !== 'function' && 'ConsumerGroup#joinAndSync',
    typeof ConsumerGroup.prototype.fetch !== 'function' && 'ConsumerGroup#fetch',
    typeof Runner.prototype.fetch !== 'function' && 'Runner#fetch',
    !sendRequest && 'Broker#[sendRequest]',
    !requests.JoinGroup && 'requests.JoinGroup',
  ].filter(Boolean);
  if (missing.length > 0) throw new UnsupportedKafkaJsError(`kafkajs internals not found: ${missing.join(', ')}`);
  return { ConsumerGroup, Runner, requests, apiKeys, sendRequest: sendRequest! };
}

/** Wraps ConsumerGroup#joinAndSync and #fetch and Runner#fetch, once per process. Throws UnsupportedKafkaJsError. */
export function installKafkaJsAdapter(): void {
  if (installed) return;
  const { ConsumerGroup, Runner } = load();
  const runnerFetch = Runner.prototype.fetch as AnyFn;
  Runner.prototype.fetch = async function wrappedRunnerFetch(this: Loose, nodeId: number) {
    if (!this.running && registry.has(this.consumerGroup?.cluster)) throw new RunnerStoppedError();
    return runnerFetch.call(this, nodeId);
  };
  const proto = ConsumerGroup.prototype;
  const joinAndSync = proto.joinAndSync as AnyFn;
  const fetch = proto.fetch as AnyFn;
  proto.joinAndSync = async function wrappedJoinAndSync(this: Loose) {
    const hooks = registry.get(this.cluster);
    if (hooks) await hooks.beforeJoin(this as unknown as KafkaJsConsumerGroup);
    return joinAndSync.call(this);
  };
  proto.fetch = async function wrappedFetch(this: Loose, nodeId: number) {
    const hooks = registry.get(this.cluster);
    const epoch = hooks?.epoch();
    let batches: Loose[];
    try {
      batches = (await fetch.call(this, nodeId)) as Loose[];
    } catch (e) {
      if (hooks && isUnreadableBatch(e) && !e.location) throw await locateUnreadable(this, nodeId, e);
      throw e;
    }
    if (hooks) for (const b of batches) b[BATCH_EPOCH] = epoch;
    return batches;
  };
  installed = true;
}

type Unreadable = UnsupportedCompressionError | CorruptRecordBatchError;
const isUnreadableBatch = (e: unknown): e is Unreadable => e instanceof UnsupportedCompressionError || e instanceof CorruptRecordBatchError;

/**
 * A batch of one Fetch could not be decompressed; KafkaJS's error does not say whose. The candidates
 * are the partitions that fetch asked for (those this member fetches from `nodeId`); with more than
 * one, each is fetched alone until the same failure names it. Best effort: any failure of the
 * probes returns `error` as it was.
 */
async function locateUnreadable(group: Loose, nodeId: number, error: Unreadable): Promise<Unreadable> {
  try {
    const assigned = group.filterPartitionsByNode(nodeId, group.subscriptionState.assigned()) as { topic: string; partitions: number[] }[];
    const candidates: BatchLocation[] = assigned.flatMap(({ topic, partitions }) => partitions
      .filter((partition) => !group.subscriptionState.isPaused(topic, partition))
      .map((partition) => ({ topic, partition, fetchOffset: String(group.offsetManager.nextOffset(topic, partition)) })));
    if (candidates.length === 1) return error.at(candidates[0]);
    const broker = await group.cluster.findBroker({ nodeId });
    for (const c of candidates) {
      try {
        await broker.fetch({
          maxWaitTime: 0, minBytes: 1, maxBytes: group.maxBytes, isolationLevel: group.isolationLevel,
          topics: [{ topic: c.topic, partitions: [{ partition: c.partition, fetchOffset: c.fetchOffset, maxBytes: group.maxBytesPerPartition }] }],
        });
      } catch (probe) {
        if (isUnreadableBatch(probe)) return probe.at(c);
      }
    }
  } catch {
    // the probes are a diagnosis only
  }
  return error;
}

/** The epoch at which this batch's fetch began (undefined if not fetched by a registered consumer). */
export function batchEpoch(batch: Batch): number | undefined {
  return (batch as unknown as Loose)[BATCH_EPOCH] as number | undefined;
}

/**
 * Wraps partition-assigner factories so that the first one KafkaJS calls registers `hooks` for the
 * consumer's cluster. Pass the result as `partitionAssigners` to `kafka.consumer()`.
 */
export function registeringAssigners(assigners: PartitionAssigner[], hooks: GroupHooks): PartitionAssigner[] {
  installKafkaJsAdapter();
  return assigners.map((factory) => (config) => {
    const cluster = (config as unknown as { cluster: Loose }).cluster;
    if (!registry.has(cluster)) register(cluster, hooks);
    return factory(config);
  });
}

const clusters = new WeakMap<GroupHooks, Loose>();

function register(cluster: Loose, hooks: GroupHooks): void {
  registry.set(cluster, hooks);
  clusters.set(hooks, cluster);
  const find = cluster.findGroupCoordinator.bind(cluster) as AnyFn;
  cluster.findGroupCoordinator = async (args: unknown) => {
    const broker = (await find(args)) as Loose;
    patchCoordinator(broker, hooks);
    return broker;
  };
}

/**
 * Finds the group coordinator again and makes KafkaJS use it for the group's heartbeats and offset
 * commits: Java's `markCoordinatorUnknown` then FindCoordinator, after NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE, a dropped connection or a broker gone from the metadata.
 *
 * Why: KafkaJS 2.2.4's OffsetManager holds the coordinator's Broker from the last SyncGroup and, once its
 * connection is gone, looks up that same node id again (`cluster.findBroker`), never the coordinator.
 * After the coordinator's broker stopped (Kafka moves the coordinator to another broker), that node id
 * leaves the metadata and every commit fails with "Broker N not found in the cached metadata" until the
 * group is joined again. The member's generation survives a coordinator move (Kafka reloads the group
 * from `__consumer_offsets`), so committing on the new coordinator is right. The broker comes from the
 * wrapped `findGroupCoordinator`, so it is patched as every coordinator is (static membership, fencing).
 * Throws KafkaJS's errors (a lookup that failed is retried by the caller, see kafka-calls.ts).
 */
export async function findCoordinatorAgain(hooks: GroupHooks, group: KafkaJsConsumerGroup): Promise<void> {
  const cluster = clusters.get(hooks);
  if (!cluster) throw new UnsupportedKafkaJsError('no KafkaJS cluster registered for this consumer');
  await (cluster.refreshMetadata() as Promise<void>).catch(() => undefined);
  const broker = (await cluster.findGroupCoordinator({ groupId: group.groupId })) as Loose;
  const g = group as unknown as Loose;
  g.coordinator = broker;
  if (g.offsetManager) g.offsetManager.coordinator = broker;
}

const patched = new WeakSet<object>();

/** Throws the FencedInstanceIdError if this consumer was fenced. */
export function assertNotFenced(hooks: GroupHooks): void {
  const err = fenced.get(hooks);
  if (err) throw err;
}

function markFenced(hooks: GroupHooks, cause: unknown): FencedInstanceIdError {
  let err = fenced.get(hooks);
  if (!err) {
    err = new FencedInstanceIdError(hooks.groupId, hooks.groupInstanceId, { cause });
    fenced.set(hooks, err);
    hooks.onFenced(err);
  }
  return err;
}

/** Instance-level overrides of the coordinator broker's group requests (the Broker class is untouched). */
function patchCoordinator(broker: Loose, hooks: GroupHooks): void {
  if (patched.has(broker)) return;
  patched.add(broker);
  const { requests, apiKeys, sendRequest } = load();
  const instanceId = hooks.groupInstanceId;
  const send = async (apiKey: number, definition: unknown, params: Loose) => {
    assertNotFenced(hooks);
    try {
      const build = broker.lookupRequest(apiKey, definition) as AnyFn;
      return await broker[sendRequest](build(params));
    } catch (e) {
      if (kafkaErrorOf(e)?.fenced) throw markFenced(hooks, e);
      throw e;
    }
  };
  if (instanceId !== null) {
    broker.joinGroup = async (p: Loose) => {
      const version = broker.versions?.[apiKeys.JoinGroup]?.maxVersion ?? 0;
      if (version < 5) {
        throw new UnsupportedKafkaJsError(`broker supports JoinGroup up to v${version}; static membership needs v5 (KIP-345)`);
      }
      const params = { protocolType: 'consumer', ...p, memberId: p.memberId ?? '', groupInstanceId: instanceId };
      try {
        return await send(apiKeys.JoinGroup, requests.JoinGroup, params);
      } catch (e) {
        // KIP-394: KafkaJS's KafkaJSMemberIdRequired carries the member id to join with.
        if (kafkaErrorOf(e)?.name === 'MEMBER_ID_REQUIRED') {
          return send(apiKeys.JoinGroup, requests.JoinGroup, { ...params, memberId: (e as { memberId: string }).memberId });
        }
        throw e;
      }
    };
  } else {
    const join = broker.joinGroup.bind(broker) as AnyFn;
    broker.joinGroup = async (p: Loose) => {
      assertNotFenced(hooks);
      return join(p);
    };
  }
  broker.heartbeat = (p: Loose) => send(apiKeys.Heartbeat, requests.Heartbeat, { ...p, groupInstanceId: instanceId });
  broker.syncGroup = (p: Loose) => send(apiKeys.SyncGroup, requests.SyncGroup, { ...p, groupInstanceId: instanceId });
  broker.leaveGroup = async (p: Loose) => {
    if (fenced.has(hooks) || !hooks.shouldLeave()) return undefined;
    return send(apiKeys.LeaveGroup, requests.LeaveGroup, { ...p, groupInstanceId: instanceId });
  };
  const offsetCommit = broker.offsetCommit.bind(broker) as AnyFn;
  broker.offsetCommit = async (p: Loose) => {
    assertNotFenced(hooks);
    try {
      return await offsetCommit(p);
    } catch (e) {
      if (kafkaErrorOf(e)?.fenced) throw markFenced(hooks, e);
      throw e;
    }
  };
}

/**
 * A "simple" OffsetCommit (generation -1, no member id) to `groupId`, as Kafka's `assign()`
 * consumers send: accepted while that group has no active members. Offsets are next-to-consume.
 */
export async function simpleCommit(
  hooks: GroupHooks, groupId: string, offsets: { topic: string; partition: number; offset: bigint }[],
): Promise<void> {
  const cluster = clusters.get(hooks);
  if (!cluster) throw new UnsupportedKafkaJsError('no KafkaJS cluster registered for this consumer');
  const byTopic = new Map<string, { partition: number; offset: string }[]>();
  for (const o of offsets) {
    const list = byTopic.get(o.topic) ?? [];
    list.push({ partition: o.partition, offset: o.offset.toString() });
    byTopic.set(o.topic, list);
  }
  const broker = (await cluster.findGroupCoordinator({ groupId })) as Loose;
  const topics = [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
  await broker.offsetCommit({ groupId, groupGenerationId: -1, memberId: '', topics });
}
