/**
 * Kafka client and consumer settings of a Connect worker (`bootstrap.servers`, `security.protocol`, `sasl.*`,
 * `ssl.*`, `consumer.*`) and of a connector (`consumer.override.*`), as the KafkaJS client and the consumer options
 * of `kafka-eos run` take them. A setting KafkaJS has no equivalent for is named (refused, or a warning when the run
 * works the same without it).
 */
import type { AssignorName, GroupProtocol, GroupRemoteAssignor } from '../consumer/options';
import {
  BOOLEAN, CLASS, differs as D, Explanation, ignored as I, INT, LIST, LONG, refused as R, supported as S, type KeyDoc,
} from './keys';

/** The KafkaJS client settings (the shape of a run config's `kafka` section). */
export interface ClientSettings {
  ssl?: boolean | { ca?: { file: string } | string; cert?: { file: string } | string; key?: { file: string } | string;
    rejectUnauthorized?: boolean };
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  requestTimeoutMs?: number;
  connectionTimeoutMs?: number;
}

/** Consumer options a Connect config can set (the shape of a run config's `consumer` section, a subset). */
export interface ConsumerSettings {
  sessionTimeoutMs?: number; heartbeatIntervalMs?: number; maxProcessingTimeMs?: number; maxWaitTimeMs?: number;
  fromBeginning?: boolean; assignors?: AssignorName[]; groupInstanceId?: string;
  groupProtocol?: GroupProtocol; groupRemoteAssignor?: GroupRemoteAssignor;
}

/** The consumer settings that belong to one group protocol only (Java's CLASSIC_ / CONSUMER_PROTOCOL_ONLY_CONFIGS). */
type ProtocolOnlyField = 'sessionTimeoutMs' | 'heartbeatIntervalMs' | 'assignors' | 'groupRemoteAssignor';

/** What the security and consumer keys set, before they become {@link ClientSettings}. */
export interface ClientKeys {
  client: ClientSettings;
  consumer: ConsumerSettings;
  clientId?: string;
  groupId?: string;
  protocol?: { value: string; key: string };
  mechanism?: { value: string; key: string };
  jaas?: { value: string; key: string };
  /** The ssl.* keys given (named as ignored when the protocol has no TLS). */
  sslKeys?: { value: string; key: string }[];
  /** The key (as the file spells it) that set each setting of one group protocol only, refused under the other. */
  protocolOnly?: Partial<Record<ProtocolOnlyField, { value: string; key: string }>>;
}

/** Security keys, the same at the worker's top level, under `consumer.` and under `consumer.override.`. */
export const SECURITY_KEYS: Readonly<Record<string, KeyDoc>> = {
  'security.protocol': S('PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL → KafkaJS ssl / sasl'),
  'sasl.mechanism': S('PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (KafkaJS sasl.mechanism); GSSAPI and OAUTHBEARER refused'),
  'sasl.jaas.config': S("PlainLoginModule / ScramLoginModule with username and password → KafkaJS sasl"),
  'ssl.truststore.location': S('with ssl.truststore.type=PEM: the CA file (KafkaJS ssl.ca); JKS and PKCS12 refused: convert to PEM'),
  'ssl.truststore.type': S('PEM only (KafkaJS reads PEM)'),
  'ssl.truststore.certificates': S('PEM text → ssl.ca'),
  'ssl.keystore.location': S('with ssl.keystore.type=PEM: a file holding the client key and certificate → ssl.key, ssl.cert'),
  'ssl.keystore.type': S('PEM only'),
  'ssl.keystore.certificate.chain': S('PEM text → ssl.cert'),
  'ssl.keystore.key': S('PEM text → ssl.key (unencrypted)'),
  'ssl.key.password': R('an encrypted key: KafkaJS takes a decrypted PEM key; decrypt it (openssl pkey)'),
  'ssl.truststore.password': I('PEM trust stores have no password'),
  'ssl.keystore.password': R('an encrypted key store: use an unencrypted PEM key'),
  'ssl.endpoint.identification.algorithm': S("https (default: the broker's host name is checked); empty (no check) refused"),
  'ssl.enabled.protocols': D("Node.js's TLS defaults (TLSv1.2, TLSv1.3)", LIST),
  'ssl.protocol': D("Node.js's TLS defaults"),
  'request.timeout.ms': S('KafkaJS requestTimeout', INT(0)),
  'socket.connection.setup.timeout.ms': S('KafkaJS connectionTimeout', LONG(0)),
  'retry.backoff.ms': D("KafkaJS's retry (300 ms doubling up to 30 s)", LONG(0)),
  'reconnect.backoff.ms': D("KafkaJS's retry", LONG(0)),
  'reconnect.backoff.max.ms': D("KafkaJS's retry", LONG(0)),
  'metadata.max.age.ms': D("KafkaJS's metadata refresh (5 min)", LONG(0)),
  'connections.max.idle.ms': D('KafkaJS keeps connections', LONG()),
  'client.id': S('the client.id of the connector\'s consumer (default connector-consumer-<name>-0)'),
};

