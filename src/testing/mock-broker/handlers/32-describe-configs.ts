/**
 * DescribeConfigs (key 32), v0-v4. v0 has isDefault; v1 replaces it with configSource and adds
 * includeSynonyms / synonyms (KIP-226); v2 only marks a server change; v3 adds
 * includeDocumentation, documentation and configType (KIP-569); v4 is flexible (KIP-482).
 * As Kafka's ConfigHelper.describeConfigs (entries built in ../config-entries.ts):
 * - TOPIC (2): every topic config of Kafka 4.0, overrides as TOPIC_CONFIG, defaults from this broker's configs;
 *   an invalid name is INVALID_TOPIC_EXCEPTION, an unknown topic UNKNOWN_TOPIC_OR_PARTITION;
 * - BROKER (4): this broker's id answers every broker config (four levels, ../broker-configs.ts); "" answers the
 *   cluster-wide dynamic defaults only; another id is INVALID_REQUEST ("Unexpected broker id...");
 * - BROKER_LOGGER (8): this broker's id answers its root logger; "" or another id is INVALID_REQUEST.
 * configurationKeys null or [] = every config (ConfigHelperUtils); unknown keys are left out. Sensitive values are null.
 */
import type { ConfigEntry } from '../config-entries';
import { brokerEntries, topicEntries } from '../config-entries';
import { validateTopicName } from '../cluster';
import { ErrorCode } from '../../../protocol/error-codes';
import { DescribeConfigs } from '../../../protocol/messages/admin';
import { ConfigSource } from '../config-defaults';
import { Body, defineHandler, HandlerContext } from './types';

/** DescribeConfigs / AlterConfigs resource type ids (Kafka's ConfigResource.Type). */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

/** DYNAMIC_BROKER_LOGGER_CONFIG (ConfigSource 6). */
const BROKER_LOGGER_SOURCE = 6;

/**
 * A BROKER or BROKER_LOGGER resource name checked against the answering broker (ConfigHelper, ConfigAdminManager):
 * null when it names this broker, else Kafka's INVALID_REQUEST message.
 */
export function brokerIdError(name: string, nodeId: number, allowEmpty: boolean): string | null {
  if (name === '') return allowEmpty ? null : 'Broker id must not be empty';
  if (!/^-?\d+$/.test(name)) return `Broker id must be an integer, but it is: ${name}`;
  const expected = `${nodeId}${allowEmpty ? ' or empty string' : ''}`;
  if (Number(name) !== nodeId) return `Unexpected broker id, expected ${expected}, but received ${name}`;
  return null;
}

function describe(res: Body, ctx: HandlerContext, req: Body): Body {
  const { cluster, version } = ctx;
  const base = {
    errorCode: 0, errorMessage: null as string | null, resourceType: res.resourceType, resourceName: res.resourceName,
    configs: [] as Body[],
  };
  const fail = (errorCode: number, errorMessage: string | null) => ({ ...base, errorCode, errorMessage });
  let entries: ConfigEntry[];
  if (res.resourceType === ResourceType.TOPIC) {
    const invalid = validateTopicName(res.resourceName);
    if (invalid) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, invalid);
    const topic = cluster.topics.get(res.resourceName);
    if (!topic) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null);
    entries = topicEntries(cluster, topic, ctx.nodeId);
  } else if (res.resourceType === ResourceType.BROKER) {
    const bad = brokerIdError(res.resourceName, ctx.nodeId, true);
    if (bad) return fail(ErrorCode.INVALID_REQUEST, bad);
    entries = brokerEntries(cluster, res.resourceName === '' ? null : ctx.nodeId);
  } else if (res.resourceType === ResourceType.BROKER_LOGGER) {
    const bad = brokerIdError(res.resourceName, ctx.nodeId, false);
    if (bad) return fail(ErrorCode.INVALID_REQUEST, bad);
    entries = [{
      name: 'root', value: 'INFO', source: BROKER_LOGGER_SOURCE, readOnly: false, sensitive: false, type: 0, doc: null, synonyms: [],
    }];
  } else {
    return fail(ErrorCode.INVALID_REQUEST, `Unsupported resource type: ${res.resourceType}`);
  }
  const keys: string[] | null = res.configurationKeys;
  if (keys !== null && keys.length > 0) entries = entries.filter((e) => keys.includes(e.name));
  const configs = entries.map((e) => ({
    name: e.name,
    value: e.value,
    readOnly: e.readOnly,
    isDefault: e.source === ConfigSource.DEFAULT_CONFIG,
    configSource: e.source,
    isSensitive: e.sensitive,
    synonyms: version >= 1 && req.includeSynonyms ? e.synonyms : [],
    configType: e.type,
    documentation: version >= 3 && req.includeDocumentation ? e.doc : null,
  }));
  return { ...base, configs };
}

export const describeConfigsHandler = defineHandler(DescribeConfigs, {
  minVersion: 0,
  maxVersion: 4,
  handle(req, ctx) {
    return { throttleTimeMs: 0, results: req.resources.map((r) => describe(r, ctx, req)) };
  },
});
