/**
 * `kafka-eos demo --connect`: the demo run the Kafka Connect way. The demo writes a Connect worker `.properties`
 * (bootstrap.servers of its embedded cluster, JsonConverter with schemas) and a Confluent JDBC sink connector
 * `.properties` (io.confluent.connect.jdbc.JdbcSinkConnector, pk.mode=kafka, insert.mode=insert, auto.create) into its
 * work directory, prints both, and runs each consumer process as `kafka-eos run <worker> <connector>` (src/connect,
 * docs/connect.md) — the command a Connect user would run — instead of its own worker.ts.
 *
 * What changes for the verification: the JDBC sink creates the table from the record schema, with the Kafka
 * coordinates as Connect names them (`__connect_topic`, `__connect_partition`, `__connect_offset`, the primary key of
 * pk.mode=kafka) instead of `kafka_topic`/`kafka_partition`/`kafka_offset`; every check runs on those. The producer
 * writes the connect-json envelope (`{schema, payload}`), which the JDBC sink needs as Connect's does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { Knex } from 'knex';
import { ConfigError } from '../../consumer/options';
import { isMysql, isPostgres } from './db';

/** The connector's name: its consumer group would be connect-<name>; the demo overrides it with its own group id. */
export const DEMO_CONNECTOR_NAME = 'kafka-eos-demo-jdbc-sink';

/** The Kafka coordinate columns of a table the JDBC sink created with pk.mode=kafka (jdbc-columns.ts KAFKA_PK_DEFAULTS). */
export const CONNECT_COORDINATES = { topic: '__connect_topic', partition: '__connect_partition', offset: '__connect_offset' } as const;

/** The demo options `--connect` depends on. */
export interface DemoConnectChoice { connect?: boolean; sink?: string; groupProtocol?: string }

/**
 * Refuses what `--connect` cannot mean: another sink than SQL (the files are a JDBC sink connector's; the HDFS
 * connector is not wired into the demo), or a group protocol other than classic (Connect's sink tasks use the
 * classic protocol; CooperativeStickyAssignor is refused by `run` as well). @throws ConfigError CONFIG_INVALID
 */
export function checkConnectOptions(o: DemoConnectChoice): void {
  if (!o.connect) return;
  if ((o.sink ?? 'sql') !== 'sql') {
    throw new ConfigError('--connect', `runs the Confluent JDBC sink connector into SQL (SQLite, or --db): not with --sink ${o.sink}`);
  }
  if ((o.groupProtocol ?? 'classic') !== 'classic') {
    throw new ConfigError('--connect',
      `Kafka Connect's sink tasks use the classic group protocol: not with --group-protocol ${o.groupProtocol}`);
  }
}

