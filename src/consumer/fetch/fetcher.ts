/**
 * The SDK's own fetch loop (Java's `Fetcher` in words): one Fetch in flight per leader broker at a time, for the
 * partitions that broker leads which are `fetchable` (partition.ts), and nothing else stops it. A rebalance does
 * not: the partitions a member keeps are fetched and handed on while the membership protocol revokes or assigns
 * others (KafkaJS's runner stops every fetch for a whole JoinGroup/SyncGroup round).
 *
 * - Requests: Fetch v4-v12 (topic names; record batches only), read_committed, no fetch session (session id 0,
 *   epoch -1: every request is a full fetch), `maxWaitMs` long poll, `minBytes` 1. Each broker's Fetch goes on
 *   KafkaJS's dedicated fetch connection, so a long poll never delays a heartbeat or a commit.
 * - A partition with records moves to `buffered` and `onChunk` tells the batch runner; it is fetched again as soon
 *   as the runner takes the chunk (one chunk of prefetch per partition).
 * - Errors of a partition: OFFSET_OUT_OF_RANGE resets the position (`resetPosition`: the log start or end, as
 *   `fromBeginning` says, Kafka's auto.offset.reset); a moved leader or stale metadata (NOT_LEADER_OR_FOLLOWER,
 *   UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH, ...) refreshes the metadata and fetches again; a dropped
 *   connection or a timeout backs off (100 ms doubling to 1 s per broker) and refreshes. A batch that cannot be
 *   read (UNSUPPORTED_COMPRESSION, RECORD_BATCH_CORRUPT) is fatal: `onError(e, true)`. Any other error code is
 *   reported (`onError(e, false)`) and retried after a back-off, as Java's fetcher logs and retries an unknown error.
 */
import { Fetch } from '../../protocol/messages/data';
import { KafkaProtocolError, kafkaErrorByCode } from '../../protocol/kafka-errors';
import { ErrorCode } from '../../protocol/error-codes';
import { partitionKey, TopicPartition } from '../../records';
import type { KafkaTransport } from '../kafka/transport';
import { AbortedTransaction, decodeFetchedRecords } from './decode';
import { FetchPartition } from './partition';

/** How the fetch loop fetches (times in ms, sizes in bytes). */
export interface FetcherOptions {
  transport: KafkaTransport;
  /** Longest wait of a Fetch for data (Kafka's fetch.max.wait.ms). */
  maxWaitMs: number;
  /** Most bytes of one response (fetch.max.bytes; default 10 MiB, KafkaJS's maxBytes). */
  maxBytes?: number;
  /** Most bytes of one partition in one response (max.partition.fetch.bytes; default 1 MiB). */
  partitionMaxBytes?: number;
  /** Where a partition whose position left the log resumes (OFFSET_OUT_OF_RANGE). */
  resetPosition: (tp: TopicPartition) => Promise<bigint>;
  /** A partition now holds a chunk for the runner. */
  onChunk: (partition: FetchPartition) => void;
  /** A failure: `fatal` ones stop the consumer; others are reported and retried. */
  onError: (error: Error, fatal: boolean) => void;
  /** Most records of one batch handed on (max.poll.records; default unbounded: a fetched chunk whole). */
  maxBatchRecords?: number;
  /** Most bytes (keys and values) of one batch handed on, at least one record (default unbounded). */
  maxBatchBytes?: number;
  /** A partition's high watermark as a response told it (records or none): the lag metric's. */
  onHighWatermark?: (tp: TopicPartition, highWatermark: bigint) => void;
}

const LEADER_ERRORS = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.OFFSET_NOT_AVAILABLE,
]);
const FATAL_ERRORS = new Set<number>([ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.UNSUPPORTED_VERSION]);
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 1000;

/** The fetch loop of one consumer (see the module comment). */
export class Fetcher {
  private readonly partitions = new Map<string, FetchPartition>();
  /** Paused partitions (Java's `KafkaConsumer.pause`): not fetched, their waiting chunk not handed on. */
  private readonly paused = new Set<string>();
  /** Partitions held by a seek under way (GroupConsumer.seek): their chunks are not handed on; count per key. */
  private readonly held = new Map<string, number>();
  /** Brokers with a Fetch in flight. */
  private readonly busy = new Set<number>();
  /** Brokers backing off after a failure: node id → time (ms) before which none is sent. */
  private readonly backoff = new Map<number, { until: number; ms: number }>();
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private running = false;

  constructor(private readonly options: FetcherOptions) {}

