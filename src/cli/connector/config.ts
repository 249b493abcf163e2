/**
 * The `kafka-eos run` connector config: JSON or YAML, validated with zod. Every field carries a
 * description, printed by `kafka-eos run --print-schema`. A bad config throws ConfigError naming
 * the field and what was expected (the CLI exits 2).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../../consumer/options';
import { KAFKAJS_OPTION_NAMES } from '../../consumer/option-names';
import { schemaKeysAt, unknownOptionMessage } from '../../util/did-you-mean';
import { sinkConfigSchema } from '../sink-factory';
import { SinkConfigError } from '../../sinks/errors';
import { jdbcTableName } from '../../sinks/sql/jdbc-sink';
import { DEFAULT_OFFSETS_TABLE } from '../../sinks/sql/offset-store';
import { substituteEnv } from './env';

const int = (min: number) => z.number().int().min(min);

const fileOrText = z.union([z.string(), z.object({ file: z.string().min(1).describe('path of a PEM file') }).strict()]);

export const kafkaClientSchema = z.object({
  ssl: z.union([z.boolean(), z.object({
    rejectUnauthorized: z.boolean().optional().describe('verify the brokers\' certificates (default true)'),
    ca: fileOrText.optional().describe('CA certificate(s): PEM text or { file }'),
    cert: fileOrText.optional().describe('client certificate: PEM text or { file }'),
    key: fileOrText.optional().describe('client private key: PEM text or { file }'),
    servername: z.string().optional().describe('TLS SNI server name'),
  }).strict()]).optional().describe('TLS to the brokers (KafkaJS `ssl`): true, or tls.connect options'),
  sasl: z.object({
    mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).describe('SASL mechanism'),
    username: z.string().describe('SASL user'),
    password: z.string().describe('SASL password'),
  }).strict().optional().describe('SASL authentication (KafkaJS `sasl`)'),
  connectionTimeoutMs: int(1).optional().describe('TCP connect timeout, ms (KafkaJS default 1000)'),
  requestTimeoutMs: int(1).optional().describe('request timeout, ms (KafkaJS default 30000)'),
  retry: z.object({
    retries: int(0).optional().describe('retries of a failed request or connection (KafkaJS default 5)'),
    initialRetryTimeMs: int(1).optional().describe('first delay, ms (default 300)'),
    maxRetryTimeMs: int(1).optional().describe('longest delay, ms (default 30000)'),
  }).strict().optional().describe('KafkaJS client retries'),
}).strict();

export const consumerSchema = z.object({
  delivery: z.enum(['exactly-once', 'at-least-once', 'at-most-once']).optional()
    .describe('exactly-once (default): rows and offsets in one transaction; '
      + 'at-least-once: rows, then Kafka commit; at-most-once: commit, then rows'),
  assignors: z.array(z.enum(['range', 'roundrobin', 'sticky', 'cooperative-sticky'])).min(1).optional()
    .describe('classic protocol: partition assignors in order of preference (default [range]); '
      + 'cooperative (KIP-429) when all are cooperative-sticky'),
  groupProtocol: z.enum(['classic', 'consumer']).optional()
    .describe("group.protocol: classic (default; JoinGroup/SyncGroup) or consumer (KIP-848: the broker assigns)"),
  groupRemoteAssignor: z.enum(['uniform', 'range']).optional()
    .describe("groupProtocol consumer: the broker's assignor (group.remote.assignor; default: the broker's)"),
  groupInstanceId: z.string().min(1).max(249).optional().describe('KIP-345 static membership group.instance.id'),
  sessionTimeoutMs: int(1).optional().describe('session.timeout.ms (default 30000)'),
  rebalanceTimeoutMs: int(1).optional().describe('rebalance.timeout.ms (default 60000)'),
  heartbeatIntervalMs: int(1).optional().describe('heartbeat.interval.ms (default 3000, below the session timeout)'),
  maxProcessingTimeMs: int(1).optional().describe('max.poll.interval.ms: longest processing of one batch, ms (default 300000)'),
  maxWaitTimeMs: int(0).optional().describe('longest wait of a fetch for data, ms (default 500)'),
  commitIntervalMs: int(0).optional().describe('at-least-once: commit at most this often, ms (default 5000; 0 = every batch)'),
  fromBeginning: z.boolean().optional().describe('where a partition with no position starts: true = log start (default), false = log end'),
  retry: z.object({
    retries: int(0).optional().describe('retries after the first try (default 0)'),
    minTimeoutMs: int(0).optional().describe('delay before the first retry, ms (default 100)'),
    maxTimeoutMs: int(0).optional().describe('longest delay, ms (default 5000)'),
    factor: z.number().min(1).optional().describe('backoff factor (default 2)'),
  }).strict().optional().describe('processing retries of a failing record or batch'),
  poisonPolicy: z.enum(['fail', 'skip', 'dead-letter']).optional()
    .describe('a record that still fails: stop (fail, default), skip it, or produce it to deadLetterTopic'),
  deadLetterTopic: z.string().min(1).optional().describe('dead-letter topic (default <topic>.dlq; poisonPolicy dead-letter)'),
  groupCommit: z.object({
    maxRows: int(1).optional().describe('rows per shared transaction'),
    lingerMs: int(0).optional().describe('wait for other partitions\' writes to join, ms'),
  }).strict().optional().describe('exactly-once: concurrent partitions\' writes share one sink transaction'),
  partitionsConsumedConcurrently: z.number().int().min(1).max(1000).optional().describe('partitions processed at once (default 1)'),
  commitToKafkaForMonitoring: z.boolean().optional().describe('exactly-once: also commit positions to Kafka for lag tools (default true)'),
  maxBatchRecords: int(1).optional().describe('most records of one batch and sink write (max.poll.records; default: one fetch)'),
  maxBatchBytes: int(1).optional().describe('most bytes of keys and values of one batch, at least one record (default unbounded)'),
  sinkBlockedTimeoutMs: int(0).optional().describe('exactly-once: fail with SINK_BLOCKED once the sink has refused every write '
    + '(missing table or column, permission, read-only) this long, ms (default 300000; 0 = never)'),
}).strict();

/** A converter (docs/converters.md), named as Kafka Connect's. */
export const converterSchema = z.object({
  type: z.enum(['string', 'bytes', 'json', 'connect-json', 'avro', 'protobuf', 'json-schema']).describe('the converter'),
  schemasEnable: z.boolean().optional().describe('connect-json: the {schema, payload} envelope (schemas.enable, default true)'),
  subjectNameStrategy: z.enum(['TopicName', 'RecordName', 'TopicRecordName']).optional()
    .describe('registry formats: the subject of a schema (default TopicName)'),
  useLatestVersion: z.boolean().optional().describe("avro: read with the subject's latest version (use.latest.version)"),
  validate: z.boolean().optional().describe('json-schema: validate payloads against their schema (default false)'),
}).strict();

