/**
 * What AlterConfigs (33) and IncrementalAlterConfigs (44) share, after Kafka's ConfigAdminManager.preprocess (on the
 * broker), ControllerConfigurationValidator and ConfigurationControlManager (on the controller):
 * - a resource given twice: both answer INVALID_REQUEST "Each resource must appear at most once."; a key given twice
 *   in one resource: INVALID_REQUEST "Error due to duplicate config keys"; a null value (AlterConfigs) or a null value
 *   with another operation than DELETE (IncrementalAlterConfigs): INVALID_REQUEST "Null value not supported for : ...";
 * - TOPIC: the topic must exist (UNKNOWN_TOPIC_OR_PARTITION); its next overrides are validated as LogConfig does
 *   (INVALID_CONFIG) and applied through ClusterState.setTopicConfigs;
 * - BROKER: "" is the cluster-wide default (DYNAMIC_DEFAULT_BROKER_CONFIG), "<id>" must be the answering broker
 *   (INVALID_REQUEST otherwise); read-only configs are refused ("Cannot update these configs dynamically: Set(...)"),
 *   per-broker-only ones at the cluster default, values checked by their ConfigDef (INVALID_REQUEST); applied through
 *   ClusterState.setDynamicBrokerConfigs, so topic defaults (message.max.bytes, log.retention.ms...) change at once;
 * - BROKER_LOGGER: no runtime loggers can be changed in the mock (INVALID_REQUEST, docs/mock-broker.md).
 * Nothing is applied with validateOnly.
 */
import type { ClusterState } from '../cluster';
import { ErrorCode } from '../../../protocol/error-codes';
import { dynamicBrokerConfigError } from '../broker-configs';
import { topicConfigError } from '../config-defaults';
import { brokerIdError, ResourceType } from './32-describe-configs';
import { Body, HandlerContext } from './types';

/** One resource's answer in AlterConfigs / IncrementalAlterConfigs responses (errorCode 0 = applied). */
export interface AlterAnswer { errorCode: number; errorMessage: string | null; resourceType: number; resourceName: string }

/** What `compute` yields: the resource's next configs, or an error answer. */
export type NextConfigs = Map<string, string> | { errorCode: number; errorMessage: string };

/** The resource being altered: its current configs, and whether it is a topic (for the config checks). */
export interface AlterTarget { current: ReadonlyMap<string, string>; kind: 'topic' | 'broker' }

/**
 * Answers every resource of one request: checks it and, when `compute` yields its next configs, validates and applies
 * them (unless validateOnly). `nullAllowed(c)` tells whether a null value is allowed for config entry `c`.
 */
export function alterResources(
  ctx: HandlerContext, resources: readonly Body[], validateOnly: boolean, nullAllowed: (c: Body) => boolean,
  compute: (res: Body, target: AlterTarget) => NextConfigs,
): AlterAnswer[] {
  const count = new Map<string, number>();
  const key = (r: Body) => `${r.resourceType}\u0000${r.resourceName}`;
  for (const r of resources) count.set(key(r), (count.get(key(r)) ?? 0) + 1);
  return resources.map((res) => {
    const answer = (errorCode: number, errorMessage: string | null): AlterAnswer =>
      ({ errorCode, errorMessage, resourceType: res.resourceType, resourceName: res.resourceName });
    if (count.get(key(res))! > 1) return answer(ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.');
    const configs = res.configs as Body[];
    const names = configs.map((c) => c.name as string);
    if (new Set(names).size !== names.length) return answer(ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys');
    const nulls = configs.filter((c) => c.value === null && !nullAllowed(c)).map((c) => c.name as string);
    if (nulls.length > 0) return answer(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${nulls.join(', ')}`);
    const r = alterOne(ctx.cluster, ctx.nodeId, res, validateOnly, compute);
    return answer(r.errorCode, r.errorMessage);
  });
}

function alterOne(
  cluster: ClusterState, nodeId: number, res: Body, validateOnly: boolean, compute: (res: Body, target: AlterTarget) => NextConfigs,
): { errorCode: number; errorMessage: string | null } {
  const ok = { errorCode: 0, errorMessage: null };
  if (res.resourceType === ResourceType.TOPIC) {
    const topic = cluster.topics.get(res.resourceName);
    if (!topic) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `The topic '${res.resourceName}' does not exist.` };
    const next = compute(res, { current: topic.configs, kind: 'topic' });
    if (!(next instanceof Map)) return next;
    for (const [name, value] of next) {
      const invalid = topicConfigError(name, value);
      if (invalid) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: invalid };
    }
    if (!validateOnly) cluster.setTopicConfigs(topic, next);
    return ok;
  }
  if (res.resourceType === ResourceType.BROKER) {
    const name: string = res.resourceName;
    const badId = name === '' ? null : brokerIdError(name, nodeId, false);
    if (badId) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: badId.replace(/^Broker id must be/, 'Node id must be') };
    const target = name === '' ? null : nodeId;
    const next = compute(res, { current: cluster.brokerConfigs.dynamic(target), kind: 'broker' });
    if (!(next instanceof Map)) return next;
    const changed = new Map([...next].filter(([k, v]) => cluster.brokerConfigs.dynamic(target).get(k) !== v));
    const invalid = dynamicBrokerConfigError(changed, target !== null);
    if (invalid) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: invalid };
    if (!validateOnly) cluster.setDynamicBrokerConfigs(target, next);
    return ok;
  }
  if (res.resourceType === ResourceType.BROKER_LOGGER) {
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The mock cluster has no runtime loggers to change' };
  }
  return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown resource type ${res.resourceType}` };
}
