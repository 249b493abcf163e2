/**
 * A consumer-group client on KafkaJS 2.2.4 that wraps processing in a commit strategy
 * (at-most-once, at-least-once, exactly-once, or your own), with Java's rebalance listener
 * semantics (ConsumerRebalanceListener, eager protocol: revoke before rejoin), background
 * heartbeats up to a maximum processing time (max.poll.interval.ms), retries and a poison-message
 * policy, KIP-345 static membership and manual assignment.
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
 * Events (typed: see {@link GroupConsumerEvents} in events.ts for when each fires): `assigned`, `revoked`,
 * `lost`, `rebalance`, `batch`, `fenced`, `dead-letter`, `sink-unavailable`, `retry`, `error`, `state`.
 */
import { EventEmitter } from 'node:events';
import { Batch, Consumer, EachBatchPayload, Kafka, logLevel, PartitionAssigner, Producer } from 'kafkajs';
import { AdminClients } from './admin-clients';
import { createRangeAssignor, createRoundRobinAssignor, createStickyAssignor, createStickyAssignorState } from './assignors';
import { causesOf, kafkaEosErrorOf, KafkaEosError } from '../errors';
import { kafkaErrorOf, needsRejoin } from '../protocol/kafka-errors';
import { GroupCommitSink } from './group-commit';
import { partitionKey, SinkRecord, TopicPartition } from '../records';
import { FencedInstanceIdError, MaxProcessingTimeExceededError, PoisonMessageError, UnknownTopicError } from './errors';
import {
  assertNotFenced, batchEpoch, clearPendingSeeks, findCoordinatorAgain, GroupHooks, KafkaJsConsumerGroup, registeringAssigners,
  simpleCommit,
} from './kafkajs-adapter';
import { toError, type GroupConsumerEvents, type GroupConsumerListener } from './events';
import { kafkaCall } from './kafka-calls';
import { Membership, MembershipTransition } from './membership';
import { ConsumerState, Lifecycle } from './lifecycle';
import { attachLogging } from './logging';
import { committedPositions, manualAssigner, privateGroupId } from './manual';
import { ConsumerMetrics, ConsumerMetricsSnapshot } from './metrics';
import { GroupConsumerOptions, validateOptions } from './options';
import { assertOwnKafkaJs } from './kafkajs-instance';
import { policeRejectedRecord, processBatch, ProcessorOptions } from './retry';
import { atLeastOnce } from './strategies/at-least-once';
import { atMostOnce } from './strategies/at-most-once';
import { exactlyOnce } from './strategies/exactly-once';
import type { CommitStrategy, StrategyBatch, StrategyContext } from './strategies/types';
import { BatchWatch } from './watch';
import { caughtUp, installSignalHandlers } from './drain';
import { registerKafkaJsCodecs } from './codecs';
import { withConverters } from './converters/converting-strategy';
import { guardBlockedSink } from './sink-blocked';
import { createTracing, type ConsumerTracing } from './tracing';
import type { ExactlyOnceSink } from '../sink-contract';

// Snappy, LZ4 and ZSTD for KafkaJS's fetches (and the user's KafkaJS clients of the same copy): see codecs.ts.
registerKafkaJsCodecs();

/** The KafkaJS protocol error inside `error` (KafkaJS's runner rejoins on its `type`), or `error` itself. */
function kafkaJsCause(error: Error): Error {
  return (causesOf(error).find((c) => typeof (c as { type?: unknown }).type === 'string') as Error | undefined) ?? error;
}

function toRecords(batch: Batch): SinkRecord[] {
  return batch.messages.map((m) => ({
    topic: batch.topic,
    partition: batch.partition,
    offset: BigInt(m.offset),
    key: m.key ?? null,
    value: m.value ?? null,
    timestamp: BigInt(m.timestamp),
    headers: (m.headers ?? {}) as Record<string, Buffer | string | undefined>,
  }));
}

