/**
 * A consumer-group client that wraps processing in a commit strategy (at-most-once, at-least-once, exactly-once, or
 * your own), with Java's rebalance listener semantics under three group protocols: classic eager, classic
 * cooperative (KIP-429, `assignors: ['cooperative-sticky']`) and KIP-848 (`groupProtocol: 'consumer'`). With the
 * incremental ones only the partitions that move are revoked; the others keep being fetched and processed while
 * the group rebalances. Also: a maximum processing time (max.poll.interval.ms), retries and a poison-message policy,
 * KIP-345 static membership and manual assignment.
 *
 * ```ts
 * const consumer = createGroupConsumer({
 *   brokers: ['127.0.0.1:9092'], groupId: 'loader', topics: ['flights'],
 *   delivery: 'exactly-once', sink: new SqlSink({ ... }),
 * });
 * await consumer.start();
 * ...
 * await consumer.stop();   // finishes the batch in hand, commits, leaves the group
 * ```
 *
 * This class is the facade: lifecycle, options and events. The work is done by the parts engine.ts wires together
 * (membership/, fetch/, runner/, partitions/, commit/, kafka/). KafkaJS 2.2.4 provides the connections, SASL/TLS and
 * metadata; the group protocol and the fetch loop are the SDK's own.
 *
 * Events (typed: see {@link GroupConsumerEvents} in events.ts for when each fires): `assigned`, `revoked`,
 * `lost`, `rebalance`, `batch`, `fenced`, `dead-letter`, `sink-unavailable`, `retry`, `error`, `state`, `membership`.
 */
import { EventEmitter } from 'node:events';
import { Kafka, logLevel, Producer } from 'kafkajs';
import { KafkaEosError } from '../errors';
import { GroupCommitSink } from './group-commit';
import { partitionKey, type OutputRecord, type OutputSource, type TopicPartition } from '../records';
import { FencedInstanceIdError } from './errors';
import { toError, type GroupConsumerEvents, type GroupConsumerListener } from './events';
import { kafkaCall } from './kafka-calls';
import { ConsumerState, Lifecycle } from './lifecycle';
import { attachLogging, reportUnheardFailure } from './logging';
import { ConsumerMetrics, ConsumerMetricsSnapshot } from './metrics';
import { GroupConsumerOptions, validateOptions } from './options';
import { assertOwnKafkaJs } from './kafkajs-instance';
import { policeRejectedRecord, ProcessorOptions } from './retry';
import { atLeastOnce } from './strategies/at-least-once';
import { atMostOnce } from './strategies/at-most-once';
import { exactlyOnce } from './strategies/exactly-once';
import type { CommitStrategy } from './strategies/types';
import { caughtUp, installSignalHandlers } from './drain';
import { registerKafkaJsCodecs } from './codecs';
import { ConsumerEngine } from './engine';
import type { MembershipProtocolName, MembershipTransition } from './membership/types';
import { withConverters } from './converters/converting-strategy';
import { guardBlockedSink } from './sink-blocked';
import { createTracing, type ConsumerTracing } from './tracing';
import type { ExactlyOnceSink } from '../sink-contract';

// Snappy, LZ4 and ZSTD for the user's KafkaJS clients of the same copy (the dead-letter producer included): codecs.ts.
registerKafkaJsCodecs();

export { COMMIT_TIMEOUT_MS } from './commit/committer';

/** Options of {@link GroupConsumer.stop}. */
export interface StopOptions {
  /**
   * Leave the group (default: true for dynamic members; false for static members, whose restart within the
   * session timeout then causes no rebalance, as Java's static members do: classic, no LeaveGroup; KIP-848, member
   * epoch -2).
   */
  leaveGroup?: boolean;
  /**
   * How long the stop may take, ms (Java's `close(Duration)`; default: unbounded). Past it, commits being retried
   * give up, connections are closed, and stop() rejects with STOP_TIMEOUT naming the partitions still owned (their
   * records past the committed position are consumed again by their next owner). Bounds a stop during start() and
   * one waiting on a commit the coordinator does not answer.
   */
  timeoutMs?: number;
}

