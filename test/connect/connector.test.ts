import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectInput, isConnectInvocation, refusalError, translateConnect } from '../../src/connect/connector';

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-connect-unit-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};
const props = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${k}=${v}`).join('\n');
const WORKER = { 'bootstrap.servers': 'PLAINTEXT://b1:9092, b2:9092', 'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'value.converter': 'org.apache.kafka.connect.json.JsonConverter', 'offset.storage.file.filename': '/tmp/x' };
const JDBC = { name: 'pg-sink', 'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector', topics: 'a,b',
  'connection.url': 'jdbc:postgresql://db:5433/shop', 'connection.user': 'u', 'connection.password': 'p' };

function translate(worker: Record<string, string>, ...connectors: Record<string, string>[]) {
  const w = file(`w-${Math.random()}.properties`, props(worker));
  const cs = connectors.map((c, i) => file(`c${i}-${Math.random()}.properties`, props(c)));
  return translateConnect(connectInput([w, ...cs]));
}
const refusals = (t: ReturnType<typeof translate>) => t.refused.map((l) => `${l.key}: ${l.note}`);

test('a worker and a JDBC sink become a run config: group connect-<name>, client id, converters, the knex connection', () => {
  const t = translate(WORKER, { ...JDBC, 'pk.mode': 'record_key', 'pk.fields': 'id', 'insert.mode': 'UPSERT', 'delete.enabled': 'true',
    'table.name.format': 'kafka_${topic}', 'auto.create': 'true', 'auto.evolve': 'true', 'batch.size': '500', 'max.retries': '3',
    'retry.backoff.ms': '200', 'fields.whitelist': 'a, b', 'errors.tolerance': 'all', 'errors.deadletterqueue.topic.name': 'dlq' });
  expect(t.refused).toEqual([]);
  expect(t.connectors).toEqual([{ name: 'pg-sink', file: expect.any(String), config: {
    brokers: ['b1:9092', 'b2:9092'], clientId: 'connector-consumer-pg-sink-0', groupId: 'connect-pg-sink', topics: ['a', 'b'],
    consumer: { poisonPolicy: 'dead-letter', deadLetterTopic: 'dlq' },
    keyConverter: { type: 'string' }, valueConverter: { type: 'connect-json' },
    sink: { type: 'jdbc', knex: { client: 'pg', connection: { host: 'db', port: 5433, database: 'shop', user: 'u', password: 'p' } },
      tableNameFormat: 'kafka_${topic}', insertMode: 'upsert', pkMode: 'record_key', pkFields: ['id'], fieldsInclude: ['a', 'b'],
      deleteEnabled: true, autoCreate: true, autoEvolve: true, maxRowsPerStatement: 500, retry: { retries: 3, minTimeoutMs: 200 } },
  } }]);
  expect(t.lines.find((l) => l.key === 'offset.storage.file.filename')?.status).toBe('ignored');
  expect(t.lines.find((l) => l.key === 'connection.password')?.value).toBe('******');
});

test('unknown and unsupported keys are all refused at once, each named, with a did-you-mean', () => {
  const t = translate({ ...WORKER, 'plugin.pth': '/x' }, { ...JDBC, 'pk.mdoe': 'record_key', topic: 'x', transforms: 'r',
    'transforms.r.type': 'org.apache.kafka.connect.transforms.RegexRouter', 'insert.mode': 'merge', 'quote.sql.identifiers': 'never' });
  expect(refusals(t)).toEqual([
    'plugin.pth: not a key kafka-eos knows for a Connect worker (did you mean plugin.path?)',
    'transforms: single message transforms (SMTs) are not supported',
    'transforms.r.type: part of transforms, which are not supported',
    'pk.mdoe: not a key kafka-eos knows for the JDBC sink connector (did you mean pk.mode?)',
    'topic: not a key kafka-eos knows for the JDBC sink connector (did you mean topics?)',
    'insert.mode: one of insert, upsert, update',
    'quote.sql.identifiers: always only: names are quoted as given',
  ]);
  expect(refusalError(t.refused).message).toMatch(/7 keys refused[\s\S]*pk\.mdoe = record_key: .*did you mean pk\.mode/);
});

test('consumer. and consumer.override. security keys become KafkaJS ssl and sasl; the worker\'s own are ignored', () => {
  const t = translate({ ...WORKER, 'security.protocol': 'SASL_SSL', 'consumer.security.protocol': 'SASL_SSL',
    'consumer.sasl.mechanism': 'PLAIN', 'consumer.ssl.truststore.type': 'PEM', 'consumer.ssl.truststore.location': '/ca.pem',
    'consumer.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="w" password="wp";' },
  { ...JDBC, 'consumer.override.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required '
    + 'username="conn" password="c\\\\"p";', 'consumer.override.session.timeout.ms': '10000',
  'consumer.override.partition.assignment.strategy': 'org.apache.kafka.clients.consumer.RoundRobinAssignor' });
  expect(t.refused).toEqual([]);
  const c = t.connectors[0]!.config;
  expect(c.kafka).toEqual({ ssl: { ca: { file: '/ca.pem' } }, sasl: { mechanism: 'plain', username: 'conn', password: 'c"p' } });
  expect(c.consumer).toEqual({ sessionTimeoutMs: 10000, assignors: ['roundrobin'] });
  expect(t.lines.find((l) => l.key === 'security.protocol')?.status).toBe('ignored');
});

test('what KafkaJS cannot do is refused on the key that asks for it', () => {
  const t = translate({ ...WORKER, 'consumer.security.protocol': 'SASL_SSL', 'consumer.sasl.mechanism': 'GSSAPI',
    'consumer.ssl.keystore.type': 'JKS' }, { ...JDBC, 'consumer.override.isolation.level': 'read_uncommitted' });
  expect(refusals(t)).toEqual([
    'consumer.ssl.keystore.type: JKS stores are refused: KafkaJS reads PEM (convert with keytool / openssl)',
    'consumer.override.isolation.level: kafka-eos reads committed records only (read_committed)',
    'consumer.sasl.mechanism: SASL mechanism GSSAPI is refused: KafkaJS here does PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512',
  ]);
});

test('connector.client.config.override.policy None refuses consumer.override. keys', () => {
  const t = translate({ ...WORKER, 'connector.client.config.override.policy': 'None' }, { ...JDBC, 'consumer.override.group.id': 'g' });
  expect(refusals(t)).toEqual(['consumer.override.group.id: the worker\'s connector.client.config.override.policy (None) '
    + 'does not allow it']);
  const ok = translate(WORKER, { ...JDBC, 'consumer.override.group.id': 'legacy' });
  expect(ok.connectors[0]!.config.groupId).toBe('legacy');
});

test('converters: a connector\'s own replaces the worker\'s, with its registry settings', () => {
  const t = translate({ ...WORKER, 'value.converter.schemas.enable': 'false' }, { ...JDBC,
    'value.converter': 'io.confluent.connect.avro.AvroConverter', 'value.converter.schema.registry.url': 'http://reg:8081,http://reg2:8081',
    'value.converter.basic.auth.credentials.source': 'USER_INFO', 'value.converter.basic.auth.user.info': 'ru:rp:x',
    'value.converter.value.subject.name.strategy': 'io.confluent.kafka.serializers.subject.RecordNameStrategy',
    'value.converter.use.latest.version': 'true' });
  expect(t.refused).toEqual([]);
  const c = t.connectors[0]!.config;
  expect(c.valueConverter).toEqual({ type: 'avro', subjectNameStrategy: 'RecordName', useLatestVersion: true });
  expect(c.schemaRegistry).toEqual({ url: 'http://reg:8081', basicAuth: { username: 'ru', password: 'rp:x' } });
  expect(t.lines.find((l) => l.key === 'value.converter.schema.registry.url')?.status).toBe('differs');
  const json = translate({ ...WORKER, 'value.converter.schemas.enable': 'false' }, JDBC);
  expect(json.connectors[0]!.config.valueConverter).toEqual({ type: 'json' });
  const noUrl = translate(WORKER, { ...JDBC, 'value.converter': 'io.confluent.connect.protobuf.ProtobufConverter' });
  expect(refusals(noUrl)).toEqual(['value.converter: io.confluent.connect.protobuf.ProtobufConverter needs '
    + 'value.converter.schema.registry.url']);
});

test('JDBC URLs: MySQL / MariaDB, SQLite; what cannot be used is refused', () => {
  const of = (url: string) => translate(WORKER, { ...JDBC, 'connection.url': url, 'connection.user': 'u', 'connection.password': 'p' });
  expect(of('jdbc:mariadb://m:3307/db').connectors[0]!.config.sink).toMatchObject({
    knex: { client: 'mysql2', connection: { host: 'm', port: 3307, database: 'db', user: 'u' } } });
  expect(of('jdbc:mysql://m/db?user=x&password=y').connectors[0]!.config.sink).toMatchObject({
    knex: { client: 'mysql2', connection: { port: 3306, user: 'u', password: 'p' } } });
  expect(of('jdbc:sqlite:/data/x.db').connectors[0]!.config.sink).toMatchObject({
    knex: { client: 'sqlite3', connection: { filename: '/data/x.db' } } });
  expect(refusals(of('jdbc:sqlserver://h:1433;databaseName=x'))[0]).toMatch(/^connection.url: expected jdbc:postgresql/);
  expect(refusals(of('jdbc:sqlite::memory:'))[0]).toMatch(/in-memory SQLite database keeps no positions/);
  expect(refusals(of('jdbc:postgresql://h/db?currentSchema=s'))[0]).toMatch(/URL parameter currentSchema is not used/);
  expect(refusals(translate(WORKER, { ...JDBC, 'delete.enabled': 'true' }))).toEqual([
    'delete.enabled: delete.enabled=true needs pk.mode=record_key (as in Connect)']);
});

test('the HDFS sink connector: hdfs:// mapped to WebHDFS with a warning, formats, partitioners; Kerberos refused', () => {
  const HDFS = { name: 'h', 'connector.class': 'io.confluent.connect.hdfs3.Hdfs3SinkConnector', topics: 't', 'hdfs.url': 'hdfs://nn:8020',
    'flush.size': '3', 'topics.dir': 'data/', 'format.class': 'io.confluent.connect.hdfs3.avro.AvroFormat',
    'partitioner.class': 'io.confluent.connect.storage.partitioner.HourlyPartitioner', timezone: 'Europe/Paris', locale: 'en-US',
    'logs.dir': 'logs', 'rotate.interval.ms': '60000' };
  const t = translate(WORKER, HDFS);
  expect(t.refused).toEqual([]);
  expect(t.connectors[0]!.config.sink).toEqual({ type: 'hdfs', url: 'http://nn:9870', topicsDir: '/data', flushSize: 3,
    rotateIntervalMs: 60000, format: { type: 'avro' },
    partitioner: { type: 'time', pathFormat: "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH", durationMs: 3600000,
      timezone: 'Europe/Paris' } });
  expect(t.lines.find((l) => l.key === 'hdfs.url')).toMatchObject({ status: 'differs', note: expect.stringMatching(/http:\/\/nn:9870/) });
  const bad = translate(WORKER, { ...HDFS, 'hdfs.authentication.kerberos': 'true', 'hadoop.conf.dir': '/etc/hadoop',
    'partitioner.class': 'io.confluent.connect.storage.partitioner.FieldPartitioner', 'partition.field.name': 'a,b' });
  expect(refusals(bad).map((r) => r.split(':')[0]).sort()).toEqual(['hadoop.conf.dir', 'hdfs.authentication.kerberos',
    'partition.field.name', 'timezone']);
});

test('connector JSON: the REST shape or flat, values of any JSON scalar; which arguments are Connect files', () => {
  const w = file('w.properties', props(WORKER));
  const rest = file('rest.json', JSON.stringify({ name: 'r', config: { ...JDBC, name: undefined, 'tasks.max': 2, 'auto.create': true } }));
  const flat = file('flat.json', JSON.stringify({ ...JDBC, name: 'f' }));
  const t = translateConnect({ connectors: [rest, flat], worker: w });
  expect(t.refused).toEqual([]);
  expect(t.connectors.map((c) => [c.name, c.config.groupId])).toEqual([['r', 'connect-r'], ['f', 'connect-f']]);
  expect(t.connectors[0]!.config.sink).toMatchObject({ autoCreate: true });
  expect(isConnectInvocation([rest])).toBe(true);
  expect(isConnectInvocation([file('run.json', JSON.stringify({ brokers: ['b:1'], sink: {} }))])).toBe(false);
  expect(isConnectInvocation([w, rest])).toBe(true);
  const alone = translateConnect({ connectors: [rest] });
  expect(refusals(alone)).toEqual(['bootstrap.servers: the worker needs bootstrap.servers (--worker or --bootstrap-servers)']);
  expect(translateConnect({ connectors: [rest], bootstrapServers: 'x:1' }).connectors[0]!.config.brokers).toEqual(['x:1']);
  expect(() => translateConnect(connectInput([rest, w]))).toThrow(/a worker config is a \.properties file/);
  const twice = translateConnect({ connectors: [rest, rest], worker: w });
  expect(refusals(twice)).toEqual(['name: two connectors have this name']);
});

test('ssl keys under a protocol without TLS are named as ignored, and no TLS is used', () => {
  const t = translate({ ...WORKER, 'consumer.ssl.truststore.location': '/ca.pem', 'consumer.ssl.truststore.type': 'PEM' }, JDBC);
  expect(t.refused).toEqual([]);
  expect(t.connectors[0]!.config.kafka).toBeUndefined();
  expect(t.lines.filter((l) => l.key === 'consumer.ssl.truststore.location').map((l) => l.status)).toEqual(['supported', 'ignored']);
});

const ASSIGNOR = 'org.apache.kafka.clients.consumer.';

test('partition.assignment.strategy: Java class names in the order given, CooperativeStickyAssignor included', () => {
  const t = translate({ ...WORKER, 'consumer.partition.assignment.strategy': `${ASSIGNOR}RangeAssignor` },
    { ...JDBC, 'consumer.override.partition.assignment.strategy': ` ${ASSIGNOR}CooperativeStickyAssignor,${ASSIGNOR}RangeAssignor ` });
  expect(t.refused).toEqual([]);
  expect(t.connectors[0]!.config.consumer).toEqual({ assignors: ['cooperative-sticky', 'range'] });
  const bad = translate(WORKER, { ...JDBC, 'consumer.override.partition.assignment.strategy': `${ASSIGNOR}CooperativeSticky` });
  expect(refusals(bad)).toEqual([`consumer.override.partition.assignment.strategy: ${ASSIGNOR}CooperativeSticky: only RangeAssignor, `
    + 'RoundRobinAssignor, StickyAssignor and CooperativeStickyAssignor']);
});

test('group.protocol and group.remote.assignor; the other protocol\'s keys are refused, as Java\'s ConsumerConfig does', () => {
  const kip848 = translate({ ...WORKER, 'consumer.group.protocol': 'CONSUMER' },
    { ...JDBC, 'consumer.override.group.remote.assignor': 'uniform' });
  expect(kip848.refused).toEqual([]);
  expect(kip848.connectors[0]!.config.consumer).toEqual({ groupProtocol: 'consumer', groupRemoteAssignor: 'uniform' });
  // A worker's classic setting is refused for the connector that asks for KIP-848, and kept for one that does not.
  const mixed = translate({ ...WORKER, 'consumer.session.timeout.ms': '10000' },
    { ...JDBC, 'consumer.override.group.protocol': 'consumer',
      'consumer.override.partition.assignment.strategy': `${ASSIGNOR}RangeAssignor` },
    { ...JDBC, name: 'classic-sink', 'consumer.override.group.protocol': 'classic' });
  const why = 'not with group.protocol=consumer: the broker assigns and sets the session timeout and heartbeat interval (KIP-848)';
  expect(refusals(mixed)).toEqual([`consumer.override.partition.assignment.strategy: ${why}`, `consumer.session.timeout.ms: ${why}`]);
  expect(mixed.connectors[1]!.config.consumer).toEqual({ sessionTimeoutMs: 10000, groupProtocol: 'classic' });
  const classic = translate(WORKER, { ...JDBC, 'consumer.override.group.remote.assignor': 'range' });
  expect(refusals(classic)).toEqual(['consumer.override.group.remote.assignor: only with group.protocol=consumer (KIP-848)']);
  const unknown = translate(WORKER, { ...JDBC, 'consumer.override.group.protocol': 'cooperative',
    'consumer.override.group.remote.assignor': 'sticky' });
  expect(refusals(unknown)).toEqual(['consumer.override.group.protocol: classic or consumer',
    "consumer.override.group.remote.assignor: uniform or range (the broker's assignors)"]);
});

test('every typed key is checked as Connect\'s ConfigDef checks it: its type and range, named with Connect\'s message', () => {
  const t = translate({ ...WORKER, 'offset.flush.interval.ms': '10s', 'consumer.session.timeout.ms': '1e4' }, { ...JDBC,
    'tasks.max': 'abc', 'batch.size': '1000000000000', 'max.retries': '-1', 'auto.create': 'yes', 'connection.attempts': '0',
    'errors.log.enable': 'on', 'consumer.override.max.poll.interval.ms': '0', 'value.converter.schemas.enable': 'nope' });
  expect(refusals(t)).toEqual([
    'offset.flush.interval.ms: Invalid value 10s for configuration offset.flush.interval.ms: Not a number of type LONG',
    'consumer.session.timeout.ms: Invalid value 1e4 for configuration consumer.session.timeout.ms: Not a number of type INT',
    'tasks.max: Invalid value abc for configuration tasks.max: Not a number of type INT',
    'errors.log.enable: Invalid value on for configuration errors.log.enable: Expected value to be either true or false',
    'consumer.override.max.poll.interval.ms: Invalid value 0 for configuration consumer.override.max.poll.interval.ms: Value must be '
      + 'at least 1',
    'value.converter.schemas.enable: Invalid value nope for configuration value.converter.schemas.enable: Expected value to be either '
      + 'true or false',
    'batch.size: Invalid value 1000000000000 for configuration batch.size: Not a number of type INT',
    'max.retries: Invalid value -1 for configuration max.retries: Value must be at least 0',
    'auto.create: Invalid value yes for configuration auto.create: Expected value to be either true or false',
    'connection.attempts: Invalid value 0 for configuration connection.attempts: Value must be at least 1',
  ]);
  expect(t.connectors[0]!.config.sink).not.toHaveProperty('maxRowsPerStatement');
  // In range: taken as given; batch.size 0 (Connect flushes every record) is one row per statement.
  const ok = translate(WORKER, { ...JDBC, 'tasks.max': ' 4 ', 'batch.size': '0', 'max.retries': '0' });
  expect(ok.refused).toEqual([]);
  expect(ok.connectors[0]!.config.sink).toMatchObject({ maxRowsPerStatement: 1, retry: { retries: 0 } });
  const hdfs = translate(WORKER, { name: 'h', 'connector.class': 'io.confluent.connect.hdfs.HdfsSinkConnector', topics: 't',
    'hdfs.url': 'http://nn:9870', 'flush.size': '-5', 'rotate.interval.ms': '-1', 'hive.integration': 'maybe' });
  expect(refusals(hdfs)).toEqual([
    'flush.size: Invalid value -5 for configuration flush.size: Value must be at least 1',
    'hive.integration: Invalid value maybe for configuration hive.integration: Expected value to be either true or false',
  ]);
  // rotate.interval.ms -1 is Connect's default: no rotation by time.
  expect(translate(WORKER, { name: 'h', 'connector.class': 'io.confluent.connect.hdfs.HdfsSinkConnector', topics: 't',
    'hdfs.url': 'http://nn:9870', 'rotate.interval.ms': '-1' }).connectors[0]!.config.sink).not.toHaveProperty('rotateIntervalMs');
});

test('a table name a subscribed topic makes that is no plain identifier, or is the offsets table, is refused before anything runs', () => {
  const dotted = translate(WORKER, { ...JDBC, topics: 'orders,eu.payments', 'table.name.format': 'sink_${topic}' });
  expect(refusals(dotted)).toEqual([expect.stringMatching(
    /^table\.name\.format: for topic eu\.payments, the table name: "sink_eu\.payments" contains '\.'/)]);
  const long = translate(WORKER, { ...JDBC, topics: `t${'x'.repeat(70)}` });
  expect(refusals(long)).toEqual([expect.stringMatching(
    /^topics: for topic tx+, the table name \(table\.name\.format \$\{topic\}, the default\): "tx+" is longer than 63 bytes/)]);
  // The offsets table, by a topic's name or by a constant format, whatever the case.
  const offsets = translate(WORKER, { ...JDBC, topics: 'a,kafka_eos_offsets' });
  expect(refusals(offsets)).toEqual([expect.stringMatching(
    /^topics: for topic kafka_eos_offsets, the table name .*: "kafka_eos_offsets" is the sink's offsets table \(kafka_eos_offsets\)/)]);
  expect(refusals(translate(WORKER, { ...JDBC, 'table.name.format': 'KAFKA_EOS_OFFSETS' }))).toEqual([
    expect.stringMatching(/^table\.name\.format: the table name: "KAFKA_EOS_OFFSETS" is the sink's offsets table/)]);
  // topics.regex: the topics are known at the assignment (JdbcSink.open checks them then).
  expect(translate(WORKER, { ...JDBC, topics: '', 'topics.regex': 'eu\\..*' }).refused).toEqual([]);
});

test('task.shutdown.graceful.timeout.ms becomes every connector\'s shutdownTimeoutMs (one bound for the process); a bad value is refused',
  () => {
    const t = translate({ ...WORKER, 'task.shutdown.graceful.timeout.ms': '2500' }, JDBC, { ...JDBC, name: 'second' });
    expect(t.refused).toEqual([]);
    expect(t.connectors.map((c) => c.config.shutdownTimeoutMs)).toEqual([2500, 2500]);
    expect(t.lines.find((l) => l.key === 'task.shutdown.graceful.timeout.ms')?.status).toBe('supported');
    expect(translate(WORKER, JDBC).connectors[0]!.config.shutdownTimeoutMs).toBeUndefined(); // run's default, 30000
    expect(refusals(translate({ ...WORKER, 'task.shutdown.graceful.timeout.ms': '-5' }, JDBC)))
      .toEqual(['task.shutdown.graceful.timeout.ms: a positive number of milliseconds']);
  });
