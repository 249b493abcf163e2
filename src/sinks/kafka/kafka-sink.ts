/**
 * KafkaSink: the exactly-once sink whose output is Kafka (consume, transform, produce). Each write is one Kafka
 * transaction of one transactional producer per member (KIP-447):
 *   begin → AddPartitionsToTxn + Produce of the handler's output records → AddOffsetsToTxn + TxnOffsetCommit of the
 *   consumed offsets with the group's metadata (generation id, member id, group instance id) → EndTxn commit.
 * The positions it stores are the group's committed offsets, read on assignment with OffsetFetch `require_stable`
 * (KIP-447: an offset a transaction has not finished is UNSTABLE_OFFSET_COMMIT, retried until it is, never skipped).
 *
 * Fencing, both ways:
 * - a zombie member (past its session, or after a rebalance moved the partition) is refused by the group
 *   coordinator on TxnOffsetCommit (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID): the transaction
 *   is aborted, the member loses its partitions and rejoins (FENCED_INSTANCE_ID: the consumer fails, as for any
 *   fenced static member);
 * - a producer whose epoch is old (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH) commits nothing. InitProducerId with its
 *   producer id and epoch (KIP-588) re-initialises it where no other instance took the id over; else, with the
 *   generated per-process transactional id and a transaction older than its timeout, it starts as a new instance
 *   and the batch is written again (KAFKA_TXN_ABORTED, retriable: the strategy re-reads the positions first). With
 *   an explicit or static (group.instance.id) transactional id a fence is fatal (KAFKA_PRODUCER_FENCED), as Java's
 *   ProducerFencedException: a live replacement may hold the id, and a new instance would fence it.
 * A partition lost while its transaction is open (session expired) aborts the transaction instead of committing it
 * (as franz-go's GroupTransactSession); the new owner writes the batch. A revocation waits for the batch in
 * flight, whose transaction commits under the generation that still owns it.
 *
 * The transactional id is stable per member (see {@link KafkaSinkOptions.transactionalId}), so that a restarted
 * member's InitProducerId aborts its predecessor's open transaction at once instead of after its timeout.
 */
import { hostname } from 'node:os';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaEosError } from '../../errors';
import { isRetriable, kafkaErrorOf, needsRejoin, type KafkaErrorName } from '../../protocol/kafka-errors';
import {
  partitionKey, type DurablePosition, type OutputRecord, type OutputSource, type SinkBatch, type TopicPartition,
} from '../../records';
import type { ExactlyOnceSink, GroupMetadata, SinkContext, WriteResult } from '../../sink-contract';
import { GroupOffsets } from '../../consumer/commit/offsets';
import { kafkaCall, KafkaCallError } from '../../consumer/kafka-calls';
import { KafkaTransport } from '../../consumer/kafka/transport';
import { SinkWriteError } from '../errors';
import {
  isProducerFenced, KafkaOutputInvalidError, KafkaProducerFencedError, KafkaTxnError, TransactionalProducer,
} from './transactional-producer';
import type { TxnProducerState } from './producer-state';
import { OutputChecker } from './output-check';

/** Default transaction.timeout.ms of KafkaSink (Kafka Streams' exactly-once default; Java's producer has 60000). */
export const DEFAULT_KAFKA_SINK_TRANSACTION_TIMEOUT_MS = 10_000;
/** Default prefix of a derived transactional id. */
export const DEFAULT_TRANSACTIONAL_ID_PREFIX = 'kafka-eos-';