export const runConfigSchema = z.object({
  brokers: z.array(z.string().regex(/^[^:\s]+:\d+$/, 'expected host:port')).min(1).describe('bootstrap brokers, host:port'),
  clientId: z.string().min(1).optional().describe('Kafka client.id (default kafka-eos-run)'),
  groupId: z.string().min(1).describe('consumer group id'),
  topics: z.array(z.string().min(1)).min(1).optional().describe('topics to consume (this or topicsRegex)'),
  topicsRegex: z.string().min(1).optional()
    .describe("topics matching this regular expression (whole name) when the consumer starts (Connect's topics.regex)"),
  kafka: kafkaClientSchema.optional().describe('KafkaJS client settings passed through: ssl, sasl, timeouts, retry'),
  consumer: consumerSchema.optional().describe('consumer group and processing settings'),
  sink: sinkConfigSchema.describe('where records go: { type: sql, ... }, { type: hdfs, ... } or { type: kafka, ... } '
    + '(docs/sql-sink.md, docs/hdfs-sink.md, docs/kafka-sink.md)'),
  keyConverter: converterSchema.optional().describe("how record keys become data (Kafka Connect's key.converter; default: bytes as text)"),
  valueConverter: converterSchema.optional().describe("how record values become data (Kafka Connect's value.converter; default: JSON)"),
  schemaRegistry: z.object({
    url: z.string().regex(/^https?:\/\/[^\s]+$/, 'expected http(s)://host:port').describe('Schema Registry URL (schema.registry.url)'),
    basicAuth: z.object({ username: z.string().describe('the user'), password: z.string().describe('the password') }).strict()
      .optional().describe('HTTP basic auth'),
    requestTimeoutMs: int(1).optional().describe('timeout of one registry request, ms (default 10000)'),
  }).strict().optional().describe('the Schema Registry of the avro, protobuf and json-schema converters'),
  status: z.object({
    intervalMs: int(100).optional().describe('status log line period when stdout is not a TTY, ms (default 10000)'),
  }).strict().optional().describe('the live status line (TTY) or periodic status log lines'),
  shutdownTimeoutMs: int(1).optional().describe('how long stopping may take after SIGINT/SIGTERM, ms (default 30000); past it '
    + 'the partitions not committed are listed and the process exits 3'),
  metrics: z.object({
    port: z.number().int().min(0).max(65535).describe('serve Prometheus metrics, /healthz and /readyz on this port (0 = any free port)'),
    host: z.string().min(1).optional().describe('interface to listen on (default 127.0.0.1)'),
  }).strict().optional().describe('Prometheus endpoint at /metrics and the probes /healthz, /readyz (also --metrics-port)'),
}).strict();