/**
 * How long an offset commit is retried (ms): Java's `default.api.timeout.ms`, which bounds
 * `KafkaConsumer.commitSync()`. Retriable errors (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, a
 * dropped connection, the coordinator's broker gone from KafkaJS's metadata) are retried with backoff
 * (100 ms doubling to 2 s) within it; the commit then fails as KafkaCallError (KAFKA_CALL_FAILED).
 */
export const COMMIT_TIMEOUT_MS = 60000;

/** Options of {@link GroupConsumer.stop}. */
export interface StopOptions {
  /**
   * Send LeaveGroup (default: true for dynamic members; false for static members, whose restart
   * within the session timeout then causes no rebalance, as Java's static members do).
   */
  leaveGroup?: boolean;
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
  private readonly hooks: GroupHooks;
  private readonly processor: ProcessorOptions;
  private consumer: Consumer | null = null;
  /** The KafkaJS consumer start() made, kept after disconnect() (a crash during stop() must still cancel its restart). */
  private kjsConsumer: Consumer | null = null;
  private readonly admins: AdminClients;
  private producer: Promise<Producer> | null = null;
  /** Resolves once the strategy has positioned the current assignment. */
  private assignmentReady: Promise<void> = Promise.resolve();
  /** The rebalance round as a state machine: epoch, owned partitions, pending rejoin, seeks. */
  private readonly membership: Membership;
  /** Watches of running handlers and listeners: stop() aborts their signals. */
  private readonly watches = new Set<BatchWatch>();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private kjsGroup: KafkaJsConsumerGroup | null = null;
  private leaveOnStop = true;
  private stopPromise: Promise<void> | null = null;
  /** stop() was called (a failure's own disconnect does not count: start() still rejects with the failure). */
  private stopCalled = false;
  /**
   * Settles once start() is past KafkaJS's first join (or has given up): until then stop() waits, so that
   * it never disconnects a client start() is still creating, nor a member in the middle of its first join.
   */
  private connecting: Promise<void> = Promise.resolve();
  private signalHandlers: [NodeJS.Signals, () => void][] = [];
  /** Aborted when the consumer fails: commits being retried give up (see COMMIT_TIMEOUT_MS). */
  private commitAbort = new AbortController();
  /** Why the consumer failed, if it did. */
  failure: Error | null = null;
  /** Fed after every rebalance, so the sticky assignor can report what this member owns. */
  private readonly stickyState = createStickyAssignorState();

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
    this.admins = new AdminClients(this.kafka);
    this.lifecycle = new Lifecycle((from, to) => this.emit('state', { from, to }));
    this.membership = new Membership((t) => this.emit('membership', t));
    // Converters (keyConverter, valueConverter) run on each batch before the strategy: converters/converting-strategy.ts.
    // OpenTelemetry (tracing.ts): a span per batch (conversion included) and per sink transaction, when installed.
    this.tracing = createTracing(options.groupId);
    const converting = withConverters(options.strategy ?? this.makeStrategy(), options, {
      police: (batch, record, error) => policeRejectedRecord(this.processor, batch, record, error),
      onUnavailable: (info) => this.emit('schema-registry-unavailable', info),
    });
    this.strategy = this.tracing ? this.tracing.strategy(converting) : converting;
    this.leaveOnStop = !options.groupInstanceId;
    this.hooks = {
      groupId: options.groupId,
      groupInstanceId: options.groupInstanceId ?? null,
      beforeJoin: (group) => this.beforeJoin(group),
      epoch: () => this.membership.epoch,
      shouldLeave: () => this.leaveOnStop,
      onFenced: (err) => this.onLost(err),
    };
    this.processor = {
      handler: options.handler,
      recordHandler: options.recordHandler,
      retry: options.retry,
      poisonPolicy: options.poisonPolicy,
      deadLetterTopic: options.deadLetterTopic,
      producer: () => this.deadLetterProducer(),
      onDeadLetter: (info) => { this.metricsState.counts.deadLettered += 1; this.emit('dead-letter', info); },
      onRetry: (info) => { this.metricsState.counts.retries += 1; this.emit('retry', info); },
      onSkip: (info) => { this.metricsState.counts.skipped += info.records; this.emit('skipped', info); },
    };
    // An 'error' event with no listener would throw from emit(): keep errors observable but safe.
    this.on('error', () => { this.metricsState.counts.errors += 1; });
    attachLogging(this, this.kafka, options.groupId);
  }

  get state(): ConsumerState {
    return this.lifecycle.state;
  }

  /** The partitions currently assigned to this member. */
  assignment(): TopicPartition[] {
    return this.membership.owned();
  }

  /** The membership state machine's state and its last transitions (each with its reason), oldest first. */
  membershipState(): { state: string; epoch: number; history: MembershipTransition[] } {
    return { state: this.membership.state, epoch: this.membership.epoch, history: [...this.membership.history] };
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
      case 'exactly-once':
        return exactlyOnce({
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
    }
  }

  private traced(sink: ExactlyOnceSink): ExactlyOnceSink {
    return this.tracing ? this.tracing.sink(sink) : sink;
  }

  /** Log start offset and high watermark (ListOffsets), retried through leader moves. Throws KafkaCallError, UNKNOWN_PARTITION. */
  private async offsetRange(tp: TopicPartition): Promise<{ earliest: bigint; latest: bigint }> {
    const offsets = await kafkaCall(`ListOffsets ${partitionKey(tp)}`, () => {
      return this.admins.use((admin) => admin.fetchTopicOffsets(tp.topic));
    }, { refresh: () => this.admins.refresh() });
    const p = offsets.find((o) => o.partition === tp.partition);
    if (!p) throw new KafkaEosError('UNKNOWN_PARTITION', `no partition ${partitionKey(tp)}`);
    return { earliest: BigInt(p.low), latest: BigInt(p.high) };
  }

  private context(): StrategyContext {
    return {
      groupId: this.options.groupId,
      commitToKafka: async (offsets) => {
        const consumer = this.consumer;
        if (!consumer) throw new KafkaEosError('NOT_RUNNING', 'consumer is not running');
        assertNotFenced(this.hooks);
        if (this.failure) throw new KafkaEosError('NOT_RUNNING', `consumer failed: ${this.failure.message}`, { cause: this.failure });
        // Only partitions this member owns now: a commit for a partition that moved on would move
        // its committed offset backwards under its new owner.
        const mine = offsets.filter((o) => this.membership.owns(o));
        if (mine.length === 0) return;
        const call = `OffsetCommit ${mine.map((o) => `${partitionKey(o)}@${o.offset}`).join(', ')}`;
        // Retriable errors (a coordinator move included) are retried until the commit lands, is
        // refused, the consumer fails, or COMMIT_TIMEOUT_MS passes; fencing errors fail at once.
        const policy = { retries: Infinity, maxRetryTimeMs: COMMIT_TIMEOUT_MS, signal: this.commitAbort.signal };
        if (this.options.assign) await kafkaCall(call, () => simpleCommit(this.hooks, this.options.groupId, mine), policy);
        else {
          const payload = mine.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset.toString() }));
          const refresh = () => (this.kjsGroup ? findCoordinatorAgain(this.hooks, this.kjsGroup) : Promise.resolve());
          await kafkaCall(call, () => consumer.commitOffsets(payload), { ...policy, refresh });
        }
        this.emit('commit', { offsets: mine });
      },
      earliestOffset: async (tp) => (await this.offsetRange(tp)).earliest,
      offsetRange: (tp) => this.offsetRange(tp),
      startFrom: (this.options.fromBeginning ?? true) ? 'earliest' : 'latest',
    };
  }

  /**
   * Joins the group (or takes the manual assignment) and starts consuming. Resolves once the
   * member has its first assignment (GROUP_JOIN; the `assigned` event follows when its positions
   * are read); rejects if the consumer fails before that. Throws IllegalStateError if not idle,
   * KafkaJS errors if the cluster cannot be reached.
   */
  async start(): Promise<void> {
    this.lifecycle.to('starting');
    const o = this.options;
    let connected!: () => void;
    this.connecting = new Promise<void>((resolve) => { connected = resolve; });
    // stop() called meanwhile (this.stopCalled): start-up ends at its next step, before another client is created.
    try {
      await this.admins.connect();
      if (this.stopCalled) return;
      await this.assertTopicsExist();
      if (this.stopCalled) return;
      const consumer = this.kafka.consumer({
        groupId: o.assign ? privateGroupId(o.groupId) : o.groupId,
        sessionTimeout: o.sessionTimeoutMs ?? 30000,
        rebalanceTimeout: o.rebalanceTimeoutMs ?? 60000,
        heartbeatInterval: o.heartbeatIntervalMs ?? 3000,
        maxWaitTimeInMs: o.maxWaitTimeMs ?? 500,
        allowAutoTopicCreation: false,
        partitionAssigners: registeringAssigners(this.resolveAssignors(), this.hooks),
      });
      this.consumer = consumer;
      this.kjsConsumer = consumer;
      this.membership.attach({
        seek: (tp, offset) => {
          try {
            consumer.seek({ topic: tp.topic, partition: tp.partition, offset: offset.toString() });
          } catch {
            // KafkaJS is restarting; the next assignment positions the partition again
          }
        },
        clearPendingSeeks: () => { if (this.kjsGroup) clearPendingSeeks(this.kjsGroup); },
      });
      consumer.on(consumer.events.GROUP_JOIN, (e) => this.onGroupJoin(e.payload.memberAssignment));
      consumer.on(consumer.events.CRASH, (e) => this.onCrash(e.payload.error, e.payload.restart));
      // KafkaJS's run() joins before it resolves, and reports a failed join only as a CRASH event.
      const joined = this.firstJoinOrFailure(consumer);
      joined.catch(() => undefined);
      await consumer.connect();
      if (this.stopCalled) return;
      const topics = o.assign ? [...new Set(o.assign.map((a) => a.topic))] : o.topics!;
      await consumer.subscribe({ topics, fromBeginning: o.fromBeginning ?? true });
      if (this.stopCalled) return;
      // run() resolves after the first join (or its crash). KafkaJS's stop during that join neither leaves the
      // group (its runner is not running yet) nor keeps its metadata for the leader's assignor: stop() waits.
      await consumer.run({
        autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: o.partitionsConsumedConcurrently ?? 1,
        eachBatch: (payload) => this.onBatch(payload),
      });
      connected();
      if (this.lifecycle.state === 'starting') this.lifecycle.to('running');
      this.installSignalHandlers();
      await joined;
    } catch (e) {
      if (this.stopCalled) return;
      if (this.lifecycle.can('failed')) this.lifecycle.to('failed');
      await this.disconnect();
      throw e;
    } finally {
      connected();
    }
  }

  /**
   * Start-up ends with the first assignment: resolves on the first GROUP_JOIN (or when the
   * consumer is stopped meanwhile); rejects with the failure if the consumer fails first.
   */
  private firstJoinOrFailure(consumer: Consumer): Promise<void> {
    return new Promise((resolve, reject) => {
      const settle = (f: () => void) => { removeJoin(); this.off('state', onState); f(); };
      const removeJoin = consumer.on(consumer.events.GROUP_JOIN, () => settle(resolve));
      const onState = ({ to }: { to: string }) => {
        if (to === 'failed') settle(() => reject(this.failure ?? new KafkaEosError('NOT_RUNNING', 'the consumer failed during start-up')));
        else if (to === 'stopping' || to === 'stopped') settle(resolve);
      };
      this.on('state', onState);
      if (this.failure) settle(() => reject(this.failure));
    });
  }

  /** Names missing topics up front (KafkaJS reports them without the topic's name). Throws UnknownTopicError. */
  private async assertTopicsExist(): Promise<void> {
    const o = this.options;
    const named = o.assign ? o.assign.map((a) => a.topic) : (o.topics ?? []).filter((t): t is string => typeof t === 'string');
    if (named.length === 0 || !this.admins.admin) return;
    const existing = new Set(await this.admins.use((admin) => admin.listTopics()));
    const missing = [...new Set(named)].filter((t) => !existing.has(t));
    if (missing.length > 0) throw new UnknownTopicError(missing);
  }

  private resolveAssignors(): PartitionAssigner[] {
    if (this.options.assign) return [manualAssigner(this.options.assign)];
    return (this.options.assignors ?? ['range']).map((a) => {
      if (typeof a !== 'string') return a;
      if (a === 'range') return createRangeAssignor({ state: this.stickyState });
      if (a === 'roundrobin') return createRoundRobinAssignor({ state: this.stickyState });
      return createStickyAssignor({ state: this.stickyState });
    });
  }

  private installSignalHandlers(): void {
    if (this.options.handleSignals) this.signalHandlers = installSignalHandlers(this.options.handleSignals, () => this.stop());
  }

  private removeSignalHandlers(): void {
    for (const [sig, handler] of this.signalHandlers) process.removeListener(sig, handler);
    this.signalHandlers = [];
  }

  // ------------------------------------------------------------------ rebalancing

  private whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** KafkaJS is about to (re)join: revoke everything while we still own it (eager protocol). */
  private async beforeJoin(group: KafkaJsConsumerGroup): Promise<void> {
    this.kjsGroup = group;
    if (!this.membership.can('revoking')) return;
    const reason = this.membership.pendingRejoin ? `rejoin: ${this.membership.pendingRejoin.message}` : 'join';
    const partitions = this.membership.beginRevoke(reason);
    await this.whenIdle();
    await this.revoke(partitions);
    if (this.membership.state === 'revoking') this.membership.revoked(partitions);
  }

  /**
   * Commits finished work and runs onPartitionsRevoked for `partitions` (still owned). A commit
   * refused because the generation is gone (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION after the session
   * expired) means the partitions were lost, not revoked: onPartitionsLost runs instead. Never throws.
   */
  private async revoke(partitions: TopicPartition[]): Promise<void> {
    if (partitions.length === 0) return;
    try {
      await this.strategy.onRevoked?.(this.context(), partitions);
    } catch (e) {
      if (needsRejoin(e)) {
        this.reportLost(partitions, e as Error);
        return;
      }
      const what = partitions.map(partitionKey).join(', ');
      const message = `commit before giving up ${what} failed: ${(e as Error).message}`;
      this.emit('error', new KafkaEosError('COMMIT_ON_REVOKE_FAILED', message, { cause: e }));
    }
    try {
      await this.options.onPartitionsRevoked?.(partitions);
    } catch (e) {
      this.emit('error', toError(e));
    }
    this.emit('revoked', { partitions });
  }

  /** Tells the strategy, the listeners and the `lost` event that `partitions` were lost uncommitted. */
  private reportLost(partitions: TopicPartition[], error: Error): void {
    this.strategy.onLost?.(partitions);
    this.emit('lost', { partitions, error });
    Promise.resolve(this.options.onPartitionsLost?.(partitions)).catch((e: unknown) => this.emit('error', toError(e)));
  }

  private onGroupJoin(memberAssignment: Record<string, number[]>): void {
    this.stickyState.update(memberAssignment);
    const partitions: TopicPartition[] = [];
    for (const [topic, ps] of Object.entries(memberAssignment)) for (const partition of ps) partitions.push({ topic, partition });
    const epoch = this.membership.assigned(partitions, this.kjsGroup?.generationId ?? null);
    this.metricsState.assigned(partitions);
    const group = this.kjsGroup;
    const maxMs = this.options.maxProcessingTimeMs ?? 300000;
    // Listeners may take long (warming a cache): heartbeat meanwhile, as while handlers run.
    const watch = group ? this.watch({
      heartbeat: () => group.heartbeat({ interval: this.options.heartbeatIntervalMs ?? 3000 }),
      onTimeout: () => this.onMaxProcessingTime(new MaxProcessingTimeExceededError('(onPartitionsAssigned)', -1, maxMs)),
    }) : null;
    this.assignmentReady = (async () => {
      let positions: Map<string, bigint> | null = null;
      try {
        positions = await this.strategy.onAssigned(this.context(), partitions);
        if (!positions && this.options.assign && this.admins.admin) {
          const fromBeginning = this.options.fromBeginning ?? true;
          positions = await kafkaCall('OffsetFetch',
            () => this.admins.use((admin) => committedPositions(admin, this.options.groupId, partitions, fromBeginning)));
        }
        if (epoch !== this.membership.epoch) return;
        for (const tp of partitions) {
          const pos = positions?.get(partitionKey(tp));
          if (pos !== undefined) this.membership.seek(tp, pos, epoch);
        }
        await this.options.onPartitionsAssigned?.(partitions);
      } finally {
        if (watch) this.unwatch(watch);
      }
      const record = this.membership.positioned(epoch);
      if (!record) return;
      this.emit('assigned', { partitions, positions });
      this.metricsState.recordRebalance(record);
      this.emit('rebalance', record);
    })();
    this.assignmentReady.catch((err: unknown) => {
      if (epoch === this.membership.epoch) this.fail(err as Error);
    });
  }

  /** Partitions lost without a commit and the consumer stops: fenced (KIP-345), or maxProcessingTimeMs exceeded. */
  private onLost(error: Error): void {
    const partitions = this.membership.lose(error.message);
    this.reportLost(partitions, error);
    this.fail(error);
  }

  /**
   * The member's generation is gone (the session expired: UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION):
   * Java's CommitFailedException path. The batch in hand is dropped, its partitions are reported
   * lost, and KafkaJS is told to rejoin; the consumer carries on.
   */
  private loseAndRejoin(error: Error): void {
    const cause = kafkaJsCause(error);
    if (this.membership.state !== 'lost') {
      const partitions = this.membership.lose(`generation lost: ${kafkaErrorOf(error)?.name ?? error.message}`);
      this.reportLost(partitions, error);
    }
    this.membership.requestRejoin(cause);
  }

  private onCrash(error: Error, restart: boolean): void {
    // KafkaJS has left the group and disconnected: whatever we owned is gone, uncommitted.
    if (causesOf(error).slice(0, 2).some((c) => c instanceof FencedInstanceIdError)) return;
    if (this.stopCalled || this.failure) {
      // stop() revokes (commits) before it disconnects: a crash now is KafkaJS's join or fetch meeting that
      // disconnect (e.g. a leader's assignment finding the metadata cleared), not a failure. No restart follows;
      // stop() itself finishes the revoke it started and leaves.
      this.kafka.logger().info(`KafkaJS stopped while the consumer was stopping: ${error.message}`, { groupId: this.options.groupId });
      // KafkaJS arms its restart timer right after this event; its stop() clears that timer. (Not
      // `retry.restartOnFailure`: giving KafkaJS a retry option changes how it treats a coordinator move.)
      const consumer = this.kjsConsumer;
      if (restart && consumer) setImmediate(() => { consumer.stop().catch(() => undefined); });
      return;
    }
    const partitions = this.membership.lose(`KafkaJS crashed (${restart ? 'restarting' : 'not restarting'}): ${error.message}`);
    this.strategy.onLost?.(partitions);
    // Our typed error (e.g. UNSUPPORTED_COMPRESSION from a fetch) rather than KafkaJS's wrapper around it.
    const reported = restart ? error : kafkaEosErrorOf(error) ?? error;
    if (restart) this.emit('error', reported);
    else this.fail(reported);
  }

  // ------------------------------------------------------------------ batches

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    if (this.membership.pendingRejoin) throw this.membership.pendingRejoin;
    const epoch = batchEpoch(batch);
    if (!this.accepting() || epoch !== this.membership.epoch) return;
    this.inFlight += 1;
    try {
      await this.assignmentReady;
      await this.handle(payload, epoch);
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
    if (this.membership.pendingRejoin) throw this.membership.pendingRejoin;
  }

  private accepting(): boolean {
    const s = this.lifecycle.state;
    return s === 'running' || s === 'draining' || s === 'starting';
  }

  /** A background heartbeat while a handler or listener runs; registered so stop() can abort it. */
  private watch(o: { heartbeat: () => Promise<void>; onTimeout: () => void }): BatchWatch {
    const watch = new BatchWatch({
      heartbeat: o.heartbeat,
      intervalMs: this.options.heartbeatIntervalMs ?? 3000,
      maxProcessingTimeMs: this.options.maxProcessingTimeMs ?? 300000,
      onRebalance: (err) => {
        if (needsRejoin(err) && kafkaErrorOf(err)?.name !== 'REBALANCE_IN_PROGRESS') this.loseAndRejoin(err);
        else this.membership.requestRejoin(err);
      },
      onTimeout: o.onTimeout,
    }).start();
    this.watches.add(watch);
    if (!this.accepting()) watch.abort('the consumer is stopping');
    return watch;
  }

  private unwatch(watch: BatchWatch): void {
    watch.stop();
    this.watches.delete(watch);
  }

  private async handle({ batch, resolveOffset, heartbeat }: EachBatchPayload, epoch: number): Promise<void> {
    if (epoch !== this.membership.epoch || !this.membership.owns(batch) || !this.accepting()) return;
    const sb: StrategyBatch = {
      topic: batch.topic,
      partition: batch.partition,
      fetchOffset: BigInt((batch as Batch & { fetchedOffset: string }).fetchedOffset),
      records: toRecords(batch),
      nextOffset: BigInt(batch.lastOffset()) + 1n,
    };
    const maxMs = this.options.maxProcessingTimeMs ?? 300000;
    const onTimeout = () => this.onMaxProcessingTime(new MaxProcessingTimeExceededError(sb.topic, sb.partition, maxMs));
    const watch = this.watch({ heartbeat, onTimeout });
    const current = () => epoch === this.membership.epoch;
    const shouldStop = () => this.membership.pendingRejoin !== null || watch.signal.aborted || !current();
    let outcome;
    try {
      const ctx = this.context();
      const onProgress = this.strategy.onProgress?.bind(this.strategy);
      // Progress of a partition that was lost or revoked meanwhile is not this member's to commit.
      const onRecordDone = onProgress ? async (upTo: bigint) => { if (current()) await onProgress(ctx, sb, upTo); } : undefined;
      outcome = await this.strategy.handleBatch(ctx, sb, () => processBatch(this.processor, sb, watch.signal, shouldStop, onRecordDone));
    } catch (e) {
      if (needsRejoin(e)) {
        // The session expired under us: drop the batch, report the partitions lost, rejoin.
        this.loseAndRejoin(e as Error);
        return;
      }
      if (e instanceof PoisonMessageError && current()) {
        // Policy `fail`: commit the work finished before the poison record while we still own it.
        this.strategy.onFailed?.(sb, e.processedUpTo);
        const partitions = this.membership.beginRevoke('poison record, policy fail');
        await this.revoke(partitions);
        this.membership.revoked(partitions);
      }
      this.fail(e as Error);
      return;
    } finally {
      this.unwatch(watch);
    }
    // Positions of an assignment that is gone are not ours to move (a stale seek would win when
    // the partition comes back).
    if (!current()) return;
    if (outcome.kind === 'seek') {
      this.membership.seek(sb, outcome.offset, epoch);
    } else {
      resolveOffset(batch.lastOffset());
    }
    const position = outcome.kind === 'seek' ? outcome.offset : sb.nextOffset;
    const lag = BigInt(batch.highWatermark) - position;
    // A seek (the write was refused, fenced or partly done) counts only the records before the new position.
    const records = outcome.kind === 'seek' ? sb.records.filter((r) => r.offset < position).length : sb.records.length;
    this.metricsState.recordBatch(sb, records, position, BigInt(batch.highWatermark));
    this.emit('batch', { topic: sb.topic, partition: sb.partition, records, nextOffset: position, lag: lag < 0n ? 0n : lag });
  }

  private onMaxProcessingTime(error: MaxProcessingTimeExceededError): void {
    const group = this.kjsGroup;
    this.onLost(error);
    // Leave now so the partitions move on; the handler may still be running.
    if (group) void group.leave().catch(() => undefined);
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

  /** Stops with `error` (state `failed`), without committing; emits `error`. Idempotent. */
  private fail(error: Error): void {
    if (this.failure || this.lifecycle.state === 'stopped') return;
    this.failure = error;
    this.commitAbort.abort(error);
    if (this.lifecycle.can('failed')) this.lifecycle.to('failed');
    this.emit('error', error);
    this.stopPromise ??= this.disconnect().finally(() => this.removeSignalHandlers());
  }

  private async disconnect(): Promise<void> {
    const consumer = this.consumer;
    const producer = this.producer;
    this.consumer = null;
    this.producer = null;
    await Promise.allSettled([consumer?.disconnect(), this.admins.disconnect(), producer?.then((p) => p.disconnect())]);
    this.membership.leave(this.failure ? `failed: ${this.failure.message}` : 'stopped');
    this.stickyState.reset();
  }

  /**
   * Finishes the batch in hand, commits finished work (onPartitionsRevoked runs), leaves the group
   * (see {@link StopOptions.leaveGroup}) and disconnects. Idempotent: later calls return the same
   * promise. After a failure, resolves once resources are released (see `failure`). Called while start() runs,
   * start() ends at its next step and resolves; stop() first waits for KafkaJS's first join to end (bounded by
   * KafkaJS's connect and join retries), so that the member leaves the group rather than expiring in it.
   */
  stop(options: StopOptions = {}): Promise<void> {
    if (this.stopPromise) return this.stopPromise;
    this.stopCalled = true;
    if (this.lifecycle.state === 'idle') {
      this.lifecycle.to('stopped');
      this.stopPromise = Promise.resolve();
      return this.stopPromise;
    }
    if (options.leaveGroup !== undefined) this.leaveOnStop = options.leaveGroup;
    this.stopPromise = (async () => {
      if (this.lifecycle.can('stopping')) this.lifecycle.to('stopping');
      await this.connecting;
      // Handlers see their signal aborted: the record in hand finishes, the rest of the batch waits.
      for (const w of this.watches) w.abort('the consumer is stopping');
      await this.whenIdle();
      await this.assignmentReady.catch(() => undefined);
      if (this.membership.can('revoking')) {
        const partitions = this.membership.beginRevoke('stop');
        await this.revoke(partitions);
        this.membership.revoked(partitions);
      }
      await this.disconnect();
      this.removeSignalHandlers();
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
    const draining = (): boolean => this.lifecycle.state === 'draining';
    while (draining()) {
      if (await this.caughtUp(targets)) return this.stop();
      await new Promise((r) => setTimeout(r, pollMs));
    }
    if (this.failure) throw this.failure;
  }

  private async caughtUp(targets: Map<string, bigint>): Promise<boolean> {
    if (!this.admins.admin) return false;
    await this.assignmentReady.catch(() => undefined);
    const position = (tp: TopicPartition) => this.metricsState.position(tp);
    // Each attempt takes the admin client of the moment: a retry after a refresh asks the fresh one.
    const check = () => this.admins.use((admin) => caughtUp(admin, this.options.groupId, this.membership.owned(), position, targets));
    return kafkaCall('drain: ListOffsets/OffsetFetch', check, { refresh: () => this.admins.refresh() });
  }
}

/** Creates a {@link GroupConsumer}. Throws ConfigError for invalid options. */
export function createGroupConsumer(options: GroupConsumerOptions): GroupConsumer {
  return new GroupConsumer(options);
}
