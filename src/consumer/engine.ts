/**
 * The parts of one group consumer, wired together (group-consumer.ts is the facade over them):
 * - kafka/transport.ts: KafkaJS's connections and metadata, the SDK's own requests;
 * - membership/: the group protocol (eager, cooperative, consumer, or a manual assignment);
 * - partitions/owned.ts: what the member owns, assigned, revoked and lost partition by partition;
 * - fetch/: the fetch loop, which keeps fetching the partitions a member keeps while a rebalance runs;
 * - runner/: the batch runner (chunks through the strategy and the handler);
 * - commit/: offset commits with the membership's identity, committed offsets, log offsets.
 */
import type { Kafka, PartitionAssigner } from 'kafkajs';
import { KafkaEosError } from '../errors';
import { KafkaProtocolError } from '../protocol/kafka-errors';
import { partitionKey, TopicPartition } from '../records';
import type { SinkContext } from '../sink-contract';
import { Committer } from './commit/committer';
import { GroupOffsets, LogOffsets, PartitionOffset } from './commit/offsets';
import { MaxProcessingTimeExceededError, UnknownTopicError } from './errors';
import type { GroupConsumerEvents } from './events';
import { Fetcher } from './fetch/fetcher';
import { kafkaCall } from './kafka-calls';
import { KafkaTransport } from './kafka/transport';
import {
  ClassicAssignor, cooperativeStickyAssignor, kafkaJsAssignor, rangeAssignor, roundRobinAssignor, stickyAssignor,
} from './membership/assignors';
import { ConsumerMembership } from './membership/consumer';
import { CooperativeMembership } from './membership/cooperative';
import { EagerMembership } from './membership/eager';
import { ManualMembership, manualPartitions } from './membership/manual';
import type { Membership, MembershipTransition } from './membership/types';
import type { ConsumerMetrics } from './metrics';
import type { GroupConsumerOptions } from './options';
import { OwnedPartitions } from './partitions/owned';
import type { ProcessorOptions } from './retry';
import { BatchRunner } from './runner/batch-runner';
import { handleChunk } from './runner/batch';
import type { CommitStrategy, StrategyContext } from './strategies/types';
import { ProcessingWatch } from './watch';

/** What the engine reports to the facade. */
export interface EngineHooks {
  emit: <E extends keyof GroupConsumerEvents>(event: E, payload: GroupConsumerEvents[E]) => void;
  /** The consumer must stop with `error` (the facade fails it; `leave`: whether to send a LeaveGroup). */
  fail: (error: Error, leave: boolean) => void;
  /** Whether batches may start (the consumer is starting, running or draining). */
  accepting: () => boolean;
  /** Why the consumer may no longer commit, or null. */
  notRunning: () => Error | null;
  log: (message: string, extra?: Record<string, unknown>) => void;
  /** Aborted when the consumer fails. */
  signal: AbortSignal;
}

const DEFAULT_MAX_PROCESSING_MS = 300000;

/** The wired parts of a consumer (see the module comment). */
export class ConsumerEngine {
  readonly transport: KafkaTransport;
  readonly fetcher: Fetcher;
  readonly runner: BatchRunner;
  readonly partitions: OwnedPartitions;
  readonly committer: Committer;
  readonly group: GroupOffsets;
  readonly log: LogOffsets;
  membership: Membership | null = null;
  private readonly watches = new Set<ProcessingWatch>();
  private readonly maxMs: number;

  constructor(
    private readonly kafka: Kafka, private readonly options: GroupConsumerOptions, private readonly strategy: CommitStrategy,
    processor: ProcessorOptions, private readonly metrics: ConsumerMetrics, private readonly hooks: EngineHooks,
  ) {
    const o = options;
    this.maxMs = o.maxProcessingTimeMs ?? DEFAULT_MAX_PROCESSING_MS;
    this.transport = new KafkaTransport(kafka);
    this.group = new GroupOffsets(this.transport, o.groupId);
    this.log = new LogOffsets(this.transport);
    this.fetcher = new Fetcher({
      transport: this.transport, maxWaitMs: o.maxWaitTimeMs ?? 500,
      resetPosition: async (tp) => (await this.listOffsets([tp], this.startFrom())).get(partitionKey(tp))!,
      onChunk: (p) => this.runner.onChunk(p),
      onError: (error, fatal) => (fatal ? hooks.fail(error, true) : hooks.emit('error', error)),
      maxBatchRecords: o.maxBatchRecords, maxBatchBytes: o.maxBatchBytes,
    });
    this.partitions = new OwnedPartitions({
      fetcher: this.fetcher, strategy, context: () => this.context(), listeners: o,
      fallbackPositions: (tps) => this.committedOrReset(tps),
      timed: (label, fn) => this.timed(label, fn),
      abortHandlers: (keys) => this.runner.abort(keys, 'the partition is being revoked'),
      idle: (keys) => this.runner.idle(keys),
      activated: (ps) => this.runner.activated(ps),
      emit: hooks.emit, metrics, fail: (e) => hooks.fail(e, true), log: hooks.log,
    });
    this.runner = new BatchRunner({
      concurrency: o.partitionsConsumedConcurrently ?? 1, fetcher: this.fetcher, maxProcessingTimeMs: this.maxMs,
      ownerOf: (p) => {
        const owned = this.partitions.get(p.tp);
        return owned?.fetch === p ? owned : undefined;
      },
      handle: (owned, chunk, watch) => handleChunk({
        strategy, processor, context: () => this.context(), fetcher: this.fetcher, metrics, emit: hooks.emit,
        failAfterCommit: (e) => this.commitThenFail(e), fail: (e) => hooks.fail(e, true),
      }, owned, chunk, watch),
      onTimeout: (owned) => this.maxProcessingTime(new MaxProcessingTimeExceededError(owned.tp.topic, owned.tp.partition, this.maxMs)),
      accepting: hooks.accepting,
    });
    this.committer = new Committer({
      offsets: this.group, membership: () => this.membership, owns: (tp) => this.partitions.owns(tp), signal: hooks.signal,
      notRunning: hooks.notRunning, forgetCoordinator: () => this.transport.forgetCoordinator(o.groupId),
      onCommitted: (offsets) => hooks.emit('commit', { offsets }),
    });
  }

