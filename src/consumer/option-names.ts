/**
 * Suggestions for unknown option names: KafkaJS's consumer options (`kafka.consumer({...})` and
 * `consumer.run({...})`) mapped to ours, and near misses of our own names (case, a missing `Ms`,
 * one or two typos). Used by validateOptions to say `did you mean sessionTimeoutMs?`.
 */
import { suggestName } from '../util/did-you-mean';

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

/**
 * What to suggest for an unknown option `name`, given the known option names at that level
 * (`known`) and the KafkaJS names used there (`kafkajs`); null when nothing is close (util/did-you-mean.ts).
 */
export function suggestOptionName(name: string, known: readonly string[], kafkajs: Readonly<Record<string, string>> = {}): string | null {
  return suggestName(name, known, kafkajs);
}