/** Consumer keys (`consumer.` on the worker, `consumer.override.` on a connector), beside {@link SECURITY_KEYS}. */
export const CONSUMER_KEYS: Readonly<Record<string, KeyDoc>> = {
  ...SECURITY_KEYS,
  'session.timeout.ms': S('sessionTimeoutMs', INT(0)),
  'heartbeat.interval.ms': S('heartbeatIntervalMs', INT(0)),
  'max.poll.interval.ms': S('maxProcessingTimeMs: the longest processing of one batch', INT(1)),
  'auto.offset.reset': S('earliest (Connect\'s default) or latest: where a partition without a stored position starts; none refused'),
  'fetch.max.wait.ms': S('maxWaitTimeMs', INT(0)),
  'group.instance.id': S('static membership (KIP-345)'),
  'group.id': S('connector level (consumer.override.group.id): the group instead of connect-<name>'),
  'partition.assignment.strategy': S('assignors, in order: RangeAssignor, RoundRobinAssignor, StickyAssignor, '
    + 'CooperativeStickyAssignor (Java class names, comma-separated); group.protocol=classic only', LIST),
  'group.protocol': S('groupProtocol: classic (default) or consumer (KIP-848: the broker assigns; with it, '
    + 'partition.assignment.strategy, session.timeout.ms and heartbeat.interval.ms are refused, as in Java)'),
  'group.remote.assignor': S("groupRemoteAssignor: uniform or range, the broker's assignor (group.protocol=consumer only)"),
  'max.poll.records': D('KafkaJS fetches by bytes: a batch is what one fetch returned, not a record count', INT(1)),
  'fetch.min.bytes': D("KafkaJS's minBytes (1)", INT(0)),
  'fetch.max.bytes': D("KafkaJS's maxBytes (10 MiB)", INT(0)),
  'max.partition.fetch.bytes': D("KafkaJS's maxBytesPerPartition (1 MiB)", INT(0)),
  'isolation.level': S('read_committed (what kafka-eos reads); read_uncommitted refused'),
  'enable.auto.commit': I('positions live in the sink (exactly-once); Kafka offsets are committed for monitoring', BOOLEAN),
  'auto.commit.interval.ms': I('positions live in the sink', INT(0)),
  'key.deserializer': I('Connect and kafka-eos read bytes; the converters decode them', CLASS),
  'value.deserializer': I('Connect and kafka-eos read bytes; the converters decode them', CLASS),
};

const PEM_ONLY = 'KafkaJS reads PEM (convert with keytool / openssl)';

const MECHANISMS: Record<string, ClientSettings['sasl'] extends infer T ? T extends { mechanism: infer M } ? M : never : never> = {
  PLAIN: 'plain', 'SCRAM-SHA-256': 'scram-sha-256', 'SCRAM-SHA-512': 'scram-sha-512',
};
const ASSIGNORS: Record<string, AssignorName> = {
  'org.apache.kafka.clients.consumer.RangeAssignor': 'range', 'org.apache.kafka.clients.consumer.RoundRobinAssignor': 'roundrobin',
  'org.apache.kafka.clients.consumer.StickyAssignor': 'sticky',
  'org.apache.kafka.clients.consumer.CooperativeStickyAssignor': 'cooperative-sticky',
};

/** A new, empty {@link ClientKeys}. */
export const emptyClientKeys = (): ClientKeys => ({ client: {}, consumer: {} });

/**
 * Applies one security or consumer key (`key` without its prefix; `shown` as the file spells it) to `into`.
 * @returns false when `table` does not know the key (it was refused by `ex`)
 */
