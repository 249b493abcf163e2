/**
 * `kafka-eos broker`'s own parsing (src/cli/broker.ts): users, topics, configs and the MockCluster options they make;
 * every refusal is KafkaEosError CONFIG_INVALID (the CLI exits 2 with it). The process itself:
 * test/integration/cli/broker.test.ts.
 */
import { brokerClusterOptions, parseConfigs, parseTopic, parseUser } from '../../src/cli/broker';

const base = { port: 9092, brokers: 3, host: '127.0.0.1' };

test('users: name:password[:mechanism]; the password may hold ":" and "="; the mechanism is the last part when it names one', () => {
  expect(parseUser('test:testtest')).toEqual({ name: 'test', password: 'testtest' });
  expect(parseUser('testscram:testtestscram=256:SCRAM-SHA-256'))
    .toEqual({ name: 'testscram', password: 'testtestscram=256', mechanism: 'SCRAM-SHA-256' });
  expect(parseUser('a:b:c:plain')).toEqual({ name: 'a', password: 'b:c', mechanism: 'PLAIN' });
  expect(parseUser('a:b:c')).toEqual({ name: 'a', password: 'b:c' });
  expect(() => parseUser('nopassword')).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  expect(() => parseUser('a::PLAIN')).toThrow(/the password is empty/);
});

test('topics: name:partitions[:replication]', () => {
  expect(parseTopic('orders:3')).toEqual({ name: 'orders', partitions: 3, replicationFactor: -1 });
  expect(parseTopic('orders:3:2')).toEqual({ name: 'orders', partitions: 3, replicationFactor: 2 });
  expect(() => parseTopic('orders')).toThrow(/expected name:partitions\[:replication\]/);
  expect(() => parseTopic('orders:3:2:1')).toThrow(/expected name:partitions\[:replication\]/);
  expect(() => parseTopic('orders:x')).toThrow(/partitions must be a positive integer/);
});

test('configs: key=value, a value may hold "="; a key twice or no "=" is refused', () => {
  expect(parseConfigs(['log.retention.ms=1000', 'sasl.x=a=b'])).toEqual({ 'log.retention.ms': '1000', 'sasl.x': 'a=b' });
  expect(() => parseConfigs(['a=1', 'a=2'])).toThrow(/--config a is given twice/);
  expect(() => parseConfigs(['novalue'])).toThrow(/expected key=value/);
});

test('listeners: PLAINTEXT always, SSL / SASL_PLAINTEXT / SASL_SSL when their ports are given, in that order', () => {
  const o = brokerClusterOptions({ ...base, saslPort: 9102, users: ['admin:admin'] });
  expect(o.listeners).toEqual([{ securityProtocol: 'PLAINTEXT', port: 9092 }, { securityProtocol: 'SASL_PLAINTEXT', port: 9102 }]);
  expect(o.sasl).toEqual({ mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], users: [{ name: 'admin', password: 'admin' }] });
  expect(o.ssl).toBeUndefined();
  expect(brokerClusterOptions({ ...base, saslPort: 1, saslMechanisms: 'plain, scram-sha-512' }).sasl?.mechanisms)
    .toEqual(['PLAIN', 'SCRAM-SHA-512']);
});

test.each([
  [{ sslPort: 9093 }, /--ssl-cert is needed/],
  [{ saslSslPort: 9094, sslCert: '/no/such/cert.pem', sslKey: '/no/such/key.pem' }, /--ssl-cert \/no\/such\/cert.pem: ENOENT/],
  [{ sslCert: 'c.pem' }, /--ssl-cert and --ssl-key need --ssl-port or --sasl-ssl-port/],
  [{ users: ['a:b'] }, /--user and --sasl-mechanisms need --sasl-port or --sasl-ssl-port/],
  [{ saslPort: 1, saslMechanisms: 'GSSAPI' }, /--sasl-mechanisms: GSSAPI is not one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512/],
])('%j is refused', (extra, message) => {
  expect(() => brokerClusterOptions({ ...base, ...extra })).toThrow(message);
});