/** What {@link GroupConsumer.membershipState} reports. */
export interface MembershipSnapshot {
  /** eager, cooperative, consumer (KIP-848) or manual; null before start(). */
  protocol: MembershipProtocolName | null;
  state: string;
  /** The number of membership transitions so far. */
  epoch: number;
  /** Classic: the generation id; KIP-848: the member epoch; -1: none. */
  generation: number;
  memberId: string;
  /** The last transitions (each with its reason), oldest first. */
  history: MembershipTransition[];
}

/**
 * The consumer's event methods, typed by {@link GroupConsumerEvents} (events.ts): a misspelled event name fails to
 * compile naming the event map (`'fencd'` is not assignable to `keyof GroupConsumerEvents`), not with a `never`
 * listener as Node's generic EventEmitter typing would.
 */
export interface GroupConsumer {
  on<E extends keyof GroupConsumerEvents>(event: E, listener: GroupConsumerListener<E>): this;
  once<E extends keyof GroupConsumerEvents>(event: E, listener: GroupConsumerListener<E>): this;
  off<E extends keyof GroupConsumerEvents>(event: E, listener: GroupConsumerListener<E>): this;
  addListener<E extends keyof GroupConsumerEvents>(event: E, listener: GroupConsumerListener<E>): this;
  removeListener<E extends keyof GroupConsumerEvents>(event: E, listener: GroupConsumerListener<E>): this;
  emit<E extends keyof GroupConsumerEvents>(event: E, payload: GroupConsumerEvents[E]): boolean;
}

/** A consumer-group member with a commit strategy (see the module comment); create with {@link createGroupConsumer}. */
export class GroupConsumer extends EventEmitter {
  private readonly options: GroupConsumerOptions;
  private readonly kafka: Kafka;
  private readonly strategy: CommitStrategy;
  /** OpenTelemetry spans (tracing.ts), or null without @opentelemetry/api. */
  private readonly tracing: ConsumerTracing | null;
  private readonly lifecycle: Lifecycle;
  private readonly metricsState = new ConsumerMetrics();
  private readonly processor: ProcessorOptions;
  private readonly engine: ConsumerEngine;
  private producer: Promise<Producer> | null = null;
  private leaveOnStop: boolean;
  private stopPromise: Promise<void> | null = null;
  /** stop() was called (a failure's own shutdown does not count: start() still rejects with the failure). */
  private stopCalled = false;
  /** Settles once start() has connected and created the membership (or given up): stop() waits for it. */
  private connecting: Promise<void> = Promise.resolve();
  private signalHandlers: [NodeJS.Signals, () => void][] = [];
  /** The seek under way per partition (seek() runs one at a time per partition). */
  private readonly seeks = new Map<string, Promise<void>>();
  /** Aborted when the consumer fails: commits being retried give up. */
  private readonly commitAbort = new AbortController();
  private readonly logger: ReturnType<ReturnType<Kafka['logger']>['namespace']>;
  /** Why the consumer failed, if it did. */
  failure: Error | null = null;
  /** The consumer's own `error` listeners (metrics, logging): more than these means the user listens. */
  private readonly ownErrorListeners: number;