export function applyClientKey(ex: Explanation, shown: string, key: string, value: string, into: ClientKeys,
  table: Readonly<Record<string, KeyDoc>>): boolean {
  const doc = table[key];
  if (!doc) { ex.take(key, value, table, 'the Kafka consumer', shown); return false; }
  const refuse = (why: string) => ex.refuse(shown, value, why);
  let noted = false;
  const ok = () => { if (!noted) ex.note(shown, value, doc.status, doc.note); noted = true; };
  // A value of the wrong ConfigDef type (or out of its range) is refused with Connect's message, whatever the key does here.
  if (doc.def && doc.status !== 'refused') {
    ok();
    if (ex.check(shown, value, doc.def) === undefined) return true;
  }
  const ms = (set: (n: number) => void) => { set(ex.typed<number>(shown)!); ok(); };
  const pem = (set: (v: { file: string } | string) => void, type?: string) => {
    if (type !== undefined && type.toUpperCase() !== 'PEM') refuse(`${type} stores are refused: ${PEM_ONLY}`);
    else { set(key.endsWith('.location') ? { file: value } : value); ok(); }
  };
  const only = (field: ProtocolOnlyField) => { (into.protocolOnly ??= {})[field] = { key: shown, value }; };
  const ssl = () => {
    (into.sslKeys ??= []).push({ key: shown, value });
    return typeof into.client.ssl === 'object' ? into.client.ssl : (into.client.ssl = {});
  };
  switch (key) {
    case 'security.protocol': into.protocol = { value: value.trim().toUpperCase(), key: shown }; ok(); return true;
    case 'sasl.mechanism': into.mechanism = { value: value.trim().toUpperCase(), key: shown }; ok(); return true;
    case 'sasl.jaas.config': into.jaas = { value, key: shown }; ok(); return true;
    case 'ssl.truststore.location': case 'ssl.truststore.certificates': pem((v) => { ssl().ca = v; }); return true;
    case 'ssl.keystore.location': pem((v) => { ssl().cert = v; ssl().key = v; }); return true;
    case 'ssl.keystore.certificate.chain': pem((v) => { ssl().cert = v; }); return true;
    case 'ssl.keystore.key': pem((v) => { ssl().key = v; }); return true;
    case 'ssl.truststore.type': case 'ssl.keystore.type':
      if (value.trim().toUpperCase() === 'PEM') ok(); else refuse(`${value} stores are refused: ${PEM_ONLY}`);
      return true;
    case 'ssl.endpoint.identification.algorithm':
      if (value.trim().toLowerCase() === 'https') ok();
      else refuse('an empty value (no host name check) is refused: give the broker a certificate naming its host');
      return true;
    case 'request.timeout.ms': ms((n) => { into.client.requestTimeoutMs = n; }); return true;
    case 'socket.connection.setup.timeout.ms': ms((n) => { into.client.connectionTimeoutMs = n; }); return true;
    case 'client.id': into.clientId = value; ok(); return true;
    case 'session.timeout.ms': ms((n) => { into.consumer.sessionTimeoutMs = n; only('sessionTimeoutMs'); }); return true;
    case 'heartbeat.interval.ms': ms((n) => { into.consumer.heartbeatIntervalMs = n; only('heartbeatIntervalMs'); }); return true;
    case 'max.poll.interval.ms': ms((n) => { into.consumer.maxProcessingTimeMs = n; }); return true;
    case 'fetch.max.wait.ms': ms((n) => { into.consumer.maxWaitTimeMs = n; }); return true;
    case 'group.instance.id': into.consumer.groupInstanceId = value; ok(); return true;
    case 'group.id': into.groupId = value; ok(); return true;
    case 'auto.offset.reset': {
      const v = value.trim().toLowerCase();
      if (v === 'earliest' || v === 'latest') { into.consumer.fromBeginning = v === 'earliest'; ok(); } else refuse('earliest or latest');
      return true;
    }
    case 'isolation.level':
      if (value.trim().toLowerCase() === 'read_committed') ok(); else refuse('kafka-eos reads committed records only (read_committed)');
      return true;
    case 'partition.assignment.strategy': {
      const names = value.split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = names.filter((n) => !ASSIGNORS[n]);
      if (unknown.length > 0) {
        refuse(`${unknown.join(', ')}: only RangeAssignor, RoundRobinAssignor, StickyAssignor and CooperativeStickyAssignor`);
      } else if (names.length === 0) refuse('an empty list: name at least one assignor');
      else { into.consumer.assignors = names.map((n) => ASSIGNORS[n]!); only('assignors'); ok(); }
      return true;
    }
    case 'group.protocol': {
      const v = value.trim().toLowerCase();
      if (v === 'classic' || v === 'consumer') { into.consumer.groupProtocol = v; ok(); } else refuse('classic or consumer');
      return true;
    }
    case 'group.remote.assignor': {
      const v = value.trim().toLowerCase();
      if (v === 'uniform' || v === 'range') { into.consumer.groupRemoteAssignor = v; only('groupRemoteAssignor'); ok(); }
      else refuse("uniform or range (the broker's assignors)");
      return true;
    }
    case 'ssl.key.password': case 'ssl.keystore.password': refuse(doc.note); return true;
    default: ok(); return true;
  }
}

