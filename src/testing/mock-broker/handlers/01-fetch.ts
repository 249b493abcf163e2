/**
 * Fetch (key 1), v0-v17. v0-v3 answer message sets of magic 0 (v0-v1) or 1 (v2-v3), converted
 * from the stored batches as Kafka does for old fetchers (protocol/down-convert.ts); v3 adds
 * maxBytes. v4 adds isolationLevel, lastStableOffset and abortedTransactions
 * (KIP-98), v5 logStartOffset, v7 fetch sessions (KIP-227, incremental sessions: see
 * fetch-sessions.ts), v9 currentLeaderEpoch (older than the leader's: FENCED_LEADER_EPOCH, newer:
 * UNKNOWN_LEADER_EPOCH, as Kafka's Partition fences), v11 rackId and preferredReadReplica (-1), v12 is
 * flexible with lastFetchedEpoch (never diverging: the mock never truncates), v13 names topics by
 * id (KIP-516; an unknown id is UNKNOWN_TOPIC_ID), v14 = v13 (OFFSET_MOVED_TO_TIERED_STORAGE, never
 * answered: no tiered storage), v15 moves replicaId into the tagged replicaState (KIP-903; a
 * consumer sends -1 and the mock serves consumers only), v16 (KIP-951) names the current leader of
 * a partition answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH in currentLeader and lists nodeEndpoints (see
 * leader-hint.ts), v17 adds the tagged replicaDirectoryId of a follower (KIP-853, ignored).
 *
 * Long poll: the response is sent once at least minBytes are ready across the requested
 * partitions, or after maxWaitMs, or at once on any partition error. Each broker answers only
 * for the partitions it leads, and a fetch waiting on one broker never delays another's.
 * Size limits follow KIP-74: whole batches, partitionMaxBytes per partition, maxBytes in all,
 * but the first batch of the first non-empty partition is returned even if larger.
 *
 * read_committed (isolationLevel 1, KIP-98): data is served only below the last stable offset
 * (the first offset of the earliest open transaction), lastStableOffset is reported, and
 * abortedTransactions lists (producerId, firstOffset) of every aborted transaction overlapping the
 * fetched range [fetchOffset, end of the last batch returned, or the LSO when nothing is), as
 * Kafka's `collectAbortedTransactions` does; the client drops those producers' batches from each
 * firstOffset up to the ABORT marker. A long poll wakes on every append, markers included, so a
 * commit releases a waiting read_committed fetch at once. A fetch offset between the LSO and the
 * high watermark is valid (it just returns nothing yet).
 */
import { downConvert, fetchMagic } from '../../../protocol/down-convert';
import { ErrorCode } from '../../../protocol/error-codes';
import { Fetch } from '../../../protocol/messages/data';
import { PartitionLog } from '../partition-log';
import { AclOperation } from '../acls';
import { topicAllowed } from './authorize';
import { lastStableOffset, producerState } from '../transactions/producer-state';
import { FetchSession, sessionKey } from '../fetch-sessions';
import { LeaderHints } from './leader-hint';
import { Body, defineHandler, HandlerContext } from './types';

interface Built { body: Body; bytes: number; error: boolean; logs: PartitionLog[] }

