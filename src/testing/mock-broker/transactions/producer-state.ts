/**
 * Per-partition producer state (KIP-98), after Apache Kafka's `ProducerStateManager`,
 * `ProducerStateEntry` and `ProducerAppendInfo` (storage/.../internals/log/):
 *
 * - Sequence checks for batches with a producer id: the last 5 batches of each producer are
 *   remembered; a batch with the same epoch and the same sequence range as one of them is a
 *   duplicate, answered with the original offsets and not appended (modern Kafka does not answer
 *   DUPLICATE_SEQUENCE_NUMBER). A lower epoch is INVALID_PRODUCER_EPOCH; a gap within an epoch is
 *   OUT_OF_ORDER_SEQUENCE_NUMBER; a new epoch must start at sequence 0. A producer the partition
 *   has no state for is accepted at any sequence (Kafka 2.5+, KIP-360: UNKNOWN_PRODUCER_ID is no
 *   longer returned by Produce).
 * - Transactions: the first transactional batch of a producer starts its transaction at this
 *   partition; a COMMIT or ABORT control batch ends it. The last stable offset (LSO) is the first
 *   offset of the earliest open transaction, or the high watermark. Aborted transactions are kept
 *   as (producerId, firstOffset, lastOffset = marker offset) for read_committed fetches.
 *
 * State hangs off the {@link PartitionLog} in a WeakMap, so the log itself stays unaware of it.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { BatchHeader, encodeBatch, readBatchHeader } from '../../../protocol/record-batch';
import type { PartitionLog } from '../partition-log';

/** Batches of each producer remembered for duplicate detection (Kafka's NUM_BATCHES_TO_RETAIN). */
export const NUM_BATCHES_TO_RETAIN = 5;
/** INVALID_RECORD (87): a client may not write control batches. */
export const INVALID_RECORD = 87;
const NO_EPOCH = -1;
const INT32_MAX = 0x7fffffff;

export enum ControlType { Abort = 0, Commit = 1 }

interface BatchMeta { firstSeq: number; lastSeq: number; firstOffset: number; lastOffset: number }

interface ProducerEntry {
  epoch: number;
  batches: BatchMeta[];
  /** First offset of this producer's open transaction at this partition, or null. */
  txnFirstOffset: number | null;
  coordinatorEpoch: number;
}

export interface AbortedTxn { producerId: bigint; firstOffset: number; lastOffset: number }

/** Checks the coordinator makes when a transactional batch opens a transaction here (KIP-890 verification). */
export type TxnVerifier = (producerId: bigint, producerEpoch: number) => number;

export type AppendCheck =
  | { kind: 'ok'; apply(firstOffset: number): void }
  | { kind: 'duplicate'; firstOffset: number; lastOffset: number }
  | { kind: 'error'; errorCode: number; message: string };

export function lastSequence(firstSeq: number, lastOffsetDelta: number): number {
  return firstSeq > INT32_MAX - lastOffsetDelta ? lastOffsetDelta - (INT32_MAX - firstSeq) - 1 : firstSeq + lastOffsetDelta;
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX);
}

function cloneEntry(e: ProducerEntry | undefined): ProducerEntry {
  return e ? { ...e, batches: [...e.batches] } : { epoch: NO_EPOCH, batches: [], txnFirstOffset: null, coordinatorEpoch: -1 };
}

/** Kafka's `maybeUpdateProducerEpoch`: a new epoch forgets the old epoch's batches. */
function setEpoch(e: ProducerEntry, epoch: number): void {
  if (e.epoch !== epoch) {
    e.batches = [];
    e.epoch = epoch;
  }
}

export class PartitionProducerState {
  private readonly producers = new Map<bigint, ProducerEntry>();
  private readonly aborted: AbortedTxn[] = [];

  constructor(private readonly log: PartitionLog) {}

