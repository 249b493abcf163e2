/**
 * KafkaSink's transactional producer, on the SDK's own protocol layer (src/protocol/messages: InitProducerId,
 * AddPartitionsToTxn, Produce, AddOffsetsToTxn, TxnOffsetCommit, EndTxn) sent on KafkaJS's connections
 * (consumer/kafka/transport.ts). KafkaJS's own transactional producer is bypassed: its `sendOffsets` sends
 * TxnOffsetCommit without the group's generation, member id and instance id (no KIP-447, so zombie members are
 * not fenced by the group coordinator), and back-to-back transactions hit CONCURRENT_TRANSACTIONS and
 * OUT_OF_ORDER_SEQUENCE_NUMBER (tulios/kafkajs #430, #1068, #1315, #598). See docs/kafka-sink.md.
 *
 * One transaction at a time; the caller (KafkaSink) serialises writes. Each call's retriable errors
 * (CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
 * NOT_LEADER_OR_FOLLOWER, dropped connections) are retried with backoff (kafkaCall), looking the coordinator or
 * leader up again when the error says it moved. Record batches carry the producer id, epoch, a base sequence per
 * partition (reset to 0 with each new epoch) and the transactional attribute; a retried Produce resends the same
 * bytes, so the partition leader recognises a duplicate.
 *
 * Sequences are never reused (KIP-360, Java's `TransactionManager.epochBumpRequired`): after a transaction that is
 * aborted once it added partitions (a Produce may have been written on one partition and failed on another), the
 * next transaction first bumps the epoch (InitProducerId v3+ with the producer id and epoch held), which restarts
 * every sequence at 0. DUPLICATE_SEQUENCE_NUMBER counts as written only for a batch resent in the same call (a
 * retry whose first answer was lost); a first send answered so is an error. An EndTxn whose outcome is unknown
 * (retries spent) is remembered and sent again, the same decision with the same epoch, before anything else
 * ({@link TransactionalProducer.settlePendingEnd}; Java lets commitTransaction be called again after a timeout).
 */
import { Partitioners } from 'kafkajs';
import { KafkaEosError } from '../../errors';
import { isRetriable, KafkaProtocolError, kafkaErrorOf, type KafkaErrorName } from '../../protocol/kafka-errors';
import { ErrorCode } from '../../protocol/error-codes';
import { encodeBatch, type RecordHeader } from '../../protocol/record-batch';
import { Produce } from '../../protocol/messages/data';
import { AddOffsetsToTxn, AddPartitionsToTxn, EndTxn, InitProducerId, TxnOffsetCommit } from '../../protocol/messages/transactions';
import { partitionKey, type OutputRecord, type TopicPartition } from '../../records';
import type { GroupMetadata } from '../../sink-contract';
import { kafkaCall, KafkaCallError } from '../../consumer/kafka-calls';
import type { BrokerRef, KafkaTransport } from '../../consumer/kafka/transport';
import type { StateMachine } from '../../util/state-machine';
import { txnProducerStateMachine, type TxnProducerState } from './producer-state';
import { splitRecordBatches } from './record-size';

/** Options of {@link TransactionalProducer}. Times in ms. */
export interface TransactionalProducerOptions {
  transactionalId: string;
  /** transaction.timeout.ms: the coordinator aborts a transaction open longer than this. */
  transactionTimeoutMs: number;
  /** How long one call's retriable errors are retried. */
  retryTimeoutMs: number;
  /** Produce's timeout (acks = all). */
  requestTimeoutMs: number;
  /** Largest encoded record batch (61-byte header and records' framing included) of one partition, in bytes. */
  maxBatchBytes: number;
  /** The largest record batch a topic accepts (its max.message.bytes): batches stay under both limits. */
  topicBatchLimit?: (topic: string) => number;
  /** Called on every transition of the producer's state (logging, tests). */
  onTransition?: (from: TxnProducerState, to: TxnProducerState, reason: string) => void;
}

/**
 * A transactional call failed; the Kafka (or connection) error is `cause` (KAFKA_TXN_FAILED). Retriable only when the
 * cause is (a coordinator unavailable past the retries): the consumer then re-reads its positions and tries again.
 */
