/**
 * Produce (key 0), v0-v11. v3 adds transactionalId and record batch magic 2 (KIP-98); v0-v2
 * carry message sets of magic 0 and 1, up-converted to one magic-2 batch as Kafka does
 * (protocol/up-convert.ts). librdkafka enables gzip, snappy and lz4 only when the broker's Produce
 * range starts at v0 (zstd needs v7). v2 adds logAppendTimeMs, v5 logStartOffset, v8 recordErrors
 * and errorMessage, v9 is flexible, v10 (KIP-951) names the current leader of a partition answered
 * NOT_LEADER_OR_FOLLOWER (currentLeader, and nodeEndpoints: see leader-hint.ts), v11 = v10 (its
 * clients accept TRANSACTION_ABORTABLE, KIP-890, which the mock never answers). acks: 0 (no
 * response), 1 and -1 (the mock has no lagging replicas, so both answer once the batch is
 * appended); anything else is INVALID_REQUIRED_ACKS.
 * Validation per batch: magic 2, length, CRC-32C (CORRUPT_MESSAGE), message.max.bytes
 * (the topic's max.message.bytes, else message.max.bytes: MESSAGE_TOO_LARGE). Compressed batches are
 * decompressed and their records checked (Kafka's LogValidator): at most `maxDecompressedBatchBytes`
 * each (a decompression bomb is MESSAGE_TOO_LARGE, a mock bound), gzip on the thread pool; requests
 * of one connection still append in order. A topic with cleanup.policy=compact refuses records
 * without a key (INVALID_RECORD with record errors). A partition's batches are appended all or nothing.
 *
 * Idempotence and transactions (KIP-98, see transactions/producer-state.ts): batches with a
 * producer id are checked per partition. A retried batch (same epoch and sequence range as one of
 * the producer's last 5) is answered with its original base offset and not appended; a sequence
 * gap is OUT_OF_ORDER_SEQUENCE_NUMBER; an older epoch INVALID_PRODUCER_EPOCH (Kafka 2.7+). A
 * transactional batch that opens a transaction at a partition must come from a producer whose
 * Ongoing transaction holds that partition (AddPartitionsToTxn), else INVALID_TXN_STATE (Kafka's
 * KIP-890 verification, as older clients see it); a non-transactional batch from a producer with an
 * open transaction there is INVALID_TXN_STATE too. Control batches from clients are INVALID_RECORD.
 */
import {
  BatchHeader, batchBody, batchBodyAsync, Compression, InvalidRecordsError, readRecords, splitBatches,
} from '../../../protocol/record-batch';
import { ErrorCode } from '../../../protocol/error-codes';
import { upConvert } from '../../../protocol/up-convert';
import { Produce } from '../../../protocol/messages/data';
import type { PartitionLog } from '../partition-log';
import { producerState } from '../transactions/producer-state';
import { AclOperation } from '../acls';
import { topicAllowed } from './authorize';
import { LeaderHints } from './leader-hint';
import { Body, defineHandler, HandlerContext, leaderLog } from './types';

type Batch = { header: BatchHeader; bytes: Buffer };
type Answer = Record<string, unknown>;
/** One partition of the request: answered already, or batches waiting to be appended. */
type Pending = { topic: string; index: number; log: PartitionLog; batches: Batch[]; out: Answer; compacted: boolean };
type Slot = { answer: Answer } | { pending: Pending };

const failWith = (out: Answer, code: number, message: string | null = null): Answer => ({ ...out, errorCode: code, errorMessage: message });

function recordsError(out: Answer, e: unknown): Answer {
  if (!(e instanceof InvalidRecordsError)) throw e;
  return failWith(out, ErrorCode[e.kafkaError === 'INVALID_RECORD' ? 'CORRUPT_MESSAGE' : e.kafkaError], e.message);
}