  constructor(options: GroupConsumerOptions) {
    super();
    this.options = validateOptions(options);
    if (options.kafka) assertOwnKafkaJs(options.kafka);
    this.kafka = options.kafka ?? new Kafka({
      clientId: options.clientId ?? 'kafka-eos',
      brokers: options.brokers as string[],
      logLevel: options.logLevel ?? logLevel.NOTHING,
      logCreator: options.logCreator,
    });
    this.logger = this.kafka.logger().namespace('kafka-eos');
    this.lifecycle = new Lifecycle((from, to) => this.emit('state', { from, to }));
    // Converters (keyConverter, valueConverter) run on each batch before the strategy: converters/converting-strategy.ts.
    // OpenTelemetry (tracing.ts): a span per batch (conversion included) and per sink transaction, when installed.
    this.tracing = createTracing(options.groupId);
    const converting = withConverters(options.strategy ?? this.makeStrategy(), options, {
      police: (batch, record, error) => policeRejectedRecord(this.processor, batch, record, error),
      onUnavailable: (info) => this.emit('schema-registry-unavailable', info),
    });
    this.strategy = this.tracing ? this.tracing.strategy(converting) : converting;
    this.leaveOnStop = !options.groupInstanceId;
    this.processor = {
      handler: options.handler,
      recordHandler: options.recordHandler,
      retry: options.retry,
      poisonPolicy: options.poisonPolicy,
      deadLetterTopic: options.deadLetterTopic,
      producer: () => this.deadLetterProducer(),
      // KafkaSink: a dead letter is a record of the sink's transaction, committed with the input's offsets.
      deadLetterInTransaction: options.delivery === 'exactly-once' && options.sink?.transactionalOutput === true,
      // KafkaSink: each input record's outputs are checked (shape, size) so that the poison policy applies to it.
      ...(options.delivery === 'exactly-once' && options.sink?.checkOutputs
        ? { checkOutputs: (outputs: readonly OutputRecord[], source: OutputSource) => options.sink!.checkOutputs!(outputs, source) } : {}),
      onDeadLetter: ({ tombstone, ...info }) => {
        this.metricsState.policed('deadLettered', 1, tombstone ? 1 : 0);
        this.emit('dead-letter', info);
      },
      onRetry: (info) => { this.metricsState.counts.retries += 1; this.emit('retry', info); },
      onSkip: ({ tombstones, ...info }) => {
        this.metricsState.policed('skipped', info.records, tombstones ?? 0);
        this.emit('skipped', info);
      },
    };
    this.engine = new ConsumerEngine(this.kafka, this.options, this.strategy, this.processor, this.metricsState, {
      emit: <E extends keyof GroupConsumerEvents>(event: E, payload: GroupConsumerEvents[E]) => {
        (this.emit as (e: E, p: GroupConsumerEvents[E]) => boolean)(event, payload);
      },
      fail: (error, leave) => this.fail(error, leave),
      accepting: () => this.accepting(),
      notRunning: () => this.failure
        ?? (this.lifecycle.state === 'stopped' ? new KafkaEosError('NOT_RUNNING', 'the consumer stopped') : null),
      log: (message, extra) => this.logger.debug(message, { groupId: this.options.groupId, ...extra }),
      signal: this.commitAbort.signal,
    });
    // An 'error' event with no listener would throw from emit(): keep errors observable but safe.
    this.on('error', () => { this.metricsState.counts.errors += 1; });
    attachLogging(this, this.kafka, options.groupId);
    this.ownErrorListeners = this.listenerCount('error');
  }

  get state(): ConsumerState {
    return this.lifecycle.state;
  }

  /** The partitions currently assigned to this member. */
  assignment(): TopicPartition[] {
    return this.engine.partitions.owned();
  }

  /**
   * Stops fetching these partitions and handing their records on until {@link resume} (Java's `KafkaConsumer.pause`):
   * the member keeps them (no rebalance), a batch being handled finishes, what was fetched waits; positions do not
   * move, so every guarantee of the delivery holds. A partition assigned anew is not paused.
   * @throws KafkaEosError NOT_ASSIGNED naming a partition this member does not own (nothing is paused then).
   */
  pause(partitions: TopicPartition[]): void {
    this.engine.fetcher.pause(this.ownedKeys(partitions, 'pause'));
  }

  /** Fetches and hands on these partitions again (Java's `resume`). @throws KafkaEosError NOT_ASSIGNED as {@link pause}. */
  resume(partitions: TopicPartition[]): void {
    this.engine.fetcher.resume(this.ownedKeys(partitions, 'resume'));
    this.engine.runner.resume();
  }