  /**
   * Validates the producer-id batches of one produce request for this partition, without changing
   * anything. On `ok`, append the batches to the log and call `apply` with the first offset.
   */
  checkAppend(batches: readonly { header: BatchHeader }[], verify: TxnVerifier): AppendCheck {
    const staged = new Map<bigint, ProducerEntry>();
    const plan: { pid: bigint; firstSeq: number; lastSeq: number; delta: number; transactional: boolean; idempotent: boolean }[] = [];
    for (const { header: h } of batches) {
      if (h.isControl) return { kind: 'error', errorCode: INVALID_RECORD, message: 'a client may not write control batches' };
      if (h.producerId < 0n) {
        if (h.isTransactional) return { kind: 'error', errorCode: INVALID_RECORD, message: 'transactional batch without a producer id' };
        plan.push({ pid: -1n, firstSeq: -1, lastSeq: -1, delta: h.lastOffsetDelta, transactional: false, idempotent: false });
        continue;
      }
      const current = this.producers.get(h.producerId);
      const dup = current && current.epoch === h.producerEpoch
        ? current.batches.find((b) => b.firstSeq === h.baseSequence && b.lastSeq === lastSequence(h.baseSequence, h.lastOffsetDelta))
        : undefined;
      if (dup) return { kind: 'duplicate', firstOffset: dup.firstOffset, lastOffset: dup.lastOffset };
      let entry = staged.get(h.producerId);
      if (!entry) staged.set(h.producerId, (entry = cloneEntry(current)));
      const error = this.checkBatch(entry, h, verify);
      if (error) return error;
      const lastSeq = lastSequence(h.baseSequence, h.lastOffsetDelta);
      setEpoch(entry, h.producerEpoch);
      entry.batches.push({ firstSeq: h.baseSequence, lastSeq, firstOffset: 0, lastOffset: 0 });
      if (h.isTransactional && entry.txnFirstOffset === null) entry.txnFirstOffset = 0; // placeholder until apply
      plan.push({
        pid: h.producerId, firstSeq: h.baseSequence, lastSeq, delta: h.lastOffsetDelta, transactional: h.isTransactional, idempotent: true,
      });
    }
    return {
      kind: 'ok',
      apply: (firstOffset: number) => {
        let offset = firstOffset;
        for (const p of plan) {
          const first = offset;
          offset += p.delta + 1;
          if (!p.idempotent) continue;
          let e = this.producers.get(p.pid);
          if (!e) this.producers.set(p.pid, (e = cloneEntry(undefined)));
          const fresh = staged.get(p.pid)!;
          setEpoch(e, fresh.epoch);
          e.batches.push({ firstSeq: p.firstSeq, lastSeq: p.lastSeq, firstOffset: first, lastOffset: offset - 1 });
          if (e.batches.length > NUM_BATCHES_TO_RETAIN) e.batches.shift();
          if (p.transactional && e.txnFirstOffset === null) e.txnFirstOffset = first;
        }
      },
    };
  }

  private checkBatch(entry: ProducerEntry, h: BatchHeader, verify: TxnVerifier): AppendCheck | null {
    const fail = (errorCode: number, message: string): AppendCheck => ({ kind: 'error', errorCode, message });
    const pid = h.producerId;
    if (h.producerEpoch < entry.epoch) {
      return fail(ErrorCode.INVALID_PRODUCER_EPOCH, `epoch ${h.producerEpoch} of producer ${pid} is older than ${entry.epoch}`);
    }
    if (h.producerEpoch !== entry.epoch) {
      if (h.baseSequence !== 0 && entry.epoch !== NO_EPOCH) {
        return fail(
          ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          `new epoch ${h.producerEpoch} of producer ${pid} starts at sequence ${h.baseSequence}, not 0`,
        );
      }
    } else {
      const lastSeq = entry.batches.length ? entry.batches[entry.batches.length - 1].lastSeq : -1;
      if (!inSequence(lastSeq, h.baseSequence)) {
        return fail(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, `producer ${pid}: sequence ${h.baseSequence} does not follow ${lastSeq}`);
      }
    }
    if (h.isTransactional && entry.txnFirstOffset === null) {
      const code = verify(pid, h.producerEpoch);
      if (code !== ErrorCode.NONE) {
        return fail(
          code,
          `partition ${this.log.topic}-${this.log.partition} is not in an ongoing transaction of producer ${pid} epoch ${h.producerEpoch}`,
        );
      }
    } else if (!h.isTransactional && entry.txnFirstOffset !== null) {
      return fail(ErrorCode.INVALID_TXN_STATE, `non-transactional write from producer ${pid} while its transaction is open`);
    }
    return null;
  }

