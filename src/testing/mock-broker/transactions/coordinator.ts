/**
 * The transaction coordinator of the mock cluster, after Apache Kafka's `TransactionCoordinator`
 * and `TransactionMetadata` (core/.../coordinator/transaction/), transactions protocol V1
 * (KIP-98, KIP-360 epoch bumps, KIP-588 PRODUCER_FENCED). One instance serves the whole cluster;
 * the handlers check that the receiving broker is the coordinator of the transactional id.
 *
 * - InitProducerId: a null transactional id gets a fresh producer id at epoch 0. A transactional id
 *   gets its producer id with the epoch bumped; a transaction still open from an older producer
 *   instance is first fenced (PrepareEpochFence: the epoch is bumped, the transaction aborted with
 *   the new epoch) and the caller told CONCURRENT_TRANSACTIONS, so that its retry bumps once more.
 *   An exhausted epoch rotates the producer id.
 * - AddPartitionsToTxn / AddOffsetsToTxn move Empty/Complete* to Ongoing and start the timeout.
 * - EndTxn: Ongoing → PrepareCommit/PrepareAbort, control markers to every partition of the
 *   transaction, transactional group offsets made visible (commit) or dropped (abort), then
 *   CompleteCommit/CompleteAbort. Markers are written at once unless `markerDelayMs` > 0, which
 *   keeps the Prepare* state observable (CONCURRENT_TRANSACTIONS) as on a real cluster.
 * - Transaction timeout: an Ongoing transaction older than its timeout is aborted with a bumped
 *   epoch, so the producer that let it expire is fenced.
 *
 * Errors are returned as PRODUCER_FENCED; the handlers turn it into INVALID_PRODUCER_EPOCH for the
 * request versions that predate it, as KafkaApis does.
 */
import type { EventLog } from '../event-log';
import type { PartitionLog } from '../partition-log';
import { ErrorCode } from '../../../protocol/error-codes';
import { TxnState, txnStateMachine } from './state-machine';
import type { StateMachine } from '../../../util/state-machine';
import { ControlType, producerState } from './producer-state';

const NO_PRODUCER_ID = -1n;
const NO_EPOCH = -1;
const MAX_EPOCH = 32767;
/** The coordinator epoch written into markers (the mock's transaction log never moves). */
export const COORDINATOR_EPOCH = 0;

export interface TransactionCoordinatorConfig {
  /** transaction.max.timeout.ms (Kafka default 900000). */
  maxTimeoutMs: number;
  /** Delay between Prepare* and Complete* (marker write); 0 = immediate. */
  markerDelayMs: number;
  /** First producer id handed out. */
  firstProducerId: bigint;
}

export interface TxnMetadata {
  readonly transactionalId: string;
  producerId: bigint;
  previousProducerId: bigint;
  producerEpoch: number;
  lastProducerEpoch: number;
  timeoutMs: number;
  /** The transaction's state (one machine, table TXN_TRANSITIONS); changed only through the coordinator's `transition`. */
  readonly machine: StateMachine<TxnState>;
  /** Partitions in the transaction, keyed `topic\0partition`. */
  readonly partitions: Map<string, { topic: string; partition: number }>;
  /** Consumer groups whose offsets are in the transaction (AddOffsetsToTxn). */
  readonly groups: Set<string>;
  startTimeMs: number;
  lastUpdateMs: number;
}

export interface TransactionView {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  state: TxnState;
  timeoutMs: number;
  partitions: { topic: string; partition: number }[];
  groups: string[];
  startTimeMs: number;
}

export interface InitProducerIdResult { errorCode: number; producerId: bigint; producerEpoch: number }

const key = (topic: string, partition: number) => `${topic}\0${partition}`;

/**
 * What the transaction coordinator needs from the cluster (ClusterState provides it): the event log,
 * partition logs to write markers to, and the group coordinator's pending transactional offsets.
 * Declared here so that the coordinator does not import the cluster that owns it.
 */
export interface TxnCoordinatorHost {
  readonly events: EventLog;
  partition(topic: string, partition: number): PartitionLog | undefined;
  /** Makes (commit) or drops (abort) the offsets `producerId` committed to `groupId` in its transaction. */
  completeTxnOffsets(groupId: string, producerId: bigint, commit: boolean): void;
}

export class TransactionCoordinator {
  readonly config: TransactionCoordinatorConfig;
  private readonly txns = new Map<string, TxnMetadata>();
  private readonly byProducerId = new Map<bigint, TxnMetadata>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private nextProducerId: bigint;
  private closed = false;

