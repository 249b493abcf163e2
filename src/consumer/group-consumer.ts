/**
 * A consumer-group client on KafkaJS 2.2.4 that wraps processing in a commit strategy
 * (at-most-once, at-least-once, exactly-once).
 *
 * ```ts
 * const consumer = createGroupConsumer({
 *   brokers: ['127.0.0.1:9092'], groupId: 'loader', topics: ['flights'],
 *   delivery: 'exactly-once', sink: new SqlSink({ ... }),
 * });
 * await consumer.start();
 * ...
 * await consumer.stop();   // finishes the batch in hand, leaves the group
 * ```
 *
 * Events: `assigned` ({ partitions, positions }), `batch` ({ topic, partition, records,
 * nextOffset, lag }), `fenced` ({ topic, partition, expected, stored }), `error` (Error),
 * `state` ({ from, to }).
 */
import { EventEmitter } from 'node:events';
import { Admin, Batch, Consumer, EachBatchPayload, Kafka, logLevel, PartitionAssigner } from 'kafkajs';
import { createRangeAssignor, createRoundRobinAssignor, createStickyAssignor, createStickyAssignorState } from './assignors';
import { KafkaEosError } from '../errors';
import { partitionKey, SinkRecord, TopicPartition } from '../sinks/sink';
import { ConsumerState, Lifecycle } from './lifecycle';
import { GroupConsumerOptions, validateOptions } from './options';
import { atLeastOnce } from './strategies/at-least-once';
import { atMostOnce } from './strategies/at-most-once';
import { exactlyOnce } from './strategies/exactly-once';
import type { CommitStrategy, StrategyBatch, StrategyContext } from './strategies/types';

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

export class GroupConsumer extends EventEmitter {
  private readonly options: GroupConsumerOptions;
  private readonly kafka: Kafka;
  private readonly strategy: CommitStrategy;
  private readonly lifecycle: Lifecycle;
  private consumer: Consumer | null = null;
  private admin: Admin | null = null;
  /** Resolves once the strategy has positioned the current assignment. */
  private assignmentReady: Promise<void> = Promise.resolve();
  private assigned: TopicPartition[] = [];
  private stopPromise: Promise<void> | null = null;
  /** Fed after every rebalance, so the sticky assignor can report what this member owns. */
  private readonly stickyState = createStickyAssignorState();

  constructor(options: GroupConsumerOptions) {
    super();
    this.options = validateOptions(options);
    this.kafka = options.kafka ?? new Kafka({
      clientId: options.clientId ?? 'kafka-eos',
      brokers: options.brokers as string[],
      logLevel: logLevel.NOTHING,
    });
    this.lifecycle = new Lifecycle((from, to) => this.emit('state', { from, to }));
    this.strategy = this.makeStrategy();
  }

  get state(): ConsumerState {
    return this.lifecycle.state;
  }

  /** The partitions currently assigned to this member. */
  assignment(): TopicPartition[] {
    return [...this.assigned];
  }

  private makeStrategy(): CommitStrategy {
    const o = this.options;
    switch (o.delivery) {
      case 'at-most-once': return atMostOnce();
      case 'at-least-once': return atLeastOnce();
      case 'exactly-once':
        return exactlyOnce({
          sink: o.sink!,
          commitToKafkaForMonitoring: o.commitToKafkaForMonitoring,
          onFenced: (info) => this.emit('fenced', info),
        });
    }
  }

