/**
 * What AlterConfigs (33) and IncrementalAlterConfigs (44) share, after Kafka's ConfigAdminManager:
 * per-resource answers, duplicate keys refused, topic configs validated (../config-defaults.ts) and
 * applied through ClusterState.setTopicConfigs, so that the enforced ones (retention.ms,
 * retention.bytes, max.message.bytes) change the broker's behaviour. BROKER and BROKER_LOGGER
 * resources cannot be altered in the mock (its broker configs are MockCluster.start options).
 */
import type { ClusterState } from '../cluster';
import { ErrorCode } from '../../../protocol/error-codes';
import { topicConfigError } from '../config-defaults';
import { ResourceType } from './32-describe-configs';
import { Body } from './types';

/** One resource's answer in AlterConfigs / IncrementalAlterConfigs responses (errorCode 0 = applied). */
export interface AlterAnswer { errorCode: number; errorMessage: string | null; resourceType: number; resourceName: string }

/**
 * Checks one resource and, when `compute` yields the topic's next overrides, validates and applies
 * them (unless validateOnly). `compute` returns the new override map or an error answer.
 */
export function alterResource(
  cluster: ClusterState, res: Body, validateOnly: boolean,
  compute: (current: ReadonlyMap<string, string>) => Map<string, string> | { errorCode: number; errorMessage: string },
): AlterAnswer {
  const answer = (errorCode: number, errorMessage: string | null): AlterAnswer =>
    ({ errorCode, errorMessage, resourceType: res.resourceType, resourceName: res.resourceName });
  const names = (res.configs as Body[]).map((c) => c.name as string);
  if (new Set(names).size !== names.length) return answer(ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys');
  if (res.resourceType === ResourceType.BROKER || res.resourceType === ResourceType.BROKER_LOGGER) {
    const why = `Cannot update these configs dynamically: ${names.join(', ')}`
      + ' (the mock cluster\'s broker configs are set by MockCluster.start)';
    return answer(ErrorCode.INVALID_REQUEST, why);
  }
  if (res.resourceType !== ResourceType.TOPIC) return answer(ErrorCode.INVALID_REQUEST, `Unknown resource type ${res.resourceType}`);
  const topic = cluster.topics.get(res.resourceName);
  if (!topic) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${res.resourceName} does not exist`);
  const next = compute(topic.configs);
  if (!(next instanceof Map)) return answer(next.errorCode, next.errorMessage);
  for (const [name, value] of next) {
    const invalid = topicConfigError(name, value);
    if (invalid) return answer(ErrorCode.INVALID_CONFIG, invalid);
  }
  if (!validateOnly) cluster.setTopicConfigs(topic, next);
  return answer(0, null);
}