  constructor(private readonly cluster: TxnCoordinatorHost, config: Partial<TransactionCoordinatorConfig> = {}) {
    this.config = { maxTimeoutMs: 900_000, markerDelayMs: 0, firstProducerId: 1000n, ...config };
    this.nextProducerId = this.config.firstProducerId;
  }

  private allocateProducerId(): bigint {
    return this.nextProducerId++;
  }

  // ---------------------------------------------------------------- InitProducerId

  initProducerId(
    transactionalId: string | null, timeoutMs: number, expected: { producerId: bigint; producerEpoch: number } | null,
  ): InitProducerIdResult {
    const fail = (errorCode: number): InitProducerIdResult => ({ errorCode, producerId: NO_PRODUCER_ID, producerEpoch: NO_EPOCH });
    if (transactionalId === null) {
      const producerId = this.allocateProducerId();
      this.cluster.events.record('producer.id-allocated', { producerId: String(producerId), transactional: false });
      return { errorCode: ErrorCode.NONE, producerId, producerEpoch: 0 };
    }
    if (transactionalId === '') return fail(ErrorCode.INVALID_REQUEST);
    if (timeoutMs <= 0 || timeoutMs > this.config.maxTimeoutMs) return fail(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    let txn = this.txns.get(transactionalId);
    if (!txn) {
      txn = {
        transactionalId, producerId: this.allocateProducerId(), previousProducerId: NO_PRODUCER_ID, producerEpoch: NO_EPOCH,
        lastProducerEpoch: NO_EPOCH, timeoutMs, machine: this.newMachine(transactionalId), partitions: new Map(), groups: new Set(),
        startTimeMs: -1, lastUpdateMs: Date.now(),
      };
      this.txns.set(transactionalId, txn);
      this.byProducerId.set(txn.producerId, txn);
    }
    if (expected && !(txn.producerEpoch === NO_EPOCH || expected.producerId === txn.producerId
      || (expected.producerId === txn.previousProducerId && expected.producerEpoch >= MAX_EPOCH - 1))) {
      return fail(ErrorCode.PRODUCER_FENCED);
    }
    switch (txn.machine.state) {
      case 'PrepareCommit': case 'PrepareAbort': case 'PrepareEpochFence':
        return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
      case 'Ongoing':
        // Fence the open transaction: bump the epoch, abort with it, and let the caller retry.
        this.transition(txn, 'PrepareEpochFence', 'InitProducerId from a new producer instance');
        txn.producerEpoch += 1;
        txn.lastProducerEpoch = NO_EPOCH;
        this.beginEnd(txn, false, 'fenced by InitProducerId');
        return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
      case 'Dead':
        return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      default: break; // Empty, CompleteCommit, CompleteAbort
    }
    if (txn.producerEpoch >= MAX_EPOCH - 1 && (!expected || expected.producerEpoch === txn.producerEpoch)) {
      this.byProducerId.delete(txn.producerId);
      txn.previousProducerId = txn.producerId;
      txn.producerId = this.allocateProducerId();
      this.byProducerId.set(txn.producerId, txn);
      txn.lastProducerEpoch = expected ? expected.producerEpoch : NO_EPOCH;
      txn.producerEpoch = 0;
    } else if (!expected || txn.producerEpoch === NO_EPOCH || expected.producerEpoch === txn.producerEpoch) {
      txn.lastProducerEpoch = expected ? txn.producerEpoch : NO_EPOCH;
      txn.producerEpoch += 1;
    } else if (expected.producerEpoch !== txn.lastProducerEpoch) {
      return fail(ErrorCode.PRODUCER_FENCED);
    } // else: a retry of an epoch bump whose answer was lost — answer the current epoch again
    txn.timeoutMs = timeoutMs;
    this.transition(txn, 'Empty', 'InitProducerId');
    this.cluster.events.record('producer.id-allocated', {
      transactionalId, producerId: String(txn.producerId), producerEpoch: txn.producerEpoch, transactional: true,
    });
    return { errorCode: ErrorCode.NONE, producerId: txn.producerId, producerEpoch: txn.producerEpoch };
  }

  // ---------------------------------------------------------------- AddPartitionsToTxn / AddOffsetsToTxn

  /** Checks shared by AddPartitionsToTxn, AddOffsetsToTxn and EndTxn; returns the metadata or an error code. */
  private validate(transactionalId: string, producerId: bigint, producerEpoch: number): TxnMetadata | number {
    if (!transactionalId) return ErrorCode.INVALID_REQUEST;
    const txn = this.txns.get(transactionalId);
    if (!txn || txn.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (txn.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
    return txn;
  }

  addPartitions(
    transactionalId: string, producerId: bigint, producerEpoch: number, partitions: { topic: string; partition: number }[],
  ): number {
    return this.add(transactionalId, producerId, producerEpoch, (txn) => {
      for (const p of partitions) txn.partitions.set(key(p.topic, p.partition), p);
    }, (txn) => partitions.every((p) => txn.partitions.has(key(p.topic, p.partition))), 'AddPartitionsToTxn');
  }

  addOffsets(transactionalId: string, producerId: bigint, producerEpoch: number, groupId: string): number {
    return this.add(
      transactionalId, producerId, producerEpoch,
      (txn) => txn.groups.add(groupId), (txn) => txn.groups.has(groupId), 'AddOffsetsToTxn',
    );
  }

  private add(
    transactionalId: string, producerId: bigint, producerEpoch: number,
    apply: (t: TxnMetadata) => void, present: (t: TxnMetadata) => boolean, reason: string,
  ): number {
    const txn = this.validate(transactionalId, producerId, producerEpoch);
    if (typeof txn === 'number') return txn;
    if (txn.machine.state === 'PrepareCommit' || txn.machine.state === 'PrepareAbort' || txn.machine.state === 'PrepareEpochFence') {
      return ErrorCode.CONCURRENT_TRANSACTIONS;
    }
    if (txn.machine.state === 'Dead') return ErrorCode.INVALID_TXN_STATE;
    if (txn.machine.state === 'Ongoing' && present(txn)) return ErrorCode.NONE;
    if (txn.machine.state !== 'Ongoing') {
      txn.partitions.clear();
      txn.groups.clear();
      txn.startTimeMs = Date.now();
      this.transition(txn, 'Ongoing', reason);
      this.scheduleTimeout(txn);
    }
    apply(txn);
    txn.lastUpdateMs = Date.now();
    return ErrorCode.NONE;
  }

  // ---------------------------------------------------------------- EndTxn

  endTxn(transactionalId: string, producerId: bigint, producerEpoch: number, commit: boolean): number {
    const txn = this.validate(transactionalId, producerId, producerEpoch);
    if (typeof txn === 'number') return txn;
    switch (txn.machine.state) {
      case 'Ongoing':
        this.beginEnd(txn, commit, commit ? 'EndTxn commit' : 'EndTxn abort');
        return ErrorCode.NONE;
      case 'CompleteCommit': return commit ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE;
      case 'CompleteAbort': return commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.NONE;
      case 'PrepareCommit': return commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE;
      case 'PrepareAbort': return commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS;
      case 'PrepareEpochFence': return ErrorCode.CONCURRENT_TRANSACTIONS;
      default: return ErrorCode.INVALID_TXN_STATE; // Empty, Dead
    }
  }

  /** Prepare* now; markers and Complete* now or after `markerDelayMs`. */
  private beginEnd(txn: TxnMetadata, commit: boolean, reason: string): void {
    this.cancelTimeout(txn.transactionalId);
    this.transition(txn, commit ? 'PrepareCommit' : 'PrepareAbort', reason);
    txn.lastUpdateMs = Date.now();
    const finish = () => this.complete(txn, commit);
    if (this.config.markerDelayMs <= 0) finish();
    else this.setTimer(`markers:${txn.transactionalId}`, this.config.markerDelayMs, finish);
  }

  private complete(txn: TxnMetadata, commit: boolean): void {
    if (this.closed) return;
    const written: { topic: string; partition: number; offset: number }[] = [];
    for (const { topic, partition } of txn.partitions.values()) {
      const log = this.cluster.partition(topic, partition);
      if (!log) continue; // topic deleted meanwhile
      const offset = producerState(log).writeMarker(
        txn.producerId, txn.producerEpoch, commit ? ControlType.Commit : ControlType.Abort, COORDINATOR_EPOCH,
      );
      written.push({ topic, partition, offset });
    }
    for (const groupId of txn.groups) this.cluster.completeTxnOffsets(groupId, txn.producerId, commit);
    this.cluster.events.record('txn.markers-written', {
      transactionalId: txn.transactionalId, producerId: String(txn.producerId), producerEpoch: txn.producerEpoch,
      result: commit ? 'COMMIT' : 'ABORT', partitions: written, groups: [...txn.groups],
    });
    this.transition(txn, commit ? 'CompleteCommit' : 'CompleteAbort', 'markers written');
    txn.partitions.clear();
    txn.groups.clear();
    txn.lastUpdateMs = Date.now();
  }

  // ---------------------------------------------------------------- timeouts

  private scheduleTimeout(txn: TxnMetadata): void {
    const { producerId, producerEpoch } = txn;
    this.setTimer(`timeout:${txn.transactionalId}`, txn.timeoutMs, () => {
      if (txn.machine.state !== 'Ongoing' || txn.producerId !== producerId || txn.producerEpoch !== producerEpoch) return;
      this.transition(txn, 'PrepareEpochFence', `transaction timeout ${txn.timeoutMs} ms expired`);
      txn.producerEpoch += 1;
      txn.lastProducerEpoch = NO_EPOCH;
      this.beginEnd(txn, false, 'transaction timed out');
    });
  }

  private cancelTimeout(transactionalId: string): void {
    const t = this.timers.get(`timeout:${transactionalId}`);
    if (t) clearTimeout(t);
    this.timers.delete(`timeout:${transactionalId}`);
  }

  private setTimer(name: string, ms: number, fn: () => void): void {
    const old = this.timers.get(name);
    if (old) clearTimeout(old);
    const t = setTimeout(() => {
      this.timers.delete(name);
      if (!this.closed) fn();
    }, ms);
    t.unref?.();
    this.timers.set(name, t);
  }

  // ---------------------------------------------------------------- checks for Produce and TxnOffsetCommit

  /**
   * A transactional batch opens a transaction at a partition (KIP-890 verification): the producer
   * must be in an Ongoing transaction with that partition, at its current epoch.
   */
  verifyPartition(producerId: bigint, producerEpoch: number, topic: string, partition: number): number {
    const txn = this.byProducerId.get(producerId);
    if (!txn) return ErrorCode.INVALID_TXN_STATE;
    if (producerEpoch < txn.producerEpoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (txn.machine.state !== 'Ongoing' || producerEpoch !== txn.producerEpoch || !txn.partitions.has(key(topic, partition))) {
      return ErrorCode.INVALID_TXN_STATE;
    }
    return ErrorCode.NONE;
  }

  /**
   * AddPartitionsToTxn v4+ with verifyOnly (KIP-890), as Kafka's handleVerifyPartitionsInTransaction:
   * one error for all partitions (INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED, CONCURRENT_TRANSACTIONS
   * while a commit or abort is written), else per partition NONE when it is in the transaction and
   * TRANSACTION_ABORTABLE when not. Changes nothing.
   */
  verifyPartitions(
    transactionalId: string, producerId: bigint, producerEpoch: number, partitions: { topic: string; partition: number }[],
  ): number | number[] {
    const txn = this.txns.get(transactionalId);
    if (!txn || txn.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (txn.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
    if (txn.machine.state === 'PrepareCommit' || txn.machine.state === 'PrepareAbort') return ErrorCode.CONCURRENT_TRANSACTIONS;
    return partitions.map((p) => (txn.partitions.has(key(p.topic, p.partition)) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE));
  }

  /** TxnOffsetCommit: the producer's epoch is current and the group was added with AddOffsetsToTxn. */
  verifyOffsetCommit(transactionalId: string, producerId: bigint, producerEpoch: number, groupId: string): number {
    const txn = this.txns.get(transactionalId);
    if (!txn || txn.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (producerEpoch !== txn.producerEpoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (txn.machine.state !== 'Ongoing' || !txn.groups.has(groupId)) return ErrorCode.INVALID_TXN_STATE;
    return ErrorCode.NONE;
  }

  // ---------------------------------------------------------------- state, inspection, lifecycle

  private transition(txn: TxnMetadata, to: TxnState, reason: string): void {
    txn.machine.to(to, reason);
  }

  /** A transactional id's state machine; its changes of state go to the event log (`txn.transition`). */
  private newMachine(transactionalId: string): StateMachine<TxnState> {
    return txnStateMachine(transactionalId, ({ from, to, reason }) => {
      if (from === to) return;
      const txn = this.txns.get(transactionalId)!;
      this.cluster.events.record('txn.transition', {
        transactionalId, producerId: String(txn.producerId), producerEpoch: txn.producerEpoch, from, to, reason,
      });
    });
  }

  transaction(transactionalId: string): TransactionView | undefined {
    const t = this.txns.get(transactionalId);
    return t && {
      transactionalId: t.transactionalId, producerId: t.producerId, producerEpoch: t.producerEpoch, state: t.machine.state,
      timeoutMs: t.timeoutMs,
      partitions: [...t.partitions.values()].map((p) => ({ ...p })), groups: [...t.groups], startTimeMs: t.startTimeMs,
    };
  }

  transactions(): TransactionView[] {
    return [...this.txns.keys()].map((id) => this.transaction(id)!);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