  private startFrom(): 'earliest' | 'latest' {
    return (this.options.fromBeginning ?? true) ? 'earliest' : 'latest';
  }

  /** What the strategy sees of the consumer. */
  context(): StrategyContext {
    return {
      groupId: this.options.groupId,
      commitToKafka: (offsets, options) => this.committer.commit(offsets, options),
      earliestOffset: async (tp) => (await this.offsetRange(tp)).earliest,
      offsetRange: (tp) => this.offsetRange(tp),
      startFrom: this.startFrom(),
      sinkContext: this.sinkContext(),
    };
  }

  /** What the sink is told about the consumer (sink-contract.ts SinkContext): its client and group metadata (KIP-447). */
  private sinkContextValue: SinkContext | null = null;
  private sinkContext(): SinkContext {
    return this.sinkContextValue ??= {
      kafka: this.kafka,
      groupInstanceId: this.options.groupInstanceId ?? null,
      groupMetadata: () => {
        const identity = this.membership?.commitIdentity();
        if (!identity) return null;
        return {
          groupId: this.options.groupId, generationId: identity.generationId, memberId: identity.memberId,
          groupInstanceId: identity.groupInstanceId,
        };
      },
      generationLost: (error) => this.membership?.generationLost(error),
    };
  }

  /**
   * ListOffsets, retried through leader moves; an error code a ListOffsets should not answer is retried too (Java's
   * OffsetFetcher logs an unexpected error and retries), except authorization and UNSUPPORTED_VERSION. Throws KafkaCallError.
   */
  listOffsets(partitions: TopicPartition[], which: 'earliest' | 'latest'): Promise<Map<string, bigint>> {
    const unexpected = (e: unknown) => e instanceof KafkaProtocolError
      && !/AUTHORIZATION|UNSUPPORTED_VERSION/.test(e.kafkaError);
    return kafkaCall(`ListOffsets ${partitions.map(partitionKey).join(', ')}`, () => this.log.list(partitions, which),
      { refresh: () => this.transport.refreshMetadata(), alsoRetry: unexpected });
  }

  /** Log start offset and high watermark. Throws KafkaCallError. */
  async offsetRange(tp: TopicPartition): Promise<{ earliest: bigint; latest: bigint }> {
    const [earliest, latest] = await Promise.all([this.listOffsets([tp], 'earliest'), this.listOffsets([tp], 'latest')]);
    return { earliest: earliest.get(partitionKey(tp))!, latest: latest.get(partitionKey(tp))! };
  }

  /** Committed offsets of the group (OffsetFetch), retried. Throws KafkaCallError. */
  committed(partitions: TopicPartition[]): Promise<Map<string, bigint | null>> {
    return kafkaCall('OffsetFetch', () => this.group.committed(partitions),
      { refresh: async () => this.transport.forgetCoordinator(this.options.groupId) });
  }

  /** The committed offset of each partition, else the log start or end (`fromBeginning`: Kafka's auto.offset.reset). */
  private async committedOrReset(partitions: TopicPartition[]): Promise<Map<string, bigint>> {
    const committed = await this.committed(partitions);
    const out = new Map<string, bigint>();
    const reset: TopicPartition[] = [];
    for (const tp of partitions) {
      const c = committed.get(partitionKey(tp));
      if (c !== null && c !== undefined) out.set(partitionKey(tp), c);
      else reset.push(tp);
    }
    if (reset.length > 0) for (const [k, v] of await this.listOffsets(reset, this.startFrom())) out.set(k, v);
    return out;
  }