export class KafkaTxnError extends KafkaEosError {
  constructor(readonly call: string, cause: unknown) {
    const inner = cause instanceof KafkaCallError ? cause.cause : cause;
    super('KAFKA_TXN_FAILED', `${call}: ${(cause as Error)?.message ?? String(cause)}`, {
      cause, retriable: isRetriable(inner),
    });
  }
}

/** The producer was fenced: another instance holds its transactional id with a newer epoch (KAFKA_PRODUCER_FENCED). */
export class KafkaProducerFencedError extends KafkaEosError {
  constructor(readonly transactionalId: string, cause: unknown) {
    super('KAFKA_PRODUCER_FENCED', `transactional.id '${transactionalId}' was taken over by another producer: `
      + `${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** An output record the producer cannot send (KAFKA_OUTPUT_INVALID). */
export class KafkaOutputInvalidError extends KafkaEosError {
  constructor(message: string) {
    super('KAFKA_OUTPUT_INVALID', message);
  }
}

/** AddPartitionsToTxn's answer for a partition not tried because another one failed. */
const OPERATION_NOT_ATTEMPTED = 55;

const FENCING: readonly KafkaErrorName[] = ['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH', 'TRANSACTION_COORDINATOR_FENCED'];

/** Whether `error` says this producer's epoch is no longer current (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH). */
export function isProducerFenced(error: unknown): boolean {
  const k = kafkaErrorOf(error);
  return k !== undefined && FENCING.includes(k.name);
}

/** Bytes of a key, value or header value (null: none). Throws KafkaOutputInvalidError for anything but bytes or a string. */
function toBuffer(v: unknown, what: string, topic: string): Buffer | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return Buffer.from(v);
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw new KafkaOutputInvalidError(`an output record to '${topic}' has a ${what} that is neither bytes nor a string (${typeof v})`);
}

interface PartitionBatch extends TopicPartition {
  records: { key: Buffer | null; value: Buffer | null; headers: RecordHeader[]; timestamp?: bigint; bytes: number }[];
}

/** The transactional producer (see the module comment). */
export class TransactionalProducer {
  readonly machine: StateMachine<TxnProducerState>;
  private producerId = -1n;
  private producerEpoch = -1;
  /** Next sequence per partition, for the current epoch. */
  private readonly sequences = new Map<string, number>();
  /** Partitions added to the open transaction. */
  private readonly inTxn = new Set<string>();
  private offsetsAdded = false;
  /** An aborted transaction may have left sequences the leaders hold: bump the epoch before the next one (KIP-360). */
  private bumpRequired = false;
  /** The EndTxn decision (true: commit) whose outcome is unknown, to send again before anything else; null: none. */
  private pendingEnd: boolean | null = null;
  /** When the last transaction began (epoch ms; 0: none yet). */
  beganAt = 0;
  private readonly partitioner = Partitioners.DefaultPartitioner();
  private readonly watched = new Set<string>();

  constructor(private readonly transport: KafkaTransport, readonly options: TransactionalProducerOptions) {
    this.machine = txnProducerStateMachine(options.transactionalId, (t) => options.onTransition?.(t.from, t.to, t.reason));
  }

  /** The producer id and epoch in use (-1n / -1 before InitProducerId). */
  get identity(): { producerId: bigint; producerEpoch: number } {
    return { producerId: this.producerId, producerEpoch: this.producerEpoch };
  }

  get state(): TxnProducerState {
    return this.machine.state;
  }

  /** Whether the epoch must be bumped (InitProducerId) before the next transaction (see the module comment). */
  get epochBumpRequired(): boolean {
    return this.bumpRequired;
  }

  /** The EndTxn decision (true: commit, false: abort) whose outcome is unknown, or null. */
  get pendingEndTxn(): boolean | null {
    return this.pendingEnd;
  }

  /** Retries `fn`'s retriable errors; the coordinator is looked up again when it moved. */
  private call<T>(name: string, fn: () => Promise<T>, refresh: () => void): Promise<T> {
    return kafkaCall(`${name} (transactional.id ${this.options.transactionalId})`, fn, {
      retries: Infinity, maxRetryTimeMs: this.options.retryTimeoutMs, minTimeoutMs: 20, maxTimeoutMs: 1000,
      refresh: async () => {
        refresh();
        await this.transport.refreshMetadata().catch(() => undefined);
      },
    });
  }

  private txnCall<T>(name: string, fn: (coordinator: BrokerRef) => Promise<T>): Promise<T> {
    const id = this.options.transactionalId;
    return this.call(name, async () => fn(await this.transport.txnCoordinator(id)), () => this.transport.forgetTxnCoordinator(id));
  }

  /**
   * InitProducerId (from `uninitialized` or `fenced`): fences an older instance's open transaction (the coordinator
   * aborts it; CONCURRENT_TRANSACTIONS is retried meanwhile) and gets a new epoch. With a producer id and epoch
   * already held, sends them (KIP-360, KIP-588): after this producer's own transaction timed out the coordinator
   * accepts and bumps again where it kept the epoch before the bump (Kafka's coordinator does not: its epoch fence
   * forgets it, so such a producer is PRODUCER_FENCED); after another instance took over it answers PRODUCER_FENCED.
   * `asNewInstance` sends none: the coordinator bumps whatever epoch it holds (what a new producer does).
   * Throws KafkaProducerFencedError, KafkaTxnError.
   */
  async init(options: { asNewInstance?: boolean } = {}): Promise<void> {
    if (options.asNewInstance) {
      // Java's answer to a fenced producer: close it and start a new one (Kafka Streams' StreamsProducer.resetProducer).
      this.producerId = -1n;
      this.producerEpoch = -1;
    }
    this.machine.to('initializing', this.producerId >= 0n ? 'InitProducerId with the last producer id and epoch' : 'InitProducerId');
    try {
      const { response } = await this.txnCall('InitProducerId', async (coordinator) => {
        const r = await this.transport.request(coordinator, InitProducerId, {
          transactionalId: this.options.transactionalId, transactionTimeoutMs: this.options.transactionTimeoutMs,
          producerId: this.producerId, producerEpoch: this.producerEpoch,
        }, { minVersion: this.producerId >= 0n ? 3 : 0 });
        if (r.response.errorCode !== ErrorCode.NONE) throw KafkaProtocolError.answered('InitProducerId', r.response.errorCode);
        return r;
      });
      this.producerId = response.producerId;
      this.producerEpoch = response.producerEpoch;
      this.bumpRequired = false;
      this.sequences.clear();
      this.inTxn.clear();
      this.offsetsAdded = false;
      this.machine.to('ready', `producer id ${this.producerId}, epoch ${this.producerEpoch}`);
    } catch (e) {
      if (isProducerFenced(e)) {
        this.machine.to('fenced', 'InitProducerId refused: another instance holds the transactional id');
        throw new KafkaProducerFencedError(this.options.transactionalId, e);
      }
      this.machine.to('uninitialized', `InitProducerId failed: ${(e as Error).message}`);
      throw new KafkaTxnError('InitProducerId', e);
    }
  }

  /** Begins a transaction (local, as Java's beginTransaction: the coordinator learns of it with the first Add*). */
  begin(): void {
    this.machine.assertIn(['ready'], 'begin');
    if (this.bumpRequired) throw new KafkaEosError('KAFKA_TXN_FAILED', 'begin: the epoch must be bumped first (InitProducerId)');
    this.beganAt = Date.now();
    this.inTxn.clear();
    this.offsetsAdded = false;
    this.machine.to('in-transaction', 'begin');
  }

  /** Puts `records` into partitions (their own, or the default partitioner's: murmur2 of the key, as Java and KafkaJS). */
  async partition(records: readonly OutputRecord[]): Promise<PartitionBatch[]> {
    const topics = [...new Set(records.map((r) => (r as OutputRecord | null)?.topic))];
    for (const t of topics) {
      if (typeof t !== 'string' || t === '') throw new KafkaOutputInvalidError(`an output record has no topic: ${String(t)}`);
    }
    const fresh = (topics as string[]).filter((t) => !this.watched.has(t));
    if (fresh.length > 0) {
      try {
        await this.call('Metadata', () => this.transport.watchTopics(fresh), () => undefined);
      } catch (e) {
        // Still unknown after retryTimeoutMs of retries (a topic just created has had time to appear): a wrong name.
        if (kafkaErrorOf(e)?.name === 'UNKNOWN_TOPIC_OR_PARTITION') {
          throw new KafkaOutputInvalidError(`an output topic does not exist: ${fresh.join(', ')}`);
        }
        throw e;
      }
      for (const t of fresh) this.watched.add(t);
    }
    const out = new Map<string, PartitionBatch>();
    for (const r of records) {
      const meta = this.transport.partitionMetadata(r.topic);
      if (meta.length === 0) throw new KafkaOutputInvalidError(`output topic '${r.topic}' does not exist`);
      if (r === null || typeof r !== 'object') throw new KafkaOutputInvalidError(`an output record is not an object: ${String(r)}`);
      const key = toBuffer(r.key, 'key', r.topic);
      if (r.value === undefined) throw new KafkaOutputInvalidError(`an output record to '${r.topic}' has no value (null for a tombstone)`);
      const value = toBuffer(r.value, 'value', r.topic);
      if (r.timestamp !== undefined && typeof r.timestamp !== 'bigint') {
        throw new KafkaOutputInvalidError(`an output record to '${r.topic}' has a timestamp that is not a bigint (ms since the epoch)`);
      }
      let partition = r.partition;
      if (partition === undefined) {
        partition = this.partitioner({ topic: r.topic, partitionMetadata: meta as never, message: { key, value } });
      }
      if (!Number.isInteger(partition) || !meta.some((p) => p.partitionId === partition)) {
        throw new KafkaOutputInvalidError(`output topic '${r.topic}' has no partition ${partition}`);
      }
      const headers: RecordHeader[] = Object.entries(r.headers ?? {})
        .map(([k, v]) => ({ key: k, value: toBuffer(v, `header ${k}`, r.topic) }));
      const bytes = (key?.length ?? 0) + (value?.length ?? 0) + headers.reduce((n, h) => n + h.key.length + (h.value?.length ?? 0), 0);
      const tp = { topic: r.topic, partition };
      let batch = out.get(partitionKey(tp));
      if (!batch) out.set(partitionKey(tp), batch = { ...tp, records: [] });
      batch.records.push({ key, value, headers, timestamp: r.timestamp, bytes });
    }
    return [...out.values()];
  }

  /**
   * AddPartitionsToTxn for the partitions not yet in the transaction. Throws what the call threw (KafkaCallError,
   * KafkaProtocolError; {@link isProducerFenced} tells a fence).
   */
  private async addPartitions(partitions: readonly TopicPartition[]): Promise<void> {
    const added = partitions.filter((tp) => !this.inTxn.has(partitionKey(tp)));
    if (added.length === 0) return;
    const byTopic = new Map<string, number[]>();
    for (const tp of added) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
    await this.txnCall('AddPartitionsToTxn', async (coordinator) => {
      const { response } = await this.transport.request(coordinator, AddPartitionsToTxn, {
        transactionalId: this.options.transactionalId, producerId: this.producerId, producerEpoch: this.producerEpoch,
        topics: [...byTopic].map(([name, ps]) => ({ name, partitions: ps })), transactions: [],
      }, { maxVersion: 3 });
      // One error decides: a partition answered OPERATION_NOT_ATTEMPTED only because another failed.
      let first: { code: number; where: string } | undefined;
      type TopicResult = { name: string; resultsByPartition: { partitionIndex: number; partitionErrorCode: number }[] };
      const results = response.resultsByTopic as TopicResult[];
      for (const t of results) {
        for (const p of t.resultsByPartition) {
          const code = p.partitionErrorCode;
          if (code !== ErrorCode.NONE && code !== OPERATION_NOT_ATTEMPTED && !first) {
            first = { code, where: `${t.name}:${p.partitionIndex}` };
          }
        }
      }
      if (first) throw KafkaProtocolError.answered(`AddPartitionsToTxn ${first.where}`, first.code);
    });
    for (const tp of added) this.inTxn.add(partitionKey(tp));
  }

  /**
   * Produces `batches` in the open transaction: AddPartitionsToTxn, then one Produce per leader (acks = all), each
   * partition's records in record batches of at most `maxBatchBytes` encoded bytes (and the topic's limit), in
   * order. Throws what the call threw (KafkaCallError, KafkaProtocolError; {@link isProducerFenced} tells a fence).
   */
  async produce(batches: readonly PartitionBatch[]): Promise<void> {
    this.machine.assertIn(['in-transaction'], 'produce');
    if (batches.length === 0) return;
    await this.addPartitions(batches);
    // Split each partition's records into record batches by their encoded size (record-size.ts); round r sends
    // every partition's r-th batch.
    const chunks = batches.map((b) => {
      const limit = Math.min(this.options.maxBatchBytes, this.options.topicBatchLimit?.(b.topic) ?? Infinity);
      return splitRecordBatches(b.records, limit)
        .map((c): PartitionBatch => ({ topic: b.topic, partition: b.partition, records: c.records }));
    });
    try {
      for (let round = 0; chunks.some((c) => c.length > round); round++) {
        await this.produceRound(chunks.filter((c) => c.length > round).map((c) => c[round]));
      }
    } catch (e) {
      // Some batches of the round may be written: their sequences must not be sent again in this epoch.
      this.bumpRequired = true;
      throw e;
    }
  }

  /** One batch per partition, each sequenced; retried as the same bytes until every partition has acknowledged it. */
  private async produceRound(batches: PartitionBatch[]): Promise<void> {
    const encoded = batches.map((b) => {
      const key = partitionKey(b);
      const baseSequence = this.sequences.get(key) ?? 0;
      const bytes = encodeBatch({
        records: b.records.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })),
        producerId: this.producerId, producerEpoch: this.producerEpoch, baseSequence, isTransactional: true,
      });
      return { tp: { topic: b.topic, partition: b.partition }, bytes, count: b.records.length, baseSequence, sends: 0 };
    });
    let pending = encoded;
    await this.call('Produce', async () => {
      const byLeader = new Map<number, typeof pending>();
      for (const e of pending) {
        const leader = this.transport.partitionMetadata(e.tp.topic).find((p) => p.partitionId === e.tp.partition)?.leader ?? -1;
        if (leader < 0) throw KafkaProtocolError.answered(`Produce ${partitionKey(e.tp)}`, ErrorCode.LEADER_NOT_AVAILABLE);
        byLeader.set(leader, [...(byLeader.get(leader) ?? []), e]);
      }
      const failures: { e: (typeof pending)[number]; error: KafkaProtocolError }[] = [];
      await Promise.all([...byLeader].map(async ([leader, list]) => {
        const broker = await this.transport.broker(leader);
        const topics = new Map<string, { index: number; records: Buffer }[]>();
        for (const e of list) {
          topics.set(e.tp.topic, [...(topics.get(e.tp.topic) ?? []), { index: e.tp.partition, records: e.bytes }]);
          e.sends += 1;
        }
        const { response } = await this.transport.request(broker, Produce, {
          transactionalId: this.options.transactionalId, acks: -1, timeoutMs: this.options.requestTimeoutMs,
          topicData: [...topics].map(([name, partitionData]) => ({ name, partitionData })),
        }, { minVersion: 3, timeoutMs: this.options.requestTimeoutMs + 5000 });
        const codes = new Map<string, number>();
        for (const t of response.responses) {
          for (const p of t.partitionResponses) codes.set(partitionKey({ topic: t.name, partition: p.index }), p.errorCode);
        }
        for (const e of list) {
          const code = codes.get(partitionKey(e.tp)) ?? ErrorCode.UNKNOWN_SERVER_ERROR;
          // A duplicate of this very batch, sent before in this call (a retry whose first answer was lost), is written;
          // a first send answered so means a sequence was reused: an error, never a success.
          const retried = code === ErrorCode.DUPLICATE_SEQUENCE_NUMBER && e.sends > 1;
          if (code !== ErrorCode.NONE && !retried) {
            failures.push({ e, error: KafkaProtocolError.answered(`Produce ${partitionKey(e.tp)}`, code) });
          }
        }
      }));
      pending = failures.map((f) => f.e);
      if (failures.length > 0) throw failures.find((f) => !f.error.retriable)?.error ?? failures[0].error;
    }, () => undefined);
    for (const e of encoded) this.sequences.set(partitionKey(e.tp), e.baseSequence + e.count);
  }

  /**
   * Adds the consumed offsets to the transaction with the group's metadata (Java's `sendOffsetsToTransaction(offsets,
   * groupMetadata)`): AddOffsetsToTxn to the transaction coordinator, then TxnOffsetCommit v3+ (KIP-447) to the
   * group coordinator, which refuses a zombie member (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID).
   * Throws what the call threw (KafkaCallError, KafkaProtocolError; {@link isProducerFenced} tells a fence).
   */
  async sendOffsets(group: GroupMetadata, offsets: readonly (TopicPartition & { offset: bigint })[]): Promise<void> {
    this.machine.assertIn(['in-transaction'], 'send offsets');
    if (offsets.length === 0) return;
    const { groupId } = group;
    if (!this.offsetsAdded) {
      await this.txnCall('AddOffsetsToTxn', async (coordinator) => {
        const { response } = await this.transport.request(coordinator, AddOffsetsToTxn, {
          transactionalId: this.options.transactionalId, producerId: this.producerId, producerEpoch: this.producerEpoch, groupId,
        });
        if (response.errorCode !== ErrorCode.NONE) throw KafkaProtocolError.answered(`AddOffsetsToTxn ${groupId}`, response.errorCode);
      });
      this.offsetsAdded = true;
    }
    const byTopic = new Map<string, { partitionIndex: number; committedOffset: bigint; committedMetadata: null }[]>();
    for (const o of offsets) {
      const entry = { partitionIndex: o.partition, committedOffset: o.offset, committedMetadata: null };
      byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), entry]);
    }
    const withMember = group.generationId >= 0 || group.memberId !== '' || group.groupInstanceId !== null;
    await this.call('TxnOffsetCommit', async () => {
      const coordinator = await this.transport.coordinator(groupId);
      const { response } = await this.transport.request(coordinator, TxnOffsetCommit, {
        transactionalId: this.options.transactionalId, groupId, producerId: this.producerId, producerEpoch: this.producerEpoch,
        generationId: group.generationId, memberId: group.memberId, groupInstanceId: group.groupInstanceId,
        topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
      }, { minVersion: withMember ? 3 : 0 });
      for (const t of response.topics) {
        for (const p of t.partitions) {
          if (p.errorCode !== ErrorCode.NONE) {
            throw KafkaProtocolError.answered(`TxnOffsetCommit ${groupId} ${t.name}:${p.partitionIndex}`, p.errorCode);
          }
        }
      }
    }, () => this.transport.forgetCoordinator(groupId));
  }

  /** Sends EndTxn with the current producer id and epoch. Throws what the call threw ({@link isProducerFenced} tells a fence). */
  private async sendEndTxn(commit: boolean): Promise<void> {
    await this.txnCall('EndTxn', async (coordinator) => {
      const { response } = await this.transport.request(coordinator, EndTxn, {
        transactionalId: this.options.transactionalId, producerId: this.producerId, producerEpoch: this.producerEpoch, committed: commit,
      });
      if (response.errorCode !== ErrorCode.NONE) {
        throw KafkaProtocolError.answered(`EndTxn ${commit ? 'commit' : 'abort'}`, response.errorCode);
      }
    });
  }

  /** After EndTxn: partitions were added, so the leaders may hold sequences of this epoch that an abort leaves behind. */
  private ended(commit: boolean): void {
    if (!commit && this.inTxn.size > 0) this.bumpRequired = true;
    this.inTxn.clear();
    this.offsetsAdded = false;
    this.pendingEnd = null;
  }

  /** A failed EndTxn: unless the answer was a refusal, its outcome is unknown and the same EndTxn is owed. */
  private endFailed(commit: boolean, error: unknown): void {
    const inner = error instanceof KafkaCallError ? error.cause : error;
    if (!isProducerFenced(error) && (kafkaErrorOf(error)?.retriable || isRetriable(inner))) {
      this.pendingEnd = commit;
      if (!commit && this.inTxn.size > 0) this.bumpRequired = true;
    }
  }

  /**
   * EndTxn commit (or abort). A call whose retries ran out leaves its outcome unknown: the decision is remembered
   * ({@link pendingEndTxn}) and {@link settlePendingEnd} sends it again before anything else; the error is thrown.
   * Throws what the call threw (KafkaCallError, KafkaProtocolError; {@link isProducerFenced} tells a fence).
   */
  async end(commit: boolean): Promise<void> {
    this.machine.assertIn(['in-transaction'], commit ? 'commit' : 'abort');
    this.machine.to(commit ? 'committing' : 'aborting', commit ? 'EndTxn commit' : 'EndTxn abort');
    // Nothing reached the coordinator: there is nothing to end (Java's TransactionManager skips EndTxn too).
    if (this.inTxn.size === 0 && !this.offsetsAdded) {
      this.machine.to('ready', 'nothing was added to the transaction');
      return;
    }
    try {
      await this.sendEndTxn(commit);
    } catch (e) {
      this.endFailed(commit, e);
      throw e;
    }
    this.ended(commit);
    this.machine.to('ready', commit ? 'committed' : 'aborted');
  }

  /**
   * Sends the EndTxn whose outcome was unknown again, the same decision with the same producer id and epoch (as Java's
   * commitTransaction called again after a TimeoutException): the coordinator completes it, or answers the outcome
   * of the one it completed. InitProducerId must not come first: Kafka's coordinator would fence the open
   * transaction, forget this epoch (prepareFenceProducerEpoch) and answer PRODUCER_FENCED. No-op when none is owed.
   * Throws KafkaTxnError (outcome still unknown: owed still; retriable) or KafkaProducerFencedError (the coordinator
   * had aborted the transaction and bumped the epoch, e.g. on its timeout: nothing is owed any more; `fenced`).
   */
  async settlePendingEnd(): Promise<void> {
    const commit = this.pendingEnd;
    if (commit === null) return;
    this.machine.to(commit ? 'committing' : 'aborting', `EndTxn ${commit ? 'commit' : 'abort'} again: its outcome was unknown`);
    try {
      await this.sendEndTxn(commit);
    } catch (e) {
      if (isProducerFenced(e)) {
        this.pendingEnd = null;
        this.machine.to('fenced', `EndTxn again refused: ${(e as Error).message}`);
        throw new KafkaProducerFencedError(this.options.transactionalId, e);
      }
      this.endFailed(commit, e);
      this.machine.to('uninitialized', `EndTxn again failed: ${(e as Error).message}`);
      throw new KafkaTxnError('EndTxn', e);
    }
    this.ended(commit);
    this.machine.to('ready', commit ? 'committed (EndTxn sent again)' : 'aborted (EndTxn sent again)');
  }

  /**
   * Aborts the open transaction as well as it can, never throwing: fenced → `fenced`; any other failure →
   * `uninitialized`, with the abort owed ({@link settlePendingEnd}) when its outcome is unknown.
   */
  async abortQuietly(reason: string): Promise<void> {
    if (!this.machine.is('in-transaction', 'committing')) return;
    this.machine.to('aborting', reason);
    try {
      if (this.inTxn.size > 0 || this.offsetsAdded) await this.sendEndTxn(false);
      this.ended(false);
      this.machine.to('ready', `aborted: ${reason}`);
    } catch (e) {
      this.endFailed(false, e);
      this.markFailed(e, `abort failed: ${(e as Error).message}`);
    }
  }

  /** After a failed call: `fenced` for a fencing error, else `uninitialized` (InitProducerId next). */
  markFailed(error: unknown, reason: string): void {
    if (this.machine.is('fenced', 'uninitialized', 'closed')) return;
    if (isProducerFenced(error)) this.machine.to('fenced', reason);
    else this.machine.to('uninitialized', reason);
  }

  /** Closes the producer (an open transaction is left to its timeout or the next instance's InitProducerId). */
  close(): void {
    if (!this.machine.is('closed')) {
      if (this.machine.is('in-transaction', 'committing', 'aborting')) this.machine.to('uninitialized', 'closing');
      this.machine.to('closed', 'close()');
    }
  }
}