export type RunConfig = z.infer<typeof runConfigSchema>;

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === 'invalid_value' && 'values' in issue) return `expected one of `
    + `${(issue.values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) {
    return `required: expected ${issue.expected} (see kafka-eos run --print-schema)`;
  }
  return issue.message;
}

/** The value at `path` in a parsed document, or undefined where the path leaves it. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/**
 * Validates a parsed config object. @throws ConfigError naming the first bad field and the expected value; an unknown
 * field as the SDK names one (`consumer.sessionTimeout: unknown option: did you mean sessionTimeoutMs?`).
 */
export function validateRunConfig(value: unknown): RunConfig {
  const parsed = runConfigSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      const aliases = issue.path.length === 1 && issue.path[0] === 'consumer' ? KAFKAJS_OPTION_NAMES : {};
      throw new ConfigError([...issue.path, key].join('.'), `${unknownOptionMessage(key, schemaKeysAt(runConfigSchema, issue.path, value),
        aliases)} (see kafka-eos run --print-schema)`);
    }
    throw new ConfigError(issue.path.join('.') || '(config)', describeIssue(issue, value));
  }
  const c = parsed.data;
  if ((c.topics === undefined) === (c.topicsRegex === undefined)) throw new ConfigError('topics', 'give either topics or topicsRegex');
  if (c.topicsRegex !== undefined) {
    try {
      new RegExp(c.topicsRegex);
    } catch (e) {
      throw new ConfigError('topicsRegex', `not a regular expression: ${(e as Error).message}`);
    }
  }
  const consumer = c.consumer ?? {};
  const delivery = consumer.delivery ?? 'exactly-once';
  if (consumer.deadLetterTopic && consumer.poisonPolicy !== 'dead-letter') throw new ConfigError('consumer.deadLetterTopic',
    "only used with poisonPolicy 'dead-letter'");
  if (consumer.groupCommit && delivery !== 'exactly-once') throw new ConfigError('consumer.groupCommit',
    'only applies to exactly-once delivery');
  if (c.sink.type !== 'sql' && delivery !== 'exactly-once') throw new ConfigError('consumer.delivery',
    `the ${c.sink.type} sink runs exactly-once only`);
  if (c.sink.type === 'sql' && c.sink.mode === 'upsert' && !c.sink.upsertKey) throw new ConfigError('sink.upsertKey',
    'mode upsert needs upsertKey');
  checkTableNames(c);
  for (const f of ['keyConverter', 'valueConverter'] as const) {
    const t = c[f]?.type;
    if ((t === 'avro' || t === 'protobuf' || t === 'json-schema') && !c.schemaRegistry) {
      throw new ConfigError('schemaRegistry', `the ${t} ${f} needs schemaRegistry.url`);
    }
  }
  return c;
}

/**
 * The tables a SQL or JDBC sink writes, checked before anything connects: a JDBC sink's table of every topic of `topics`
 * (`tableNameFormat` with `${topic}` replaced: a plain identifier, not the offsets table; a `topicsRegex` subscription
 * is checked when its topics are assigned, JdbcSink.open), a SQL sink's `table` against its offsets table.
 * @throws ConfigError naming the field and the topic
 */
function checkTableNames(c: RunConfig): void {
  const sink = c.sink;
  if (sink.type === 'sql') {
    const offsets = sink.offsetsTable ?? DEFAULT_OFFSETS_TABLE;
    if (sink.table.toLowerCase() === offsets.toLowerCase()) {
      throw new ConfigError('sink.table', `"${sink.table}" is the sink's offsets table (${offsets}, compared without case), where the `
        + 'positions of every group live: rows cannot go there; choose another table (or sink.offsetsTable)');
    }
  }
  if (sink.type !== 'jdbc') return;
  const format = sink.tableNameFormat ?? '${topic}';
  for (const topic of format.includes('${topic}') ? c.topics ?? [] : ['']) {
    try {
      jdbcTableName(format, topic, sink.offsetsTable ?? DEFAULT_OFFSETS_TABLE);
    } catch (e) {
      if (!(e instanceof SinkConfigError)) throw e;
      throw new ConfigError('sink.tableNameFormat', `${topic === '' ? '' : `for topic ${topic}: `}${e.message.slice(e.field.length + 2)}`);
    }
  }
}