  /**
   * Moves `partition`'s position to `offset` (Java's `KafkaConsumer.seek`), with the delivery's guarantee: the batch
   * of the partition in hand finishes first and none starts until the seek is done; then the position moves where
   * the delivery keeps it, and fetching resumes from `offset`.
   * - exactly-once: only through the sink, by compare-and-set on its stored position (no data written), so output
   *   and position never disagree; a later rebalance resumes from it. `offset` must lie in the log [log start, high
   *   watermark]. A staging sink is flushed first; a sink without `seek()` (HDFS) is refused.
   * - at-least-once, at-most-once: committed to the group at once (progress finished before it is not committed
   *   over it later). A custom strategy without `seek` moves only the fetch position.
   * Back re-delivers records (and writes them again: an insert-mode table gets them twice); forward skips them.
   * @param offset the next offset to consume (bigint or a safe integer ≥ 0).
   * @throws KafkaEosError NOT_RUNNING; NOT_ASSIGNED (not owned, or revoked while the seek waited); INVALID_ARGUMENT
   *   (a negative or fractional offset; exactly-once: outside the log); SEEK_UNSUPPORTED; SEEK_FENCED (another writer
   *   moved the sink's position: nothing moved); the sink's or the commit's own errors (nothing moved then either,
   *   except a commit whose outcome is unknown).
   */
  async seek(partition: TopicPartition, offset: bigint | number): Promise<void> {
    if (this.lifecycle.state !== 'running') throw new KafkaEosError('NOT_RUNNING', `cannot seek in state ${this.lifecycle.state}`);
    if (typeof offset === 'number' ? !Number.isSafeInteger(offset) || offset < 0 : typeof offset !== 'bigint' || offset < 0n) {
      throw new KafkaEosError('INVALID_ARGUMENT', `seek offset: a non-negative integer, got ${String(offset)}`);
    }
    const at = BigInt(offset);
    const [key] = this.ownedKeys([partition], 'seek');
    const tp = { topic: partition.topic, partition: partition.partition };
    // One seek of a partition at a time, in call order.
    const previous = this.seeks.get(key!) ?? Promise.resolve();
    const e = this.engine;
    const run = previous.catch(() => undefined).then(async () => {
      const owned = e.partitions.get(tp);
      if (!owned) throw new KafkaEosError('NOT_ASSIGNED', `cannot seek ${key}: no longer assigned to this member`);
      e.fetcher.hold(key!);
      try {
        await e.runner.idle(new Set([key!]));
        if (e.partitions.get(tp) !== owned || !owned.current) {
          throw new KafkaEosError('NOT_ASSIGNED', `cannot seek ${key}: revoked while the seek waited for its batch`);
        }
        await this.strategy.seek?.(e.context(), tp, at);
        if (e.partitions.get(tp) === owned) e.fetcher.seek(owned.fetch, at);
      } finally {
        e.fetcher.unhold(key!);
        e.runner.resume();
      }
    });
    this.seeks.set(key!, run);
    try {
      await run;
    } finally {
      if (this.seeks.get(key!) === run) this.seeks.delete(key!);
    }
  }

  /** The owned partitions now paused. */
  paused(): TopicPartition[] {
    return this.engine.partitions.owned().filter((tp) => this.engine.fetcher.isPaused(partitionKey(tp)));
  }

  private ownedKeys(partitions: TopicPartition[], what: string): string[] {
    const foreign = partitions.filter((tp) => !this.engine.partitions.owns(tp));
    if (foreign.length > 0) {
      throw new KafkaEosError('NOT_ASSIGNED', `cannot ${what} ${foreign.map(partitionKey).join(', ')}: not assigned to this member`);
    }
    return partitions.map(partitionKey);
  }

  /** The membership protocol, its state machine's state, generation or member epoch, and its last transitions. */
  membershipState(): MembershipSnapshot {
    const m = this.engine.membership;
    if (!m) return { protocol: null, state: 'unjoined', epoch: 0, generation: -1, memberId: '', history: [] };
    return {
      protocol: m.protocol, state: m.state, epoch: m.history.at(-1)?.epoch ?? 0, generation: m.generation, memberId: m.memberId,
      history: [...m.history],
    };
  }

  /** Lag per partition, records per second, rebalances with durations (ms), error counts. */
  metrics(): ConsumerMetricsSnapshot {
    return this.metricsState.snapshot();
  }

  private makeStrategy(): CommitStrategy {
    const o = this.options;
    switch (o.delivery) {
      case 'at-most-once': return atMostOnce();
      case 'at-least-once': return atLeastOnce({ commitIntervalMs: o.commitIntervalMs });
      case 'exactly-once': {
        const eos = exactlyOnce({
          sink: guardBlockedSink(o.groupCommit ? new GroupCommitSink(this.traced(o.sink!), o.groupCommit) : this.traced(o.sink!), {
            timeoutMs: o.sinkBlockedTimeoutMs,
            onBlocked: (info) => this.emit('sink-blocked', info),
            onUnblocked: (info) => this.emit('sink-unblocked', info),
          }),
          commitToKafkaForMonitoring: o.commitToKafkaForMonitoring,
          onFenced: (info) => this.emit('fenced', info),
          onRejected: (batch, record, error) => policeRejectedRecord(this.processor, batch, record, error),
          onSinkUnavailable: (info) => this.emit('sink-unavailable', { ...info, error: toError(info.error) }),
        });
        // The lag counts from the sink's stored positions, whatever the consumer is doing (paused, waiting for the sink).
        this.metricsState.storedPositions(() => eos.positions());
        return eos;
      }
    }
  }