  /** Runs a listener or the strategy's assignment work under maxProcessingTimeMs (stop() aborts nothing here). */
  private async timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
    const watch = new ProcessingWatch({
      maxProcessingTimeMs: this.maxMs, onTimeout: () => this.maxProcessingTime(new MaxProcessingTimeExceededError(label, -1, this.maxMs)),
    }).start();
    this.watches.add(watch);
    try {
      return await fn();
    } finally {
      watch.stop();
      this.watches.delete(watch);
    }
  }

  /** A handler or listener ran past maxProcessingTimeMs: the partitions are lost, the member leaves, the consumer fails. */
  private maxProcessingTime(error: MaxProcessingTimeExceededError): void {
    const owned = this.partitions.owned();
    if (owned.length > 0) this.partitions.lose(owned, error);
    this.hooks.fail(error, true);
  }

  /** Poison record under policy `fail`: the strategy commits what every owned partition finished, then the consumer fails. */
  private async commitThenFail(error: Error): Promise<void> {
    const owned = this.partitions.owned();
    try {
      if (owned.length > 0) await this.strategy.onRevoked?.(this.context(), owned);
    } catch (e) {
      const message = `commit before failing: ${(e as Error).message}`;
      this.hooks.emit('error', new KafkaEosError('COMMIT_ON_REVOKE_FAILED', message, { cause: e }));
    }
    this.hooks.fail(error, true);
  }

  /** Names missing topics up front. Throws UnknownTopicError. */
  async assertTopicsExist(): Promise<string[]> {
    const o = this.options;
    const existing = await this.transport.allTopics();
    const named = o.assign ? o.assign.map((a) => a.topic) : (o.topics ?? []).filter((t): t is string => typeof t === 'string');
    const missing = [...new Set(named)].filter((t) => !existing.includes(t));
    if (missing.length > 0) throw new UnknownTopicError(missing);
    return existing;
  }

  /** Creates the membership the options ask for. `existing`: the cluster's topics (patterns match them, classic). */
  createMembership(existing: string[], onTransition: (t: MembershipTransition) => void): Membership {
    const o = this.options;
    const host = this.partitions;
    if (o.assign) return new ManualMembership(host, manualPartitions(o.assign), onTransition);
    const names = (o.topics ?? []).filter((t): t is string => typeof t === 'string');
    const patterns = (o.topics ?? []).filter((t): t is RegExp => t instanceof RegExp);
    const groupInstanceId = o.groupInstanceId ?? null;
    const rebalanceTimeoutMs = o.rebalanceTimeoutMs ?? 60000;
    if (o.groupProtocol === 'consumer') {
      const escape = (n: string) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const subscription = patterns.length === 0
        ? { names }
        : { regex: [...names.map(escape), ...patterns.map((p) => p.source)].map((x) => `(?:${x})`).join('|') };
      return new ConsumerMembership(host, {
        transport: this.transport, groupId: o.groupId, groupInstanceId, rebalanceTimeoutMs, subscription,
        serverAssignor: o.groupRemoteAssignor ?? null, onTransition,
      });
    }
    const matched = existing.filter((t) => !t.startsWith('__') && patterns.some((p) => { p.lastIndex = 0; return p.test(t); }));
    const topics = [...new Set([...names, ...matched])].sort();
    const assignors = this.classicAssignors();
    const classic = {
      transport: this.transport, groupId: o.groupId, groupInstanceId, rebalanceTimeoutMs,
      sessionTimeoutMs: o.sessionTimeoutMs ?? 30000, heartbeatIntervalMs: o.heartbeatIntervalMs ?? 3000,
      topics: async () => topics, assignors, onTransition,
    };
    return assignors.every((a) => a.cooperative) ? new CooperativeMembership(host, classic) : new EagerMembership(host, classic);
  }

  private classicAssignors(): ClassicAssignor[] {
    const o = this.options;
    return (o.assignors ?? ['range']).map((a) => {
      if (a === 'range') return rangeAssignor();
      if (a === 'roundrobin') return roundRobinAssignor();
      if (a === 'sticky') return stickyAssignor();
      if (a === 'cooperative-sticky') return cooperativeStickyAssignor();
      return kafkaJsAssignor(a as PartitionAssigner, this.transport.kafkaJsConfig(o.groupId));
    });
  }

  /** Commits `offsets` for the partitions owned (see commit/committer.ts). */
  commit(offsets: PartitionOffset[]): Promise<void> {
    return this.committer.commit(offsets);
  }

  /** Aborts the signals of every running handler and listener watch (stop()). */
  abortAll(reason: string): void {
    this.runner.abort(null, reason);
  }

  /** Releases everything: the fetch loop and the connections. Never rejects. */
  async close(): Promise<void> {
    for (const w of this.watches) w.stop();
    await this.fetcher.stop().catch(() => undefined);
    await this.transport.disconnect();
  }
}
