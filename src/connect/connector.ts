/**
 * Kafka Connect configs → `kafka-eos run` configs: `connect-standalone`'s `worker.properties connector.properties...`,
 * or connector JSON as POSTed to Connect's REST API (`{"name": ..., "config": {...}}`) or a flat config map, with the
 * worker from a `.properties` file or flags. Each connector becomes one run config with its own consumer group,
 * `connect-<name>` (Connect's SinkUtils.consumerGroupId), and client id `connector-consumer-<name>-0`.
 *
 * Every key of every file is explained ({@link KeyLine}); a refused key (unknown — with a did-you-mean —, unsupported,
 * or a value we cannot honour) makes {@link translateConnect} throw one ConfigError naming them all: nothing runs
 * half-understood.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../consumer/options';
import { applyClientKey, CONSUMER_KEYS, emptyClientKeys, finishGroupProtocol, finishSecurity, SECURITY_KEYS, type ClientKeys,
  type ClientSettings, type ConsumerSettings } from './client';
import { applyConverterKey, emptyConverterKeys, finishConverter, type ConverterKeys, type ConverterSettings,
  type RegistrySettings } from './converters';
import { HDFS_SINK_CLASSES, hdfsSink, type HdfsSinkSettings } from './hdfs';
import { JDBC_SINK_CLASS, jdbcSink, type JdbcSinkSettings } from './jdbc';
import { SinkConfigError } from '../sinks/errors';
import { jdbcTableName } from '../sinks/sql/jdbc-sink';
import { Explanation, parseList, type KeyLine } from './keys';
import { parseProperties } from './properties';
import { CONNECTOR_KEYS, WORKER_KEYS } from './worker';

/** One connector as a run config (the shape cli/connector/config.ts validates), before validation. */
export interface ConnectorRunConfig {
  brokers: string[]; clientId: string; groupId: string; topics?: string[]; topicsRegex?: string;
  kafka?: ClientSettings;
  consumer: ConsumerSettings & { poisonPolicy?: 'fail' | 'skip' | 'dead-letter'; deadLetterTopic?: string };
  keyConverter?: ConverterSettings; valueConverter?: ConverterSettings; schemaRegistry?: RegistrySettings;
  sink: JdbcSinkSettings | HdfsSinkSettings;
  /** The worker's task.shutdown.graceful.timeout.ms: the bound of the whole process's stop (run's shutdownTimeoutMs). */
  shutdownTimeoutMs?: number;
}

/** A translated connector: its name, file and run config. */
export interface TranslatedConnector { name: string; file: string; config: ConnectorRunConfig }

/** Every connector of the files, how each key of each file was understood, and the refused keys' lines. */
export interface ConnectTranslation { connectors: TranslatedConnector[]; lines: KeyLine[]; refused: KeyLine[] }

/** What `kafka-eos run` was given: connector files, and the worker as a file and/or `bootstrap.servers`. */
export interface ConnectInput { connectors: string[]; worker?: string; bootstrapServers?: string }

/**
 * Whether `kafka-eos run` arguments are Connect configs (`.properties`, several files, a worker, or a JSON file holding
 * `connector.class` at its top or under `config`) rather than one run config (JSON or YAML).
 */
export function isConnectInvocation(files: readonly string[], worker?: string): boolean {
  if (worker !== undefined || files.length > 1 || files.some((f) => /\.properties$/i.test(f))) return true;
  if (files.length !== 1 || !/\.json$/i.test(files[0]!)) return false;
  try {
    const v = JSON.parse(readFileSync(files[0]!, 'utf8')) as Record<string, unknown> & { config?: Record<string, unknown> };
    return typeof v?.['connector.class'] === 'string' || typeof v?.config?.['connector.class'] === 'string';
  } catch {
    return false;
  }
}

/**
 * The `connect-standalone` argument order: with no `--worker`, the first of several files (or a lone `.properties`
 * file holding no `connector.class`) is the worker.
 */
export function connectInput(files: readonly string[], worker?: string, bootstrapServers?: string): ConnectInput {
  if (worker !== undefined || files.length < 2) return { connectors: [...files], worker, bootstrapServers };
  return { worker: files[0], connectors: files.slice(1), bootstrapServers };
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(file, `cannot read it: ${(e as Error).message}`);
  }
}