/** Options of {@link KafkaSink}. Times in ms. */
export interface KafkaSinkOptions {
  /**
   * A KafkaJS client for the sink's own connections (its producer's). Default: `brokers`, else the consumer's
   * client (the sink opens connections of its own on it either way).
   */
  kafka?: Kafka;
  /** Bootstrap brokers, `host:port`, to make a KafkaJS client here (exclusive with `kafka`). */
  brokers?: string[];
  /** With `brokers`: the client's client.id (default `kafka-eos-sink`). */
  clientId?: string;
  /**
   * The producer's transactional.id, one per member: never share it between two running members (they would fence
   * each other). Default: `<transactionalIdPrefix><groupId>-<group.instance.id>` under static membership (stable
   * across restarts, so a restarted member's InitProducerId aborts its predecessor's open transaction at once);
   * otherwise `<transactionalIdPrefix><groupId>-<hostname>-<pid>-<n>` (n counts the KafkaSinks of this process):
   * unique among live members, stable for the process's life (KIP-447 makes per-partition ids unnecessary), and
   * stable across a restart where the hostname and pid repeat (a container restarted in its pod). A crashed member
   * whose id does not come back has its open transaction aborted by the coordinator after `transactionTimeoutMs`.
   * With an id given here or derived from group.instance.id, a fence (PRODUCER_FENCED) is fatal, even one caused by
   * the producer's own transaction timeout: a live replacement may hold the id (docs/kafka-sink.md, Fencing).
   */
  transactionalId?: string;
  /** Prefix of a derived transactional id (default `kafka-eos-`). */
  transactionalIdPrefix?: string;
  /**
   * transaction.timeout.ms (default 10000, Kafka Streams' exactly-once default): the coordinator aborts a transaction
   * open longer. It bounds how long a crashed member's open transaction holds read_committed readers at the last
   * stable offset. At most the broker's transaction.max.timeout.ms (default 900000).
   */
  transactionTimeoutMs?: number;
  /** How long each transactional call retries its retriable errors (CONCURRENT_TRANSACTIONS, NOT_COORDINATOR, ...) (default 30000). */
  retryTimeoutMs?: number;
  /** Produce's request timeout, acks = all (default 30000). */
  requestTimeoutMs?: number;
  /**
   * Most encoded bytes of one record batch of one partition, its 61-byte header and each record's framing included
   * (default 900000). A batch also stays within the topic's max.message.bytes (read at the topic's first use).
   */
  maxBatchBytes?: number;
}

/**
 * The group coordinator's answers to a TxnOffsetCommit of a member that is no longer one (KIP-447; FENCED_MEMBER_EPOCH:
 * a KIP-848 member fenced by the coordinator).
 */
const ZOMBIE_ERRORS: readonly KafkaErrorName[] = ['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID', 'FENCED_MEMBER_EPOCH'];

/** Errors after which the transaction is aborted and written again (KAFKA_TXN_ABORTED): no one's fault, no fence. */
const ABORTABLE_ERRORS: readonly KafkaErrorName[] = [
  'REBALANCE_IN_PROGRESS', 'STALE_MEMBER_EPOCH', 'DUPLICATE_SEQUENCE_NUMBER', 'OUT_OF_ORDER_SEQUENCE_NUMBER',
];

/** Counts KafkaSinks per group in this process, for derived transactional ids. */
const sinksPerGroup = new Map<string, number>();

const positive = (name: string, v: number | undefined, fallback: number): number => {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v <= 0) throw new KafkaEosError('CONFIG_INVALID', `KafkaSink ${name}: must be a positive integer, got ${v}`);
  return v;
};

/** The transaction in flight, if any: its partitions, and why it must abort instead of committing. */
interface OpenTxn {
  partitions: Set<string>;
  abortReason: string | null;
}

/**
 * The exactly-once Kafka sink (see the module comment and docs/kafka-sink.md). Use it with `delivery: 'exactly-once'`
 * and a `recordHandler` (or `handler`) that returns the output records ({@link OutputRecord}: 0..n per input record).
 * `open` throws KafkaCallError (OffsetFetch past its retries); `write` throws KafkaTxnError (KAFKA_TXN_FAILED),
 * KafkaProducerFencedError (KAFKA_PRODUCER_FENCED), KafkaOutputInvalidError (KAFKA_OUTPUT_INVALID), the retriable
 * KAFKA_TXN_ABORTED and SINK_RETRIES_EXHAUSTED (the consumer re-reads the positions and writes again), or the group
 * coordinator's ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID inside a KafkaTxnError.
 */
export class KafkaSink implements ExactlyOnceSink {
  /** One Kafka transaction covers every partition of a write. */
  readonly atomicAcrossPartitions = true;
  /** The positions are the group's committed offsets, committed in the transaction. */
  readonly offsetsInGroup = true;
  /** Writes the handler's output records (and dead letters) in the transaction. */
  readonly transactionalOutput = true;

