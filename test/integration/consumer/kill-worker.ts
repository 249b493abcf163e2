/**
 * A child process for the auto-commit timing scenario: consumes `topic` (1 partition) with the
 * given delivery, reports each record it starts handling over IPC, and hangs on `holdAt` until the
 * parent SIGKILLs it (or, with handleSignals, SIGTERMs it). argv: JSON { bootstrap, groupId, topic, delivery, holdAt }.
 */
import { createGroupConsumer } from '../../../src/consumer/group-consumer';

const cfg = JSON.parse(process.argv[2]) as { bootstrap: string[]; groupId: string; topic: string;
  delivery: 'at-least-once' | 'at-most-once'; holdAt: number; handleSignals?: boolean; commitIntervalMs?: number };
const consumer = createGroupConsumer({
  brokers: cfg.bootstrap,
  groupId: cfg.groupId,
  topics: [cfg.topic],
  delivery: cfg.delivery,
  commitIntervalMs: cfg.commitIntervalMs ?? 0,
  handleSignals: cfg.handleSignals ?? false,
  sessionTimeoutMs: 6000,
  heartbeatIntervalMs: 100,
  maxWaitTimeMs: 100,
  recordHandler: async (record) => {
    process.send?.({ type: 'holding', offset: Number(record.offset), value: record.value?.toString() });
    if (Number(record.offset) === cfg.holdAt) await new Promise(() => undefined);
  },
});
consumer.on('error', (e: Error) => process.send?.({ type: 'error', message: e.message }));
consumer.start().catch((e: Error) => {
  process.send?.({ type: 'error', message: e.message });
  process.exit(1);
});