  private traced(sink: ExactlyOnceSink): ExactlyOnceSink {
    return this.tracing ? this.tracing.sink(sink) : sink;
  }

  /**
   * Joins the group (or takes the manual assignment) and starts consuming. Resolves once the member's first
   * assignment is positioned and onPartitionsAssigned ran (the `assigned` event fired); rejects if the consumer
   * fails before that. Called again, throws IllegalStateError. Throws UnknownTopicError for a named topic that does
   * not exist, KafkaJS's connection errors if the cluster cannot be reached.
   */
  async start(): Promise<void> {
    this.lifecycle.to('starting');
    let connected!: () => void;
    this.connecting = new Promise<void>((resolve) => { connected = resolve; });
    let membershipStarted: Promise<void>;
    // stop() called meanwhile (this.stopCalled): start-up ends at its next step.
    try {
      const e = this.engine;
      await e.transport.connect();
      if (this.stopCalled) return;
      const existing = await e.assertTopicsExist();
      if (this.stopCalled) return;
      const membership = e.createMembership(existing, (t) => this.emit('membership', t));
      e.membership = membership;
      e.fetcher.start();
      membershipStarted = membership.start();
    } catch (err) {
      if (this.stopCalled) return;
      if (this.lifecycle.can('failed')) this.lifecycle.to('failed');
      await this.engine.close();
      throw err;
    } finally {
      connected();
    }
    await membershipStarted;
    if (this.stopCalled || this.failure) {
      if (this.failure && !this.stopCalled) throw this.failure;
      return;
    }
    if (this.lifecycle.state === 'starting') this.lifecycle.to('running');
    this.engine.runner.resume();
    this.engine.startLagRefresh();
    this.installSignalHandlers();
  }

  private accepting(): boolean {
    return this.lifecycle.state === 'running' || this.lifecycle.state === 'draining' || this.lifecycle.state === 'starting';
  }

  private installSignalHandlers(): void {
    if (this.options.handleSignals) this.signalHandlers = installSignalHandlers(this.options.handleSignals, () => this.stop());
  }

  private removeSignalHandlers(): void {
    for (const [sig, handler] of this.signalHandlers) process.removeListener(sig, handler);
    this.signalHandlers = [];
  }