  private readonly options: KafkaSinkOptions;
  private readonly transactionTimeoutMs: number;
  private readonly checker: OutputChecker;
  private transport: KafkaTransport | null = null;
  private connecting: Promise<KafkaTransport> | null = null;
  private producer: TransactionalProducer | null = null;
  /** The stored (committed) next offset of each partition this member opened (-1n: none). */
  private readonly positions = new Map<string, bigint>();
  /** Writes run one at a time (one producer, one transaction). */
  private queue: Promise<unknown> = Promise.resolve();
  private open_: OpenTxn | null = null;
  private closed = false;
  /** This sink's number among the process's KafkaSinks of its group (-1: not derived yet). */
  private instance = -1;
  /**
   * Whether the transactional id may be held by a live replacement of this member: given explicitly or derived from
   * the static group.instance.id. A fence is then fatal (see {@link reinitAfterFence}).
   */
  private idMayBeShared = false;
  /** Transitions of the producer's state, oldest first (at most 100): for logs and tests. */
  readonly transitions: { from: TxnProducerState; to: TxnProducerState; reason: string; at: number }[] = [];

  /** Throws KafkaEosError CONFIG_INVALID for a bad option. */
  constructor(options: KafkaSinkOptions = {}) {
    if (options.kafka && options.brokers) throw new KafkaEosError('CONFIG_INVALID', 'KafkaSink: give `kafka` or `brokers`, not both');
    if (options.transactionalId !== undefined && (typeof options.transactionalId !== 'string' || options.transactionalId === '')) {
      throw new KafkaEosError('CONFIG_INVALID', 'KafkaSink transactionalId: must be a non-empty string');
    }
    this.options = { ...options };
    this.transactionTimeoutMs = positive('transactionTimeoutMs', options.transactionTimeoutMs, DEFAULT_KAFKA_SINK_TRANSACTION_TIMEOUT_MS);
    positive('retryTimeoutMs', options.retryTimeoutMs, 1);
    positive('requestTimeoutMs', options.requestTimeoutMs, 1);
    positive('maxBatchBytes', options.maxBatchBytes, 1);
    this.checker = new OutputChecker(async () => this.transport ?? this.connect(undefined), options.retryTimeoutMs ?? 30_000);
  }

  /**
   * Checks one input record's outputs before they join a transaction (the consumer calls it per input record, so
   * that the poison policy applies to that record): shape, topic and partition, and size against the topic's
   * max.message.bytes (see output-check.ts). Throws KafkaOutputInvalidError (KAFKA_OUTPUT_INVALID, the record's
   * fault), KafkaEosError UNKNOWN_TOPIC (an output topic missing for `retryTimeoutMs`: not the record's fault),
   * KafkaCallError (the cluster cannot be reached).
   */
  async checkOutputs(outputs: readonly OutputRecord[], source: OutputSource): Promise<void> {
    if (outputs.length > 0) await this.checker.check(outputs, source);
  }

  /** The transactional id in use (null before the first open or write). */
  get transactionalId(): string | null {
    return this.producer?.options.transactionalId ?? null;
  }

  /** The producer's state (`uninitialized` before the first open or write). */
  get producerState(): TxnProducerState {
    return this.producer?.state ?? 'uninitialized';
  }

  /** The producer id and epoch in use (-1n / -1 before InitProducerId). */
  get producerIdentity(): { producerId: bigint; producerEpoch: number } {
    return this.producer?.identity ?? { producerId: -1n, producerEpoch: -1 };
  }

  private assertOpen(): void {
    if (this.closed) throw new SinkWriteError('SINK_CLOSED', 'KafkaSink: closed');
  }

  private async connect(context: SinkContext | undefined): Promise<KafkaTransport> {
    if (this.transport) return this.transport;
    this.connecting ??= (async () => {
      const o = this.options;
      const kafka = o.kafka ?? (o.brokers
        ? new Kafka({ clientId: o.clientId ?? 'kafka-eos-sink', brokers: o.brokers, logLevel: logLevel.NOTHING })
        : (context?.kafka as Kafka | undefined));
      if (!kafka) throw new KafkaEosError('CONFIG_INVALID', 'KafkaSink: give `kafka` or `brokers` (no consumer client to share)');
      const transport = new KafkaTransport(kafka);
      await kafkaCall('KafkaSink connect', () => transport.connect(), { retries: 5 });
      return transport;
    })();
    try {
      this.transport = await this.connecting;
      return this.transport;
    } catch (e) {
      this.connecting = null;
      throw e;
    }
  }

