/**
 * One owned partition as the fetch loop sees it: its position (the next offset to fetch), the chunk fetched and
 * not yet taken by the batch runner, and one state value with a transition table (util/state-machine.ts):
 *
 * ```
 * unpositioned ──seek──▶ fetchable ──request sent──▶ fetching ──records──▶ buffered ──taken──▶ fetchable
 *                             ▲                          │ (no records, stale, error)            │
 *                             └──────────────────────────┘◀───────────────seek───────────────────┘
 * any state ──release──▶ released (terminal: revoked, lost, stopped)
 * ```
 *
 * A partition is fetched only when `fetchable`: never twice at once, and never while a chunk waits for the runner
 * (Java's fetcher skips partitions with buffered data), so each partition holds at most one chunk in memory besides
 * the one being processed. Every seek bumps `seekEpoch`; a response whose request was made at another epoch or
 * position is stale and dropped, so a seek always wins over a fetch that was in flight (the stale-position replay
 * of issue 8 cannot come back). A partition assigned again later is a new object: nothing of its earlier
 * incarnation (position, chunk, in-flight fetch) can reach it.
 */
import { partitionKey, SinkRecord, TopicPartition } from '../../records';
import { StateMachine } from '../../util/state-machine';

/** States of a {@link FetchPartition} (see the module comment). */
export type FetchState = 'unpositioned' | 'fetchable' | 'fetching' | 'buffered' | 'released';

const TRANSITIONS: Readonly<Record<FetchState, readonly FetchState[]>> = {
  unpositioned: ['fetchable', 'released'],
  fetchable: ['fetching', 'fetchable', 'unpositioned', 'released'],
  fetching: ['fetchable', 'buffered', 'fetching', 'unpositioned', 'released'],
  buffered: ['fetchable', 'unpositioned', 'released'],
  released: [],
};

/** Records of one partition from one fetch response, waiting for the batch runner. */
export interface FetchedChunk {
  readonly partition: FetchPartition;
  /** The partition's seek epoch when the fetch was sent: the chunk is current only while it is unchanged. */
  readonly seekEpoch: number;
  /** The offset the fetch was made from (the consumer's position before this chunk). */
  readonly fetchOffset: bigint;
  /** Records at or after `fetchOffset` (control records and aborted data removed); may be empty. */
  readonly records: SinkRecord[];
  /** The last complete batch's last offset + 1. */
  readonly nextOffset: bigint;
  readonly highWatermark: bigint;
}

/** One owned partition's fetch state (see the module comment). */
export class FetchPartition {
  readonly key: string;
  readonly tp: TopicPartition;
  private readonly machine: StateMachine<FetchState>;
  private pos: bigint | null = null;
  private epoch = 0;
  private waiting: FetchedChunk | null = null;
  /** The high watermark of the last response (null before the first). */
  highWatermark: bigint | null = null;

  constructor(tp: TopicPartition) {
    this.tp = { topic: tp.topic, partition: tp.partition };
    this.key = partitionKey(tp);
    this.machine = new StateMachine<FetchState>({ name: `fetch ${this.key}`, initial: 'unpositioned', transitions: TRANSITIONS });
  }

  get state(): FetchState {
    return this.machine.state;
  }

  /** The next offset to fetch (null until positioned). */
  get position(): bigint | null {
    return this.pos;
  }

  get seekEpoch(): number {
    return this.epoch;
  }

  get released(): boolean {
    return this.machine.is('released');
  }

  /** Moves the position to `offset` (drops a waiting chunk; a fetch in flight becomes stale). Ignored once released. */
  seek(offset: bigint): void {
    if (this.released) return;
    this.pos = offset;
    this.epoch += 1;
    this.waiting = null;
    if (!this.machine.is('fetching')) this.machine.to('fetchable', `seek to ${offset}`);
  }

  /** The position is unknown again (OFFSET_OUT_OF_RANGE: it is being reset); a fetch in flight becomes stale. */
  unposition(reason: string): void {
    if (this.released) return;
    this.epoch += 1;
    this.waiting = null;
    this.machine.to('unpositioned', reason);
  }

