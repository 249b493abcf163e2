/**
 * The config entries DescribeConfigs (and CreateTopics v5+) answer, built as Kafka's ConfigHelper builds them:
 * - a topic (createTopicConfigEntry): every topic config, its value the override or the default the answering
 *   broker computes from its broker configs; synonyms: the override (TOPIC_CONFIG), then the first broker synonym
 *   at every level; source: the first synonym's, else DEFAULT_CONFIG;
 * - a broker by id (createBrokerConfigEntry, perBrokerConfig): every broker config with its effective value, the
 *   synonyms of its forms at every level (configSynonyms, dropped up to the first entry of the config's own name),
 *   read-only unless DynamicBrokerConfig can change it;
 * - the cluster default "" : only the dynamic default configs, with only their DYNAMIC_DEFAULT_BROKER_CONFIG synonyms.
 * Sensitive values (PASSWORD configs) are null.
 */
import type { ClusterState, Topic } from './cluster';
import { brokerConfigDef } from './broker-configs';
import { ConfigSource, ConfigType, TOPIC_CONFIGS, topicDefault } from './config-defaults';

/** One synonym of a config entry: a name, its value at one level, and that level (a ConfigSource id). */
export interface ConfigSynonym { name: string; value: string | null; source: number }

/** One config of a resource as DescribeConfigs answers it (`source`: a ConfigSource id, `type`: a ConfigType id, 0 unknown). */
export interface ConfigEntry {
  name: string; value: string | null; source: number; readOnly: boolean; sensitive: boolean; type: number; doc: string | null;
  synonyms: ConfigSynonym[];
}

/** A topic's configs as broker `nodeId` describes them (null: the cluster-wide levels only). */
export function topicEntries(cluster: ClusterState, topic: Topic, nodeId: number | null = null): ConfigEntry[] {
  const store = cluster.brokerConfigs;
  const entries = TOPIC_CONFIGS.map((d): ConfigEntry => {
    const override = topic.configs.get(d.name);
    const synonyms: ConfigSynonym[] = d.synonyms.length > 0 ? store.synonyms(nodeId, d.synonyms[0].name) : [];
    if (override !== undefined) synonyms.unshift({ name: d.name, value: override, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
    return {
      name: d.name, value: override ?? topicDefault(d, (n) => store.value(nodeId, n)),
        source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
      readOnly: false, sensitive: false, type: d.type, doc: d.doc, synonyms,
    };
  });
  // Overrides the mock does not know (Kafka would have refused them at creation) are still shown.
  const defined = new Set(TOPIC_CONFIGS.map((d) => d.name));
  for (const [name, value] of topic.configs) {
    if (defined.has(name)) continue;
    const source = ConfigSource.DYNAMIC_TOPIC_CONFIG;
    entries.push({ name, value, source, readOnly: false, sensitive: false, type: ConfigType.STRING, doc: null,
      synonyms: [{ name, value, source }] });
  }
  return entries;
}

/** Broker `nodeId`'s configs (every config), or the cluster-wide dynamic defaults (null), as DescribeConfigs answers them. */
export function brokerEntries(cluster: ClusterState, nodeId: number | null): ConfigEntry[] {
  const store = cluster.brokerConfigs;
  const names = nodeId === null ? [...store.dynamic(null).keys()] : store.names(nodeId);
  return names.map((name): ConfigEntry => {
    const d = brokerConfigDef(name);
    const sensitive = d?.sensitive ?? false;
    const hide = (s: ConfigSynonym): ConfigSynonym => (sensitive ? { ...s, value: null } : s);
    let synonyms = store.synonyms(nodeId, name).map(hide);
    if (nodeId === null) synonyms = synonyms.filter((s) => s.source === ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
    const value = sensitive ? null : nodeId === null ? (store.dynamic(null).get(name) ?? null) : store.value(nodeId, name);
    return {
      name, value, source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG, readOnly: d ? d.mode === 'read-only' : true,
      sensitive, type: d?.type ?? 0, doc: d?.doc ?? null, synonyms,
    };
  });
}