  /** Starts fetching (partitions added before or after). */
  start(): void {
    this.running = true;
    this.schedule();
  }

  /** Stops sending fetches and waits for those in flight; every partition is released. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const p of this.partitions.values()) p.release('the fetch loop stopped');
    this.partitions.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  /** A new incarnation of `tp`, unpositioned until {@link seek}; not paused (a new assignment never is, as in Java). */
  add(tp: TopicPartition): FetchPartition {
    this.partitions.get(partitionKey(tp))?.release('assigned again');
    this.paused.delete(partitionKey(tp));
    const p = new FetchPartition(tp);
    this.partitions.set(p.key, p);
    return p;
  }

  /** The current incarnation of `tp`, if it is fetched. */
  get(tp: TopicPartition): FetchPartition | undefined {
    return this.partitions.get(partitionKey(tp));
  }

  /** Positions `p` at `offset` (unless released) and fetches it. */
  seek(p: FetchPartition, offset: bigint): void {
    if (p.released) return;
    p.seek(offset);
    this.schedule();
  }

  /** The runner takes `p`'s chunk (cut to maxBatchRecords / maxBatchBytes); `p` is fetched again once it is all taken. */
  take(p: FetchPartition): ReturnType<FetchPartition['take']> {
    if (this.isStopped(p.key)) return null;
    const chunk = p.take({ maxRecords: this.options.maxBatchRecords, maxBytes: this.options.maxBatchBytes });
    if (chunk) this.schedule();
    return chunk;
  }

  /** Stops fetching `keys` and handing on their chunks until {@link resume}; a batch being handled finishes. */
  pause(keys: readonly string[]): void {
    for (const k of keys) this.paused.add(k);
  }

  /** Fetches `keys` again. */
  resume(keys: readonly string[]): void {
    for (const k of keys) this.paused.delete(k);
    this.schedule();
  }

  /** Whether `key` is paused. */
  isPaused(key: string): boolean {
    return this.paused.has(key);
  }

  /** Hands no chunk of `key` on until as many {@link unhold} (a seek under way; the user's pause is apart). */
  hold(key: string): void {
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
  }

  /** Ends one {@link hold} of `key`. */
  unhold(key: string): void {
    const n = (this.held.get(key) ?? 0) - 1;
    if (n > 0) this.held.set(key, n);
    else this.held.delete(key);
    this.schedule();
  }

  /** Whether chunks of `key` wait (paused by the user or held by a seek). */
  isStopped(key: string): boolean {
    return this.paused.has(key) || this.held.has(key);
  }

  /** Stops fetching `p` (revoked, lost). */
  release(p: FetchPartition, reason: string): void {
    p.release(reason);
    if (this.partitions.get(p.key) === p) this.partitions.delete(p.key);
  }