/** Checks everything that needs no decompression; returns the partition's answer or its batches. */
function prepare(t: Body, p: Body, acks: number, ctx: HandlerContext): Slot {
  const { cluster } = ctx;
  const out: Answer = {
    index: p.index, errorCode: 0, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage: null,
  };
  const fail = (code: number, message: string | null = null): Slot => ({ answer: failWith(out, code, message) });
  // KafkaApis checks WRITE on the topic before the partition exists or the acks are looked at.
  if (!topicAllowed(ctx, AclOperation.WRITE, t.name)) return fail(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  if (acks !== 0 && acks !== 1 && acks !== -1) return fail(ErrorCode.INVALID_REQUIRED_ACKS);
  const log = leaderLog(ctx, t.name, p.index);
  if (typeof log === 'number') return fail(log);
  if (!p.records || p.records.length === 0) return fail(ErrorCode.CORRUPT_MESSAGE, 'no record batches');
  let batches: Batch[];
  try {
    batches = splitBatches(ctx.version < 3 ? upConvert(p.records, cluster.maxDecompressedBatchBytes) : p.records);
  } catch (e) {
    return { answer: recordsError(out, e) };
  }
  const limit = cluster.maxMessageBytes(t.name);
  const tooBig = batches.find((b) => b.bytes.length > limit);
  if (tooBig) return fail(ErrorCode.MESSAGE_TOO_LARGE, `batch of ${tooBig.bytes.length} bytes exceeds max.message.bytes ${limit}`);
  const topic = cluster.topics.get(t.name)!;
  const compacted = cluster.topicConfig(topic, 'cleanup.policy').split(',').includes('compact');
  return { pending: { topic: t.name, index: p.index, log, batches, out, compacted } };
}

/**
 * A compacted topic refuses records without a key, as Kafka's LogValidator.validateKey does:
 * INVALID_RECORD with one record error per keyless record (indexes counted over the partition's
 * records), and nothing of the partition is appended. Returns null when every record has a key.
 */
function keylessRecords(pending: Pending, bodies: Buffer[]): Answer | null {
  const errors: { batchIndex: number; batchIndexErrorMessage: string }[] = [];
  let index = 0;
  pending.batches.forEach((b, i) => {
    if (b.header.isControl) return;
    for (const r of readRecords(b.header, bodies[i], true) as { key: Buffer | null }[]) {
      if (r.key === null) {
        errors.push({
          batchIndex: index,
          batchIndexErrorMessage:
            `Compacted topic cannot accept message without key in topic partition ${pending.topic}-${pending.index}.`,
        });
      }
      index++;
    }
  });
  if (errors.length === 0) return null;
  const shown = errors.slice(0, 3).map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.batchIndexErrorMessage}')`).join(', ');
  return {
    ...failWith(
      pending.out, ErrorCode.INVALID_RECORD,
      `One or more records have been rejected due to ${errors.length} record errors in total,`
        + ` and only showing the first three errors at most: [${shown}]`,
    ),
    recordErrors: errors,
  };
}

/** Producer-state checks and the append itself (synchronous, so one partition's batches go in whole). */
function append(slot: Slot, ctx: HandlerContext, now: number, keepFrame: boolean): Answer {
  if ('answer' in slot) return slot.answer;
  const { topic, index, log, batches, out } = slot.pending;
  const check = producerState(log).checkAppend(batches, (pid, epoch) => ctx.cluster.transactions.verifyPartition(pid, epoch, topic, index));
  if (check.kind === 'error') return failWith(out, check.errorCode, check.message);
  if (check.kind === 'duplicate') return { ...out, baseOffset: BigInt(check.firstOffset), logStartOffset: BigInt(log.logStartOffset) };
  const baseOffset = log.append(batches, now, { copy: !keepFrame });
  check.apply(baseOffset);
  return { ...out, baseOffset: BigInt(baseOffset), logStartOffset: BigInt(log.logStartOffset) };
}

/**
 * Decompresses each compressed batch (bounded, see record-batch.ts; gzip off the event loop) and
 * checks its records, as Kafka's LogValidator does: a bomb is MESSAGE_TOO_LARGE, garbage CORRUPT_MESSAGE.
 */
