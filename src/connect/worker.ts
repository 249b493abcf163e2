/**
 * The keys of a Connect worker config (`connect-standalone.properties`, `connect-distributed.properties`) and the
 * keys every connector shares (ConnectorConfig, SinkConnectorConfig), with how `kafka-eos run` understands them.
 * A sink connector's consumer takes `bootstrap.servers` and the `consumer.`-prefixed keys of the worker, then the
 * connector's `consumer.override.` keys (Connect's Worker.baseConsumerConfigs / connectorClientConfigOverrides);
 * the worker's own top-level security keys are for its internal clients, as in Connect.
 */
import { SECURITY_KEYS } from './client';
import { BOOLEAN, CLASS, differs as D, ignored as I, INT, LIST, LONG, refused as R, SHORT, supported as S, type ConfigType,
  type KeyDoc } from './keys';

const REST_NOTE = 'kafka-eos run has no REST API: it reads the connector files it is given';
const REST = I(REST_NOTE);
const DISTRIBUTED_NOTE = 'distributed mode\'s internal topics: each connector\'s positions live in its sink, with the data';
const DISTRIBUTED = I(DISTRIBUTED_NOTE);
const distributed = (def: ConfigType) => I(DISTRIBUTED_NOTE, def);
const SOURCE = I('source connectors only');

/** Worker keys (not prefixed). `key.converter.*`, `value.converter.*` and `consumer.*` have their own tables. */
export const WORKER_KEYS: Readonly<Record<string, KeyDoc>> = {
  'bootstrap.servers': S('the brokers (host:port list)', LIST),
  'key.converter': S('the key converter of every connector (docs/converters.md)', CLASS),
  'value.converter': S('the value converter of every connector (docs/converters.md)', CLASS),
  'header.converter': D('headers stay bytes (the sinks read them as UTF-8 text where asked)', CLASS),
  'internal.key.converter': I('deprecated in Connect: internal topics are not used'),
  'internal.value.converter': I('deprecated in Connect: internal topics are not used'),
  'internal.key.converter.schemas.enable': I('deprecated in Connect: internal topics are not used'),
  'internal.value.converter.schemas.enable': I('deprecated in Connect: internal topics are not used'),
  'offset.storage.file.filename': I('standalone offsets of source connectors: sink positions live in the sink, with the data'),
  'offset.flush.interval.ms': I('positions are committed with every write, in the same transaction', LONG()),
  'offset.flush.timeout.ms': I('positions are committed with every write, in the same transaction', LONG()),
  'plugin.path': I('no plugins: the JDBC and HDFS sinks are built in', LIST),
  'plugin.discovery': I('no plugins: the JDBC and HDFS sinks are built in'),
  'rest.port': I(REST_NOTE, INT()), 'rest.host.name': REST, 'listeners': I(REST_NOTE, LIST), 'rest.advertised.host.name': REST,
  'rest.advertised.port': I(REST_NOTE, INT()),
  'rest.advertised.listener': REST, 'admin.listeners': REST, 'access.control.allow.origin': REST, 'access.control.allow.methods': REST,
  'rest.extension.classes': REST, 'response.http.headers.config': REST,
  'group.id': DISTRIBUTED, 'config.storage.topic': DISTRIBUTED, 'offset.storage.topic': DISTRIBUTED, 'status.storage.topic': DISTRIBUTED,
  'config.storage.replication.factor': distributed(SHORT()), 'offset.storage.replication.factor': distributed(SHORT()),
  'status.storage.replication.factor': distributed(SHORT()), 'offset.storage.partitions': distributed(INT()),
  'status.storage.partitions': distributed(INT()),
  'scheduled.rebalance.max.delay.ms': distributed(INT(0)), 'connect.protocol': DISTRIBUTED, 'worker.sync.timeout.ms': distributed(INT()),
  'worker.unsync.backoff.ms': distributed(INT()), 'heartbeat.interval.ms': distributed(INT()), 'session.timeout.ms': distributed(INT()),
  'rebalance.timeout.ms': distributed(INT()),
  'exactly.once.source.support': SOURCE, 'topic.creation.enable': I('source connectors only', BOOLEAN),
  'task.shutdown.graceful.timeout.ms': S('shutdownTimeoutMs: the bound of the whole process\'s stop after SIGINT/SIGTERM, all '
    + 'connectors together (total, not per task, as in Connect); past it the process exits 3 naming what each connector '
    + 'left uncommitted. Unset: 30000 (Connect\'s default is 5000)', LONG()),
  'connector.client.config.override.policy': S('All (default), Principal (security keys only) or None: which consumer.override. '
    + 'keys a connector may set'),
  'config.providers': R('config providers (${file:...}) are not resolved: write the values into the files', LIST),
  'metric.reporters': I('metrics: kafka-eos run --metrics-port serves Prometheus metrics', LIST),
  'metrics.sample.window.ms': I('metrics: kafka-eos run --metrics-port', LONG(0)),
  'metrics.num.samples': I('metrics: kafka-eos run --metrics-port', INT(1)),
  'metrics.recording.level': I('metrics: kafka-eos run --metrics-port'),
  'client.id': I('the worker\'s own clients; a connector\'s consumer is connector-consumer-<name>-0 (consumer.client.id)'),
  'client.dns.lookup': I('Node.js resolves the brokers\' names'),
  ...Object.fromEntries(Object.keys(SECURITY_KEYS).map((k) => [k, I('the worker\'s own clients (internal topics); a connector\'s '
    + `consumer takes consumer.${k}, as in Connect`)])),
};