  /** Sends a Fetch to every idle leader of a fetchable partition. */
  private schedule(): void {
    if (!this.running) return;
    const byLeader = new Map<number, FetchPartition[]>();
    let unknownLeader = false;
    const now = Date.now();
    let nextRetry = Infinity;
    for (const p of this.partitions.values()) {
      if (p.state !== 'fetchable' || this.paused.has(p.key)) continue;
      const leader = this.options.transport.partitionsOf(p.tp.topic).find((x) => x.partition === p.tp.partition)?.leader;
      if (leader === undefined || leader < 0) {
        unknownLeader = true;
        continue;
      }
      if (this.busy.has(leader)) continue;
      const wait = this.backoff.get(leader);
      if (wait && wait.until > now) {
        nextRetry = Math.min(nextRetry, wait.until);
        continue;
      }
      const list = byLeader.get(leader) ?? [];
      list.push(p);
      byLeader.set(leader, list);
    }
    for (const [leader, list] of byLeader) this.track(this.fetchFrom(leader, list));
    if (unknownLeader) {
      this.refreshMetadata();
      nextRetry = Math.min(nextRetry, now + MIN_BACKOFF_MS);
    }
    if (nextRetry < Infinity && !this.timer) {
      this.timer = setTimeout(() => { this.timer = null; this.schedule(); }, Math.max(1, nextRetry - now));
    }
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private refreshMetadata(): void {
    this.refreshing ??= this.options.transport.refreshMetadata().catch(() => undefined).finally(() => {
      this.refreshing = null;
      this.schedule();
    });
  }

  private fail(leader: number): void {
    const ms = Math.min(MAX_BACKOFF_MS, (this.backoff.get(leader)?.ms ?? MIN_BACKOFF_MS / 2) * 2);
    this.backoff.set(leader, { until: Date.now() + ms, ms });
    this.refreshMetadata();
  }

  private async fetchFrom(leader: number, list: FetchPartition[]): Promise<void> {
    this.busy.add(leader);
    const sent = new Map<FetchPartition, { epoch: number; offset: bigint }>(list.map((p) => [p, p.sending()]));
    let handled = false;
    try {
      const o = this.options;
      const broker = await o.transport.broker(leader);
      const topics = new Map<string, { partition: number; fetchOffset: bigint; partitionMaxBytes: number }[]>();
      for (const [p, s] of sent) {
        const parts = topics.get(p.tp.topic) ?? [];
        parts.push({ partition: p.tp.partition, fetchOffset: s.offset, partitionMaxBytes: o.partitionMaxBytes ?? 1048576 });
        topics.set(p.tp.topic, parts);
      }
      const { response } = await o.transport.request(broker, Fetch, {
        replicaId: -1, maxWaitMs: o.maxWaitMs, minBytes: 1, maxBytes: o.maxBytes ?? 10485760, isolationLevel: 1,
        sessionId: 0, sessionEpoch: -1, rackId: '',
        topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
      }, { minVersion: 4, maxVersion: 12, timeoutMs: o.maxWaitMs + 30000 });
      if (response.errorCode !== ErrorCode.NONE) throw KafkaProtocolError.answered(`Fetch from broker ${leader}`, response.errorCode);
      handled = true;
      this.backoff.delete(leader);
      const byKey = new Map([...sent.keys()].map((p) => [p.key, p]));
      for (const t of response.responses) {
        for (const r of t.partitions) {
          const p = byKey.get(partitionKey({ topic: t.topic, partition: r.partitionIndex }));
          if (!p) continue;
          byKey.delete(p.key);
          try {
            this.handlePartition(p, sent.get(p)!, leader, r);
          } catch (e) {
            // A batch no consumer can read (UNSUPPORTED_COMPRESSION, RECORD_BATCH_CORRUPT): the same bytes come back.
            p.failed(sent.get(p)!, (e as Error).message);
            this.options.onError(e as Error, true);
          }
        }
      }
      for (const p of byKey.values()) p.received(sent.get(p)!, null);
    } catch (e) {
      if (!handled) {
        for (const [p, s] of sent) p.failed(s, `fetch failed: ${(e as Error).message}`);
        this.fail(leader);
        const k = e instanceof KafkaProtocolError ? kafkaErrorByCode(e.errorCode) : undefined;
        const code = e instanceof KafkaProtocolError ? e.errorCode : -2;
        const fatal = FATAL_ERRORS.has(code);
        if (fatal || (!(k?.retriable ?? true) && !LEADER_ERRORS.has(code))) this.options.onError(e as Error, fatal);
      }
    } finally {
      this.busy.delete(leader);
      this.schedule();
    }
  }

  private handlePartition(
    p: FetchPartition, sent: { epoch: number; offset: bigint }, leader: number,
    r: { errorCode: number; highWatermark: bigint; records: Buffer | null; abortedTransactions: AbortedTransaction[] | null },
  ): void {
    if (r.errorCode === ErrorCode.NONE) {
      if (!p.released) this.options.onHighWatermark?.(p.tp, r.highWatermark);
      if (!p.current(sent)) {
        p.received(sent, null);
        return;
      }
      const decoded = decodeFetchedRecords(p.tp, sent.offset, r.records, r.abortedTransactions);
      const chunk = { fetchOffset: sent.offset, records: decoded.records, nextOffset: decoded.nextOffset, highWatermark: r.highWatermark };
      if (p.received(sent, chunk)) this.options.onChunk(p);
      return;
    }
    if (r.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE && p.current(sent)) {
      p.unposition(`offset ${sent.offset} out of range`);
      void this.options.resetPosition(p.tp).then((offset) => {
        if (p.state === 'unpositioned') this.seek(p, offset);
      }, (e: unknown) => {
        this.options.onError(e as Error, false);
        if (p.state === 'unpositioned') this.seek(p, sent.offset);
      });
      return;
    }
    p.failed(sent, `fetch answered ${kafkaErrorByCode(r.errorCode)?.name ?? r.errorCode}`);
    this.fail(leader);
    if (LEADER_ERRORS.has(r.errorCode)) return;
    const error = KafkaProtocolError.answered(`Fetch ${p.key}`, r.errorCode);
    this.options.onError(error, FATAL_ERRORS.has(r.errorCode));
  }
}