/** A connector file's keys: `.properties`, or JSON (REST shape or flat; values as Connect's REST API takes them, as text). */
export function readConnectorFile(file: string): Map<string, string> {
  const text = read(file);
  if (!/\.json$/i.test(file)) return parseProperties(text, file).values;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(file, `not valid JSON: ${(e as Error).message}`);
  }
  const obj = value as Record<string, unknown>;
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new ConfigError(file, 'expected a JSON object ({"name", "config"} or a flat map)');
  }
  const rest = obj.config !== undefined && typeof obj.config === 'object' && obj.config !== null;
  const flat = rest ? { ...(obj.config as Record<string, unknown>) } : obj;
  if (rest) {
    const extra = Object.keys(obj).filter((k) => k !== 'name' && k !== 'config' && k !== 'tasks' && k !== 'type');
    if (extra.length > 0) throw new ConfigError(file, `unknown field ${extra[0]} beside name and config (Connect's REST shape)`);
    if (typeof obj.name === 'string') {
      if (flat.name !== undefined && flat.name !== obj.name) {
        throw new ConfigError(file, `name "${obj.name}" and config.name "${String(flat.name)}" differ`);
      }
      flat.name = obj.name;
    }
  }
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(flat)) {
    if (v !== null && typeof v === 'object') {
      throw new ConfigError(`${file}: ${k}`, 'expected a string, number or boolean (Connect configs are flat)');
    }
    if (v !== null && v !== undefined) out.set(k, String(v));
  }
  return out;
}

interface Worker {
  brokers?: string[]; client: ClientKeys; key: ConverterKeys; value: ConverterKeys; policy: string;
  /** task.shutdown.graceful.timeout.ms, ms. */
  shutdownTimeoutMs?: number;
}