/** The demo's database (a SQLite file, postgresql:// or mysql:// / mariadb:// URL) as a JDBC URL plus user and password. */
export function jdbcConnection(db: string): { url: string; user?: string; password?: string } {
  if (!isPostgres(db) && !isMysql(db)) return { url: `jdbc:sqlite:${path.resolve(db)}` };
  const u = new URL(db);
  const scheme = isPostgres(db) ? 'postgresql' : u.protocol === 'mariadb:' ? 'mariadb' : 'mysql';
  return {
    url: `jdbc:${scheme}://${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`,
    ...(u.username ? { user: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
}

/** What the demo's Connect files say. */
export interface DemoConnectSettings {
  /** The work directory the files are written to. */
  dir: string;
  bootstrap: string[];
  db: string;
  table: string;
  topic: string;
  groupId: string;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
}

/** The two files written, with their text. */
export interface DemoConnectFiles { worker: string; connector: string; workerText: string; connectorText: string }

/** Writes the worker and connector `.properties` into `s.dir`. */
export function writeConnectFiles(s: DemoConnectSettings): DemoConnectFiles {
  const worker = path.join(s.dir, 'connect-standalone.properties');
  const connector = path.join(s.dir, 'jdbc-sink.properties');
  const workerText = [
    '# Kafka Connect worker, as connect-standalone reads it (written by kafka-eos demo --connect)',
    `bootstrap.servers=${s.bootstrap.join(',')}`,
    'key.converter=org.apache.kafka.connect.storage.StringConverter',
    'value.converter=org.apache.kafka.connect.json.JsonConverter',
    'value.converter.schemas.enable=true',
    '# source connectors\' offsets: no effect on a sink (kafka-eos keeps positions in the database)',
    `offset.storage.file.filename=${path.join(s.dir, 'connect.offsets')}`,
    `consumer.session.timeout.ms=${s.sessionTimeoutMs}`,
    `consumer.heartbeat.interval.ms=${s.heartbeatIntervalMs}`,
    'consumer.fetch.max.wait.ms=200',
    '',
  ].join('\n');
  const jdbc = jdbcConnection(s.db);
  const escape = (v: string) => v.replace(/\\/g, '\\\\');
  const connectorText = [
    '# Confluent JDBC sink connector (written by kafka-eos demo --connect)',
    `name=${DEMO_CONNECTOR_NAME}`,
    'connector.class=io.confluent.connect.jdbc.JdbcSinkConnector',
    `topics=${s.topic}`,
    `connection.url=${escape(jdbc.url)}`,
    ...(jdbc.user !== undefined ? [`connection.user=${escape(jdbc.user)}`] : []),
    ...(jdbc.password !== undefined ? [`connection.password=${escape(jdbc.password)}`] : []),
    `table.name.format=${s.table}`,
    'insert.mode=insert',
    '# the Kafka coordinates are the primary key: a record written twice would be refused, never duplicated',
    'pk.mode=kafka',
    'auto.create=true',
    '# the demo\'s group (by default connect-<name>), so that each run starts afresh',
    `consumer.override.group.id=${s.groupId}`,
    '',
  ].join('\n');
  writeFileSync(worker, workerText, { mode: 0o600 });
  writeFileSync(connector, connectorText, { mode: 0o600 });
  return { worker, connector, workerText, connectorText };
}

/** The files as the demo prints them (the connection password masked). */
export function formatConnectFiles(f: DemoConnectFiles): string {
  const body = (text: string) => text.trimEnd().split('\n').map((l) => `    ${l.replace(/^(connection\.password=).*/, '$1******')}`);
  return [
    `Kafka Connect worker: ${f.worker}`, ...body(f.workerText),
    `JDBC sink connector: ${f.connector}`, ...body(f.connectorText),
    `each consumer process runs: kafka-eos run ${f.worker} ${f.connector}`,
  ].join('\n');
}

/** Events of a `kafka-eos run` process, read from its log lines. */
export interface ConnectWorkerEvents {
  /** The partitions the process owns now (after its `assigned:` / `revoked:` lines). */
  owned(partitions: number[]): void;
}

/**
 * Starts `kafka-eos run <worker> <connector>` (this package's CLI, with this Node.js) as a consumer process. No IPC
 * channel: the demo stops it with SIGTERM, as a user would (stopWorkers). Its stdout is read for its assignment;
 * its stderr (warnings, errors) is the demo's.
 */
export function spawnConnectWorker(files: DemoConnectFiles, events: ConnectWorkerEvents): ChildProcess {
  const cli = path.join(__dirname, '..', 'index.js');
  const child = spawn(process.execPath, [cli, 'run', files.worker, files.connector], { stdio: ['ignore', 'pipe', 'inherit'] });
  const owned = new Set<number>();
  const partitionsOf = (list: string) => [...list.matchAll(/-(\d+)(?:,|$)/g)].map((m) => Number(m[1]));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    // `kafka-eos run [<connector>]: assigned: flights-0, flights-2` (run.ts)
    const m = /^kafka-eos run(?: \[[^\]]*\])?: (assigned|revoked): (.*)$/.exec(line);
    if (m) {
      for (const p of partitionsOf(m[2]!)) { if (m[1] === 'assigned') owned.add(p); else owned.delete(p); }
      events.owned([...owned].sort((a, b) => a - b));
    }
  });
  return child;
}

/** Records sunk so far by `groupId`: the sum of its stored next offsets (0 before the offsets table exists). */
export async function sunkRows(knex: Knex, offsetsTable: string, groupId: string, topic: string): Promise<number> {
  if (!(await knex.schema.hasTable(offsetsTable))) return 0;
  const [row] = await knex(offsetsTable).where({ group_id: groupId, topic }).sum({ n: 'next_offset' });
  return Number(row?.n ?? 0);
}
