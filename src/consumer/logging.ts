/**
 * The consumer's own log lines, written through the KafkaJS client's logger (namespace
 * `kafka-eos`), so `logLevel` and `logCreator` (options, or the user's own Kafka) govern them
 * exactly as they govern KafkaJS's lines. One line per event: rebalances and state changes at
 * INFO, lost/fenced/dead letters/sink outages at WARN, a blocked sink at ERROR (when it begins, then every 30 s), retries and membership
 * transitions (with their reasons) at DEBUG, errors at ERROR.
 */
import { logLevel, type Kafka } from 'kafkajs';
import type { TopicPartition } from '../records';
import type { GroupConsumerEventSource } from './events';

const tps = (partitions: TopicPartition[]) => partitions.map((p) => `${p.topic}:${p.partition}`).join(', ') || '(none)';
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Subscribes log lines to the consumer's events; `groupId` goes with every line. */
export function attachLogging(consumer: GroupConsumerEventSource, kafka: Kafka, groupId: string): void {
  const log = kafka.logger().namespace('kafka-eos');
  consumer.on('state', ({ from, to }) => log.info(`consumer ${from} -> ${to}`, { groupId }));
  consumer.on('membership', (t) => log.debug(`membership ${t.from} -> ${t.to}: ${t.reason}`, { groupId, epoch: t.epoch }));
  consumer.on('assigned', ({ partitions }) => log.info(`assigned ${tps(partitions)}`, { groupId }));
  consumer.on('revoked', ({ partitions }) => log.info(`revoked ${tps(partitions)}`, { groupId }));
  consumer.on('rebalance', (r) =>
    log.info(`rebalance done in ${r.durationMs} ms`, { groupId, revoked: r.revoked.length, assigned: r.assigned.length }));
  consumer.on('lost', ({ partitions, error }) => log.warn(`lost ${tps(partitions)} without a commit: ${error.message}`, { groupId }));
  consumer.on('fenced', (f) => log.warn(`sink refused a stale write to ${f.topic}:${f.partition}`,
    { groupId, expected: f.expected.toString(), stored: f.stored.toString() }));
  consumer.on('dead-letter', (d) =>
    log.warn(`dead-lettered ${d.topic}:${d.partition}@${d.offset} to ${d.deadLetterTopic}: ${message(d.error)}`, { groupId }));
  consumer.on('sink-unavailable', (s) =>
    log.warn(`sink unavailable for ${s.topic}:${s.partition}, waiting: ${s.error.message}`, { groupId }));
  // A block is said when it begins and every 30 s after (it is reported by an event on every refused write).
  let blockLoggedAt = -Infinity;
  consumer.on('sink-blocked', (b) => {
    if (b.refusals > 1 && b.blockedForMs - blockLoggedAt < 30_000) return;
    blockLoggedAt = b.refusals === 1 ? 0 : b.blockedForMs;
    const named = [b.table && `table ${b.table}`, b.column && `column ${b.column}`].filter(Boolean).join(', ');
    log.error(`sink blocked for ${Math.round(b.blockedForMs / 1000)} s${named ? ` (${named})` : ''}: every write refused, nothing skipped; `
      + `${b.timeoutMs > 0 ? `fails after sinkBlockedTimeoutMs ${b.timeoutMs}` : 'waiting without a bound'}: ${b.error.message}`,
    { groupId, refusals: b.refusals });
  });
  consumer.on('sink-unblocked', (b) => log.warn(`sink accepts writes again after ${Math.round(b.blockedForMs / 1000)} s blocked`,
    { groupId }));
  consumer.on('retry', (r) =>
    log.debug(`retrying ${r.topic}:${r.partition}@${r.offset} after try ${r.attempt}: ${message(r.error)}`, { groupId }));
  consumer.on('error', (e) => log.error(e.message, { groupId, name: e.name, code: (e as { code?: unknown }).code }));
}

/**
 * A consumer failed and nothing listens to its `error` event (and no start() or drain() promise carries the failure):
 * the failure must not pass unseen. Node's convention for an unheard `error` event is to crash the process; a consumer
 * must not take down a process that serves other work, so instead, as KafkaJS logs a consumer's crash at ERROR:
 *
 * - it is logged at ERROR through the client's logger (its logCreator), in a namespace whose level is ERROR whatever
 *   the client's level (the default level of a client made from `brokers` is NOTHING); KafkaJS's own
 *   `KAFKAJS_LOG_LEVEL` environment variable still overrides it;
 * - `process.exitCode` becomes 1 unless it is already non-zero: a process that ends because nothing else keeps it
 *   alive ends with a failure status, and a process that stays up (a server) is left running.
 *
 * Listening to `error` (`consumer.on('error', ...)`) takes over both.
 */
export function reportUnheardFailure(kafka: Kafka, groupId: string, error: Error): void {
  const log = kafka.logger().namespace('kafka-eos', logLevel.ERROR);
  log.error(`the consumer failed and nothing listens to its 'error' event (process exit code set to 1): ${error.message}`, {
    groupId, name: error.name, code: (error as { code?: unknown }).code, stack: error.stack,
  });
  if (!process.exitCode) process.exitCode = 1;
}