async function validateCompressed(slots: Slot[], maxBytes: number): Promise<void> {
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i];
    if (!('pending' in slot)) continue;
    try {
      const bodies: Buffer[] = [];
      for (const b of slot.pending.batches) {
        const body = b.header.compression === Compression.None
          ? batchBody(b.bytes, b.header)
          : await batchBodyAsync(b.bytes, b.header, maxBytes);
        if (b.header.compression !== Compression.None) readRecords(b.header, body, false);
        bodies.push(body);
      }
      const refused = slot.pending.compacted ? keylessRecords(slot.pending, bodies) : null;
      if (refused) slots[i] = { answer: refused };
    } catch (e) {
      slots[i] = { answer: recordsError(slot.pending.out, e) };
    }
  }
}

export const produceHandler = defineHandler(Produce, {
  minVersion: 0,
  maxVersion: 11,
  handle(req, ctx) {
    const acks: number = req.acks;
    const keepFrame = recordsAreMostOfTheFrame(req.topicData);
    const topics = req.topicData.map((t) => ({ name: t.name, slots: t.partitionData.map((p) => prepare(t, p, acks, ctx)) }));
    const finish = (): Body | null => {
      const now = Date.now();
      const hints = new LeaderHints(ctx.cluster, ctx.listener.name);
      const responses = topics.map((t) => ({
        name: t.name,
        partitionResponses: t.slots.map((s) => withLeaderHint(append(s, ctx, now, keepFrame), t.name, hints, ctx.version)),
      }));
      return acks === 0 ? null : { responses, throttleTimeMs: 0, nodeEndpoints: ctx.version >= 10 ? hints.nodeEndpoints() : [] };
    };
    const compressed = topics.some((t) => t.slots.some((s) =>
      'pending' in s && s.pending.batches.some((b) => b.header.compression !== Compression.None)));
    if (!compressed) {
      for (const t of topics) {
        t.slots.forEach((s, i) => {
          if (!('pending' in s) || !s.pending.compacted) return;
          try {
            const refused = keylessRecords(s.pending, s.pending.batches.map((b) => batchBody(b.bytes, b.header)));
            if (refused) t.slots[i] = { answer: refused };
          } catch (e) {
            t.slots[i] = { answer: recordsError(s.pending.out, e) };
          }
        });
      }
    }
    // Appends keep request order per connection: a request waits for earlier ones still decompressing.
    if (!compressed && ctx.serial.idle) return finish();
    return ctx.serial.run(async () => {
      for (const t of topics) await validateCompressed(t.slots, ctx.cluster.maxDecompressedBatchBytes);
      return finish();
    });
  },
});

/** v10+ (KIP-951): a NOT_LEADER_OR_FOLLOWER answer names the partition's current leader. */
function withLeaderHint(answer: Answer, topic: string, hints: LeaderHints, version: number): Answer {
  if (version < 10 || answer.errorCode !== ErrorCode.NOT_LEADER_OR_FOLLOWER) return answer;
  return { ...answer, currentLeader: hints.leaderOf(topic, answer.index as number) };
}

/**
 * True when the request's record batches make up at least half of the buffer they sit in (the
 * frame). Then the log keeps views into the frame instead of copies: copying would double the
 * memory for the time the frame lives. A small batch in a large buffer is always copied, so that
 * it never pins the rest.
 */
function recordsAreMostOfTheFrame(topics: Body[]): boolean {
  let backing: ArrayBufferLike | null = null;
  let total = 0;
  for (const t of topics) {
    for (const p of t.partitionData) {
      const r = p.records as Buffer | null;
      if (!r || r.length === 0) continue;
      if (backing === null) backing = r.buffer;
      else if (backing !== r.buffer) return false;
      total += r.length;
    }
  }
  return backing !== null && total * 2 >= backing.byteLength;
}