  /** A fetch request for this partition is going out: returns the epoch and offset it is made at. */
  sending(): { epoch: number; offset: bigint } {
    this.machine.to('fetching', 'fetch sent');
    return { epoch: this.epoch, offset: this.pos! };
  }

  /** Whether a response to a request made at `sent` still applies (same epoch and position, not released). */
  current(sent: { epoch: number; offset: bigint }): boolean {
    return !this.released && this.epoch === sent.epoch && this.pos === sent.offset;
  }

  /**
   * The response to the request made at `sent` arrived. With records (or only skipped ones: `chunk` with an empty
   * list), the position moves to the chunk's next offset and the chunk waits for the runner; a stale response is
   * dropped. Returns whether a chunk now waits.
   */
  received(sent: { epoch: number; offset: bigint }, chunk: Omit<FetchedChunk, 'partition' | 'seekEpoch'> | null): boolean {
    if (this.released) return false;
    if (this.machine.is('unpositioned')) return false;
    if (!this.current(sent) || chunk === null || chunk.nextOffset <= sent.offset) {
      this.machine.to('fetchable', chunk === null ? 'nothing fetched' : 'stale or empty response');
      return false;
    }
    this.highWatermark = chunk.highWatermark;
    this.pos = chunk.nextOffset;
    this.waiting = { ...chunk, partition: this, seekEpoch: this.epoch };
    this.machine.to('buffered', `fetched ${sent.offset}..${chunk.nextOffset - 1n}`);
    return true;
  }

  /** The request made at `sent` failed: fetchable again (unless a seek or release came meanwhile). */
  failed(sent: { epoch: number; offset: bigint }, reason: string): void {
    if (this.machine.is('fetching')) this.machine.to('fetchable', reason);
    void sent;
  }

  /**
   * The runner takes the waiting chunk (null if none); the partition may be fetched again at once (prefetch). With
   * `limit`, a chunk holding more than `maxRecords` records, or more than `maxBytes` of keys and values (at least one
   * record either way), is cut: the head is taken (its next offset the first offset of the rest, so the two ranges
   * stay contiguous) and the rest keeps waiting, as Java's `max.poll.records` leaves the rest in the fetch buffer.
   */
  take(limit: { maxRecords?: number; maxBytes?: number } = {}): FetchedChunk | null {
    const chunk = this.waiting;
    if (!chunk || !this.machine.is('buffered')) return null;
    const cut = cutAt(chunk.records, limit);
    if (cut < chunk.records.length) {
      const restFrom = chunk.records[cut]!.offset;
      this.waiting = { ...chunk, fetchOffset: restFrom, records: chunk.records.slice(cut) };
      return { ...chunk, records: chunk.records.slice(0, cut), nextOffset: restFrom };
    }
    this.waiting = null;
    this.machine.to('fetchable', 'taken by the runner');
    return chunk;
  }

  /** Whether `chunk` is still this partition's current data (no seek or release since it was fetched). */
  holds(chunk: FetchedChunk): boolean {
    return chunk.partition === this && !this.released && chunk.seekEpoch === this.epoch;
  }

  /** The partition is no longer fetched (revoked, lost, stopped). Terminal. */
  release(reason: string): void {
    if (this.released) return;
    this.waiting = null;
    this.machine.to('released', reason);
  }
}

/** How many of `records` fit in one batch under `limit` (at least one). */
function cutAt(records: readonly SinkRecord[], limit: { maxRecords?: number; maxBytes?: number }): number {
  let n = Math.min(records.length, limit.maxRecords ?? Infinity);
  if (limit.maxBytes !== undefined) {
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const r = records[i]!;
      bytes += (r.key?.length ?? 0) + (r.value?.length ?? 0);
      if (bytes > limit.maxBytes && i > 0) {
        n = i;
        break;
      }
    }
  }
  return Math.max(1, n);
}