  private async deadLetterProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const p = this.kafka.producer({ allowAutoTopicCreation: true });
      await p.connect();
      return p;
    })();
    return this.producer;
  }

  // ------------------------------------------------------------------ stopping

  /**
   * Stops with `error` (state `failed`), without committing: what is owned is lost, the membership ends (leaving the
   * group when `leave`, never after FENCED_INSTANCE_ID), connections close. Emits `error`. Idempotent.
   */
  private fail(error: Error, leave: boolean): void {
    if (this.failure || this.lifecycle.state === 'stopped') return;
    this.failure = error;
    this.commitAbort.abort(error);
    // start() and drain() reject with the failure: whoever awaits them hears of it. Later, only `error` listeners do.
    const awaited = this.lifecycle.state === 'starting' || this.lifecycle.state === 'draining';
    if (this.lifecycle.can('failed')) this.lifecycle.to('failed');
    this.emit('error', error);
    if (!awaited && this.listenerCount('error') <= this.ownErrorListeners) reportUnheardFailure(this.kafka, this.options.groupId, error);
    const e = this.engine;
    const owned = e.partitions.owned();
    if (owned.length > 0) e.partitions.lose(owned, error);
    e.abortAll(`the consumer failed: ${error.message}`);
    const leaving = leave && !(error instanceof FencedInstanceIdError);
    this.stopPromise ??= (async () => {
      await this.connecting;
      await e.membership?.abandon(leaving);
      await this.release();
    })();
  }

  private async release(): Promise<void> {
    const producer = this.producer;
    this.producer = null;
    await Promise.allSettled([this.engine.close(), producer?.then((p) => p.disconnect())]);
    this.removeSignalHandlers();
  }

  /**
   * Finishes the batch in hand (its handler's signal aborts: the record in hand finishes, the rest of the batch
   * waits), commits finished work (onPartitionsRevoked runs), leaves the group (see {@link StopOptions.leaveGroup})
   * and disconnects. Idempotent: later calls return the same promise. After a failure, resolves once resources are
   * released (see `failure`). Called while start() runs, start() ends at its next step and resolves.
   */
  stop(options: StopOptions = {}): Promise<void> {
    const before = this.engine.partitions.owned().map(partitionKey);
    const stopping = this.stopUnbounded(options);
    const ms = options.timeoutMs;
    if (ms === undefined) return stopping;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const owned = this.engine.partitions.owned().map(partitionKey);
        const given = before.filter((k) => !owned.includes(k));
        const error = new KafkaEosError('STOP_TIMEOUT', `did not stop within ${ms} ms (timeoutMs); `
          + (owned.length > 0 ? `still owned, not committed past their last commit: ${owned.join(', ')}`
            : given.length > 0 ? `every partition was given up with its work committed (${given.join(', ')}); leaving the group `
              + 'and closing connections did not finish' : 'no partition was owned'));
        this.commitAbort.abort(error); // commits being retried give up
        void this.release().catch(() => undefined);
        reject(error);
      }, ms);
    });
    return Promise.race([stopping, expired]).finally(() => clearTimeout(timer));
  }

  private stopUnbounded(options: StopOptions): Promise<void> {
    if (this.stopPromise) return this.stopPromise;
    this.stopCalled = true;
    if (this.lifecycle.state === 'idle') {
      this.lifecycle.to('stopped');
      this.stopPromise = Promise.resolve();
      return this.stopPromise;
    }
    if (options.leaveGroup !== undefined) this.leaveOnStop = options.leaveGroup;
    // At once, not after the first await: a record handler that returns its result (no promise) runs the batch's
    // records without yielding, so a stop() it calls must be seen before its next record (the record in hand finishes).
    if (this.lifecycle.state === 'running' || this.lifecycle.state === 'draining') this.engine.abortAll('the consumer is stopping');
    this.stopPromise = (async () => {
      if (this.lifecycle.can('stopping')) this.lifecycle.to('stopping');
      await this.connecting;
      this.engine.abortAll('the consumer is stopping');
      await this.engine.membership?.stop(this.leaveOnStop);
      await this.release();
      if (this.lifecycle.can('stopped')) this.lifecycle.to('stopped');
    })();
    return this.stopPromise;
  }

  /**
   * Consumes every record already in the assigned partitions' logs when called (up to their high
   * watermarks), then stops as {@link stop} does. Partitions assigned later are drained to their
   * high watermark at that time. Rejects with the failure if the consumer fails meanwhile.
   * @param pollMs how often progress is checked, ms (default 200).
   */
  async drain(pollMs = 200): Promise<void> {
    if (this.lifecycle.state !== 'running') throw new KafkaEosError('NOT_RUNNING', `cannot drain in state ${this.lifecycle.state}`);
    this.lifecycle.to('draining');
    const targets = new Map<string, bigint>();
    const e = this.engine;
    const offsets = {
      highWatermarks: (tps: TopicPartition[]) => e.listOffsets(tps, 'latest'), committed: (tps: TopicPartition[]) => e.committed(tps),
    };
    const draining = (): boolean => this.lifecycle.state === 'draining';
    while (draining()) {
      const position = (tp: TopicPartition) => this.metricsState.position(tp);
      const done = await kafkaCall('drain', () => caughtUp(offsets, e.partitions.owned(), position, targets), { retries: 3 })
        .catch(() => false);
      if (done) return this.stop();
      await new Promise((r) => setTimeout(r, pollMs));
    }
    if (this.failure) throw this.failure;
  }
}

/** Creates a {@link GroupConsumer}. Throws ConfigError for invalid options. */
export function createGroupConsumer(options: GroupConsumerOptions): GroupConsumer {
  return new GroupConsumer(options);
}
