/**
 * DescribeConfigs (key 32), v0-v4. v0 has isDefault; v1 replaces it with configSource and adds
 * includeSynonyms / synonyms (KIP-226); v2 only marks a server change; v3 adds
 * includeDocumentation, documentation and configType (KIP-569); v4 is flexible (KIP-482).
 * Resources: TOPIC (2) answers Kafka's topic configs (see ../config-defaults.ts) with per-topic
 * overrides as DYNAMIC_TOPIC_CONFIG; BROKER (4) answers the broker configs for "" (cluster
 * default) or this broker's id (another id is INVALID_REQUEST, as Kafka's ConfigHelper says);
 * BROKER_LOGGER (8) answers no loggers. configurationKeys null = all; unknown keys are left out.
 * Sensitive values (passwords) are reported as null, as Kafka does.
 */
import type { ClusterState, Topic } from '../cluster';
import { ErrorCode } from '../../../protocol/error-codes';
import { DescribeConfigs } from '../../../protocol/messages/admin';
import { BROKER_CONFIGS, ConfigDef, ConfigSource, ConfigType, TOPIC_CONFIGS } from '../config-defaults';
import { Body, defineHandler, HandlerContext } from './types';

/** DescribeConfigs / AlterConfigs resource type ids (Kafka's ConfigResource.Type). */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

/** One config of a resource as DescribeConfigs answers it (`source`: a ConfigSource id, `type`: a ConfigType id). */
export interface Entry {
  name: string; value: string | null; source: number; readOnly: boolean; sensitive: boolean; type: number; doc: string;
  synonyms: { name: string; value: string | null; source: number }[];
}

/** A topic's configs as DescribeConfigs reports them (CreateTopics v5+ answers them too). */
export function topicEntries(cluster: ClusterState, topic: Topic): Entry[] {
  const defined = new Set(TOPIC_CONFIGS.map((d) => d.name));
  const entries = TOPIC_CONFIGS.map((d): Entry => {
    const dflt = d.value(cluster);
    const override = topic.configs.get(d.name);
    const synonyms = [];
    if (override !== undefined) synonyms.push({ name: d.name, value: override, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
    if (d.brokerSynonym) synonyms.push({ name: d.brokerSynonym, value: dflt, source: ConfigSource.DEFAULT_CONFIG });
    return {
      name: d.name, value: override ?? dflt, readOnly: false, sensitive: false, type: d.type, doc: d.doc, synonyms,
      source: override !== undefined ? ConfigSource.DYNAMIC_TOPIC_CONFIG : ConfigSource.DEFAULT_CONFIG,
    };
  });
  // Overrides the mock does not know (Kafka would have refused them at creation) are still shown.
  for (const [name, value] of topic.configs) {
    if (defined.has(name)) continue;
    const source = ConfigSource.DYNAMIC_TOPIC_CONFIG;
    const synonyms = [{ name, value, source }];
    entries.push({ name, value, source, readOnly: false, sensitive: false, type: ConfigType.STRING, doc: '', synonyms });
  }
  return entries;
}

function brokerEntries(cluster: ClusterState, nodeId: number | null): Entry[] {
  const id: ConfigDef = {
    name: 'broker.id', type: ConfigType.INT, doc: 'This broker\'s node id.', value: () => String(nodeId),
    configured: () => true, readOnly: true,
  };
  const broker = nodeId === null ? undefined : cluster.broker(nodeId);
  const listeners: ConfigDef = {
    name: 'advertised.listeners', type: ConfigType.STRING, doc: 'Address clients connect to.',
    value: () => (broker ? `PLAINTEXT://${broker.host}:${broker.port}` : null), configured: () => true, readOnly: true,
  };
  const defs = nodeId === null ? BROKER_CONFIGS : [id, listeners, ...BROKER_CONFIGS];
  return defs.map((d) => {
    const source = d.configured?.(cluster) ? ConfigSource.STATIC_BROKER_CONFIG : ConfigSource.DEFAULT_CONFIG;
    const value = d.sensitive ? null : d.value(cluster);
    return {
      name: d.name, value, source, readOnly: d.readOnly ?? false, sensitive: d.sensitive ?? false, type: d.type, doc: d.doc,
      synonyms: [{ name: d.name, value, source }],
    };
  });
}

function describe(res: Body, ctx: HandlerContext, req: Body): Body {
  const { cluster, version } = ctx;
  const base = {
    errorCode: 0, errorMessage: null as string | null, resourceType: res.resourceType, resourceName: res.resourceName,
    configs: [] as Body[],
  };
  let entries: Entry[];
  if (res.resourceType === ResourceType.TOPIC) {
    const topic = cluster.topics.get(res.resourceName);
    if (!topic) {
      return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic ${res.resourceName} does not exist` };
    }
    entries = topicEntries(cluster, topic);
  } else if (res.resourceType === ResourceType.BROKER) {
    if (res.resourceName !== '' && res.resourceName !== String(ctx.nodeId)) {
      const errorMessage = `Unexpected broker id, expected ${ctx.nodeId} or empty string, but received ${res.resourceName}`;
      return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage };
    }
    entries = brokerEntries(cluster, res.resourceName === '' ? null : ctx.nodeId);
  } else if (res.resourceType === ResourceType.BROKER_LOGGER) {
    entries = [];
  } else {
    return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unsupported resource type ${res.resourceType}` };
  }
  const keys: string[] | null = res.configurationKeys;
  if (keys !== null) entries = entries.filter((e) => keys.includes(e.name));
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
