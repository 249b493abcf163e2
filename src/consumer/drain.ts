/** Helpers of GroupConsumer's drain() and opt-in signal handling. */
import { partitionKey, TopicPartition } from '../records';

/** The offsets drain() reads: high watermarks and the group's committed offsets. */
export interface DrainOffsets {
  highWatermarks(partitions: TopicPartition[]): Promise<Map<string, bigint>>;
  committed(partitions: TopicPartition[]): Promise<Map<string, bigint | null>>;
}

/**
 * Whether every owned partition's position (processed, or committed to the group) reached its
 * drain target: the high watermark when the partition was first seen by this drain (filled in
 * `targets`, mutated). False while nothing is owned.
 */
export async function caughtUp(
  offsets: DrainOffsets,
  owned: TopicPartition[],
  processed: (tp: TopicPartition) => bigint | null,
  targets: Map<string, bigint>,
): Promise<boolean> {
  if (owned.length === 0) return false;
  const unseen = owned.filter((tp) => !targets.has(partitionKey(tp)));
  if (unseen.length > 0) for (const [k, hw] of await offsets.highWatermarks(unseen)) if (!targets.has(k)) targets.set(k, hw);
  const committed = await offsets.committed(owned);
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