  /** The transactional id for this member (see {@link KafkaSinkOptions.transactionalId}). */
  private transactionalIdFor(groupId: string, context: SinkContext | undefined): string {
    this.idMayBeShared = true;
    if (this.options.transactionalId) return this.options.transactionalId;
    const prefix = this.options.transactionalIdPrefix ?? DEFAULT_TRANSACTIONAL_ID_PREFIX;
    const instanceId = context?.groupInstanceId ?? null;
    if (instanceId !== null) return `${prefix}${groupId}-${instanceId}`;
    this.idMayBeShared = false;
    if (this.instance < 0) {
      const n = (sinksPerGroup.get(groupId) ?? 0) + 1;
      sinksPerGroup.set(groupId, n);
      this.instance = n;
    }
    return `${prefix}${groupId}-${hostname()}-${process.pid}-${this.instance}`;
  }

  /** The producer, initialised (InitProducerId: fences a predecessor's open transaction). */
  private async ready(groupId: string, context: SinkContext | undefined): Promise<TransactionalProducer> {
    const transport = await this.connect(context);
    if (!this.producer) {
      this.producer = new TransactionalProducer(transport, {
        transactionalId: this.transactionalIdFor(groupId, context),
        transactionTimeoutMs: this.transactionTimeoutMs,
        retryTimeoutMs: this.options.retryTimeoutMs ?? 30_000,
        requestTimeoutMs: this.options.requestTimeoutMs ?? 30_000,
        maxBatchBytes: this.options.maxBatchBytes ?? 900_000,
        topicBatchLimit: (topic) => this.checker.limitOf(topic).bytes,
        onTransition: (from, to, reason) => {
          this.transitions.push({ from, to, reason, at: Date.now() });
          if (this.transitions.length > 100) this.transitions.shift();
        },
      });
    }
    const p = this.producer;
    if (p.pendingEndTxn !== null) {
      // The EndTxn whose outcome is unknown goes first, as often as it takes (InitProducerId would be PRODUCER_FENCED).
      try {
        await p.settlePendingEnd();
      } catch (e) {
        if (!(e instanceof KafkaProducerFencedError)) throw e;
        // The coordinator aborted that transaction itself (its timeout): re-initialise as after any own timeout.
        await this.reinitAfterFence(p, true);
      }
    }
    if (p.state === 'uninitialized' || p.state === 'fenced') await p.init();
    else if (p.state === 'ready' && p.epochBumpRequired) await p.init(); // KIP-360: sequences restart at 0
    return p;
  }

  /**
   * After a fence: InitProducerId with the producer id and epoch held (KIP-360/588), which succeeds only when no other
   * instance took the transactional id over. Kafka's coordinator forgets a fenced epoch (prepareFenceProducerEpoch),
   * so after the producer's own transaction timed out that is PRODUCER_FENCED too; then, when `ownTimeout`, the
   * producer starts again as a new instance (Kafka Streams' StreamsProducer.resetProducer) — only when its
   * transactional id cannot be held by a live replacement (the generated per-process id). With an explicit or
   * static (group.instance.id) id a fence is fatal, as Java's ProducerFencedException: a new instance would fence
   * the live producer that fenced this one. Throws KafkaProducerFencedError, KafkaTxnError.
   */
  private async reinitAfterFence(producer: TransactionalProducer, ownTimeout: boolean): Promise<void> {
    try {
      await producer.init();
    } catch (initError) {
      if (!(initError instanceof KafkaProducerFencedError) || !ownTimeout || this.idMayBeShared) throw initError;
      await producer.init({ asNewInstance: true });
    }
  }