/** Keys every connector has (beside its sink's own, `key.converter.*`, `value.converter.*` and `consumer.override.*`). */
export const CONNECTOR_KEYS: Readonly<Record<string, KeyDoc>> = {
  'name': S('the connector: its consumer group is connect-<name>, as Connect names it'),
  'connector.class': S('io.confluent.connect.jdbc.JdbcSinkConnector, io.confluent.connect.hdfs.HdfsSinkConnector (or hdfs3)'),
  'tasks.max': D('one consumer per connector in this process, one batch at a time; more processes with the same files share the '
    + 'group connect-<name> (each is one task)', INT(1)),
  'topics': S('the topics', LIST),
  'topics.regex': D('matched (whole name, JavaScript regex syntax) against the topics that exist when the consumer starts'),
  'key.converter': S('this connector\'s key converter (over the worker\'s)', CLASS),
  'value.converter': S('this connector\'s value converter (over the worker\'s)', CLASS),
  'header.converter': D('headers stay bytes', CLASS),
  'config.action.reload': I('files are read once at start'),
  'transforms': R('single message transforms (SMTs) are not supported'),
  'predicates': R('predicates (of SMTs) are not supported'),
  'errors.tolerance': D('none (default): a bad record stops the connector; all: it is skipped, or dead-lettered with '
    + 'errors.deadletterqueue.topic.name. Covers conversion and records the sink refuses (a record\'s fault, as the JDBC sink\'s '
    + 'errant record reporter); failures that are no record\'s fault stop the connector'),
  'errors.deadletterqueue.topic.name': S('the dead letter topic (with errors.tolerance=all)'),
  'errors.deadletterqueue.topic.replication.factor': D('the topic is not created: it must exist, or the brokers create it', SHORT()),
  'errors.deadletterqueue.context.headers.enable': D('a dead letter always has the headers kafka-eos.dlq.source.topic, '
    + '.source.partition, .source.offset and kafka-eos.dlq.error (Connect\'s are __connect.errors.*)', BOOLEAN),
  'errors.log.enable': S('a skipped or dead-lettered record is logged (a warning line)', BOOLEAN),
  'errors.log.include.messages': D('the log line names topic, partition, offset and the error, never the record', BOOLEAN),
  'errors.retry.timeout': D('a failing record is not retried before errors.tolerance applies (transient database errors are, '
    + 'by max.retries)', LONG()),
  'errors.retry.delay.max.ms': D('see errors.retry.timeout', LONG()),
};