  /**
   * Writes a COMMIT or ABORT control batch (key: version 0 + type; value: version 0 + coordinator
   * epoch) for `producerId` and ends its transaction here. Returns the marker's offset.
   */
  writeMarker(producerId: bigint, producerEpoch: number, type: ControlType, coordinatorEpoch: number, nowMs = Date.now()): number {
    const key = Buffer.alloc(4);
    key.writeInt16BE(0, 0);
    key.writeInt16BE(type, 2);
    const value = Buffer.alloc(6);
    value.writeInt16BE(0, 0);
    value.writeInt32BE(coordinatorEpoch, 2);
    const bytes = encodeBatch({
      records: [{ key, value, timestamp: BigInt(nowMs) }], producerId, producerEpoch, baseSequence: -1,
      isTransactional: true, isControl: true,
    });
    let e = this.producers.get(producerId);
    if (!e) this.producers.set(producerId, (e = cloneEntry(undefined)));
    // Update the state before appending, so that fetches woken by the append see the new LSO.
    const offset = this.log.logEndOffset;
    if (e.txnFirstOffset !== null && type === ControlType.Abort) {
      this.aborted.push({ producerId, firstOffset: e.txnFirstOffset, lastOffset: offset });
    }
    e.txnFirstOffset = null;
    setEpoch(e, Math.max(e.epoch, producerEpoch));
    e.coordinatorEpoch = coordinatorEpoch;
    this.log.append([{ header: readBatchHeader(bytes), bytes }], nowMs);
    return offset;
  }

  /** The last stable offset: the first offset of the earliest open transaction, else the high watermark. */
  get lastStableOffset(): number {
    let lso = this.log.highWatermark;
    for (const e of this.producers.values()) if (e.txnFirstOffset !== null && e.txnFirstOffset < lso) lso = e.txnFirstOffset;
    return Math.max(lso, this.log.logStartOffset);
  }

  /** Aborted transactions overlapping [fetchOffset, upperBound) (Kafka's `collectAbortedTransactions`). */
  abortedIn(fetchOffset: number, upperBound: number): AbortedTxn[] {
    while (this.aborted.length && this.aborted[0].lastOffset < this.log.logStartOffset) this.aborted.shift();
    return this.aborted.filter((a) => a.lastOffset >= fetchOffset && a.firstOffset < upperBound);
  }

  /** Producer ids with an open transaction here, with its first offset (inspection). */
  openTransactions(): { producerId: bigint; firstOffset: number }[] {
    const out: { producerId: bigint; firstOffset: number }[] = [];
    for (const [producerId, e] of this.producers) if (e.txnFirstOffset !== null) out.push({ producerId, firstOffset: e.txnFirstOffset });
    return out;
  }

  /**
   * Every producer this partition has state for (DescribeProducers, KIP-664): epoch, last
   * sequence, the coordinator epoch of its last marker and the first offset of its open transaction.
   */
  activeProducers(): { producerId: bigint; epoch: number; lastSequence: number; coordinatorEpoch: number; txnStartOffset: number }[] {
    return [...this.producers].map(([producerId, e]) => ({
      producerId, epoch: e.epoch, lastSequence: e.batches.length ? e.batches[e.batches.length - 1].lastSeq : -1,
      coordinatorEpoch: e.coordinatorEpoch, txnStartOffset: e.txnFirstOffset ?? -1,
    }));
  }

  /** The epoch and last sequence the partition knows for a producer (inspection and tests). */
  producer(producerId: bigint): { epoch: number; lastSequence: number } | undefined {
    const e = this.producers.get(producerId);
    return e && { epoch: e.epoch, lastSequence: e.batches.length ? e.batches[e.batches.length - 1].lastSeq : -1 };
  }
}

const states = new WeakMap<PartitionLog, PartitionProducerState>();

/** The producer state of a partition, created on first use. */
export function producerState(log: PartitionLog): PartitionProducerState {
  let s = states.get(log);
  if (!s) states.set(log, (s = new PartitionProducerState(log)));
  return s;
}

/** The LSO of a partition (the high watermark when no producer ever wrote transactionally). */
export function lastStableOffset(log: PartitionLog): number {
  const s = states.get(log);
  return s ? s.lastStableOffset : log.highWatermark;
}
