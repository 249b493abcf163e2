/** The run config's group protocol fields: validated, described by --print-schema, passed on as the SDK's options. */
import { printableSchema, validateRunConfig } from '../../../src/cli/connector/config';
import { ConfigError, validateOptions } from '../../../src/consumer/options';

const base = { brokers: ['127.0.0.1:9092'], groupId: 'g', topics: ['t'], sink: { type: 'sql', knex: { client: 'sqlite3',
  connection: { filename: ':memory:' } }, table: 't', mode: 'insert',
  mapping: { columns: { id: { path: 'id', type: 'integer' } } } } };

test('cooperative-sticky, groupProtocol and groupRemoteAssignor are accepted and kept as given', () => {
  const coop = validateRunConfig({ ...base, consumer: { assignors: ['cooperative-sticky', 'range'] } });
  expect(coop.consumer).toEqual({ assignors: ['cooperative-sticky', 'range'] });
  const kip848 = validateRunConfig({ ...base, consumer: { groupProtocol: 'consumer', groupRemoteAssignor: 'uniform' } });
  expect(kip848.consumer).toEqual({ groupProtocol: 'consumer', groupRemoteAssignor: 'uniform' });
  // The consumer section is what the SDK takes: its own checks accept it as is.
  for (const c of [coop, kip848]) {
    expect(() => validateOptions({ brokers: c.brokers, groupId: c.groupId, topics: c.topics, ...c.consumer,
      delivery: 'at-least-once', recordHandler: async () => undefined })).not.toThrow();
  }
});

test('a protocol or assignor the SDK does not have is refused, naming the field and the choices', () => {
  const bad = (consumer: object) => {
    try { validateRunConfig({ ...base, consumer }); } catch (e) { return (e as ConfigError).message; }
    return 'accepted';
  };
  expect(bad({ groupProtocol: 'cooperative' })).toBe('consumer.groupProtocol: expected one of "classic", "consumer"');
  expect(bad({ assignors: ['CooperativeSticky'] }))
    .toBe('consumer.assignors.0: expected one of "range", "roundrobin", "sticky", "cooperative-sticky"');
  expect(bad({ groupRemoteAssignor: 'sticky' })).toBe('consumer.groupRemoteAssignor: expected one of "uniform", "range"');
});

test('--print-schema lists the fields with their choices', () => {
  const schema = printableSchema();
  expect(schema).toMatch(/consumer\.assignors +\("range" \| "roundrobin" \| "sticky" \| "cooperative-sticky"\)\[\] +optional .*KIP-429/);
  expect(schema).toMatch(/consumer\.groupProtocol +"classic" \| "consumer" +optional .*KIP-848/);
  expect(schema).toMatch(/consumer\.groupRemoteAssignor +"uniform" \| "range" +optional .*group\.remote\.assignor/);
});

describe('table names are checked before anything connects', () => {
  const jdbc = (sink: object, topics = ['orders', 'eu.payments']) => {
    try {
      const knex = { client: 'sqlite3', connection: { filename: 'x.db' } };
      validateRunConfig({ ...base, topics, sink: { type: 'jdbc', knex, ...sink } });
    } catch (e) { return `${(e as ConfigError).code} ${(e as ConfigError).message}`; }
    return 'accepted';
  };
  test('a JDBC sink: the table of every topic is a plain identifier and not the offsets table', () => {
    expect(jdbc({ tableNameFormat: 'sink_${topic}' })).toMatch(
      /^CONFIG_INVALID sink\.tableNameFormat: for topic eu\.payments: "sink_eu\.payments" contains '\.'/);
    expect(jdbc({}, ['orders', 'kafka_eos_offsets'])).toMatch(
      /^CONFIG_INVALID sink\.tableNameFormat: for topic kafka_eos_offsets: "kafka_eos_offsets" is the sink's offsets table/);
    expect(jdbc({ offsetsTable: 'Positions' }, ['a', 'positions'])).toMatch(/for topic positions: "positions" is the sink's offsets table/);
    expect(jdbc({ tableNameFormat: 'Kafka_Eos_Offsets' }, ['a'])).toMatch(
      /^CONFIG_INVALID sink\.tableNameFormat: "Kafka_Eos_Offsets" is the sink's offsets table/);
    expect(jdbc({ tableNameFormat: 'sink_${topic}' }, ['orders', 'eu_payments'])).toBe('accepted');
    expect(jdbc({})).toMatch(/for topic eu\.payments/);
  });
  test('a SQL sink: its table is not the offsets table, whatever the case', () => {
    let message = 'accepted';
    try {
      validateRunConfig({ ...base, sink: { ...base.sink, table: 'KAFKA_EOS_OFFSETS' } });
    } catch (e) { message = (e as Error).message; }
    expect(message).toMatch(/^sink\.table: "KAFKA_EOS_OFFSETS" is the sink's offsets table \(kafka_eos_offsets, compared without case\)/);
  });
});

test('a missing key says it is required; a value of the wrong type keeps the type error', () => {
  const message = (config: object) => {
    try { validateRunConfig(config); } catch (e) { return (e as ConfigError).message; }
    return 'accepted';
  };
  const { groupId: _groupId, ...noGroup } = base;
  expect(message(noGroup)).toBe('groupId: required: expected string (see kafka-eos run --print-schema)');
  expect(message({ ...base, sink: { type: 'kafka' } })).toBe('sink.topic: required: expected string (see kafka-eos run --print-schema)');
  expect(message({ ...base, groupId: 7 })).toMatch(/^groupId: .*expected string, received number/);
});