  /** Runs `fn` after the writes queued before it. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Initialises the producer (its InitProducerId aborts a predecessor's open transaction) and reads the group's
   * committed offsets with require_stable (UNSTABLE_OFFSET_COMMIT retried until the pending transaction ends, at
   * most transactionTimeoutMs plus retryTimeoutMs). Key `${topic}:${partition}`, -1n: nothing committed.
   */
  open(groupId: string, partitions: TopicPartition[], context?: SinkContext): Promise<Map<string, bigint>> {
    return this.serial(async () => {
      this.assertOpen();
      await this.ready(groupId, context);
      const transport = this.transport!;
      const offsets = new GroupOffsets(transport, groupId);
      const committed = partitions.length === 0 ? new Map<string, bigint | null>() : await kafkaCall(
        `OffsetFetch ${groupId} (require_stable)`, () => offsets.committed(partitions),
        {
          retries: Infinity, maxRetryTimeMs: this.transactionTimeoutMs + (this.options.retryTimeoutMs ?? 30_000),
          minTimeoutMs: 50, maxTimeoutMs: 500, refresh: async () => transport.forgetCoordinator(groupId),
        },
      );
      const out = new Map<string, bigint>();
      for (const tp of partitions) {
        const key = partitionKey(tp);
        const stored = committed.get(key) ?? -1n;
        this.positions.set(key, stored);
        out.set(key, stored);
      }
      return out;
    });
  }

  /**
   * Writes the batches' output records and commits their next offsets in one transaction (see the module comment).
   * A batch whose `expectedOffset` is not the position this sink knows is answered `fenced` (nothing written).
   */
  write(groupId: string, batches: SinkBatch[], context?: SinkContext): Promise<WriteResult> {
    return this.serial(() => this.writeNow(groupId, batches, context));
  }

  private async writeNow(groupId: string, batches: SinkBatch[], context: SinkContext | undefined): Promise<WriteResult> {
    this.assertOpen();
    const fenced: DurablePosition[] = [];
    for (const b of batches) {
      const known = this.positions.get(partitionKey(b));
      if (known !== undefined && known !== b.expectedOffset) fenced.push({ topic: b.topic, partition: b.partition, storedOffset: known });
    }
    if (fenced.length > 0) return { status: 'fenced', fenced };
    const producer = await this.ready(groupId, context);
    // The metadata of the moment the transaction begins (InitProducerId may have taken a while).
    const group: GroupMetadata | null = context
      ? context.groupMetadata()
      : { groupId, generationId: -1, memberId: '', groupInstanceId: null };
    if (group === null) {
      throw new KafkaEosError('KAFKA_TXN_ABORTED',
        'KafkaSink: the member has no generation now (a rebalance is under way); written again later');
    }
    // Every output checked before the transaction begins (a direct write; the consumer checked each input's already).
    for (const b of batches) await this.checker.check(b.outputs ?? [], { topic: b.topic, partition: b.partition });
    const outputs: OutputRecord[] = batches.flatMap((b) => b.outputs ?? []);
    const txn: OpenTxn = { partitions: new Set(batches.map(partitionKey)), abortReason: null };
    this.open_ = txn;
    try {
      const partitioned = await producer.partition(outputs);
      producer.begin();
      const offsets = batches.map((b) => ({ topic: b.topic, partition: b.partition, offset: b.nextOffset }));
      // The outputs and the offsets go at once (as Java's producer pipelines them); EndTxn waits for both to settle,
      // and nothing ends the transaction while a request of it is still in flight.
      const [produced, sent] = await Promise.allSettled([
        producer.produce(partitioned), producer.sendOffsets({ ...group, groupId }, offsets),
      ]);
      if (sent.status === 'rejected') throw sent.reason;
      if (produced.status === 'rejected') throw produced.reason;
      if (txn.abortReason) throw new KafkaEosError('KAFKA_TXN_ABORTED', `KafkaSink: ${txn.abortReason}; the transaction was aborted`);
      await producer.end(true);
    } catch (e) {
      throw await this.failed(e, groupId, group, producer, context);
    } finally {
      this.open_ = null;
    }
    for (const b of batches) this.positions.set(partitionKey(b), b.nextOffset);
    return { status: 'committed' };
  }

