/**
 * The keys of a Connect worker config (`connect-standalone.properties`, `connect-distributed.properties`) and the
 * keys every connector shares (ConnectorConfig, SinkConnectorConfig), with how `kafka-eos run` understands them.
 * A sink connector's consumer takes `bootstrap.servers` and the `consumer.`-prefixed keys of the worker, then the
 * connector's `consumer.override.` keys (Connect's Worker.baseConsumerConfigs / connectorClientConfigOverrides);
 * the worker's own top-level security keys are for its internal clients, as in Connect.
 */
import { SECURITY_KEYS } from './client';
import { differs as D, ignored as I, refused as R, supported as S, type KeyDoc } from './keys';

const REST = I('kafka-eos run has no REST API: it reads the connector files it is given');
const DISTRIBUTED = I('distributed mode\'s internal topics: each connector\'s positions live in its sink, with the data');
const SOURCE = I('source connectors only');

/** Worker keys (not prefixed). `key.converter.*`, `value.converter.*` and `consumer.*` have their own tables. */
export const WORKER_KEYS: Readonly<Record<string, KeyDoc>> = {
  'bootstrap.servers': S('the brokers (host:port list)'),
  'key.converter': S('the key converter of every connector (docs/converters.md)'),
  'value.converter': S('the value converter of every connector (docs/converters.md)'),
  'header.converter': D('headers stay bytes (the sinks read them as UTF-8 text where asked)'),
  'internal.key.converter': I('deprecated in Connect: internal topics are not used'),
  'internal.value.converter': I('deprecated in Connect: internal topics are not used'),
  'internal.key.converter.schemas.enable': I('deprecated in Connect: internal topics are not used'),
  'internal.value.converter.schemas.enable': I('deprecated in Connect: internal topics are not used'),
  'offset.storage.file.filename': I('standalone offsets of source connectors: sink positions live in the sink, with the data'),
  'offset.flush.interval.ms': I('positions are committed with every write, in the same transaction'),
  'offset.flush.timeout.ms': I('positions are committed with every write, in the same transaction'),
  'plugin.path': I('no plugins: the JDBC and HDFS sinks are built in'),
  'plugin.discovery': I('no plugins: the JDBC and HDFS sinks are built in'),
  'rest.port': REST, 'rest.host.name': REST, 'listeners': REST, 'rest.advertised.host.name': REST, 'rest.advertised.port': REST,
  'rest.advertised.listener': REST, 'admin.listeners': REST, 'access.control.allow.origin': REST, 'access.control.allow.methods': REST,
  'rest.extension.classes': REST, 'response.http.headers.config': REST,
  'group.id': DISTRIBUTED, 'config.storage.topic': DISTRIBUTED, 'offset.storage.topic': DISTRIBUTED, 'status.storage.topic': DISTRIBUTED,
  'config.storage.replication.factor': DISTRIBUTED, 'offset.storage.replication.factor': DISTRIBUTED,
  'status.storage.replication.factor': DISTRIBUTED, 'offset.storage.partitions': DISTRIBUTED, 'status.storage.partitions': DISTRIBUTED,
  'scheduled.rebalance.max.delay.ms': DISTRIBUTED, 'connect.protocol': DISTRIBUTED, 'worker.sync.timeout.ms': DISTRIBUTED,
  'worker.unsync.backoff.ms': DISTRIBUTED, 'heartbeat.interval.ms': DISTRIBUTED, 'session.timeout.ms': DISTRIBUTED,
  'rebalance.timeout.ms': DISTRIBUTED,
  'exactly.once.source.support': SOURCE, 'topic.creation.enable': SOURCE,
  'task.shutdown.graceful.timeout.ms': S('shutdownTimeoutMs: the bound of the whole process\'s stop after SIGINT/SIGTERM, all '
    + 'connectors together (total, not per task, as in Connect); past it the process exits 3 naming what each connector '
    + 'left uncommitted. Unset: 30000 (Connect\'s default is 5000)'),
  'connector.client.config.override.policy': S('All (default), Principal (security keys only) or None: which consumer.override. '
    + 'keys a connector may set'),
  'config.providers': R('config providers (${file:...}) are not resolved: write the values into the files'),
  'metric.reporters': I('metrics: kafka-eos run --metrics-port serves Prometheus metrics'),
  'metrics.sample.window.ms': I('metrics: kafka-eos run --metrics-port'), 'metrics.num.samples': I('metrics: kafka-eos run --metrics-port'),
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
    + 'group connect-<name> (each is one task)'),
  'topics': S('the topics'),
  'topics.regex': D('matched (whole name, JavaScript regex syntax) against the topics that exist when the consumer starts'),
  'key.converter': S('this connector\'s key converter (over the worker\'s)'),
  'value.converter': S('this connector\'s value converter (over the worker\'s)'),
  'header.converter': D('headers stay bytes'),
  'config.action.reload': I('files are read once at start'),
  'transforms': R('single message transforms (SMTs) are not supported'),
  'predicates': R('predicates (of SMTs) are not supported'),
  'errors.tolerance': D('none (default): a bad record stops the connector; all: it is skipped, or dead-lettered with '
    + 'errors.deadletterqueue.topic.name. Covers conversion and records the sink refuses (a record\'s fault, as the JDBC sink\'s '
    + 'errant record reporter); failures that are no record\'s fault stop the connector'),
  'errors.deadletterqueue.topic.name': S('the dead letter topic (with errors.tolerance=all)'),
  'errors.deadletterqueue.topic.replication.factor': D('the topic is not created: it must exist, or the brokers create it'),
  'errors.deadletterqueue.context.headers.enable': D('a dead letter always has the headers kafka-eos.dlq.source.topic, '
    + '.source.partition, .source.offset and kafka-eos.dlq.error (Connect\'s are __connect.errors.*)'),
  'errors.log.enable': S('a skipped or dead-lettered record is logged (a warning line)'),
  'errors.log.include.messages': D('the log line names topic, partition, offset and the error, never the record'),
  'errors.retry.timeout': D('a failing record is not retried before errors.tolerance applies (transient database errors are, '
    + 'by max.retries)'),
  'errors.retry.delay.max.ms': D('see errors.retry.timeout'),
};