/**
 * Refuses the settings of the other group protocol, on the key that set them, as Java's ConsumerConfig does
 * (group.protocol=consumer refuses partition.assignment.strategy, session.timeout.ms and heartbeat.interval.ms: the
 * broker owns them; classic refuses group.remote.assignor). Call once every key was applied.
 */
export function finishGroupProtocol(ex: Explanation, keys: ClientKeys): void {
  const consumer = keys.consumer.groupProtocol === 'consumer';
  const foreign: ProtocolOnlyField[] = consumer ? ['assignors', 'sessionTimeoutMs', 'heartbeatIntervalMs'] : ['groupRemoteAssignor'];
  for (const field of foreign) {
    const set = keys.protocolOnly?.[field];
    if (!set || keys.consumer[field] === undefined) continue;
    ex.refuse(set.key, set.value, consumer
      ? 'not with group.protocol=consumer: the broker assigns and sets the session timeout and heartbeat interval (KIP-848)'
      : 'only with group.protocol=consumer (KIP-848)');
    delete keys.consumer[field];
  }
}

/** `Module required username="u" password="p";` → the module's short name, username, password. */
function parseJaas(jaas: string): { module: string; username?: string; password?: string } | undefined {
  const m = /^\s*([\w.$]+)\s+(required|requisite|sufficient|optional)\b([\s\S]*?);?\s*$/.exec(jaas);
  if (!m) return undefined;
  const opts: Record<string, string> = {};
  for (const o of m[3]!.matchAll(/([\w.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))/g)) {
    opts[o[1]!] = (o[2] ?? o[3] ?? '').replace(/\\(.)/g, '$1');
  }
  return { module: m[1]!.split('.').pop()!, username: opts.username, password: opts.password };
}

/**
 * Turns security.protocol, sasl.mechanism and sasl.jaas.config into KafkaJS ssl and sasl (refusing what KafkaJS
 * cannot do, on the key that asked for it). Call once every key was applied.
 */
export function finishSecurity(ex: Explanation, keys: ClientKeys): void {
  const protocol = keys.protocol?.value ?? 'PLAINTEXT';
  const refuse = (k: { key: string; value: string }, why: string) => ex.refuse(k.key, k.value, why);
  if (!['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'].includes(protocol)) {
    refuse(keys.protocol!, 'PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL');
    return;
  }
  if (protocol.endsWith('SSL')) keys.client.ssl ??= true;
  else if (keys.client.ssl !== undefined) {
    delete keys.client.ssl;
    for (const k of keys.sslKeys ?? []) ex.verdict(k.key, k.value, 'ignored', `security.protocol is ${protocol}: no TLS (as in Connect)`);
  }
  if (!protocol.startsWith('SASL')) return;
  const mechanism = keys.mechanism?.value ?? 'GSSAPI';
  const ours = MECHANISMS[mechanism];
  if (!ours) {
    refuse(keys.mechanism ?? { key: keys.protocol!.key, value: protocol },
      `SASL mechanism ${mechanism}${keys.mechanism ? '' : ' (the default)'} `
      + 'is refused: KafkaJS here does PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512');
    return;
  }
  const jaas = keys.jaas ? parseJaas(keys.jaas.value) : undefined;
  if (!keys.jaas || !jaas || jaas.username === undefined || jaas.password === undefined) {
    refuse(keys.jaas ?? { key: keys.protocol!.key, value: protocol }, 'sasl.jaas.config must give a PlainLoginModule or ScramLoginModule '
      + 'with username="..." password="..."');
    return;
  }
  keys.client.sasl = { mechanism: ours, username: jaas.username, password: jaas.password };
}