  private context(): StrategyContext {
    return {
      groupId: this.options.groupId,
      commitToKafka: async (offsets) => {
        if (!this.consumer) throw new KafkaEosError('NOT_RUNNING', 'consumer is not running');
        await this.consumer.commitOffsets(offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset.toString() })));
      },
      earliestOffset: async (tp) => {
        if (!this.admin) throw new KafkaEosError('NOT_RUNNING', 'consumer is not running');
        const offsets = await this.admin.fetchTopicOffsets(tp.topic);
        const p = offsets.find((o) => o.partition === tp.partition);
        if (!p) throw new KafkaEosError('UNKNOWN_PARTITION', `no partition ${partitionKey(tp)}`);
        return BigInt(p.low);
      },
    };
  }

  /** Joins the group and starts consuming. Resolves once KafkaJS is running. Throws ConfigError/Kafka errors. */
  async start(): Promise<void> {
    this.lifecycle.to('starting');
    const o = this.options;
    try {
      this.admin = this.kafka.admin();
      await this.admin.connect();
      const consumer = this.kafka.consumer({
        groupId: o.groupId,
        sessionTimeout: o.sessionTimeoutMs ?? 30000,
        rebalanceTimeout: o.rebalanceTimeoutMs ?? 60000,
        heartbeatInterval: o.heartbeatIntervalMs ?? 3000,
        maxWaitTimeInMs: o.maxWaitTimeMs ?? 500,
        allowAutoTopicCreation: false,
        partitionAssigners: this.resolveAssignors(),
      });
      this.consumer = consumer;
      consumer.on(consumer.events.GROUP_JOIN, (e) => this.onGroupJoin(e.payload.memberAssignment));
      consumer.on(consumer.events.CRASH, (e) => {
        this.emit('error', e.payload.error);
        if (!e.payload.restart && this.lifecycle.can('failed')) this.lifecycle.to('failed');
      });
      await consumer.connect();
      for (const topic of o.topics) await consumer.subscribe({ topic, fromBeginning: o.fromBeginning ?? true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: (payload) => this.onBatch(payload),
      });
      this.lifecycle.to('running');
    } catch (e) {
      if (this.lifecycle.can('failed')) this.lifecycle.to('failed');
      await this.disconnect();
      throw e;
    }
  }

  private resolveAssignors(): PartitionAssigner[] {
    return (this.options.assignors ?? ['range']).map((a) => {
      if (typeof a !== 'string') return a;
      if (a === 'range') return createRangeAssignor({ state: this.stickyState });
      if (a === 'roundrobin') return createRoundRobinAssignor({ state: this.stickyState });
      return createStickyAssignor({ state: this.stickyState });
    });
  }

  private onGroupJoin(memberAssignment: Record<string, number[]>): void {
    this.stickyState.update(memberAssignment);
    const partitions: TopicPartition[] = [];
    for (const [topic, ps] of Object.entries(memberAssignment)) for (const partition of ps) partitions.push({ topic, partition });
    this.assigned = partitions;
    const consumer = this.consumer as Consumer;
    this.assignmentReady = this.strategy.onAssigned(this.context(), partitions).then(
      (positions) => {
        if (positions) for (const tp of partitions) {
          const pos = positions.get(partitionKey(tp));
          if (pos !== undefined) consumer.seek({ topic: tp.topic, partition: tp.partition, offset: pos.toString() });
        }
        this.emit('assigned', { partitions, positions });
      },
      (err: unknown) => {
        this.emit('error', err);
        throw err;
      },
    );
    this.assignmentReady.catch(() => undefined);
  }

  private async onBatch({ batch, resolveOffset, heartbeat, isStale, isRunning }: EachBatchPayload): Promise<void> {
    await this.assignmentReady;
    if (!isRunning() || isStale()) return;
    const fetchedOffset = (batch as Batch & { fetchedOffset: string }).fetchedOffset;
    const records = toRecords(batch);
    const sb: StrategyBatch = {
      topic: batch.topic,
      partition: batch.partition,
      fetchOffset: BigInt(fetchedOffset),
      records,
      nextOffset: BigInt(batch.lastOffset()) + 1n,
    };
    const handler = this.options.handler;
    const process = handler
      ? () => handler({ topic: sb.topic, partition: sb.partition, records, nextOffset: sb.nextOffset })
      : async () => undefined;
    const outcome = await this.strategy.handleBatch(this.context(), sb, process);
    if (outcome.kind === 'seek') {
      this.consumer?.seek({ topic: sb.topic, partition: sb.partition, offset: outcome.offset.toString() });
      return;
    }
    resolveOffset(batch.lastOffset());
    this.emit('batch', { topic: sb.topic, partition: sb.partition, records: records.length, nextOffset: sb.nextOffset, lag: BigInt(batch.highWatermark) - sb.nextOffset });
    await heartbeat();
  }

  private async disconnect(): Promise<void> {
    const consumer = this.consumer;
    const admin = this.admin;
    this.consumer = null;
    this.admin = null;
    await Promise.allSettled([consumer?.disconnect(), admin?.disconnect()]);
  }

  /** Finishes the batch in hand, leaves the group and disconnects. Idempotent. */
  stop(): Promise<void> {
    if (this.stopPromise) return this.stopPromise;
    if (this.lifecycle.state === 'idle') {
      this.lifecycle.to('stopped');
      this.stopPromise = Promise.resolve();
      return this.stopPromise;
    }
    this.stopPromise = (async () => {
      if (this.lifecycle.can('stopping')) this.lifecycle.to('stopping');
      await this.disconnect();
      this.assigned = [];
      this.stickyState.reset();
      this.lifecycle.to('stopped');
    })();
    return this.stopPromise;
  }
}

/** Creates a {@link GroupConsumer}. Throws ConfigError for invalid options. */
export function createGroupConsumer(options: GroupConsumerOptions): GroupConsumer {
  return new GroupConsumer(options);
}
