/**
 * demo --connect's files (src/cli/demo/connect.ts): what the demo writes is accepted by `kafka-eos run`'s Connect
 * translation as it stands (no refused key, no warning) and becomes the JDBC sink the verification expects; the
 * database URLs become JDBC URLs; the refused combinations are typed errors.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectRunConfigs } from '../../../src/cli/connect-run';
import { checkConnectOptions, formatConnectFiles, jdbcConnection, writeConnectFiles } from '../../../src/cli/demo/connect';
import { ConfigError } from '../../../src/consumer/options';

let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'demo-connect-unit-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const settings = (db: string) => ({
  dir, bootstrap: ['127.0.0.1:9092', '127.0.0.1:9093'], db, table: 'flights_c', topic: 'flights', groupId: 'g-1',
  sessionTimeoutMs: 3000, heartbeatIntervalMs: 500,
});

test('the files run as they are: JDBC sink, pk.mode=kafka, auto.create, the demo group and consumer timings', () => {
  const db = path.join(dir, 'demo.sqlite');
  const files = writeConnectFiles(settings(db));
  const printed: string[] = [];
  const [c] = connectRunConfigs([files.worker, files.connector], {}, (l) => printed.push(l));
  expect(printed.filter((l) => /warning|refused/.test(l))).toEqual([]);
  const config = c!.config as unknown as Record<string, any>;
  expect(c!.label).toBe('kafka-eos-demo-jdbc-sink');
  expect(config.groupId).toBe('g-1');
  expect(config.brokers).toEqual(['127.0.0.1:9092', '127.0.0.1:9093']);
  expect(config.consumer).toMatchObject({ sessionTimeoutMs: 3000, heartbeatIntervalMs: 500 });
  expect(config.sink).toMatchObject({
    type: 'jdbc', knex: { client: 'sqlite3', connection: { filename: db } }, tableNameFormat: 'flights_c', insertMode: 'insert',
    pkMode: 'kafka', autoCreate: true,
  });
  expect(statSync(files.connector).mode & 0o077).toBe(0);
});

test('a PostgreSQL or MariaDB --db becomes a jdbc: URL with connection.user/password; the password is masked when printed', () => {
  expect(jdbcConnection('postgresql://u%40x:p%3Aw@127.0.0.1:5433/demo')).toEqual(
    { url: 'jdbc:postgresql://127.0.0.1:5433/demo', user: 'u@x', password: 'p:w' });
  expect(jdbcConnection('mariadb://root@127.0.0.1/demo')).toEqual({ url: 'jdbc:mariadb://127.0.0.1/demo', user: 'root' });
  expect(jdbcConnection('relative.sqlite').url).toBe(`jdbc:sqlite:${path.resolve('relative.sqlite')}`);
  const files = writeConnectFiles(settings('postgresql://kafka_eos:secret@127.0.0.1:5432/kafka_eos_x'));
  const [c] = connectRunConfigs([files.worker, files.connector], {}, () => undefined);
  expect((c!.config as unknown as Record<string, any>).sink.knex).toEqual({
    client: 'pg', connection: { host: '127.0.0.1', port: 5432, database: 'kafka_eos_x', user: 'kafka_eos', password: 'secret' },
  });
  const shown = formatConnectFiles(files);
  expect(shown).toContain('connection.password=******');
  expect(shown).not.toContain('secret');
});

test('--connect with --sink hdfs or a non-classic protocol is a ConfigError (CONFIG_INVALID); plain options pass', () => {
  expect(() => checkConnectOptions({ connect: true, sink: 'hdfs' })).toThrow(ConfigError);
  expect(() => checkConnectOptions({ connect: true, groupProtocol: 'cooperative' })).toThrow(/CONFIG_INVALID|classic group protocol/);
  expect(() => checkConnectOptions({ connect: true, sink: 'sql', groupProtocol: 'classic' })).not.toThrow();
  expect(() => checkConnectOptions({ connect: false, sink: 'hdfs' })).not.toThrow();
});