function readWorker(ex: Explanation, values: ReadonlyMap<string, string>): Worker {
  const w: Worker = { client: emptyClientKeys(), key: emptyConverterKeys(), value: emptyConverterKeys(), policy: 'All' };
  for (const [k, v] of values) {
    const conv = /^(key|value)\.converter(\..+)?$/.exec(k);
    if (conv && !k.startsWith('internal.')) applyConverterKey(ex, k, conv[2] ?? '', v, w[conv[1] as 'key' | 'value']);
    else if (k.startsWith('header.converter.')) ex.note(k, v, 'ignored', HEADER_SETTING);
    else if (k.startsWith('consumer.')) applyClientKey(ex, k, k.slice('consumer.'.length), v, w.client, CONSUMER_KEYS);
    else if (k.startsWith('producer.') || k.startsWith('admin.')) {
      ex.note(k, v, 'ignored', `the ${k.split('.')[0]} clients of source connectors and internal topics `
        + '(dead letters use the consumer\'s settings)');
    } else if (ex.take(k, v, WORKER_KEYS, 'a Connect worker')) {
      if (k === 'bootstrap.servers') w.brokers = parseList(v).map((b) => b.replace(/^[A-Za-z_]+:\/\//, ''));
      if (k === 'connector.client.config.override.policy') {
        const p = v.trim().replace(/^.*\./, '').replace(/ConnectorClientConfigOverridePolicy$/, '');
        if (['All', 'Principal', 'None'].includes(p)) w.policy = p;
        else ex.refuse(k, v, 'All, Principal or None');
      }
      if (k === 'task.shutdown.graceful.timeout.ms') {
        const ms = Number(v.trim());
        if (/^\d+$/.test(v.trim()) && Number.isSafeInteger(ms) && ms >= 1) w.shutdownTimeoutMs = ms;
        else ex.refuse(k, v, 'a positive number of milliseconds');
      }
    }
  }
  return w;
}

const HEADER_SETTING = 'a header converter setting: headers stay bytes (header.converter)';

const PRINCIPAL_KEYS = new Set(['sasl.jaas.config', 'sasl.mechanism', 'security.protocol']);

function translateConnector(ex: Explanation, values: Map<string, string>, worker: Worker): ConnectorRunConfig | undefined {
  const client: ClientKeys = structuredClone(worker.client);
  const conv = { key: structuredClone(worker.key), value: structuredClone(worker.value) };
  const sinkKeys = new Map<string, string>();
  const cls = values.get('connector.class')?.trim();
  for (const [k, v] of values) {
    const c = /^(key|value)\.converter(\..+)?$/.exec(k);
    if (c) applyConverterKey(ex, k, c[2] ?? '', v, conv[c[1] as 'key' | 'value']);
    else if (k.startsWith('header.converter.')) ex.note(k, v, 'ignored', HEADER_SETTING);
    else if (k.startsWith('consumer.override.')) {
      const key = k.slice('consumer.override.'.length);
      if (worker.policy === 'None' || (worker.policy === 'Principal' && !PRINCIPAL_KEYS.has(key))) {
        ex.note(k, v, 'refused', `the worker's connector.client.config.override.policy (${worker.policy}) does not allow it`);
      } else applyClientKey(ex, k, key, v, client, CONSUMER_KEYS);
    } else if (/^(transforms|predicates)\.[^.]+\./.test(k)) ex.note(k, v, 'refused', `part of ${k.split('.')[0]}, which are not supported`);
    else if (CONNECTOR_KEYS[k]) {
      ex.take(k, v, CONNECTOR_KEYS, 'a connector');
      if ((k === 'transforms' || k === 'predicates') && v.trim() === '') ex.verdict(k, v, 'ignored', 'empty');
    } else sinkKeys.set(k, v);
  }
  const name = values.get('name')?.trim();
  if (!name) ex.refuse('name', '', 'every connector needs a name');
  let sink: ConnectorRunConfig['sink'] | undefined;
  if (cls === JDBC_SINK_CLASS) sink = jdbcSink(ex, sinkKeys);
  else if (cls !== undefined && HDFS_SINK_CLASSES.includes(cls)) sink = hdfsSink(ex, sinkKeys);
  else {
    ex.refuse('connector.class', cls ?? '', `${cls === undefined ? 'missing: ' : ''}kafka-eos runs ${JDBC_SINK_CLASS} and `
      + `${HDFS_SINK_CLASSES.join(', ')}`);
    for (const [k, v] of sinkKeys) ex.note(k, v, 'refused', 'not a key of a connector kafka-eos runs');
  }
  const topics = values.has('topics') ? parseList(values.get('topics')!) : undefined;
  const regex = values.get('topics.regex')?.trim();
  if ((topics === undefined || topics.length === 0) === (regex === undefined || regex === '')) {
    ex.refuse(values.has('topics') ? 'topics' : 'topics.regex', values.get('topics') ?? regex ?? '',
      'give exactly one of topics and topics.regex');
  }
  if (regex) {
    try { new RegExp(regex); } catch (e) { ex.refuse('topics.regex', regex, `not a regular expression: ${(e as Error).message}`); }
  }
  if (sink?.type === 'jdbc') checkJdbcTables(ex, sink, topics ?? [], values);
  finishSecurity(ex, client);
  finishGroupProtocol(ex, client);
  const key = finishConverter(ex, 'key', conv.key);
  const value = finishConverter(ex, 'value', conv.value);
  if (key.registry && value.registry && JSON.stringify(key.registry) !== JSON.stringify(value.registry)) {
    ex.refuse('key.converter.schema.registry.url', key.registry.url, 'the key and value converters must use one Schema Registry');
  }
  if (!worker.brokers || worker.brokers.length === 0) {
    ex.refuse('bootstrap.servers', '', 'the worker needs bootstrap.servers (--worker or --bootstrap-servers)');
  }
  if (!sink || !name) return undefined;
  const consumer: ConnectorRunConfig['consumer'] = { ...client.consumer };
  const tolerance = values.get('errors.tolerance')?.trim().toLowerCase() ?? 'none';
  const dlq = values.get('errors.deadletterqueue.topic.name')?.trim();
  if (tolerance !== 'none' && tolerance !== 'all') ex.refuse('errors.tolerance', tolerance, 'none or all');
  if (tolerance === 'all') consumer.poisonPolicy = dlq ? 'dead-letter' : 'skip';
  if (dlq && tolerance === 'all') consumer.deadLetterTopic = dlq;
  else if (dlq) {
    ex.verdict('errors.deadletterqueue.topic.name', dlq, 'ignored', 'with errors.tolerance=none a bad record stops the connector, '
      + 'as in Connect');
  }
  const registry = key.registry ?? value.registry;
  const kafka = Object.keys(client.client).length > 0 ? client.client : undefined;
  return {
    brokers: worker.brokers ?? [], clientId: client.clientId ?? `connector-consumer-${name}-0`,
    groupId: client.groupId ?? `connect-${name}`,
    ...(topics && topics.length > 0 ? { topics } : { topicsRegex: regex }), ...(kafka ? { kafka } : {}), consumer,
    ...(key.converter ? { keyConverter: key.converter } : {}), ...(value.converter ? { valueConverter: value.converter } : {}),
    ...(registry ? { schemaRegistry: registry } : {}), sink,
    ...(worker.shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs: worker.shutdownTimeoutMs } : {}),
  };
}

/**
 * Refuses a JDBC sink whose table name for a subscribed topic is not one plain identifier or is the offsets table
 * (JdbcSink's jdbcTableName), before anything connects: on `table.name.format` when given, else on `topics` (the table is
 * then the topic's name). A `topics.regex` subscription is checked when its topics are assigned (JdbcSink.open).
 */
function checkJdbcTables(ex: Explanation, sink: JdbcSinkSettings, topics: readonly string[], values: ReadonlyMap<string, string>): void {
  const format = sink.tableNameFormat ?? '${topic}';
  const key = values.has('table.name.format') ? 'table.name.format' : 'topics';
  for (const topic of format.includes('${topic}') ? topics : ['']) {
    try {
      jdbcTableName(format, topic);
    } catch (e) {
      if (!(e instanceof SinkConfigError)) throw e;
      const why = e.message.slice(e.field.length + 2);
      ex.refuse(key, values.get(key) ?? '', `${topic === '' ? '' : `for topic ${topic}, `}the table name${key === 'topics'
        ? ' (table.name.format ${topic}, the default)' : ''}: ${why}`);
      return;
    }
  }
}

/**
 * Reads and translates the files; `refused` lists the keys that stop the run ({@link refusalError}).
 * @throws ConfigError for a file that cannot be read or parsed, or a connector given as the worker
 */
export function translateConnect(input: ConnectInput): ConnectTranslation {
  const lines: KeyLine[] = [];
  if (input.worker && !/\.properties$/i.test(input.worker)) {
    throw new ConfigError(input.worker, 'a worker config is a .properties file (connect-standalone order: kafka-eos run '
      + 'worker.properties connector.properties ...; connector JSON files take --worker or --bootstrap-servers)');
  }
  const workerValues = input.worker ? parseProperties(read(input.worker), input.worker).values : new Map<string, string>();
  if (input.bootstrapServers !== undefined) workerValues.set('bootstrap.servers', input.bootstrapServers);
  const wex = new Explanation(input.worker ?? '(flags)');
  if (input.worker && workerValues.has('connector.class')) {
    throw new ConfigError(input.worker, 'holds connector.class: a connector, not a worker config (connect-standalone order: '
      + 'kafka-eos run worker.properties connector.properties ...; a lone connector needs --worker or --bootstrap-servers)');
  }
  const worker = readWorker(wex, workerValues);
  lines.push(...wex.lines);
  const connectors: TranslatedConnector[] = [];
  const refusedAll = [...wex.refused()];
  const names = new Set<string>();
  for (const file of input.connectors) {
    const ex = new Explanation(file);
    const values = readConnectorFile(file);
    const config = translateConnector(ex, values, worker);
    const name = values.get('name')?.trim() ?? '';
    if (names.has(name)) ex.refuse('name', name, 'two connectors have this name');
    names.add(name);
    lines.push(...ex.lines);
    refusedAll.push(...ex.refused());
    if (config) connectors.push({ name, file, config });
  }
  return { connectors, lines, refused: refusedAll };
}

/** One ConfigError naming every refused key (file, key, value, why). */
export function refusalError(refused: readonly KeyLine[]): ConfigError {
  return new ConfigError('connect', `${refused.length} key${refused.length > 1 ? 's' : ''} refused (kafka-eos run --explain lists `
    + `every key):\n${refused.map((l) => `  ${l.file}: ${l.key}${l.value ? ` = ${l.value}` : ''}: ${l.note}`).join('\n')}`);
}

/** `--explain`: every key as understood, one line each, grouped by file. */
export function explainLines(lines: readonly KeyLine[]): string {
  const out: string[] = [];
  let file = '';
  for (const l of lines) {
    if (l.file !== file) { out.push(`${l.file}:`); file = l.file; }
    out.push(`  ${l.status.padEnd(9)} ${l.key}${l.value !== '' ? ` = ${l.value}` : ''}  — ${l.note}`);
  }
  return out.join('\n') + '\n';
}