function build(req: Body, ctx: HandlerContext): Built {
  const { cluster } = ctx;
  const readCommitted = req.isolationLevel === 1;
  let remaining: number = req.maxBytes;
  let bytes = 0;
  let error = false;
  const logs: PartitionLog[] = [];
  const hints = new LeaderHints(cluster, ctx.listener.name);
  const responses = (req.topics as Body[]).map((t) => ({
    topic: t.topic ?? '',
    topicId: t.topicId,
    partitions: (t.partitions as Body[]).map((p) => {
      const log = t.topic === null ? undefined : cluster.partition(t.topic, p.partition);
      const base = {
        partitionIndex: p.partition, errorCode: 0, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n,
        abortedTransactions: readCommitted ? [] : null, preferredReadReplica: -1, records: null as Buffer | null,
      };
      if (t.topic !== null && !topicAllowed(ctx, AclOperation.READ, t.topic)) {
        error = true;
        return { ...base, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
      }
      if (!log) {
        error = true;
        return { ...base, errorCode: t.topic === null ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
      }
      const epochError = log.leaderId !== ctx.nodeId
        ? ErrorCode.NOT_LEADER_OR_FOLLOWER : leaderEpochError(p.currentLeaderEpoch, log.leaderEpoch);
      if (epochError !== ErrorCode.NONE) {
        error = true;
        const hinted = ctx.version >= 16 && epochError !== ErrorCode.UNKNOWN_LEADER_EPOCH;
        return { ...base, errorCode: epochError, currentLeader: hinted ? hints.leaderOf(t.topic, p.partition) : undefined };
      }
      logs.push(log);
      const hw = log.highWatermark;
      const lso = lastStableOffset(log);
      const withOffsets = { ...base, highWatermark: BigInt(hw), lastStableOffset: BigInt(lso), logStartOffset: BigInt(log.logStartOffset) };
      const offset = Number(p.fetchOffset);
      if (offset < log.logStartOffset || offset > hw) { error = true; return { ...withOffsets, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE }; }
      const limit = Math.min(p.partitionMaxBytes, remaining);
      const upTo = readCommitted ? lso : hw;
      const read = log.read(offset, limit, bytes === 0, upTo);
      if (read.bytes === 0) return { ...withOffsets, records: Buffer.alloc(0) };
      bytes += read.bytes;
      remaining = Math.max(0, remaining - read.bytes);
      const records = read.chunks.length === 1 ? read.chunks[0] : Buffer.concat(read.chunks, read.bytes);
      const magic = fetchMagic(ctx.version);
      if (magic !== 2) return { ...withOffsets, records: oldFormat(log, read.chunks, limit, magic, cluster.maxDecompressedBatchBytes) };
      if (!readCommitted) return { ...withOffsets, records };
      const last = read.chunks[read.chunks.length - 1];
      const end = endOf(last);
      const aborted = producerState(log).abortedIn(offset, Math.min(end, upTo))
        .map((a) => ({ producerId: a.producerId, firstOffset: BigInt(a.firstOffset) }));
      return { ...withOffsets, records, abortedTransactions: aborted };
    }),
  }));
  const nodeEndpoints = ctx.version >= 16 ? hints.nodeEndpoints() : [];
  return { body: { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses, nodeEndpoints }, bytes, error, logs };
}

/**
 * v9+ currentLeaderEpoch fencing, as Kafka's Partition checks it before reading: an epoch older than
 * the leader's is FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH, -1 is not checked.
 */
function leaderEpochError(requested: number, current: number): number {
  if (requested < 0 || requested === current) return ErrorCode.NONE;
  return requested < current ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}

/** Batch end offset: base offset + lastOffsetDelta + 1. */
const endOf = (batch: Buffer) => Number(batch.readBigInt64BE(0)) + batch.readInt32BE(23) + 1;

/**
 * Down-converts what was read for a v0-v3 fetcher. Batches that convert to nothing (transaction
 * markers) are skipped by reading on, so an old consumer is never stuck at a marker's offset.
 */
function oldFormat(log: PartitionLog, chunks: Buffer[], limit: number, magic: 0 | 1, maxDecompressed: number): Buffer {
  for (;;) {
    const converted = downConvert(Buffer.concat(chunks), magic, maxDecompressed);
    if (converted.length > 0 || chunks.length === 0) return converted;
    const next = endOf(chunks[chunks.length - 1]);
    if (next >= log.highWatermark) return converted;
    chunks = log.read(next, limit, true).chunks;
  }
}

function waitForData(logs: PartitionLog[], ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const offs: (() => void)[] = [];
    const done = () => {
      clearTimeout(timer);
      for (const off of offs) off();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const log of logs) offs.push(log.onAppend(done));
    signal.addEventListener('abort', done);
  });
}

export const fetchHandler = defineHandler(Fetch, {
  minVersion: 0,
  maxVersion: 17,
  async handle(req, ctx) {
    const plan = openSession(req, ctx);
    if ('errorCode' in plan) return { throttleTimeMs: 0, errorCode: plan.errorCode, sessionId: 0, responses: [] };
    const fetch = { ...req, topics: plan.topics };
    const deadline = Date.now() + Math.max(0, req.maxWaitMs);
    let built = build(fetch, ctx);
    while (!built.error && built.bytes < Math.max(1, req.minBytes) && !ctx.signal.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await waitForData(built.logs, left, ctx.signal);
      built = build(fetch, ctx);
    }
    return plan.session ? reportToSession(built.body, plan.session, plan.incremental) : built.body;
  },
});

