/**
 * Suggestions for unknown option names: KafkaJS's consumer options (`kafka.consumer({...})` and
 * `consumer.run({...})`) mapped to ours, and near misses of our own names (case, a missing `Ms`,
 * one or two typos). Used by validateOptions to say `did you mean sessionTimeoutMs?`.
 */

/** KafkaJS consumer option → the kafka-eos option (or what to do instead). Also the README's mapping table. */
export const KAFKAJS_OPTION_NAMES: Readonly<Record<string, string>> = {
  sessionTimeout: 'sessionTimeoutMs',
  rebalanceTimeout: 'rebalanceTimeoutMs',
  heartbeatInterval: 'heartbeatIntervalMs',
  maxWaitTimeInMs: 'maxWaitTimeMs',
  maxWaitTime: 'maxWaitTimeMs',
  eachBatch: 'handler',
  eachMessage: 'recordHandler',
  partitionAssigners: 'assignors',
  autoCommitInterval: 'commitIntervalMs',
  autoCommit: "delivery ('at-least-once' commits finished offsets; 'at-most-once' commits before handling)",
  topic: 'topics',
  topicPattern: 'topics',
};

/** KafkaJS `retry` options → ours (under `retry`). */
export const KAFKAJS_RETRY_OPTION_NAMES: Readonly<Record<string, string>> = {
  initialRetryTime: 'minTimeoutMs',
  maxRetryTime: 'maxTimeoutMs',
  multiplier: 'factor',
  restartOnFailure: 'isRetriable',
};

/** Levenshtein distance of two short strings. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * What to suggest for an unknown option `name`, given the known option names at that level
 * (`known`) and the KafkaJS names used there (`kafkajs`); null when nothing is close.
 */
export function suggestOptionName(name: string, known: readonly string[], kafkajs: Readonly<Record<string, string>> = {}): string | null {
  if (Object.hasOwn(kafkajs, name)) return kafkajs[name];
  const lower = name.toLowerCase();
  const exact = known.find((k) => k.toLowerCase() === lower || k.toLowerCase() === `${lower}ms`);
  if (exact) return exact;
  let best: string | null = null;
  let bestDistance = Math.min(2, Math.floor(name.length / 3));
  for (const k of known) {
    const d = distance(lower, k.toLowerCase());
    if (d <= bestDistance && (best === null || d < bestDistance)) { best = k; bestDistance = d; }
  }
  return best;
}
