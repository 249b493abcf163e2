/** Helpers of GroupConsumer's drain() and opt-in signal handling. */
import type { Admin } from 'kafkajs';
import { partitionKey, TopicPartition } from '../records';

/**
 * Whether every owned partition's position (processed, or committed under `groupId`) reached its
 * drain target: the high watermark when the partition was first seen by this drain (filled in
 * `targets`, mutated). False while nothing is owned.
 */
export async function caughtUp(
  admin: Admin,
  groupId: string,
  owned: TopicPartition[],
  processed: (tp: TopicPartition) => bigint | null,
  targets: Map<string, bigint>,
): Promise<boolean> {
  if (owned.length === 0) return false;
  for (const topic of new Set(owned.filter((tp) => !targets.has(partitionKey(tp))).map((tp) => tp.topic))) {
    for (const o of await admin.fetchTopicOffsets(topic)) {
      const k = partitionKey({ topic, partition: o.partition });
      if (!targets.has(k)) targets.set(k, BigInt(o.high));
    }
  }
  const committed = new Map<string, bigint>();
  for (const topic of new Set(owned.map((tp) => tp.topic))) {
    const [res] = await admin.fetchOffsets({ groupId, topics: [topic] });
    for (const p of res?.partitions ?? []) committed.set(partitionKey({ topic, partition: p.partition }), BigInt(p.offset));
  }
  return owned.every((tp) => {
    const k = partitionKey(tp);
    const a = processed(tp) ?? -1n;
    const b = committed.get(k) ?? -1n;
    return (a > b ? a : b) >= (targets.get(k) ?? 0n);
  });
}

/**
 * Installs one-shot handlers that call `stop()` on each signal (true = SIGTERM and SIGINT), then,
 * when no other listener handles the signal, re-raise it so the default action (exit) happens.
 * Returns the installed [signal, handler] pairs, for removal.
 */
export function installSignalHandlers(signals: true | NodeJS.Signals[], stop: () => Promise<void>): [NodeJS.Signals, () => void][] {
  const list: NodeJS.Signals[] = signals === true ? ['SIGTERM', 'SIGINT'] : signals;
  const installed: [NodeJS.Signals, () => void][] = [];
  for (const sig of list) {
    const handler = () => {
      void stop().finally(() => {
        for (const [s, h] of installed) process.removeListener(s, h);
        if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
      });
    };
    process.once(sig, handler);
    installed.push([sig, handler]);
  }
  return installed;
}