/** The request's topics with names resolved (v13+ name topics by id; an unknown id keeps a null name). */
function requestedTopics(req: Body, ctx: HandlerContext): Body[] {
  const byId = ctx.version >= 13 ? new Map([...ctx.cluster.topics.values()].map((t) => [t.topicId, t.name])) : null;
  return (req.topics as Body[]).map((t) => ({
    ...t,
    topic: byId ? byId.get(t.topicId) ?? null : t.topic,
    topicId: byId ? t.topicId : ctx.cluster.topics.get(t.topic)?.topicId ?? ZERO_UUID,
  }));
}

const ZERO_UUID = '0'.repeat(32);

type SessionPlan = { errorCode: number } | { topics: Body[]; session: FetchSession | null; incremental: boolean };

/** KIP-227: resolves the request's session (see fetch-sessions.ts) and the partitions to fetch. */
function openSession(req: Body, ctx: HandlerContext): SessionPlan {
  const topics = requestedTopics(req, ctx);
  const epoch: number = ctx.version >= 7 ? req.sessionEpoch : -1;
  const cache = ctx.cluster.fetchSessions(ctx.nodeId);
  const upsert = (session: FetchSession) => {
    for (const t of topics) {
      for (const p of t.partitions as Body[]) {
        const key = sessionKey(t.topic ?? t.topicId, p.partition);
        const old = session.partitions.get(key);
        session.partitions.set(key, {
          topic: t.topic, topicId: t.topicId, partition: p.partition, fetchOffset: p.fetchOffset, currentLeaderEpoch: p.currentLeaderEpoch,
          logStartOffset: p.logStartOffset, partitionMaxBytes: p.partitionMaxBytes, reported: old?.reported ?? null,
        });
      }
    }
  };
  if (epoch === -1 || epoch === 0) {
    if (ctx.version >= 7 && req.sessionId !== 0) cache.remove(req.sessionId);
    if (epoch === -1) return { topics, session: null, incremental: false };
    const session = cache.create(ctx.version >= 13);
    upsert(session);
    return { topics, session, incremental: false };
  }
  const session = cache.get(req.sessionId);
  if (!session) return { errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND };
  if (session.epoch !== epoch) return { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH };
  if (session.usesTopicIds !== ctx.version >= 13) return { errorCode: ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR };
  upsert(session);
  for (const f of req.forgottenTopicsData as Body[]) {
    const name = ctx.version >= 13 ? [...session.partitions.values()].find((p) => p.topicId === f.topicId)?.topic ?? f.topicId : f.topic;
    for (const partition of f.partitions as number[]) session.partitions.delete(sessionKey(name, partition));
  }
  // Emptied: closed, and this request is served without a session (Kafka's SessionlessFetchContext).
  if (session.partitions.size === 0) { cache.remove(session.id); return { topics, session: null, incremental: false }; }
  const all = new Map<string, Body>();
  for (const p of session.partitions.values()) {
    const key = p.topic ?? p.topicId;
    if (!all.has(key)) all.set(key, { topic: p.topic, topicId: p.topicId, partitions: [] });
    all.get(key)!.partitions.push({
      partition: p.partition, fetchOffset: p.fetchOffset, currentLeaderEpoch: p.currentLeaderEpoch,
      logStartOffset: p.logStartOffset, partitionMaxBytes: p.partitionMaxBytes,
    });
  }
  return { topics: [...all.values()], session, incremental: true };
}

/**
 * Stamps the session id on a session's response and records what it reported; an incremental
 * response keeps only partitions with records, an error, or offsets that changed since last time.
 */
function reportToSession(body: Body, session: FetchSession, incremental: boolean): Body {
  const responses = (body.responses as Body[]).map((t) => ({
    ...t,
    partitions: (t.partitions as Body[]).filter((p) => {
      const entry = session.partitions.get(sessionKey(t.topic === '' ? t.topicId : t.topic, p.partitionIndex));
      const reported = `${p.highWatermark}/${p.lastStableOffset}/${p.logStartOffset}`;
      const changed = !entry || entry.reported !== reported;
      if (entry) entry.reported = reported;
      return !incremental || changed || p.errorCode !== 0 || (p.records !== null && p.records.length > 0);
    }),
  })).filter((t) => t.partitions.length > 0 || !incremental);
  if (incremental) session.advance();
  return { ...body, sessionId: session.id, responses };
}