  /** Aborts what is open and decides what the write throws (see the class comment). */
  private async failed(
    e: unknown, groupId: string, sent: GroupMetadata, producer: TransactionalProducer, context: SinkContext | undefined,
  ): Promise<unknown> {
    if (isProducerFenced(e)) {
      producer.markFailed(e, `fenced: ${(e as Error).message}`);
      // KIP-360/588's InitProducerId with its id and epoch; a new instance only when the fence may be its own
      // transaction's timeout and the id is not shareable (see reinitAfterFence). Otherwise: fail.
      const timedOut = Date.now() - producer.beganAt >= this.transactionTimeoutMs;
      try {
        await this.reinitAfterFence(producer, timedOut);
      } catch (initError) {
        return initError;
      }
      return new KafkaEosError('KAFKA_TXN_ABORTED', `KafkaSink: the transaction was aborted by the coordinator (${(e as Error).message}); `
        + `the producer re-initialised with epoch ${producer.identity.producerEpoch}`, { cause: e });
    }
    if (producer.state === 'committing' && (kafkaErrorOf(e)?.retriable || isRetriable(e instanceof KafkaCallError ? e.cause : e))) {
      // EndTxn commit past its retries: the outcome is unknown. The same EndTxn is sent again before anything else
      // (ready → settlePendingEnd); the positions are re-read after it.
      producer.markFailed(e, 'EndTxn commit outcome unknown');
      const message = `KafkaSink: EndTxn commit outcome unknown: ${(e as Error).message}`;
      return new SinkWriteError('SINK_RETRIES_EXHAUSTED', message, {}, { cause: e });
    }
    await producer.abortQuietly((e as Error).message ?? String(e));
    if (e instanceof KafkaOutputInvalidError || e instanceof KafkaEosError && e.code === 'KAFKA_TXN_ABORTED') return e;
    const k = kafkaErrorOf(e);
    if (k && ZOMBIE_ERRORS.includes(k.name)) {
      const now = context?.groupMetadata();
      // The generation moved on while the offsets were on their way (a rebalance, not a zombie): write again.
      if (now && (now.generationId !== sent.generationId || now.memberId !== sent.memberId) && k.name !== 'FENCED_INSTANCE_ID') {
        const message = `KafkaSink: the generation moved on during the write (${k.name}); aborted`;
        return new KafkaEosError('KAFKA_TXN_ABORTED', message, { cause: e });
      }
      const error = new KafkaTxnError(`TxnOffsetCommit of group ${groupId} refused the member`, e);
      if (needsRejoin(e)) context?.generationLost(error);
      return error;
    }
    // A rebalance under way (classic), or a KIP-848 member whose epoch moved on during the write: not a zombie.
    // A sequence the leader did not expect (a first send answered DUPLICATE_SEQUENCE_NUMBER, OUT_OF_ORDER_SEQUENCE_NUMBER):
    // abortable, as KIP-360 made it; the next transaction bumps the epoch, so its sequences start again at 0.
    if (k && ABORTABLE_ERRORS.includes(k.name)) {
      return new KafkaEosError('KAFKA_TXN_ABORTED', `KafkaSink: ${k.name}; the transaction was aborted`, { cause: e });
    }
    if (k?.retriable || isRetriable(e instanceof KafkaCallError ? e.cause : e)) {
      const message = `KafkaSink: ${(e as Error).message}; the transaction was aborted`;
      return new SinkWriteError('SINK_RETRIES_EXHAUSTED', message, {}, { cause: e });
    }
    if (e instanceof KafkaProducerFencedError || e instanceof KafkaTxnError) return e;
    return new KafkaTxnError('KafkaSink write', e);
  }

  /**
   * The partitions were lost (session expired, fenced): a transaction in flight that holds any of them aborts
   * instead of committing, and their positions are forgotten (the new owner's are the group's).
   */
  async discard(partitions: TopicPartition[]): Promise<void> {
    const keys = partitions.map(partitionKey);
    if (this.open_ && keys.some((k) => this.open_!.partitions.has(k))) {
      this.open_.abortReason = `partitions lost during the transaction: ${keys.join(', ')}`;
    }
    for (const k of keys) this.positions.delete(k);
  }

  /** Waits for the write in flight, then closes the producer and its connections. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    this.producer?.close();
    await this.transport?.disconnect();
    this.transport = null;
  }
}
