/**
 * Produce (key 0), v0-v8. v3 adds transactionalId and record batch magic 2 (KIP-98); v0-v2
 * carry message sets of magic 0 and 1, which the mock does not store (it would have to
 * up-convert them, as Kafka does): such a request is decoded and each partition answered
 * UNSUPPORTED_FOR_MESSAGE_FORMAT. v0-v2 are advertised anyway, as Kafka 3.x does, because
 * librdkafka enables gzip, snappy and lz4 only when the broker's Produce range starts at v0
 * (zstd needs v7). v2 adds logAppendTimeMs, v5 logStartOffset, v8 recordErrors and
 * errorMessage. acks: 0 (no response), 1 and -1 (the mock has no lagging replicas, so both
 * answer once the batch is appended); anything else is INVALID_REQUIRED_ACKS.
 * Validation per batch: magic 2, length, CRC-32C (CORRUPT_MESSAGE), message.max.bytes
 * (MESSAGE_TOO_LARGE). A partition's batches are appended all or nothing.
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
import { InvalidRecordsError, splitBatches } from '../protocol/record-batch';
import { ErrorCode } from '../protocol/error-codes';
import { Produce } from '../protocol/messages/data';
import { producerState } from '../transactions/producer-state';
import { Body, Handler } from './types';

export const produceHandler: Handler = {
  schema: Produce,
  minVersion: 0,
  maxVersion: 8,
  handle(req, ctx) {
    const { cluster } = ctx;
    const acks: number = req.acks;
    const now = Date.now();
    const keepFrame = recordsAreMostOfTheFrame(req.topicData as Body[]);
    const responses = (req.topicData as Body[]).map((t) => ({
      name: t.name,
      partitionResponses: (t.partitionData as Body[]).map((p) => {
        const out = { index: p.index, errorCode: 0, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage: null as string | null };
        const fail = (code: number, message: string | null = null) => ({ ...out, errorCode: code, errorMessage: message });
        if (acks !== 0 && acks !== 1 && acks !== -1) return fail(ErrorCode.INVALID_REQUIRED_ACKS);
        const log = cluster.partition(t.name, p.index);
        if (!log) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        if (log.leaderId !== ctx.nodeId || cluster.down.has(ctx.nodeId)) return fail(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        if (!p.records || p.records.length === 0) return fail(ErrorCode.CORRUPT_MESSAGE, 'no record batches');
        if (ctx.version < 3) return fail(ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT, `Produce v${ctx.version} carries message format v0/v1, which the mock does not store; use v3+`);
        let batches;
        try {
          batches = splitBatches(p.records);
        } catch (e) {
          if (!(e instanceof InvalidRecordsError)) throw e;
          return fail(ErrorCode[e.kafkaError === 'INVALID_RECORD' ? 'CORRUPT_MESSAGE' : e.kafkaError], e.message);
        }
        const tooBig = batches.find((b) => b.bytes.length > cluster.config.maxMessageBytes);
        if (tooBig) return fail(ErrorCode.MESSAGE_TOO_LARGE, `batch of ${tooBig.bytes.length} bytes exceeds message.max.bytes ${cluster.config.maxMessageBytes}`);
        const state = producerState(log);
        const check = state.checkAppend(batches, (pid, epoch) => cluster.transactions.verifyPartition(pid, epoch, t.name, p.index));
        if (check.kind === 'error') return fail(check.errorCode, check.message);
        if (check.kind === 'duplicate') return { ...out, baseOffset: BigInt(check.firstOffset), logStartOffset: BigInt(log.logStartOffset) };
        const baseOffset = log.append(batches, now, { copy: !keepFrame });
        check.apply(baseOffset);
        return { ...out, baseOffset: BigInt(baseOffset), logStartOffset: BigInt(log.logStartOffset) };
      }),
    }));
    if (acks === 0) return null;
    return { responses, throttleTimeMs: 0 };
  },
};

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
    for (const p of t.partitionData as Body[]) {
      const r = p.records as Buffer | null;
      if (!r || r.length === 0) continue;
      if (backing === null) backing = r.buffer;
      else if (backing !== r.buffer) return false;
      total += r.length;
    }
  }
  return backing !== null && total * 2 >= backing.byteLength;
}