/** The subscription of a run config: its topics, or its topicsRegex anchored to whole names (as Java's Pattern.matches). */
export function subscription(config: RunConfig): (string | RegExp)[] {
  return config.topics ?? [new RegExp(`^(?:${config.topicsRegex!})$`)];
}

/** The subscription for log lines: the topics, or `/regex/`. */
export function subscriptionText(config: RunConfig): string {
  return config.topics?.join(', ') ?? `/${config.topicsRegex}/`;
}

/**
 * Reads `file` (YAML for .yaml/.yml, else JSON), replaces `${NAME}` / `${NAME:-default}` in its strings from the
 * environment (connector/env.ts) and validates it. @throws ConfigError.
 */
export function loadRunConfig(file: string): RunConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(file, `cannot read the config: ${(e as Error).message}`);
  }
  let value: unknown;
  const yaml = /\.ya?ml$/i.test(file);
  try {
    value = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new ConfigError(file, `not valid ${yaml ? 'YAML' : 'JSON'}: ${(e as Error).message}`);
  }
  return validateRunConfig(substituteEnv(value));
}

/** Reads `{ file }` PEM references of the ssl settings. @throws ConfigError naming the field. */
export function resolveSsl(ssl: NonNullable<z.infer<typeof kafkaClientSchema>['ssl']>): boolean | Record<string, unknown> {
  if (typeof ssl === 'boolean') return ssl;
  const out: Record<string, unknown> = { ...ssl };
  for (const k of ['ca', 'cert', 'key'] as const) {
    const v = ssl[k];
    if (v && typeof v === 'object') {
      try {
        out[k] = readFileSync(v.file, 'utf8');
      } catch (e) {
        throw new ConfigError(`kafka.ssl.${k}.file`, `cannot read ${v.file}: ${(e as Error).message}`);
      }
    }
  }
  return out;
}

interface JsonSchemaNode {
  type?: string | string[]; description?: string; properties?: Record<string, JsonSchemaNode>; required?: string[];
  items?: JsonSchemaNode; enum?: unknown[]; const?: unknown; anyOf?: JsonSchemaNode[]; oneOf?: JsonSchemaNode[];
  additionalProperties?: JsonSchemaNode | boolean; minimum?: number; maximum?: number;
}

function typeOf(n: JsonSchemaNode): string {
  if (n.const !== undefined) return JSON.stringify(n.const);
  if (n.enum) return n.enum.map((v) => JSON.stringify(v)).join(' | ');
  const alts = n.anyOf ?? n.oneOf;
  if (alts) return alts.map(typeOf).join(' | ');
  if (n.type === 'array' && n.items) return /[| ]/.test(typeOf(n.items)) ? `(${typeOf(n.items)})[]` : `${typeOf(n.items)}[]`;
  if (n.type === 'integer') {
    const min = n.minimum !== undefined ? ` ≥ ${n.minimum}` : '';
    return `integer${min}${n.maximum !== undefined && n.maximum < 1e15 ? ` ≤ ${n.maximum}` : ''}`;
  }
  if (n.type === 'object' && !n.properties && n.additionalProperties && typeof n.additionalProperties === 'object') return 'map';
  return Array.isArray(n.type) ? n.type.join(' | ') : (n.type ?? 'any');
}

/** Every field of the config, one per line: dotted path, type, required or not, description. */
export function printableSchema(): string {
  const root = z.toJSONSchema(runConfigSchema, { unrepresentable: 'any', io: 'input' }) as JsonSchemaNode;
  const lines: string[] = ['kafka-eos run config (JSON, or YAML for .yaml/.yml files). Fields:', ''];
  const walk = (node: JsonSchemaNode, prefix: string) => {
    const alts = node.anyOf ?? node.oneOf;
    const objects = alts ? alts.filter((a) => a.properties) : node.properties ? [node] : [];
    for (const obj of objects) {
      for (const [key, child] of Object.entries(obj.properties ?? {})) {
        const path = prefix + key;
        const req = obj.required?.includes(key) ? 'required' : 'optional';
        lines.push(`${path.padEnd(44)} ${typeOf(child).padEnd(36)} ${req.padEnd(8)} ${child.description ?? ''}`.trimEnd());
        walk(child, `${path}.`);
        if (child.type === 'array' && child.items) walk(child.items, `${path}[].`);
        if (child.additionalProperties && typeof child.additionalProperties === 'object') walk(child.additionalProperties,
          `${path}.<name>.`);
      }
    }
  };
  walk(root, '');
  return lines.join('\n') + '\n';
}
